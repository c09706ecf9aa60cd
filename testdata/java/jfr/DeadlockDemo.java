import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

// Deadlocks two daemon threads, through a monitor and a ReentrantLock, for
// a JFR recording with JFR's default settings (internal/jfrimport
// TestImportJDKDefault): JFR writes an event when it ends, so the deadlock
// is not in the file. On the way, t1 parks 50 ms (ended by its timeout) and
// t2 parks about 100 ms on the lock until main unlocks it: JFR records
// both parks and neither's unparker. main exits with System.exit.
public class DeadlockDemo {
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();

    public static void main(String[] args) throws Exception {
        lock.lock();
        Thread t1 = new Thread(() -> {
            LockSupport.parkNanos(50_000_000L);
            synchronized (monitor) {
                pause(200);
                lock.lock(); // held by t2: parks for ever
            }
        }, "t1");
        Thread t2 = new Thread(() -> {
            lock.lock(); // parks until main unlocks
            try {
                pause(100);
                synchronized (monitor) { // held by t1: blocks for ever
                }
            } finally {
                lock.unlock();
            }
        }, "t2");
        t1.setDaemon(true);
        t2.setDaemon(true);
        t1.start();
        t2.start();
        Thread.sleep(100);
        lock.unlock();
        Thread.sleep(1500);
        boolean dl = t1.getState() == Thread.State.WAITING && t2.getState() == Thread.State.BLOCKED;
        System.out.println("EXPECT deadlocked=" + dl);
        System.exit(0);
    }

    static void pause(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }
}
