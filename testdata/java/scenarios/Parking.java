// Parking: java.util.concurrent blocking with exact counts and known holders (issue 14). Each
// part runs in threads of its own, named after it, so a test can select its parks by thread. The
// last line, "EXPECT key=value ...", gives the counts and the identity hashes:
//
//   rl-waiter-I      parks once on `lock` (ReentrantLock$NonfairSync) held by rl-holder-I, I < ROUNDS
//   rw-reader        parks once on `rw`'s sync, its read lock blocked by rw-writer's write lock
//   cond-waiter      parks AWAITS times on `cond` (AQS$ConditionObject), each ended by cond-signaller
//                    (and maybe on cl's sync, which the signaller takes to look at it)
//   latch-waiter     parks once on the CountDownLatch's sync, ended by latch-opener
//   future-getter    parks once on the FutureTask, ended by future-runner
//   queue-taker      parks once on the LinkedBlockingQueue's notEmpty condition, ended by queue-putter
//   nanos-parker     parks once for 30 ms on a Parking$Marker, nobody unparks it: a timeout
//   intr-parker      parks once on another Parking$Marker until main interrupts it
//   pool-worker-I    a fixed pool's two (daemon) workers, idle in ThreadPoolExecutor.getTask at the end
//   ForkJoinPool-1-worker-*  idle in ForkJoinPool.awaitWork after a CompletableFuture
//   dl-a, dl-b       (daemons) a deadlock through a ReentrantLock and a monitor, there at the end:
//                    dl-a holds dlLock and blocks on monitor dlMonitor, which dl-b holds while it
//                    parks in dlLock.lock()
//
// Every releaser waits until its waiter is parked (Thread.getState) and then HOLD_MS more before
// releasing, so each waiter is parked for at least HOLD_MS. The releasers wait with Thread.sleep
// and Thread.getState, neither of which parks.
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.FutureTask;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class Parking {
    static final int ROUNDS = 5, AWAITS = 3, HOLD_MS = 20, NANOS_MS = 30;

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    // parked waits until t blocks in a park (WAITING or TIMED_WAITING), then HOLD_MS more.
    static void parked(Thread t) {
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) sleep(1);
        sleep(HOLD_MS);
    }

    static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.start();
        return t;
    }

    static void join(Thread... ts) throws InterruptedException {
        for (Thread t : ts) t.join();
    }

    static final class Marker {}

    static volatile Thread waiter;   // the thread a holder waits to see parked
    // held: the holder's lock() has returned. Not isLocked() or isWriteLocked(): they read the
    // state, which the acquire sets before it sets the owner, so a waiter started then could park
    // while the lock has no owner yet (CI, JDK 17 under load: a park naming owner 0).
    static volatile boolean held;
    static volatile int sink;

    public static void main(String[] args) throws Exception {
        StringBuilder out = new StringBuilder("EXPECT rounds=" + ROUNDS + " awaits=" + AWAITS + " hold_ms=" + HOLD_MS);

        // ReentrantLock: ROUNDS contentions, each with its own holder and waiter.
        ReentrantLock lock = new ReentrantLock();
        StringBuilder holders = new StringBuilder(), waiters = new StringBuilder();
        for (int i = 0; i < ROUNDS; i++) {
            waiter = null;
            held = false;
            Thread h = start("rl-holder-" + i, () -> {
                lock.lock();
                held = true;
                try {
                    while (waiter == null) sleep(1);
                    parked(waiter);
                } finally {
                    lock.unlock();
                }
            });
            while (!held) sleep(1);
            Thread w = start("rl-waiter-" + i, () -> {
                lock.lock();
                lock.unlock();
            });
            waiter = w;
            join(h, w);
            holders.append(i > 0 ? "," : "").append(hex(h));
            waiters.append(i > 0 ? "," : "").append(hex(w));
        }
        out.append(" lock=").append(hex(lock)).append(" rl_holders=").append(holders).append(" rl_waiters=").append(waiters);

        // A read lock blocked by a writer.
        ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
        waiter = null;
        held = false;
        Thread writer = start("rw-writer", () -> {
            rw.writeLock().lock();
            held = true;
            try {
                while (waiter == null) sleep(1);
                parked(waiter);
            } finally {
                rw.writeLock().unlock();
            }
        });
        while (!held) sleep(1);
        Thread reader = start("rw-reader", () -> {
            rw.readLock().lock();
            rw.readLock().unlock();
        });
        waiter = reader;
        join(writer, reader);
        out.append(" rw=").append(hex(rw)).append(" rw_writer=").append(hex(writer)).append(" rw_reader=").append(hex(reader));

        // Condition awaits, each ended by the signaller.
        ReentrantLock cl = new ReentrantLock();
        Condition cond = cl.newCondition();
        boolean[] flag = {false};
        Thread cw = start("cond-waiter", () -> {
            for (int i = 0; i < AWAITS; i++) {
                cl.lock();
                try {
                    while (!flag[0]) cond.await();
                    flag[0] = false;
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                } finally {
                    cl.unlock();
                }
            }
        });
        Thread cs = start("cond-signaller", () -> {
            for (int i = 0; i < AWAITS; i++) {
                while (true) {   // until the waiter awaits
                    cl.lock();
                    boolean w = cl.hasWaiters(cond);
                    cl.unlock();
                    if (w) break;
                    sleep(1);
                }
                parked(cw);   // parked in the await (it holds no lock to wait for), then HOLD_MS
                cl.lock();
                try {
                    flag[0] = true;
                    cond.signal();
                } finally {
                    cl.unlock();
                }
                while (true) {   // until the waiter took the flag
                    cl.lock();
                    boolean taken = !flag[0];
                    cl.unlock();
                    if (taken) break;
                    sleep(1);
                }
            }
        });
        join(cw, cs);
        out.append(" cond=").append(hex(cond)).append(" cond_waiter=").append(hex(cw)).append(" cond_signaller=").append(hex(cs));

        // A latch.
        CountDownLatch latch = new CountDownLatch(1);
        Thread lw = start("latch-waiter", () -> {
            try {
                latch.await();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        Thread lo = start("latch-opener", () -> {
            parked(lw);
            latch.countDown();
        });
        join(lw, lo);
        out.append(" latch=").append(hex(latch)).append(" latch_waiter=").append(hex(lw)).append(" latch_opener=").append(hex(lo));

        // A future.
        FutureTask<Integer> future = new FutureTask<>(() -> 42);
        Thread fg = start("future-getter", () -> {
            try {
                future.get();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        Thread fr = start("future-runner", () -> {
            parked(fg);
            future.run();
        });
        join(fg, fr);
        out.append(" future=").append(hex(future)).append(" future_getter=").append(hex(fg)).append(" future_runner=").append(hex(fr));

        // A queue.
        LinkedBlockingQueue<Integer> queue = new LinkedBlockingQueue<>();
        Thread qt = start("queue-taker", () -> {
            try {
                queue.take();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        Thread qp = start("queue-putter", () -> {
            parked(qt);
            queue.add(1);
        });
        join(qt, qp);
        out.append(" queue=").append(hex(queue)).append(" queue_taker=").append(hex(qt)).append(" queue_putter=").append(hex(qp));

        // A timed park that times out.
        Marker marker = new Marker();
        Thread np = start("nanos-parker", () -> {
            long end = System.nanoTime() + NANOS_MS * 1_000_000L;
            LockSupport.parkNanos(marker, NANOS_MS * 1_000_000L);
            if (System.nanoTime() < end) System.out.println("nanos-parker woke early");
        });
        join(np);
        Marker marker2 = new Marker();
        Thread ip = start("intr-parker", () -> LockSupport.park(marker2));
        parked(ip);
        ip.interrupt();
        join(ip);
        out.append(" intr_parker=").append(hex(ip)).append(" marker2=").append(hex(marker2));
        out.append(" marker=").append(hex(marker)).append(" nanos_parker=").append(hex(np)).append(" nanos_ms=").append(NANOS_MS);

        // Idle pool workers: still parked waiting for work when the program ends (daemons).
        java.util.List<Thread> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "pool-worker-" + workers.size());
            t.setDaemon(true);
            workers.add(t);
            return t;
        });
        pool.submit(() -> 1).get();
        pool.submit(() -> 2).get();
        ForkJoinPool fjp = new ForkJoinPool(2, p -> {
            ForkJoinWorkerThread t = ForkJoinPool.defaultForkJoinWorkerThreadFactory.newThread(p);
            workers.add(t);
            return t;
        }, null, false);
        CompletableFuture.supplyAsync(() -> 3, fjp).join();
        for (Thread w : workers) parked(w);   // each parks for work

        // A deadlock through a ReentrantLock and a monitor.
        ReentrantLock dlLock = new ReentrantLock();
        Object dlMonitor = new Object();
        boolean[] held = {false, false};   // dl-a holds dlLock, dl-b holds dlMonitor (read under dlMonitor or after)
        Thread da = new Thread(() -> {
            dlLock.lock();
            synchronized (held) { held[0] = true; }
            while (true) { synchronized (held) { if (held[1]) break; } sleep(1); }
            synchronized (dlMonitor) { sink = 1; }
        }, "dl-a");
        Thread db = new Thread(() -> {
            synchronized (dlMonitor) {
                synchronized (held) { held[1] = true; }
                while (true) { synchronized (held) { if (held[0]) break; } sleep(1); }
                dlLock.lock();
            }
        }, "dl-b");
        da.setDaemon(true);
        db.setDaemon(true);
        da.start();
        db.start();
        while (da.getState() != Thread.State.BLOCKED || db.getState() != Thread.State.WAITING) sleep(1);
        sleep(HOLD_MS);
        out.append(" dl_a=").append(hex(da)).append(" dl_b=").append(hex(db)).append(" dl_monitor=").append(hex(dlMonitor));
        System.out.println(out);
    }
}
