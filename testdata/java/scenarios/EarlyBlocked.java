// EarlyBlocked: the reproducer of issue 12, item 1 (a false deadlock). Four threads block on lock
// A at start-up, before the agent trusts HotSpot's timer of contended enters (docs/agent.md), so
// their Entered must come from the MonitorContendedEntered callback. Then 100 handshaked
// contentions on lock B let the agent trust the timer and switch that callback off; only then is
// A released. Before the fix the four lost their Entered (4 Enters, 0 Entered on A) and the
// report showed a deadlock and 16 s blocked where the program blocked ~4 s.
//
// Prints "EXPECT a=HASH early=H1,H2,H3,H4 early.enter.ns=N1,... held.ns=N b=HASH warm=120".
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class EarlyBlocked {
    static final int EARLY = 4, WARM = 100, AFTER = 20;
    static final Object a = new Object(), b = new Object();
    static final long[] enterNs = new long[EARLY];
    // timed[k]: early thread k took its t0, so a BLOCKED state after it is on a: one seen
    // before it was on something else (a thread blocked 1.8 ms before its t0 on JDK 25 at
    // load, and its enter then took less than main's hold).
    static final java.util.concurrent.atomic.AtomicIntegerArray timed = new java.util.concurrent.atomic.AtomicIntegerArray(EARLY);
    static final AtomicInteger passed = new AtomicInteger();
    static volatile int go;

    // contend makes n handshaked contentions on b: a helper blocks on b while main holds it.
    static void contend(int n) {
        passed.set(0);
        go = 0;
        Thread helper = new Thread(() -> {
            for (int j = 0; j < n; j++) {
                while (go <= j) LockSupport.parkNanos(20_000);
                synchronized (b) { }
                passed.incrementAndGet();
            }
        }, "orca-warm");
        helper.start();
        for (int j = 0; j < n; j++) {
            synchronized (b) {
                go = j + 1;
                awaitBlocked(helper);
            }
            while (passed.get() <= j) LockSupport.parkNanos(20_000);
        }
        while (helper.isAlive()) LockSupport.parkNanos(100_000); // join would be recorded
    }

    static void awaitBlocked(Thread t) {
        while (t.getState() != Thread.State.BLOCKED) LockSupport.parkNanos(50_000);
    }

    public static void main(String[] args) throws Exception {
        Thread[] early = new Thread[EARLY];
        long held;
        synchronized (a) {
            for (int i = 0; i < EARLY; i++) {
                final int k = i;
                early[i] = new Thread(() -> {
                    long t0 = System.nanoTime();
                    timed.set(k, 1);
                    synchronized (a) { enterNs[k] = System.nanoTime() - t0; }
                }, "orca-early-" + i);
                early[i].start();
            }
            for (int i = 0; i < EARLY; i++) {
                while (timed.get(i) == 0) LockSupport.parkNanos(50_000);
                awaitBlocked(early[i]);
            }
            long t0 = System.nanoTime();
            // The agent's walker turns contention monitoring on at start; wait for it so the
            // contentions on b are timed and the timer comes to be trusted.
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (!mx.isThreadContentionMonitoringEnabled() && System.nanoTime() < deadline) LockSupport.parkNanos(1_000_000);
            contend(WARM);
            LockSupport.parkNanos(300_000_000L); // a flush or so with the callback off
            held = System.nanoTime() - t0;
        }
        for (Thread t : early) while (t.isAlive()) LockSupport.parkNanos(100_000);
        // Nobody needs the callback any more: these are timed by HotSpot alone.
        contend(AFTER);
        StringBuilder hs = new StringBuilder(), ns = new StringBuilder();
        for (int i = 0; i < EARLY; i++) {
            hs.append(i == 0 ? "" : ",").append(String.format("%08X", System.identityHashCode(early[i])));
            ns.append(i == 0 ? "" : ",").append(enterNs[i]);
        }
        System.out.printf("EXPECT a=%08X b=%08X early=%s early.enter.ns=%s held.ns=%d warm=%d%n",
                System.identityHashCode(a), System.identityHashCode(b), hs, ns, held, WARM + AFTER);
    }
}
