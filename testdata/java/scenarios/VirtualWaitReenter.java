// VirtualWaitReenter: on JDK 21+, virtual threads wait with a timeout on one monitor while others
// notifyAll and hold it a while, so the waiters take it back contended. On 24+ HotSpot posts a
// MonitorContendedEntered for that re-entry with no MonitorContendedEnter before it (a platform
// thread's re-entry posts neither): the agent must not write it (an Entered without its Enter
// cannot be placed). Prints "EXPECT virtual=no" on JDK 17-20.
// Compiled with --release 17: virtual threads through reflection.
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class VirtualWaitReenter {
    static final int THREADS = 12, ROUNDS = 150;
    static final Object mon = new Object();
    static final AtomicInteger waits = new AtomicInteger();

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
        Thread[] ts = new Thread[THREADS];
        for (int i = 0; i < THREADS; i++) {
            final boolean waiter = i % 2 == 0;
            ts[i] = startVirtual(() -> {
                for (int r = 0; r < ROUNDS; r++) {
                    synchronized (mon) {
                        if (waiter) {
                            try {
                                mon.wait(1);
                            } catch (InterruptedException e) {
                                throw new AssertionError(e);
                            }
                            waits.incrementAndGet();
                        } else {
                            mon.notifyAll();
                            long t0 = System.nanoTime();
                            while (System.nanoTime() - t0 < 20_000) {
                                Thread.onSpinWait(); // hold the monitor: the notified take it back contended
                            }
                        }
                    }
                }
            });
        }
        for (Thread t : ts) awaitEnd(t);
        System.out.printf("EXPECT virtual=yes waits=%d mon=%08X%n", waits.get(), System.identityHashCode(mon));
    }
}
