// ReadersPassOn: readers that a writer held up, woken one by another (AQS passes a shared
// acquire's wake-up on from reader to reader; StampedLock's first reader wakes its cowaiters):
//
//   A  "writerA" holds rw's write lock HOLD_MS; rdA-0..2 block in its read lock (3 contentions,
//      all ended by writerA's release: the later readers are unparked by the first ones)
//   B  "readerB" holds rw's read lock HOLD_MS; "writerB" blocks in its write lock (1 contention,
//      ended by readerB's release)
//   C  "stampW" holds sl's write lock HOLD_MS; stR-0..1 block in sl.readLock() (2 contentions,
//      both ended by stampW's unlockWrite; StampedLock records no owner)
//
// Each holder waits until its waiters are parked before it sleeps HOLD_MS.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.concurrent.locks.StampedLock;

public class ReadersPassOn {
    static final int HOLD_MS = 300;
    static final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    static final StampedLock sl = new StampedLock();

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    static void parked(Thread[] ts) {
        for (Thread t : ts) while (t == null || t.getState() != Thread.State.WAITING) Thread.onSpinWait();
    }

    static void sleep() {
        try { Thread.sleep(HOLD_MS); } catch (InterruptedException e) { throw new AssertionError(e); }
    }

    // run starts holder, waits until it holds its lock, then starts the waiters, and joins all.
    static void run(Thread holder, CountDownLatch held, Thread[] waiters) throws InterruptedException {
        holder.start();
        held.await();
        for (Thread t : waiters) t.start();
        holder.join();
        for (Thread t : waiters) t.join();
    }

    public static void main(String[] args) throws Exception {
        CountDownLatch heldA = new CountDownLatch(1), heldB = new CountDownLatch(1), heldC = new CountDownLatch(1);
        Thread[] rdA = new Thread[3], wB = new Thread[1], stR = new Thread[2];
        Thread writerA = new Thread(() -> {
            rw.writeLock().lock();
            try { heldA.countDown(); parked(rdA); sleep(); } finally { rw.writeLock().unlock(); }
        }, "writerA");
        for (int i = 0; i < rdA.length; i++) rdA[i] = new Thread(() -> { rw.readLock().lock(); rw.readLock().unlock(); }, "rdA-" + i);
        run(writerA, heldA, rdA);

        Thread readerB = new Thread(() -> {
            rw.readLock().lock();
            try { heldB.countDown(); parked(wB); sleep(); } finally { rw.readLock().unlock(); }
        }, "readerB");
        wB[0] = new Thread(() -> { rw.writeLock().lock(); rw.writeLock().unlock(); }, "writerB");
        run(readerB, heldB, wB);

        Thread stampW = new Thread(() -> {
            long s = sl.writeLock();
            try { heldC.countDown(); parked(stR); sleep(); } finally { sl.unlockWrite(s); }
        }, "stampW");
        for (int i = 0; i < stR.length; i++) stR[i] = new Thread(() -> { long s = sl.readLock(); sl.unlockRead(s); }, "stR-" + i);
        run(stampW, heldC, stR);

        System.out.println("EXPECT writerA=" + hex(writerA) + " readerB=" + hex(readerB) + " stampW=" + hex(stampW)
            + " stamped=" + hex(sl) + " readersA=" + rdA.length + " readersC=" + stR.length + " hold_ms=" + HOLD_MS);
    }
}
