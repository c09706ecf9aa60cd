// ConditionRelease: a ReentrantLock's holder that awaits on a condition of that lock has released
// it (Condition.await lets it go), and one that awaits on another lock's condition while holding
// it has not (a nested lockout). Two phases, each with WAITERS contenders parked on its lock:
//
//   released  "holder-a" takes lockA, starts WAITERS contenders (each: lockA.lock(), sleep
//             HOLD_MS, unlock), waits until they are all queued, sleeps HOLD_MS, then awaits on
//             condA (lockA's own condition) for AWAIT_MS: the contenders, which parked naming
//             holder-a as lockA's owner, take lockA one after the other while it awaits. From its
//             await to the last contender's acquisition holder-a held nothing: released until
//             the first contender's acquisition, then the contenders held it asleep in turn.
//   nested    "holder-b" takes lockB, starts WAITERS contenders, waits until they are queued,
//             takes lockC and awaits on condC (lockC's condition) for AWAIT_MS, holding lockB
//             all along: the contenders stay parked; holder-b is parked, not released.
//
// With an argument N, main first parks briefly on blockers of N classes of their own (arrays of
// Object of 1 to N dimensions), none a condition: a condition's class met after them must still be
// told as one (the agent kept 32 blocker classes once, and never named the lock of a condition
// class met after 32 others).
//
// main prints EXPECT with each lock's sync identity (ReentrantLock.sync: the object a park on it
// names; read by reflection, --add-opens java.base/java.util.concurrent.locks=ALL-UNNAMED), the
// holders, the time from holder-a's await to the last contender's acquisition (released_ns), and
// the time holder-b's await lasted (nested_ns).
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class ConditionRelease {
    static final int WAITERS = 3, HOLD_MS = 150, AWAIT_MS = 1500, NESTED_MS = 400;
    static final ReentrantLock lockA = new ReentrantLock(), lockB = new ReentrantLock(), lockC = new ReentrantLock();
    static final Condition condA = lockA.newCondition(), condC = lockC.newCondition();
    static volatile long lastAcquireA;

    static Thread[] contenders(ReentrantLock lock, String name, long holdMs, boolean stamp) {
        Thread[] ws = new Thread[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            ws[i] = new Thread(() -> {
                lock.lock();
                try {
                    if (stamp) lastAcquireA = System.nanoTime();
                    if (holdMs > 0) Thread.sleep(holdMs);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                } finally {
                    lock.unlock();
                }
            }, name + "-" + i);
            ws[i].start();
        }
        return ws;
    }

    static void queued(ReentrantLock lock) throws InterruptedException {
        while (lock.getQueueLength() < WAITERS) Thread.sleep(1);
        Thread.sleep(20); // parked, not spinning before the park
    }

    static int syncHash(ReentrantLock lock) throws Exception {
        Field f = ReentrantLock.class.getDeclaredField("sync");
        f.setAccessible(true);
        return System.identityHashCode(f.get(lock));
    }

    static String hex(int h) {
        return String.format("%08x", h);
    }

    public static void main(String[] args) throws Exception {
        int classes = args.length > 0 ? Integer.parseInt(args[0]) : 0;
        for (int k = 1; k <= classes; k++) {
            java.util.concurrent.locks.LockSupport.parkNanos(java.lang.reflect.Array.newInstance(Object.class, new int[k]), 1_000_000L);
        }
        long[] released = new long[1], nested = new long[1];
        Thread[][] ws = new Thread[2][];
        Thread a = new Thread(() -> {
            lockA.lock();
            try {
                ws[0] = contenders(lockA, "waiter-a", HOLD_MS, true);
                queued(lockA);
                Thread.sleep(HOLD_MS);
                long t0 = System.nanoTime();
                condA.await(AWAIT_MS, TimeUnit.MILLISECONDS);
                released[0] = lastAcquireA - t0;
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            } finally {
                lockA.unlock();
            }
        }, "holder-a");
        a.start();
        a.join();
        for (Thread w : ws[0]) w.join();
        Thread b = new Thread(() -> {
            lockB.lock();
            try {
                ws[1] = contenders(lockB, "waiter-b", 0, false);
                queued(lockB);
                lockC.lock();
                try {
                    long t0 = System.nanoTime();
                    condC.await(NESTED_MS, TimeUnit.MILLISECONDS);
                    nested[0] = System.nanoTime() - t0;
                } finally {
                    lockC.unlock();
                }
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            } finally {
                lockB.unlock();
            }
        }, "holder-b");
        b.start();
        b.join();
        for (Thread w : ws[1]) w.join();
        System.out.println("EXPECT lockA=" + hex(syncHash(lockA))
                + " lockB=" + hex(syncHash(lockB))
                + " lockC=" + hex(syncHash(lockC))
                + " condA=" + hex(System.identityHashCode(condA))
                + " condC=" + hex(System.identityHashCode(condC))
                + " holderA=" + hex(System.identityHashCode(a))
                + " holderB=" + hex(System.identityHashCode(b))
                + " waiters=" + WAITERS + " hold_ns=" + HOLD_MS * 1_000_000L
                + " released_ns=" + released[0] + " nested_ns=" + nested[0] + " classes=" + classes);
    }
}
