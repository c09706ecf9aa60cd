// LockOrder (issue 36, item 2): lock-order inversions that never deadlock, and nestings that
// cannot. Each part runs its threads one after the other (never two nestings at once), and makes
// each nesting's second acquisition contended: a holder thread takes the second lock first and
// keeps it HOLD_MS, so the agent sees the enter and what the thread holds as it blocks.
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
import java.util.function.Consumer;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class LockOrder {
    static final int HOLD_MS = 100;
    static final Object a = new Object(), b = new Object(), c = new Object(), d = new Object(), g = new Object(),
            e = new Object(), f = new Object(), p = new Object(), q = new Object();

    // contended runs body in a thread named name while a holder thread holds the second lock for
    // HOLD_MS (hold takes it, runs its argument and sleeps; taken before body starts), and waits
    // for both.
    static void contended(String name, Consumer<Runnable> hold, Runnable body) throws InterruptedException {
        CountDownLatch taken = new CountDownLatch(1);
        Thread holder = new Thread(() -> hold.accept(taken::countDown), "holder-" + name);
        holder.start();
        taken.await();
        Thread t = new Thread(body, name);
        t.start();
        t.join();
        holder.join();
    }

    // monitor and locked hold a monitor or a j.u.c. lock for contended and bothOrders.
    static Consumer<Runnable> monitor(Object o) {
        return r -> {
            synchronized (o) {
                r.run();
                sleep(HOLD_MS);
            }
        };
    }

    static Consumer<Runnable> locked(Lock l) {
        return r -> {
            l.lock();
            try {
                r.run();
                sleep(HOLD_MS);
            } finally {
                l.unlock();
            }
        };
    }

    // bothOrders runs, in one thread named name, first (p then q) and later second (q then p),
    // each one's second lock contended: holdQ holds q from before the thread starts, holdP holds p
    // once first is done.
    static void bothOrders(String name, Runnable first, Runnable second, Consumer<Runnable> holdQ, Consumer<Runnable> holdP)
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
        Thread hq = new Thread(() -> holdQ.accept(qTaken::countDown), "holder-" + name + "-q");
        Thread hp = new Thread(() -> holdP.accept(held::countDown), "holder-" + name + "-p");
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
