// VirtualMix: issue 12, item 5. On JDK 21+, 10 000 virtual threads sleep, 100 wait (each notified
// by another virtual thread once it waits), 50 contend among themselves and one on a platform
// thread's lock, while platform threads sleep, wait/notify and contend with exact counts, and one
// platform thread blocks on a lock owned by a virtual thread. The agent records virtual threads'
// events with their own identity (issue 14 item 5; before, they went to the carrier's state and
// paired wrongly, then were only counted); the platform threads' events must stay exact and
// correctly paired.
// Prints "EXPECT virtual=no" on JDK 17-20. Compiled with --release 17: virtual threads through
// reflection.
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class VirtualMix {
    static final int SLEEPERS = 10_000, WAITERS = 100, CONTENDERS = 50, PLATFORM_ROUNDS = 10;
    static final Object pmon = new Object(), plock = new Object(), vlock = new Object(), mlock = new Object(),
            vvlock = new Object();
    static final AtomicInteger done = new AtomicInteger();
    static final AtomicInteger vthreads = new AtomicInteger();

    static Thread startVirtual(Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        vthreads.incrementAndGet();
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    static void await(Thread t, Thread.State s) {
        while (t.getState() != s) LockSupport.parkNanos(50_000);
    }

    static void awaitEnd(Thread t) {
        while (t.isAlive()) LockSupport.parkNanos(100_000); // join would be recorded
    }

    static void sleep1() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    public static void main(String[] args) throws Exception {
        if (Runtime.version().feature() < 21) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        // Virtual sleepers, in the background of everything else.
        for (int i = 0; i < SLEEPERS; i++) startVirtual(() -> { sleep1(); done.incrementAndGet(); });

        // Platform: a sleeper, a waiter notified by main, contentions on plock.
        Thread psleeper = new Thread(() -> { for (int i = 0; i < PLATFORM_ROUNDS; i++) sleep1(); }, "orca-psleeper");
        psleeper.start();
        final boolean[] go = new boolean[1];
        Thread pwaiter = new Thread(() -> {
            for (int i = 0; i < PLATFORM_ROUNDS; i++) {
                synchronized (pmon) {
                    while (!go[0]) {
                        try {
                            pmon.wait();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    }
                    go[0] = false;
                }
            }
        }, "orca-pwaiter");
        pwaiter.start();
        for (int i = 0; i < PLATFORM_ROUNDS; i++) {
            await(pwaiter, Thread.State.WAITING);
            synchronized (pmon) {
                go[0] = true;
                pmon.notify();
            }
            while (true) {
                synchronized (pmon) { if (!go[0]) break; }
                LockSupport.parkNanos(50_000);
            }
        }
        awaitEnd(pwaiter);
        for (int i = 0; i < PLATFORM_ROUNDS; i++) {
            Thread c = new Thread(() -> { synchronized (plock) { } }, "orca-pcontender-" + i);
            synchronized (plock) {
                c.start();
                await(c, Thread.State.BLOCKED);
            }
            awaitEnd(c);
        }
        awaitEnd(psleeper);

        // Virtual waiters, each notified by a virtual notifier once it waits.
        Object[] mons = new Object[WAITERS];
        Thread[] waiters = new Thread[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            final Object m = mons[i] = new Object();
            waiters[i] = startVirtual(() -> {
                synchronized (m) {
                    try {
                        m.wait();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            });
        }
        Thread notifier = startVirtual(() -> {
            for (int i = 0; i < WAITERS; i++) {
                await(waiters[i], Thread.State.WAITING);
                synchronized (mons[i]) { mons[i].notify(); }
            }
        });
        awaitEnd(notifier);
        for (Thread w : waiters) awaitEnd(w);

        // Virtual threads contend among themselves: a virtual holder keeps vvlock until all 50
        // are blocked on it.
        Thread holder = startVirtual(() -> {
            Thread[] cs = new Thread[CONTENDERS];
            synchronized (vvlock) {
                for (int i = 0; i < CONTENDERS; i++) {
                    try {
                        cs[i] = startVirtual(() -> { synchronized (vvlock) { } });
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
                for (Thread c : cs) await(c, Thread.State.BLOCKED);
            }
            for (Thread c : cs) awaitEnd(c);
        });
        awaitEnd(holder);

        // A virtual thread blocks on main's lock; a platform thread on a virtual thread's lock.
        Thread vblocked;
        synchronized (mlock) {
            vblocked = startVirtual(() -> { synchronized (mlock) { } });
            await(vblocked, Thread.State.BLOCKED);
        }
        awaitEnd(vblocked);
        final boolean[] release = new boolean[1];
        Thread vowner = startVirtual(() -> {
            synchronized (vlock) {
                while (!release[0]) LockSupport.parkNanos(100_000);
            }
        });
        while (vowner.getState() != Thread.State.TIMED_WAITING) LockSupport.parkNanos(50_000);
        Thread pblocked = new Thread(() -> { synchronized (vlock) { } }, "orca-pblocked");
        pblocked.start();
        await(pblocked, Thread.State.BLOCKED);
        release[0] = true;
        awaitEnd(pblocked);
        awaitEnd(vowner);

        while (done.get() < SLEEPERS) LockSupport.parkNanos(1_000_000);
        System.out.printf("EXPECT virtual=yes vthreads=%d sleepers=%d waiters=%d contenders=%d rounds=%d "
                + "main=%08X pmon=%08X plock=%08X vlock=%08X mlock=%08X vvlock=%08X psleeper=%08X pwaiter=%08X pblocked=%08X "
                + "vholder=%08X vowner=%08X%n",
                vthreads.get(), SLEEPERS, WAITERS, CONTENDERS, PLATFORM_ROUNDS,
                System.identityHashCode(Thread.currentThread()), System.identityHashCode(pmon),
                System.identityHashCode(plock), System.identityHashCode(vlock), System.identityHashCode(mlock),
                System.identityHashCode(vvlock), System.identityHashCode(psleeper), System.identityHashCode(pwaiter),
                System.identityHashCode(pblocked), System.identityHashCode(holder), System.identityHashCode(vowner));
    }
}
