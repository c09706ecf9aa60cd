// HoldTimes (issue 36, item 3): holders that hold a contended lock for known times, on a monitor
// and on a fair ReentrantLock, from two sites each. ROUNDS rounds per lock, each:
//
//   main       takes the lock, starts HOLDERS threads (half take it in siteA or jucA, half in
//              siteB or jucB), waits until every one is blocked (parked) on it, then releases it
//   holder-*   gets the lock after waiting, notes when (System.nanoTime) and where, holds it for
//              HOLD_MS (Thread.sleep) and releases it
//
// Every holder's acquisition is contended, and all but the last of a round are made while others
// still wait: each of those begins a hold that the next holder's acquisition ends (the fair lock
// and the monitor with its waiters all parked let no thread barge in). main prints, per lock, how
// many such holds each site made and their lengths as the program saw them (from one holder's
// noted time to the next's):
//
//   EXPECT monitor=HASH hold_ms=50 mon.a=N mon.b=N mon.ns=NS,... juc.a=N juc.b=N juc.ns=NS,...
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.locks.ReentrantLock;

public class HoldTimes {
    static final int ROUNDS = 3, HOLDERS = 4, HOLD_MS = 50;
    static final Object monitor = new Object();
    static final ReentrantLock lock = new ReentrantLock(true);
    // The round's holders in the order they got the lock: when and where. Written under the lock,
    // read by main after joining them.
    static final long[] at = new long[HOLDERS];
    static final char[] site = new char[HOLDERS];
    static int got;

    static void note(char where) throws InterruptedException {
        at[got] = System.nanoTime();
        site[got++] = where;
        Thread.sleep(HOLD_MS);
    }

    static void siteA() throws InterruptedException {
        synchronized (monitor) {
            note('a');
        }
    }

    static void siteB() throws InterruptedException {
        synchronized (monitor) {
            note('b');
        }
    }

    static void jucA() throws InterruptedException {
        lock.lock();
        holdLocked('a');
    }

    static void jucB() throws InterruptedException {
        lock.lock();
        holdLocked('b');
    }

    // holdLocked holds the ReentrantLock that its caller took, then releases it.
    static void holdLocked(char where) throws InterruptedException {
        try {
            note(where);
        } finally {
            lock.unlock();
        }
    }

    interface Body {
        void run() throws InterruptedException;
    }

    static Thread holder(String name, Body body) {
        return new Thread(() -> {
            try {
                body.run();
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }, name);
    }

    // round runs one round and adds its holds: counts[0] site a's, counts[1] site b's.
    static void round(boolean juc, int r, int[] counts, List<Long> holds) throws Exception {
        got = 0;
        Thread[] ts = new Thread[HOLDERS];
        for (int i = 0; i < HOLDERS; i++) {
            String name = (juc ? "juc-" : "mon-") + r + "-" + i;
            Body b = juc ? (i % 2 == 0 ? HoldTimes::jucA : HoldTimes::jucB) : (i % 2 == 0 ? HoldTimes::siteA : HoldTimes::siteB);
            ts[i] = holder(name, b);
        }
        if (juc) {
            lock.lock();
            try {
                for (Thread t : ts) t.start();
                for (Thread t : ts) {
                    while (t.getState() != Thread.State.WAITING || !lock.hasQueuedThread(t)) Thread.sleep(1);
                }
                Thread.sleep(100); // the parks' lines are written
            } finally {
                lock.unlock();
            }
        } else {
            synchronized (monitor) {
                for (Thread t : ts) t.start();
                for (Thread t : ts) {
                    while (t.getState() != Thread.State.BLOCKED) Thread.sleep(1);
                }
                // HotSpot makes a contender BLOCKED before it posts MonitorContendedEnter.
                Thread.sleep(100);
            }
        }
        for (Thread t : ts) t.join();
        if (got != HOLDERS) throw new IllegalStateException("round " + r + ": " + got + " holders got the lock");
        for (int i = 0; i + 1 < HOLDERS; i++) {
            counts[site[i] - 'a']++;
            holds.add(at[i + 1] - at[i]);
        }
    }

    static String list(List<Long> ns) {
        StringJoiner j = new StringJoiner(",");
        for (long n : ns) j.add(Long.toString(n));
        return j.toString();
    }

    public static void main(String[] args) throws Exception {
        int[] mon = new int[2], juc = new int[2];
        List<Long> monNs = new ArrayList<>(), jucNs = new ArrayList<>();
        for (int r = 0; r < ROUNDS; r++) round(false, r, mon, monNs);
        for (int r = 0; r < ROUNDS; r++) round(true, r, juc, jucNs);
        System.out.println("EXPECT monitor=" + String.format("%08x", System.identityHashCode(monitor))
                + " hold_ms=" + HOLD_MS + " mon.a=" + mon[0] + " mon.b=" + mon[1] + " mon.ns=" + list(monNs)
                + " juc.a=" + juc[0] + " juc.b=" + juc[1] + " juc.ns=" + list(jucNs));
    }
}
