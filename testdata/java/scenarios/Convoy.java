// Convoy: a fair Semaphore(1) and a fair ReentrantLock, each first held HOLD_MS by "semHolder" /
// "lockHolder" while N threads queue on it (one at a time, in order: each starts once the one
// before is queued); then each queued thread in turn holds it STEP_MS. N parks on each, each
// unparked by the one before it in the queue (the holder, then the queued in order). A holder
// holds on past HOLD_MS until all N are queued (on a loaded machine a thread could start after the
// holder's release and take it without queueing: main then waited for it forever).
import java.util.concurrent.*;
import java.util.concurrent.locks.*;
public class Convoy {
    static final int HOLD_MS = 200, STEP_MS = 50, N = 3;
    static final Semaphore sem = new Semaphore(1, true);
    static final ReentrantLock lock = new ReentrantLock(true);
    static volatile boolean semQueued, lockQueued;
    // lockHeld: the holder's lock() has returned (isLocked() reads the state, which the acquire sets
    // before the owner: a waiter started in between parks naming no owner).
    static volatile boolean lockHeld;
    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }
    static void sleep(int ms) { try { Thread.sleep(ms); } catch (InterruptedException e) { throw new AssertionError(e); } }
    public static void main(String[] a) throws Exception {
        StringBuilder sb = new StringBuilder("EXPECT sem=" + hex(sem) + " lock=" + hex(lock) + " n=" + N + " hold_ms=" + HOLD_MS + " step_ms=" + STEP_MS);
        Thread semHolder = new Thread(() -> { sem.acquireUninterruptibly(); sleep(HOLD_MS); while (!semQueued) sleep(5); sem.release(); }, "semHolder");
        semHolder.start();
        while (sem.availablePermits() != 0) Thread.onSpinWait();
        Thread[] s = new Thread[N];
        for (int i = 0; i < N; i++) {
            s[i] = new Thread(() -> { sem.acquireUninterruptibly(); sleep(STEP_MS); sem.release(); }, "semQ-" + i); s[i].start();
            while (sem.getQueueLength() != i + 1) Thread.onSpinWait();
        }
        semQueued = true;
        semHolder.join(); for (Thread t : s) t.join();
        Thread lockHolder = new Thread(() -> { lock.lock(); lockHeld = true; sleep(HOLD_MS); while (!lockQueued) sleep(5); lock.unlock(); }, "lockHolder");
        lockHolder.start();
        while (!lockHeld) Thread.onSpinWait();
        Thread[] l = new Thread[N];
        for (int i = 0; i < N; i++) {
            l[i] = new Thread(() -> { lock.lock(); sleep(STEP_MS); lock.unlock(); }, "lockQ-" + i); l[i].start();
            while (lock.getQueueLength() != i + 1) Thread.onSpinWait();
        }
        lockQueued = true;
        lockHolder.join(); for (Thread t : l) t.join();
        sb.append(" semHolder=" + hex(semHolder) + " lockHolder=" + hex(lockHolder));
        for (int i = 0; i < N; i++) sb.append(" semQ" + i + "=" + hex(s[i]) + " lockQ" + i + "=" + hex(l[i]));
        System.out.println(sb);
    }
}
