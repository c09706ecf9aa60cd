// GiveUp: acquires and awaits that end by their timeout, not by another thread:
//
//   "holder" holds a fair ReentrantLock HOLD_MS; "tryer" calls tryLock(TRY_MS) TRIES times while
//   it is held: each parks and times out (TRIES contentions of the lock, all given up, the time
//   blamed on holder, none ended by a release)
//   "awaiter" calls awaitNanos(AWAIT_MS) TIMEOUTS times on a condition nobody signals then, then
//   await() SIGNALS times, each signalled by "signaller" GAP_MS after it began
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class GiveUp {
    static final int HOLD_MS = 400, TRY_MS = 50, TRIES = 3, AWAIT_MS = 30, TIMEOUTS = 4, SIGNALS = 2, GAP_MS = 100;
    static final ReentrantLock lock = new ReentrantLock(true), condLock = new ReentrantLock();
    static final Condition cond = condLock.newCondition();
    static int awaiting; // guarded by condLock
    // held: the holder's lock() has returned (isLocked() reads the state, which the acquire sets
    // before the owner: a waiter started in between parks naming no owner).
    static volatile boolean held;

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    public static void main(String[] args) throws Exception {
        Thread holder = new Thread(() -> {
            lock.lock();
            held = true;
            try { Thread.sleep(HOLD_MS); } catch (InterruptedException e) { throw new AssertionError(e); } finally { lock.unlock(); }
        }, "holder");
        holder.start();
        while (!held) Thread.onSpinWait();
        int[] failed = {0};
        Thread tryer = new Thread(() -> {
            try {
                for (int i = 0; i < TRIES; i++) {
                    if (lock.tryLock(TRY_MS, TimeUnit.MILLISECONDS)) lock.unlock(); else failed[0]++;
                }
            } catch (InterruptedException e) { throw new AssertionError(e); }
        }, "tryer");
        tryer.start(); tryer.join(); holder.join();
        if (failed[0] != TRIES) throw new AssertionError("tryLock succeeded " + (TRIES - failed[0]) + " times");

        Thread awaiter = new Thread(() -> {
            condLock.lock();
            try {
                for (int i = 0; i < TIMEOUTS; i++) cond.awaitNanos(TimeUnit.MILLISECONDS.toNanos(AWAIT_MS));
                for (int i = 0; i < SIGNALS; i++) { awaiting++; cond.await(); }
            } catch (InterruptedException e) { throw new AssertionError(e); } finally { condLock.unlock(); }
        }, "awaiter");
        Thread signaller = new Thread(() -> {
            try {
                for (int i = 1; i <= SIGNALS; i++) {
                    for (;;) {
                        condLock.lock();
                        try { if (awaiting == i) break; } finally { condLock.unlock(); }
                        Thread.sleep(1);
                    }
                    Thread.sleep(GAP_MS);
                    condLock.lock();
                    try { cond.signal(); } finally { condLock.unlock(); }
                }
            } catch (InterruptedException e) { throw new AssertionError(e); }
        }, "signaller");
        awaiter.start(); signaller.start(); awaiter.join(); signaller.join();
        System.out.println("EXPECT holder=" + hex(holder) + " tryer=" + hex(tryer) + " signaller=" + hex(signaller) + " cond=" + hex(cond)
            + " tries=" + TRIES + " try_ms=" + TRY_MS + " timeouts=" + TIMEOUTS + " signals=" + SIGNALS);
    }
}
