// AcquireModes (issue 20 item 3): how a thread acquires a synchronizer decides whether its park is
// a lock's contention or a wait, whatever the synchronizer's class. Each part runs in threads of
// its own, named after it:
//
//   gate-waiter-I    parks once on `gate`, an AbstractQueuedSynchronizer of a neutral name used in
//                    shared mode (a latch of its own: nobody holds it), until gate-opener opens it:
//                    a wait on the synchronizer, not a lock
//   mutex-waiter     parks once on `mutex`, an AbstractQueuedSynchronizer of a neutral name used in
//                    exclusive mode that does not record its owner (setExclusiveOwnerThread), held
//                    by mutex-holder: a lock (the park names no owner; the releaser is blamed)
//   rw-reader        parks once on `rw`'s sync, its read lock (a shared acquire) blocked by
//                    rw-writer, which holds the write lock: a lock, its owner rw-writer
//
// Every releaser waits until its waiters are parked (Thread.getState) and then HOLD_MS more.
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class AcquireModes {
    static final int GATE_WAITERS = 3, HOLD_MS = 30;
    // writerHeld: rw-writer's lock() has returned (isWriteLocked() reads the state, which the
    // acquire sets before the owner: a reader started in between parks naming no owner).
    static volatile boolean writerHeld;

    /** A latch by another name: open once state is 1; shared acquires only. */
    static final class Gate extends AbstractQueuedSynchronizer {
        @Override protected int tryAcquireShared(int arg) { return getState() == 1 ? 1 : -1; }
        @Override protected boolean tryReleaseShared(int arg) { setState(1); return true; }
    }

    /** A non-reentrant mutex by a neutral name, exclusive acquires only, that keeps no owner. */
    static final class Mutex extends AbstractQueuedSynchronizer {
        @Override protected boolean tryAcquire(int arg) { return compareAndSetState(0, 1); }
        boolean held() { return getState() == 1; }
        @Override protected boolean tryRelease(int arg) {
            setState(0);
            return true;
        }
    }

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static void awaitParked(Thread... ts) throws InterruptedException {
        for (Thread t : ts) {
            while (t.getState() != Thread.State.WAITING) Thread.sleep(1);
        }
        Thread.sleep(HOLD_MS);
    }

    static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.start();
        return t;
    }

    public static void main(String[] args) throws Exception {
        Gate gate = new Gate();
        Thread[] gw = new Thread[GATE_WAITERS];
        for (int i = 0; i < GATE_WAITERS; i++) gw[i] = start("gate-waiter-" + i, () -> gate.acquireShared(1));
        Thread opener = start("gate-opener", () -> {
            try {
                awaitParked(gw);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            gate.releaseShared(1);
        });

        Mutex mutex = new Mutex();
        Thread[] mw = new Thread[1];
        Thread holder = start("mutex-holder", () -> {
            mutex.acquire(1);
            try {
                while (mw[0] == null) Thread.onSpinWait();
                awaitParked(mw[0]);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                mutex.release(1);
            }
        });
        while (!mutex.held()) Thread.sleep(1);
        mw[0] = start("mutex-waiter", () -> {
            mutex.acquire(1);
            mutex.release(1);
        });

        ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
        Thread[] rr = new Thread[1];
        Thread writer = start("rw-writer", () -> {
            rw.writeLock().lock();
            writerHeld = true;
            try {
                while (rr[0] == null) Thread.onSpinWait();
                awaitParked(rr[0]);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            } finally {
                rw.writeLock().unlock();
            }
        });
        while (!writerHeld) Thread.sleep(1);
        rr[0] = start("rw-reader", () -> {
            rw.readLock().lock();
            rw.readLock().unlock();
        });

        for (Thread t : gw) t.join();
        opener.join();
        holder.join();
        mw[0].join();
        writer.join();
        rr[0].join();
        System.out.printf("EXPECT gate=%s gate_waiters=%d mutex=%s mutex_holder=%s rw_writer=%s%n", hex(gate), GATE_WAITERS,
                hex(mutex), hex(holder), hex(writer));
    }
}
