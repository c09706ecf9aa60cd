// HandOff: a java.util.concurrent lock's hand-off, what its holder did while it was handed off
// (the holders' "released": model.Interval.HandOff). ROUNDS rounds, each:
//
//   holder    takes `lock`, starts "waiter-R", waits (Thread.sleep(1) polls) until waiter-R is
//             queued on the lock and parked, sleeps SETTLE_MS, then unlocks — AQS's release frees
//             the lock and unparks waiter-R — and at once awaits `done`, a CountDownLatch (it
//             parks on the latch's sync, no lock's acquire); then joins waiter-R
//   waiter-R  lock(): parks behind holder; once in, counts `done` down and unlocks
//
// waiter-R's park names holder to its end; from holder's unpark to waiter-R's acquire the lock is
// being handed off, and holder, parked on the latch then, had let it go: released, not parked.
// main prints EXPECT with the holder's identity and the rounds.
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

public class HandOff {
    static final int ROUNDS = 20, SETTLE_MS = 20;
    static final ReentrantLock lock = new ReentrantLock();

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        Thread holder = new Thread(() -> {
            try {
                for (int r = 0; r < ROUNDS; r++) {
                    CountDownLatch done = new CountDownLatch(1);
                    lock.lock();
                    Thread w = new Thread(() -> {
                        lock.lock();
                        try {
                            done.countDown();
                        } finally {
                            lock.unlock();
                        }
                    }, "waiter-" + r);
                    w.start();
                    while (!lock.hasQueuedThread(w) || w.getState() != Thread.State.WAITING) sleep(1);
                    sleep(SETTLE_MS);
                    lock.unlock();
                    done.await();
                    w.join();
                }
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }, "holder");
        holder.start();
        holder.join();
        System.out.println("EXPECT holder=" + String.format("%08x", System.identityHashCode(holder))
                + " rounds=" + ROUNDS);
    }
}
