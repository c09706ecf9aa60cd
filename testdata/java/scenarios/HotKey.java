// HotKey: ConcurrentHashMap.computeIfAbsent on one key whose function takes COMPUTE_MS: the
// computing thread holds the bin's ReservationNode monitor; WAITERS others call computeIfAbsent
// on the same key meanwhile: WAITERS contended enters on that node, owner "computer".
// Then a synchronized static method held SLEEP_MS by "statHolder": STAT_WAITERS threads block on
// the class object.
import java.util.concurrent.*;
public class HotKey {
    static final int COMPUTE_MS = 300, WAITERS = 3, SLEEP_MS = 200, STAT_WAITERS = 2;
    static final ConcurrentHashMap<String, Integer> map = new ConcurrentHashMap<>();
    static volatile boolean inCompute, inStatic;
    static synchronized void stat(boolean sleep) throws InterruptedException { if (sleep) { inStatic = true; Thread.sleep(SLEEP_MS); } }
    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }
    static boolean allBlocked(Thread[] ts) { for (Thread t : ts) if (t.getState() != Thread.State.BLOCKED) return false; return true; }
    public static void main(String[] a) throws Exception {
        Thread computer = new Thread(() -> map.computeIfAbsent("hot", k -> {
            inCompute = true;
            try { Thread.sleep(COMPUTE_MS); } catch (InterruptedException e) { throw new AssertionError(e); }
            return 1; }), "computer");
        computer.start();
        while (!inCompute) Thread.onSpinWait();
        Thread[] w = new Thread[WAITERS];
        for (int i = 0; i < WAITERS; i++) { w[i] = new Thread(() -> map.computeIfAbsent("hot", k -> 2), "chmWaiter-" + i); w[i].start(); }
        computer.join(); for (Thread t : w) t.join();
        Thread sh = new Thread(() -> { try { stat(true); } catch (InterruptedException e) { throw new AssertionError(e); } }, "statHolder");
        sh.start();
        while (!inStatic) Thread.onSpinWait();
        Thread[] s = new Thread[STAT_WAITERS];
        for (int i = 0; i < STAT_WAITERS; i++) { s[i] = new Thread(() -> { try { stat(false); } catch (InterruptedException e) { throw new AssertionError(e); } }, "statWaiter-" + i); s[i].start(); }
        sh.join(); for (Thread t : s) t.join();
        System.out.println("EXPECT computer=" + hex(computer) + " statHolder=" + hex(sh) + " cls=" + hex(HotKey.class) + " waiters=" + WAITERS + " stat_waiters=" + STAT_WAITERS);
    }
}
