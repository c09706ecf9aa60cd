// Cycles: two deadlocks that never end. "mixA" holds monitor M1 and calls L1.lock(); "mixB" holds
// ReentrantLock L1 and enters M1 (a monitor + j.u.c. cycle of two). "cyc1" holds monitor M2 and
// calls L2.lock(); "cyc2" holds L2 and enters M3; "cyc3" holds M3 and enters M2 (three threads).
// main waits until all five are blocked, sleeps SETTLE_MS and exits (System.exit).
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;
public class Cycles {
    static final int SETTLE_MS = 300;
    static final Object M1 = new Object(), M2 = new Object(), M3 = new Object();
    static final ReentrantLock L1 = new ReentrantLock(), L2 = new ReentrantLock();
    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }
    public static void main(String[] a) throws Exception {
        CountDownLatch held2 = new CountDownLatch(2), held3 = new CountDownLatch(3);
        Thread mixA = new Thread(() -> { synchronized (M1) { held2.countDown(); await(held2); L1.lock(); } }, "mixA");
        Thread mixB = new Thread(() -> { L1.lock(); held2.countDown(); await(held2); synchronized (M1) { } }, "mixB");
        Thread cyc1 = new Thread(() -> { synchronized (M2) { held3.countDown(); await(held3); L2.lock(); } }, "cyc1");
        Thread cyc2 = new Thread(() -> { L2.lock(); held3.countDown(); await(held3); synchronized (M3) { } }, "cyc2");
        Thread cyc3 = new Thread(() -> { synchronized (M3) { held3.countDown(); await(held3); synchronized (M2) { } } }, "cyc3");
        Thread[] all = {mixA, mixB, cyc1, cyc2, cyc3};
        for (Thread t : all) t.start();
        for (Thread t : all) while (t.getState() != Thread.State.BLOCKED && t.getState() != Thread.State.WAITING) Thread.onSpinWait();
        Thread.sleep(SETTLE_MS);
        StringBuilder sb = new StringBuilder("EXPECT M1=" + hex(M1) + " M2=" + hex(M2) + " M3=" + hex(M3) + " L1=" + hex(L1) + " L2=" + hex(L2));
        for (Thread t : all) sb.append(" " + t.getName() + "=" + hex(t));
        System.out.println(sb); System.out.flush();
        System.exit(0);
    }
    static void await(CountDownLatch l) { try { l.await(); } catch (InterruptedException e) { throw new AssertionError(e); } }
}
