// VirtualContention: on JDK 21+, after enough platform-thread contentions for the agent to trust
// HotSpot's timer of contended enters (docs/agent.md), virtual threads contend on lock, one at a
// time, each blocked by main for a measured while. A virtual thread's enter is timed on its
// carrier (it unmounts while blocked on JDK 24+); the agent counts virtual threads' events
// instead of recording them (docs/agent.md, "Virtual threads"), so these enters must be counted
// and must not stop its use of the timer. Prints "EXPECT virtual=no" on JDK 17-20.
// Compiled with --release 17: virtual threads through reflection.
import java.util.concurrent.locks.LockSupport;

public class VirtualContention {
    static final int WARM_CONTENTIONS = 40, CONTENTIONS = 3;
    static final Object lock = new Object(), warmLock = new Object();
    static final long[] heldNs = new long[CONTENTIONS], enterNs = new long[CONTENTIONS];

    static void awaitBlocked(Thread t) {
        while (t.getState() != Thread.State.BLOCKED) LockSupport.parkNanos(100_000);
    }

    static void awaitEnd(Thread t) {
        while (t.isAlive()) LockSupport.parkNanos(100_000); // join would be recorded
    }

    static Thread startVirtual(Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    public static void main(String[] args) throws Exception {
        if (Runtime.version().feature() < 21) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        // Wait for the agent to turn contention monitoring on (its walker thread, at start).
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (!mx.isThreadContentionMonitoringEnabled() && System.nanoTime() < deadline) LockSupport.parkNanos(1_000_000);
        for (int i = 0; i < WARM_CONTENTIONS; i++) {
            Thread b = new Thread(() -> { synchronized (warmLock) { } }, "orca-warm-" + i);
            synchronized (warmLock) {
                b.start();
                awaitBlocked(b);
            }
            awaitEnd(b);
        }
        for (int i = 0; i < CONTENTIONS; i++) {
            final int k = i;
            Thread v;
            synchronized (lock) {
                v = startVirtual(() -> {
                    long t0 = System.nanoTime();
                    synchronized (lock) { enterNs[k] = System.nanoTime() - t0; }
                });
                awaitBlocked(v);
                long t0 = System.nanoTime();
                LockSupport.parkNanos(5_000_000);
                heldNs[i] = System.nanoTime() - t0;
            }
            awaitEnd(v);
        }
        StringBuilder held = new StringBuilder(), enter = new StringBuilder();
        for (int i = 0; i < CONTENTIONS; i++) {
            held.append(i == 0 ? "" : ",").append(heldNs[i]);
            enter.append(i == 0 ? "" : ",").append(enterNs[i]);
        }
        System.out.printf("EXPECT virtual=yes lock=%08X contentions=%d contend.held.ns=%s contend.enter.ns=%s%n",
                System.identityHashCode(lock), CONTENTIONS, held, enter);
    }
}
