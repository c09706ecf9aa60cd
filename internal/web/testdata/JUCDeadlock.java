import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

// JUCDeadlock leaves two threads in a deadlock between a synchronized block
// and a ReentrantLock, and ends (both are daemons): the browser tests draw
// its wait-for graph beside the Deadlocks card. "monitor-first" holds
// the monitor of ledger and parks in ReentrantLock.lock; "lock-first"
// holds the ReentrantLock and blocks entering ledger. Handshakes, not
// timing, make the cycle: each holds its first lock before either asks for
// its second.
public class JUCDeadlock {
    static final Object ledger = new Object();
    static final ReentrantLock lock = new ReentrantLock();

    public static void main(String[] args) throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        Thread m = new Thread(() -> {
            synchronized (ledger) {
                if (!handshake(both)) return;
                lock.lock(); // parks: lock-first holds it
                lock.unlock();
            }
        }, "monitor-first");
        Thread l = new Thread(() -> {
            lock.lock();
            try {
                if (!handshake(both)) return;
                synchronized (ledger) { // blocks: monitor-first holds it
                    System.out.println("unreachable");
                }
            } finally {
                lock.unlock();
            }
        }, "lock-first");
        for (Thread t : new Thread[] {m, l}) {
            t.setDaemon(true);
            t.start();
        }
        while (m.getState() != Thread.State.WAITING || l.getState() != Thread.State.BLOCKED) {
            LockSupport.parkNanos(1_000_000);
        }
        Thread.sleep(200);
        System.out.println("deadlocked");
    }

    static boolean handshake(CountDownLatch both) {
        both.countDown();
        try {
            both.await();
            return true;
        } catch (InterruptedException e) {
            return false;
        }
    }
}
