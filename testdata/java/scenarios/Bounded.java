import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.ReentrantLock;

// Bounded: threads that block before a flood of events and are let go after it, for the bounded
// recording tests (integration/bounded_test.go). With --max-size the chunks that saw them block
// are deleted; the chunks kept must restate their state (blocked on what, owned by whom).
//
//   java Bounded FLOOD TAIL
//
// The holder takes a monitor and a ReentrantLock and parks on a latch; "blocked" blocks on the
// monitor, "parker" parks in the lock, "waiter" waits on an object. Then main makes FLOOD
// notifies that find no waiter (FLOOD < 0: for ever, after printing FLOODING), the tail thread
// sleeps TAIL times, and main lets every thread go. Prints EXPECT with the threads' and objects'
// identity hashes.
public class Bounded {
    public static void main(String[] args) throws Exception {
        long flood = Long.parseLong(args[0]);
        int tail = Integer.parseInt(args[1]);
        Object mon = new Object(), w = new Object(), flag = new Object();
        ReentrantLock lock = new ReentrantLock();
        CountDownLatch held = new CountDownLatch(1), release = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (mon) {
                lock.lock();
                try {
                    held.countDown();
                    release.await();
                } catch (InterruptedException e) {
                    return;
                } finally {
                    lock.unlock();
                }
            }
        }, "orca-bounded-holder");
        holder.start();
        held.await();
        Thread blocked = new Thread(() -> {
            synchronized (mon) {
                flag.hashCode();
            }
        }, "orca-bounded-blocked");
        Thread parker = new Thread(() -> {
            lock.lock();
            lock.unlock();
        }, "orca-bounded-parker");
        boolean[] notified = {false};
        Thread waiter = new Thread(() -> {
            synchronized (w) {
                while (!notified[0]) {
                    try {
                        w.wait();
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "orca-bounded-waiter");
        blocked.start();
        parker.start();
        waiter.start();
        while (blocked.getState() != Thread.State.BLOCKED || parker.getState() != Thread.State.WAITING
                || waiter.getState() != Thread.State.WAITING) {
            Thread.onSpinWait();
        }
        if (flood < 0) {
            System.out.println("FLOODING");
            System.out.flush();
        }
        for (long i = 0; flood < 0 || i < flood; i++) {
            synchronized (flag) {
                flag.notify();
            }
        }
        Thread tailer = new Thread(() -> {
            for (int i = 0; i < tail; i++) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "orca-bounded-tail");
        tailer.start();
        tailer.join();
        release.countDown();
        synchronized (w) {
            notified[0] = true;
            w.notify();
        }
        holder.join();
        blocked.join();
        parker.join();
        waiter.join();
        System.out.printf("EXPECT holder=%08X blocked=%08X parker=%08X waiter=%08X tail=%08X mon=%08X w=%08X flag=%08X sleeps=%d notifies=%d%n",
                System.identityHashCode(holder), System.identityHashCode(blocked), System.identityHashCode(parker),
                System.identityHashCode(waiter), System.identityHashCode(tailer), System.identityHashCode(mon),
                System.identityHashCode(w), System.identityHashCode(flag), tail, flood);
    }
}
