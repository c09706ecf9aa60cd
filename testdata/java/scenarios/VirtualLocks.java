// VirtualLocks: issue 14 item 5. On JDK 21+, virtual threads with their own identity: a virtual
// holder keeps a monitor while CONTENDERS virtual threads block on it, and a ReentrantLock while
// CONTENDERS others park on it; SLEEPERS virtual threads sleep once; a virtual thread parks and a
// virtual thread unparks it, ROUNDS times; PINNED virtual threads sleep inside a class initializer
// (a native frame: pinned to the carrier on every JDK), and a platform thread blocks on a monitor
// a virtual thread holds. Each virtual holder of a monitor first waits on it for 1 ms: the monitor is
// then inflated with its owner's id (JDK 24+); a monitor that a virtual thread fast-locked and still
// holds while unmounted has an anonymous owner HotSpot itself cannot name (docs/agent.md). Prints "EXPECT virtual=no" on JDK 17-20. Compiled with --release 17:
// virtual threads through reflection.
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

public class VirtualLocks {
    static final int CONTENDERS = 20, SLEEPERS = 100, ROUNDS = 10;
    static final long TIMED_NS = 20_000_000;
    static final Object mon = new Object(), plmon = new Object();
    static final ReentrantLock rl = new ReentrantLock();
    static volatile boolean parkedGo, holding;

    static Thread startVirtual(String name, Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        if (name != null) builder = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class).invoke(builder, name);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    static void await(Thread t, Thread.State s) {
        while (t.getState() != s) LockSupport.parkNanos(50_000);
    }

    static void awaitEnd(Thread t) {
        while (t.isAlive()) LockSupport.parkNanos(100_000); // join would be recorded
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static void waitBriefly(Object o) {
        try {
            o.wait(1);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static long tid(Thread t) {
        try {
            return (Long) Thread.class.getMethod("threadId").invoke(t);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // A class initializer runs under a VM frame: a virtual thread that sleeps there is pinned.
    static class Pin0 { static { sleep(5); } static void touch() { } }
    static class Pin1 { static { sleep(5); } static void touch() { } }
    static class Pin2 { static { sleep(5); } static void touch() { } }
    static final int PINNED = 3;

    public static void main(String[] args) throws Exception {
        if (Runtime.version().feature() < 21) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        // A virtual holder keeps mon until every virtual contender is blocked on it.
        final Thread[] cs = new Thread[CONTENDERS];
        Thread mholder = startVirtual("orca-vmholder", () -> {
            synchronized (mon) {
                waitBriefly(mon);
                for (int i = 0; i < CONTENDERS; i++) {
                    try {
                        cs[i] = startVirtual(null, () -> { synchronized (mon) { } });
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
                for (Thread c : cs) await(c, Thread.State.BLOCKED);
                // HotSpot shows a contender BLOCKED before it posts MonitorContendedEnter, whose
                // callback reads the owner: hold on a little so the last one finds mon held.
                LockSupport.parkNanos(5_000_000);
            }
        });
        awaitEnd(mholder);
        for (Thread c : cs) awaitEnd(c);

        // A virtual holder keeps rl until every virtual contender is parked on it.
        final Thread[] rs = new Thread[CONTENDERS];
        Thread rholder = startVirtual("orca-vrholder", () -> {
            rl.lock();
            try {
                for (int i = 0; i < CONTENDERS; i++) {
                    try {
                        rs[i] = startVirtual(null, () -> { rl.lock(); rl.unlock(); });
                    } catch (Exception e) {
                        throw new AssertionError(e);
                    }
                }
                for (Thread r : rs) await(r, Thread.State.WAITING);
            } finally {
                rl.unlock();
            }
        });
        awaitEnd(rholder);
        for (Thread r : rs) awaitEnd(r);

        // Sleepers.
        Thread[] ss = new Thread[SLEEPERS];
        for (int i = 0; i < SLEEPERS; i++) ss[i] = startVirtual(null, () -> sleep(1));
        for (Thread s : ss) awaitEnd(s);

        // A virtual thread parks ROUNDS times, each ended by a virtual unparker.
        final Object blocker = new Object();
        Thread parker = startVirtual("orca-vparker", () -> {
            for (int i = 0; i < ROUNDS; i++) {
                while (!parkedGo) LockSupport.park(blocker);
                parkedGo = false;
            }
        });
        Thread unparker = startVirtual("orca-vunparker", () -> {
            for (int i = 0; i < ROUNDS; i++) {
                while (parker.getState() != Thread.State.WAITING || parkedGo) LockSupport.parkNanos(50_000);
                parkedGo = true;
                LockSupport.unpark(parker);
            }
        });
        awaitEnd(unparker);
        awaitEnd(parker);

        // A virtual thread's timed park that times out (its timeout in the ThreadPark).
        final Object timedBlocker = new Object();
        Thread timed = startVirtual("orca-vtimed", () -> LockSupport.parkNanos(timedBlocker, TIMED_NS));
        awaitEnd(timed);

        // Pinned: a sleep in a class initializer.
        Thread p0 = startVirtual("orca-vpinned-0", Pin0::touch);
        Thread p1 = startVirtual("orca-vpinned-1", Pin1::touch);
        Thread p2 = startVirtual("orca-vpinned-2", Pin2::touch);
        awaitEnd(p0);
        awaitEnd(p1);
        awaitEnd(p2);

        // A platform thread blocks on a monitor a virtual thread holds.
        final boolean[] release = new boolean[1];
        Thread pvowner = startVirtual("orca-vowner", () -> {
            synchronized (plmon) {
                waitBriefly(plmon);
                holding = true;
                while (!release[0]) LockSupport.parkNanos(100_000);
            }
        });
        while (!holding || pvowner.getState() != Thread.State.TIMED_WAITING) LockSupport.parkNanos(50_000);
        Thread pblocked = new Thread(() -> { synchronized (plmon) { } }, "orca-pblocked");
        pblocked.start();
        await(pblocked, Thread.State.BLOCKED);
        LockSupport.parkNanos(5_000_000); // its Enter callback reads the owner after BLOCKED shows (above)
        release[0] = true;
        awaitEnd(pblocked);
        awaitEnd(pvowner);

        System.out.printf("EXPECT virtual=yes contenders=%d sleepers=%d rounds=%d pinned=%d mon=%08X plmon=%08X blocker=%08X "
                + "mholder=%08X rholder=%08X parker=%08X unparker=%08X vowner=%08X pblocked=%08X parker.tid=%d "
                + "timed=%08X timed_blocker=%08X timed_ns=%d%n",
                CONTENDERS, SLEEPERS, ROUNDS, PINNED, System.identityHashCode(mon), System.identityHashCode(plmon),
                System.identityHashCode(blocker), System.identityHashCode(mholder), System.identityHashCode(rholder),
                System.identityHashCode(parker), System.identityHashCode(unparker), System.identityHashCode(pvowner),
                System.identityHashCode(pblocked), tid(parker), System.identityHashCode(timed),
                System.identityHashCode(timedBlocker), TIMED_NS);
    }
}
