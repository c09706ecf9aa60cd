// ChainRelease: a wait chain ends at a holder that released the lock its waiter is blocked on
// (issue 36: the chains' release rule), for a monitor and a java.util.concurrent lock, and never
// goes on through that holder's wait or park to whoever ended it. Two phases:
//
//   monitor  "holder-m" enters `monitor`, starts "waiter-m" (enters it, sleeps HOLD_MS), waits
//            until waiter-m is BLOCKED on it, sleeps SETTLE_MS, then waits on `monitor` until
//            "notifier-m" (started once waiter-m has ended) notifies it. waiter-m's contention
//            names holder-m to its end: from holder-m's wait to waiter-m's entry (the hand-off)
//            holder-m had released the monitor. Before the rule that stretch was chained through
//            holder-m's wait to notifier-m.
//   juc      "holder-j" takes `lock`, starts WAITERS contenders "waiter-j-N" (each lock(), sleep
//            HOLD_MS, unlock), waits until they are queued, then awaits on `cond` (lock's own
//            condition) until main signals it once every contender is done. The contenders,
//            parked naming holder-j, take the lock one after the other while holder-j awaits:
//            the first holds it HOLD_MS asleep with 2 parked behind it, the second with 1 (each
//            park waits for the contender let in before it from that hand-off on). Before,
//            those 3 HOLD_MS were holder-j's, released; before the release rule they were
//            chained through holder-j's await to main, which unparked it.
//
// main prints EXPECT with the holders' and the notifier's identities.
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public class ChainRelease {
    static final int WAITERS = 3, HOLD_MS = 300, SETTLE_MS = 50;
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock();
    static final Condition cond = lock.newCondition();
    static volatile boolean notified, signalled;
    static volatile Thread waiterM;
    static volatile Thread[] waitersJ;

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static String hex(Object o) {
        return String.format("%08x", System.identityHashCode(o));
    }

    public static void main(String[] args) throws Exception {
        Thread hm = new Thread(() -> {
            synchronized (monitor) {
                Thread w = new Thread(() -> {
                    synchronized (monitor) {
                        sleep(HOLD_MS);
                    }
                }, "waiter-m");
                w.start();
                while (w.getState() != Thread.State.BLOCKED) sleep(1);
                sleep(SETTLE_MS);
                waiterM = w;
                try {
                    while (!notified) monitor.wait();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
        }, "holder-m");
        hm.start();
        while (waiterM == null) sleep(1);
        waiterM.join();
        Thread nm = new Thread(() -> {
            synchronized (monitor) {
                notified = true;
                monitor.notifyAll();
            }
        }, "notifier-m");
        nm.start();
        nm.join();
        hm.join();

        Thread hj = new Thread(() -> {
            lock.lock();
            try {
                Thread[] ws = new Thread[WAITERS];
                for (int i = 0; i < WAITERS; i++) {
                    ws[i] = new Thread(() -> {
                        lock.lock();
                        try {
                            sleep(HOLD_MS);
                        } finally {
                            lock.unlock();
                        }
                    }, "waiter-j-" + i);
                    ws[i].start();
                }
                while (lock.getQueueLength() < WAITERS) sleep(1);
                sleep(SETTLE_MS); // parked, not spinning before the park
                waitersJ = ws;
                while (!signalled) cond.await();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            } finally {
                lock.unlock();
            }
        }, "holder-j");
        hj.start();
        while (waitersJ == null) sleep(1);
        for (Thread w : waitersJ) w.join();
        lock.lock();
        try {
            signalled = true;
            cond.signal();
        } finally {
            lock.unlock();
        }
        hj.join();
        System.out.println("EXPECT holderM=" + hex(hm) + " waiterM=" + hex(waiterM) + " notifierM=" + hex(nm)
                + " holderJ=" + hex(hj) + " main=" + hex(Thread.currentThread())
                + " monitor=" + hex(monitor) + " cond=" + hex(cond)
                + " waiters=" + WAITERS + " hold_ns=" + HOLD_MS * 1_000_000L);
    }
}
