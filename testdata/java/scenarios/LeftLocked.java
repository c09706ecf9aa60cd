// LeftLocked (HoldSleep in docs/perf/2026-12-02-unseen-programs-2.md): "holder" holds monitor M and ReentrantLock L across sleep(HOLD_MS); MW threads block
// on M, LW threads park on L. Then "brief" holds monitor M2 BRIEF_MS with 2 threads blocked on it
// and ends (holding nothing, named the owner of their contentions); "ghost" locks ReentrantLock G
// and ends without unlocking it: "orphan" then tryLock(TRY_MS) on G, gives up (owner a dead thread).
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
public class LeftLocked {
    static final int HOLD_MS = 300, MW = 2, LW = 2, BRIEF_MS = 100, TRY_MS = 150;
    static final Object M = new Object(), M2 = new Object();
    static final ReentrantLock L = new ReentrantLock(), G = new ReentrantLock();
    static volatile boolean holding;
    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }
    static void sleep(int ms) { try { Thread.sleep(ms); } catch (InterruptedException e) { throw new AssertionError(e); } }
    public static void main(String[] a) throws Exception {
        Thread holder = new Thread(() -> { synchronized (M) { L.lock(); try { holding = true; sleep(HOLD_MS); } finally { L.unlock(); } } }, "holder");
        holder.start();
        while (!holding) Thread.onSpinWait();
        Thread[] w = new Thread[MW + LW];
        for (int i = 0; i < MW; i++) { w[i] = new Thread(() -> { synchronized (M) { } }, "monW-" + i); }
        for (int i = 0; i < LW; i++) { w[MW + i] = new Thread(() -> { L.lock(); L.unlock(); }, "lockW-" + i); }
        for (Thread t : w) t.start();
        holder.join(); for (Thread t : w) t.join();
        holding = false;
        Thread brief = new Thread(() -> { synchronized (M2) { holding = true; sleep(BRIEF_MS); } }, "brief");
        brief.start();
        while (!holding) Thread.onSpinWait();
        Thread b0 = new Thread(() -> { synchronized (M2) { sleep(20); } }, "briefW-0"), b1 = new Thread(() -> { synchronized (M2) { sleep(20); } }, "briefW-1");
        b0.start(); b1.start(); brief.join(); b0.join(); b1.join();
        Thread ghost = new Thread(() -> G.lock(), "ghost");
        ghost.start(); ghost.join();
        boolean[] got = {true};
        Thread orphan = new Thread(() -> { try { got[0] = G.tryLock(TRY_MS, TimeUnit.MILLISECONDS); } catch (InterruptedException e) { throw new AssertionError(e); } }, "orphan");
        orphan.start(); orphan.join();
        if (got[0]) throw new AssertionError("got G");
        System.out.println("EXPECT M=" + hex(M) + " L=" + hex(L) + " M2=" + hex(M2) + " G=" + hex(G) + " holder=" + hex(holder) + " brief=" + hex(brief) + " ghost=" + hex(ghost) + " orphan=" + hex(orphan) + " mw=" + MW + " lw=" + LW);
    }
}
