import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

// Deadlock leaves two threads in a lock-ordering deadlock, with two more
// blocked behind the first of them, and ends (all four are daemons): the
// browser tests draw its wait-for graph. Handshakes, not timing, make the
// cycle: each transfer thread holds its first lock before either asks for
// its second.
public class Deadlock {
    static final Object accountA = new Object();
    static final Object accountB = new Object();

    public static void main(String[] args) throws Exception {
        CountDownLatch both = new CountDownLatch(2);
        Thread t1 = new Thread(() -> transfer(accountA, accountB, both), "transfer-1");
        Thread t2 = new Thread(() -> transfer(accountB, accountA, both), "transfer-2");
        for (Thread t : new Thread[] {t1, t2}) {
            t.setDaemon(true);
            t.start();
        }
        waitBlocked(t1, t2);
        Thread[] readers = new Thread[2];
        for (int i = 0; i < readers.length; i++) {
            readers[i] = new Thread(() -> {
                synchronized (accountA) {
                    System.out.println("unreachable");
                }
            }, "reader-" + (i + 1));
            readers[i].setDaemon(true);
            readers[i].start();
        }
        waitBlocked(readers);
        Thread.sleep(200);
        System.out.println("deadlocked");
    }

    static void transfer(Object from, Object to, CountDownLatch both) {
        synchronized (from) {
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (to) {
                System.out.println("unreachable");
            }
        }
    }

    static void waitBlocked(Thread... ts) {
        for (Thread t : ts) {
            while (t.getState() != Thread.State.BLOCKED) {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }
}
