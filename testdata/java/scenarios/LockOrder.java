// LockOrder (issue 36, item 2): lock-order inversions that never deadlock, and nestings that
// cannot. Each part runs its threads one after the other (never two nestings at once), and makes
// each nesting's second acquisition contended: a holder thread takes the second lock first and
// keeps it HOLD_MS, and at least until the nesting thread blocks on it (BLOCKED on a monitor,
// parked on the lock's synchronizer; at most WAIT_MS) and MIN_MS more, so the agent sees the enter
// and what the thread holds as it blocks, however late a loaded machine runs the nesting thread (a
// holder that only slept HOLD_MS from before the thread started was gone, once, by the time it
// came: TestHeldNotBlocked on 17, 18 contentions of 20). A thread that comes in time blocks until
// HOLD_MS after the lock was taken, as before.
//
//   inv-1, inv-2       inv-1 takes a in outerA, then b in innerB; later inv-2 takes b in outerB,
//                      then a in innerA: the inversion, one potential deadlock (a -> b by inv-1,
//                      b -> a by inv-2)
//   gate-1, gate-2     the same inversion over c and d, each inside synchronized (g): the gate
//                      lock held across both makes it safe, none
//   fixed-1, fixed-2   e then f, both threads: a fixed order, none
//   alone              p then q, later q then p, one thread: none
//   fresh-1, fresh-2   a new Object x then a new Object y, each thread its own (two plain
//                      Objects nested in a fixed order): none, and no self-loop of Object
//
// With the argument juc, the same over java.util.concurrent locks (with orca record --lock-order
// the agent keeps the locks each thread owns; the second acquisition of a nesting parks):
//
//   jinv-1, jinv-2     ReentrantLocks: jinv-1 takes ja in outerJA (lock), then jb in innerJB;
//                      jinv-2 takes jb in outerJB (tryLock), then ja in innerJA: one potential
//                      deadlock, j.u.c. -> j.u.c.
//   mix-1, mix-2       mix-1 holds the monitor ma (outerMA) and wants the ReentrantLock jm
//                      (innerJM); mix-2 holds jm (outerJM, lockInterruptibly) and wants ma
//                      (innerMA): one potential deadlock, monitor -> j.u.c. -> monitor
//   jgate-1, jgate-2   jc then jd, and jd then jc, each inside the ReentrantLock jg: none
//   jalone             jp then jq, later jq then jp, one thread: none
//   rr-1, rr-2         rr-1 holds rw's read lock and wants the monitor mr; rr-2 holds mr and
//                      wants rw's read lock (a holder has its write lock meanwhile): two readers
//                      never wait for each other, none
//
// main prints the locks' identity hashes (with juc also the j.u.c. locks': their synchronizers',
// the objects a park names, read through reflection, which needs --add-opens
// java.base/java.util.concurrent.locks=ALL-UNNAMED):
//
//   EXPECT a=HASH b=HASH c=HASH d=HASH g=HASH e=HASH f=HASH p=HASH q=HASH
//   EXPECT a=HASH ... q=HASH ja=HASH jb=HASH ma=HASH jm=HASH jc=HASH jd=HASH jg=HASH jp=HASH jq=HASH
//          mr=HASH rw=HASH (juc, one line)
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class LockOrder {
    static final int HOLD_MS = 100, MIN_MS = 50, WAIT_MS = 10_000;
    static final Object a = new Object(), b = new Object(), c = new Object(), d = new Object(), g = new Object(),
            e = new Object(), f = new Object(), p = new Object(), q = new Object();

    // Hold takes a lock, runs taken, keeps the lock HOLD_MS and at least until the thread waiter
    // blocks on it (at most WAIT_MS) and MIN_MS more, and lets it go.
    interface Hold {
        void hold(Runnable taken, Thread waiter);
    }

    // contended runs body in a thread named name while a holder thread holds the second lock (taken
    // before body starts, kept HOLD_MS and until body's thread blocks on it and MIN_MS more), and
    // waits for both.
    static void contended(String name, Hold hold, Runnable body) throws InterruptedException {
        CountDownLatch taken = new CountDownLatch(1);
        Thread t = new Thread(body, name);
        Thread holder = new Thread(() -> hold.hold(taken::countDown, t), "holder-" + name);
        holder.start();
        taken.await();
        t.start();
        t.join();
        holder.join();
    }

    // monitor and locked hold a monitor or a j.u.c. lock for contended and bothOrders.
    static Hold monitor(Object o) {
        return (r, waiter) -> {
            synchronized (o) {
                long taken = System.nanoTime();
                r.run();
                awaitBlocked(waiter, () -> waiter.getState() == Thread.State.BLOCKED);
                holdOn(taken);
            }
        };
    }

    static Hold locked(Lock l) {
        return (r, waiter) -> {
            Object sync = sync(l);
            l.lock();
            try {
                long taken = System.nanoTime();
                r.run();
                awaitBlocked(waiter, () -> waiter.getState() == Thread.State.WAITING && LockSupport.getBlocker(waiter) == sync);
                holdOn(taken);
            } finally {
                l.unlock();
            }
        };
    }

    // holdOn sleeps until HOLD_MS after taken (System.nanoTime), and MIN_MS at least.
    static void holdOn(long taken) {
        sleep(Math.max(HOLD_MS - (System.nanoTime() - taken) / 1_000_000L, MIN_MS));
    }

    // awaitBlocked polls, every millisecond for at most WAIT_MS, until blocked says waiter blocks on
    // the lock held (a monitor: BLOCKED, the only monitor it can wait for then; a j.u.c. lock: parked
    // in its acquire, LockSupport's blocker the lock's synchronizer, not another park of it).
    static void awaitBlocked(Thread waiter, java.util.function.BooleanSupplier blocked) {
        for (long end = System.nanoTime() + WAIT_MS * 1_000_000L; !blocked.getAsBoolean() && System.nanoTime() < end; ) {
            sleep(1);
        }
    }

    // sync returns a j.u.c. lock's synchronizer (its field sync: a ReentrantLock's, a
    // ReentrantReadWriteLock's read or write lock's), the blocker of a park in its acquire.
    static Object sync(Lock l) {
        try {
            java.lang.reflect.Field f = l.getClass().getDeclaredField("sync");
            f.setAccessible(true);
            return f.get(l);
        } catch (ReflectiveOperationException x) {
            throw new IllegalStateException(x);
        }
    }

    // bothOrders runs, in one thread named name, first (p then q) and later second (q then p),
    // each one's second lock contended: holdQ holds q from before the thread starts, holdP holds p
    // once first is done (each HOLD_MS, and until the thread blocks on it and MIN_MS more).
    static void bothOrders(String name, Runnable first, Runnable second, Hold holdQ, Hold holdP)
            throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1), held = new CountDownLatch(1), qTaken = new CountDownLatch(1);
        Thread alone = new Thread(() -> {
            first.run();
            done.countDown();
            try {
                held.await();
            } catch (InterruptedException x) {
                return;
            }
            second.run();
        }, name);
        Thread hq = new Thread(() -> holdQ.hold(qTaken::countDown, alone), "holder-" + name + "-q");
        Thread hp = new Thread(() -> holdP.hold(held::countDown, alone), "holder-" + name + "-p");
        hq.start();
        qTaken.await();
        alone.start();
        done.await();
        hq.join();
        hp.start();
        alone.join();
        hp.join();
    }

    static final ReentrantLock ja = new ReentrantLock(), jb = new ReentrantLock(), jm = new ReentrantLock(),
            jc = new ReentrantLock(), jd = new ReentrantLock(), jg = new ReentrantLock(), jp = new ReentrantLock(),
            jq = new ReentrantLock();
    static final Object ma = new Object(), mr = new Object();
    static final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();

    static void innerJB() {
        jb.lock();
        jb.unlock();
    }

    static void outerJA() {
        ja.lock();
        try {
            innerJB();
        } finally {
            ja.unlock();
        }
    }

    static void innerJA() {
        ja.lock();
        ja.unlock();
    }

    static void outerJB() {
        if (!jb.tryLock()) throw new IllegalStateException("jb is free");
        try {
            innerJA();
        } finally {
            jb.unlock();
        }
    }

    static void innerJM() {
        jm.lock();
        jm.unlock();
    }

    static void outerMA() {
        synchronized (ma) {
            innerJM();
        }
    }

    static void innerMA() {
        synchronized (ma) {
        }
    }

    static void outerJM() {
        try {
            jm.lockInterruptibly();
        } catch (InterruptedException x) {
            return;
        }
        try {
            innerMA();
        } finally {
            jm.unlock();
        }
    }

    static void nestJ(Lock first, Lock second) {
        first.lock();
        try {
            second.lock();
            second.unlock();
        } finally {
            first.unlock();
        }
    }

    static void gatedJ(Lock first, Lock second) {
        jg.lock();
        try {
            nestJ(first, second);
        } finally {
            jg.unlock();
        }
    }

    static void readThenMonitor() {
        rw.readLock().lock();
        try {
            synchronized (mr) {
            }
        } finally {
            rw.readLock().unlock();
        }
    }

    static void monitorThenRead() {
        synchronized (mr) {
            rw.readLock().lock();
            rw.readLock().unlock();
        }
    }

    static int syncHash(Object lock) {
        try {
            java.lang.reflect.Field f = lock.getClass().getDeclaredField("sync");
            f.setAccessible(true);
            return System.identityHashCode(f.get(lock));
        } catch (ReflectiveOperationException x) {
            throw new IllegalStateException(x);
        }
    }

    static void sleep(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException x) { Thread.currentThread().interrupt(); }
    }

    static void innerB() {
        synchronized (b) {
        }
    }

    static void outerA() {
        synchronized (a) {
            innerB();
        }
    }

    static void innerA() {
        synchronized (a) {
        }
    }

    static void outerB() {
        synchronized (b) {
            innerA();
        }
    }

    static void nest(Object first, Object second) {
        synchronized (first) {
            synchronized (second) {
            }
        }
    }

    static void gated(Object first, Object second) {
        synchronized (g) {
            nest(first, second);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        contended("inv-1", monitor(b), LockOrder::outerA);
        contended("inv-2", monitor(a), LockOrder::outerB);
        contended("gate-1", monitor(d), () -> gated(c, d));
        contended("gate-2", monitor(c), () -> gated(d, c));
        contended("fixed-1", monitor(f), () -> nest(e, f));
        contended("fixed-2", monitor(f), () -> nest(e, f));
        bothOrders("alone", () -> nest(p, q), () -> nest(q, p), monitor(q), monitor(p));
        for (String name : new String[] {"fresh-1", "fresh-2"}) {
            Object x = new Object(), y = new Object();
            contended(name, monitor(y), () -> nest(x, y));
        }
        boolean juc = args.length > 0 && args[0].equals("juc");
        if (juc) juc();
        System.out.printf("EXPECT a=%08X b=%08X c=%08X d=%08X g=%08X e=%08X f=%08X p=%08X q=%08X", System.identityHashCode(a),
                System.identityHashCode(b), System.identityHashCode(c), System.identityHashCode(d), System.identityHashCode(g),
                System.identityHashCode(e), System.identityHashCode(f), System.identityHashCode(p), System.identityHashCode(q));
        if (juc) {
            System.out.printf(" ja=%08X jb=%08X ma=%08X jm=%08X jc=%08X jd=%08X jg=%08X jp=%08X jq=%08X mr=%08X rw=%08X",
                    syncHash(ja), syncHash(jb), System.identityHashCode(ma), syncHash(jm), syncHash(jc), syncHash(jd),
                    syncHash(jg), syncHash(jp), syncHash(jq), System.identityHashCode(mr), syncHash(rw));
        }
        System.out.println();
    }

    static void juc() throws InterruptedException {
        contended("jinv-1", locked(jb), LockOrder::outerJA);
        contended("jinv-2", locked(ja), LockOrder::outerJB);
        contended("mix-1", locked(jm), LockOrder::outerMA);
        contended("mix-2", monitor(ma), LockOrder::outerJM);
        contended("jgate-1", locked(jd), () -> gatedJ(jc, jd));
        contended("jgate-2", locked(jc), () -> gatedJ(jd, jc));
        contended("rr-1", monitor(mr), LockOrder::readThenMonitor);
        contended("rr-2", locked(rw.writeLock()), LockOrder::monitorThenRead);
        bothOrders("jalone", () -> nestJ(jp, jq), () -> nestJ(jq, jp), locked(jq), locked(jp));
    }
}
