// ManyOwners: issue 12, item 9. Starts N threads (args[0], default 400) that stay alive together,
// each holding its own lock; then, for the first and the last one started, a contender blocks on
// that thread's lock, so the recorded MonitorContendedEnter names its owner. The agent's table of
// live threads (agent/owner.c) must hold them all, or, past its limit, count the threads it could
// not register (.info owner_table_full) and warn, instead of silently writing owner 00000000.
//
// Prints "EXPECT threads=N lock.first=HASH owner.first=HASH lock.last=HASH owner.last=HASH".
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class ManyOwners {
    static volatile boolean release;
    static final AtomicInteger holding = new AtomicInteger();

    static void awaitBlocked(Thread t) {
        while (t.getState() != Thread.State.BLOCKED) LockSupport.parkNanos(50_000);
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        Object[] locks = new Object[n];
        Thread[] holders = new Thread[n];
        for (int i = 0; i < n; i++) {
            final Object l = locks[i] = new Object();
            holders[i] = new Thread(() -> {
                synchronized (l) {
                    holding.incrementAndGet();
                    while (!release) LockSupport.park();
                }
            }, "orca-holder-" + i);
            holders[i].setDaemon(true);
            holders[i].start();
        }
        while (holding.get() < n) LockSupport.parkNanos(1_000_000);
        for (int k : new int[] {0, n - 1}) {
            final Object l = locks[k];
            Thread c = new Thread(() -> { synchronized (l) { } }, "orca-contender-" + k);
            c.start();
            awaitBlocked(c);
        }
        // HotSpot makes a contender BLOCKED before it posts MonitorContendedEnter, so the agent
        // may still be reading the owner when the state shows: releasing at once let the holders
        // leave under its read (JDK 25: the anonymous owner is looked up on the holders' lock
        // stacks, and half the runs found them gone, owner 00000000).
        Thread.sleep(300);
        release = true;
        for (Thread t : holders) LockSupport.unpark(t);
        for (Thread t : holders) while (t.isAlive()) LockSupport.parkNanos(100_000);
        System.out.printf("EXPECT threads=%d lock.first=%08X owner.first=%08X lock.last=%08X owner.last=%08X%n", n,
                System.identityHashCode(locks[0]), System.identityHashCode(holders[0]),
                System.identityHashCode(locks[n - 1]), System.identityHashCode(holders[n - 1]));
    }
}
