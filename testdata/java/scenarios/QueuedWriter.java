// QueuedWriter: readers held up by a writer that is only queued, not yet in
// (docs/perf/2026-12-02-unseen-programs-3.md, RWStarve). A non-fair ReentrantReadWriteLock's read
// lock yields to a writer at the head of its queue, so a reader that comes while a writer waits
// for the current readers parks too, with no owner to name (the lock is held shared):
//
//   "r-0", "r-1" hold rw's read lock HOLD_MS once "writer" and then "q-0", "q-1" are parked;
//   "writer" blocks in its write lock (1 contention, ended by the last reader's unlock), holds it
//   HOLD_MS; "q-0", "q-1" block in the read lock behind it (2 contentions, both ended by the
//   writer's unlock: q-0 is unparked by the writer, q-1 by q-0 passing the wake-up on), each
//   at least 2 × HOLD_MS.
//
// Before, the queued readers' parks (mode shared, no owner, as a latch's await) were taken for
// waits on a blocker: "parked on ReentrantReadWriteLock$NonfairSync", 1 contention instead of 3.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class QueuedWriter {
    static final int HOLD_MS = 300;
    static final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    static void parked(Thread t) {
        while (t.getState() != Thread.State.WAITING || !rw.hasQueuedThread(t)) Thread.onSpinWait();
    }

    static void sleep() {
        try { Thread.sleep(HOLD_MS); } catch (InterruptedException e) { throw new AssertionError(e); }
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch held = new CountDownLatch(2), queued = new CountDownLatch(1);
        Thread[] rs = new Thread[2];
        for (int i = 0; i < rs.length; i++) {
            rs[i] = new Thread(() -> {
                rw.readLock().lock();
                try {
                    held.countDown();
                    queued.await();
                    sleep();
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                } finally {
                    rw.readLock().unlock();
                }
            }, "r-" + i);
            rs[i].start();
        }
        held.await();
        Thread writer = new Thread(() -> {
            rw.writeLock().lock();
            try { sleep(); } finally { rw.writeLock().unlock(); }
        }, "writer");
        writer.start();
        parked(writer);
        Thread[] qs = new Thread[2];
        for (int i = 0; i < qs.length; i++) {
            qs[i] = new Thread(() -> { rw.readLock().lock(); rw.readLock().unlock(); }, "q-" + i);
            qs[i].start();
            parked(qs[i]);
        }
        queued.countDown();
        for (Thread t : rs) t.join();
        writer.join();
        for (Thread t : qs) t.join();
        System.out.println("EXPECT writer=" + hex(writer) + " q0=" + hex(qs[0]) + " q1=" + hex(qs[1])
            + " queued=" + qs.length + " hold_ms=" + HOLD_MS);
    }
}
