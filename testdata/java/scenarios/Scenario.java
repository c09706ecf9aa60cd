// Scenario performs an exactly known number of every operation Orca records and prints, as its
// last line, "EXPECT key=value ...": what it did, the identity hashes of the objects and threads
// involved and the source lines of the interesting call sites. The integration tests
// (integration/scenario_test.go) compare a recording of this program with that line.
//
// Determinism: contentions and wake-ups are forced by handshakes (CountDownLatch, thread-state
// polling with LockSupport.parkNanos), never by timing. Polling uses parkNanos rather than
// Thread.sleep because sleeps are recorded; CountDownLatch is not a Semaphore and records nothing.
// Waits are counted as performed (a spurious wake-up adds one), so the counts stay exact.
//
// Apart from the sleeps, joins, semaphore operations and thread starts listed in EXPECT, this
// program must perform none: every one would change the expected counts.
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

public class Scenario {
    static final int UNTIMED_ROUNDS = 3; // single waiter, each round ended by one notify()
    static final int TIMED_WAITS = 2; // wait(ms) that time out
    static final int ALL_WAITERS = 3; // threads woken by the one notifyAll()
    static final int CONTENTIONS = 3; // rounds of owner-holds, contender-blocks
    static final int WARM_CONTENTIONS = 40; // on warmLock, before them

    static final String OWNER_NAME = "orca-owner,\"Žluť-線程\"";
    static final String CONTENDER_NAME = "orca-contender \"🐋\", x";
    static final String WAITER_NAME = "orca-waiter\nsecond line";

    // Of known classes, which the recording names (ObjectClass): a String,
    // a nested class, an array.
    static final Object waitObj = new String("orca wait object");
    static final Object lock = new Lock();
    static final Object warmLock = new int[1];

    static final class Lock {}
    static final Semaphore sem = new Semaphore(3);

    // Guarded by waitObj.
    static int entered, gen, arrived, untimedWaits, allWaits;
    static boolean released;

    static volatile int lineWait, lineTimedWait, lineAllWait, lineNotify, lineNotifyAll, lineContend,
            lineSemContended;
    static int sleeps, joins, acquires, releases, notifies, notifyAlls, timedWaits;
    static int contended; // guarded by lock
    static int warmContended; // guarded by warmLock
    static final List<Thread> started = new ArrayList<>();
    static final StringBuilder names = new StringBuilder();
    static final Thread mainThread = Thread.currentThread();

    /** The source line of the caller: write it on the same line as the call it describes. */
    static int here() {
        return new Throwable().getStackTrace()[1].getLineNumber();
    }

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static String utf8Hex(String s) {
        StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) b.append(String.format("%02X", x));
        return b.toString();
    }

    static Thread start(Runnable r, String name) {
        return start(thread(r, name));
    }

    static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        names.append(" name.").append(hex(t)).append('=').append(utf8Hex(name));
        return t;
    }

    static Thread start(Thread t) {
        started.add(t);
        t.start();
        return t;
    }

    /** Polls until t is in state s. parkNanos is not an Orca event. */
    static void awaitState(Thread t, Thread.State s) {
        while (t.getState() != s) LockSupport.parkNanos(100_000);
    }

    static void await(CountDownLatch l) {
        while (true) {
            try {
                l.await();
                return;
            } catch (InterruptedException e) {
                // not interrupted by anyone here; retry
            }
        }
    }

    /** Arguments: "monitoring-off" turns ThreadMXBean contention monitoring off before the contentions. */
    public static void main(String[] args) throws Exception {
        waits();
        sleepsAndJoins();
        semaphore();
        warmUp(args.length > 0 && args[0].equals("monitoring-off"));
        contention();
        StringBuilder out = new StringBuilder("EXPECT");
        out.append(" main=").append(hex(mainThread));
        out.append(" waitObj=").append(hex(waitObj));
        out.append(" waits.untimed=").append(untimedWaits);
        out.append(" waits.timed=").append(timedWaits);
        out.append(" waits.all=").append(allWaits);
        out.append(" waiters=").append(ALL_WAITERS);
        out.append(" notifies=").append(notifies);
        out.append(" notifyAlls=").append(notifyAlls);
        out.append(" line.wait=").append(lineWait);
        out.append(" line.timedwait=").append(lineTimedWait);
        out.append(" line.allwait=").append(lineAllWait);
        out.append(" line.notify=").append(lineNotify);
        out.append(" line.notifyall=").append(lineNotifyAll);
        out.append(" sleeps=").append(sleeps);
        out.append(" joins=").append(joins);
        out.append(" joinTargets=").append(joinTargets);
        out.append(" joinTargets.waited=").append(joinTargetsWaited);
        out.append(" sem=").append(hex(sem));
        out.append(" acquires=").append(acquires);
        out.append(" releases=").append(releases);
        out.append(" semAcquirer=").append(semAcquirer);
        out.append(" line.semcontended=").append(lineSemContended);
        out.append(" lock=").append(hex(lock));
        out.append(" owner=").append(ownerHash);
        out.append(" contender=").append(contenderHash);
        out.append(" warmLock=").append(hex(warmLock));
        out.append(" warmContentions=").append(warmContended);
        out.append(" contentions=").append(contended);
        out.append(" line.contend=").append(lineContend);
        out.append(" contend.held.ns=").append(join(heldNs));
        out.append(" contend.enter.ns=").append(join(enterNs));
        out.append(" starts=").append(started.size());
        StringBuilder targets = new StringBuilder();
        for (Thread t : started) targets.append(targets.length() == 0 ? "" : ",").append(hex(t));
        out.append(" startTargets=").append(targets);
        out.append(names);
        System.out.println(out);
    }

    // ---- Object.wait / notify / notifyAll, all on waitObj ----

    static void waits() throws InterruptedException {
        // 1. UNTIMED_ROUNDS untimed waits by one thread, each ended by one notify().
        CountDownLatch waiterDone = new CountDownLatch(1);
        Thread waiter = start(() -> {
            for (int r = 1; r <= UNTIMED_ROUNDS; r++) {
                synchronized (waitObj) {
                    entered = r;
                    while (gen < r) {
                        try {
                            lineWait = here(); waitObj.wait();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        untimedWaits++;
                    }
                }
            }
            waiterDone.countDown();
        }, WAITER_NAME);
        for (int r = 1; r <= UNTIMED_ROUNDS; r++) {
            while (true) {
                synchronized (waitObj) {
                    // Holding waitObj, a WAITING waiter that entered round r is in the wait set.
                    if (entered == r && waiter.getState() == Thread.State.WAITING) {
                        gen = r;
                        lineNotify = here(); waitObj.notify();
                        notifies++;
                        break;
                    }
                }
                LockSupport.parkNanos(100_000);
            }
        }
        await(waiterDone);

        // 2. TIMED_WAITS waits that time out: nobody else touches waitObj now.
        for (int i = 0; i < TIMED_WAITS; i++) {
            synchronized (waitObj) {
                lineTimedWait = here(); waitObj.wait(20);
                timedWaits++;
            }
        }

        // Calls of wait() that throw before waiting are not waits: no events on waitObj (the
        // counts below would catch one).
        for (int i = 0; i < 3; i++) {
            try {
                waitObj.wait(); // not the owner
            } catch (IllegalMonitorStateException expected) {
            }
            synchronized (waitObj) {
                try {
                    waitObj.wait(-1);
                } catch (IllegalArgumentException expected) {
                }
            }
        }

        // 3. One notifyAll() that wakes ALL_WAITERS threads.
        CountDownLatch allDone = new CountDownLatch(ALL_WAITERS);
        Thread[] ws = new Thread[ALL_WAITERS];
        for (int i = 0; i < ALL_WAITERS; i++) {
            ws[i] = start(() -> {
                synchronized (waitObj) {
                    arrived++;
                    while (!released) {
                        try {
                            lineAllWait = here(); waitObj.wait();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                        allWaits++;
                    }
                }
                allDone.countDown();
            }, "orca-allwaiter-" + i);
        }
        while (true) {
            synchronized (waitObj) {
                boolean all = arrived == ALL_WAITERS;
                for (Thread t : ws) all &= t.getState() == Thread.State.WAITING;
                if (all) {
                    released = true;
                    lineNotifyAll = here(); waitObj.notifyAll();
                    notifyAlls++;
                    break;
                }
            }
            LockSupport.parkNanos(100_000);
        }
        await(allDone);
    }

    // ---- Thread.sleep and Thread.join ----

    static String joinTargets = "", joinTargetsWaited = "";

    // addJoin: t is joined; waits: the join waits (t alive). Where Thread is not rewritten (an
    // attach) a join is seen in its wait: a join of an ended thread is then not recorded.
    static void addJoin(Thread t, boolean waits) {
        joins++;
        joinTargets += (joinTargets.isEmpty() ? "" : ",") + hex(t);
        if (waits) joinTargetsWaited += (joinTargetsWaited.isEmpty() ? "" : ",") + hex(t);
    }

    static void sleepsAndJoins() throws InterruptedException {
        Thread.sleep(1);
        sleeps++;
        Thread.sleep(0);
        sleeps++;
        Thread.sleep(2, 500_000);
        sleeps++;
        Thread.sleep(3);
        sleeps++;

        // join() on a live thread: it ends only once main is inside join (WAITING).
        Thread t1 = thread(() -> awaitState(mainThread, Thread.State.WAITING), "orca-join-live");
        addJoin(t1, true);
        start(t1);
        t1.join();

        // join(ms) on a live thread: it ends once main is inside join (TIMED_WAITING).
        Thread t2 = thread(() -> awaitState(mainThread, Thread.State.TIMED_WAITING), "orca-join-timed");
        addJoin(t2, true);
        start(t2);
        t2.join(60_000);
        if (t2.isAlive()) throw new AssertionError("join(ms) timed out");

        // join() on a thread that has already ended.
        Thread t3 = start(() -> {}, "orca-join-dead");
        awaitState(t3, Thread.State.TERMINATED);
        addJoin(t3, false);
        t3.join();

        // join(ms, ns) on a live thread.
        Thread t4 = thread(() -> awaitState(mainThread, Thread.State.TIMED_WAITING), "orca-join-nanos");
        addJoin(t4, true);
        start(t4);
        t4.join(60_000, 500);
        if (t4.isAlive()) throw new AssertionError("join(ms, ns) timed out");
    }

    // ---- Semaphore ----

    static String semAcquirer = "";

    static void semaphore() throws InterruptedException {
        sem.acquire(); // 3 -> 2
        acquires++;
        sem.acquire(2); // 2 -> 0
        acquires++;
        sem.release(2); // 0 -> 2
        releases++;
        sem.release(); // 2 -> 3
        releases++;
        sem.acquireUninterruptibly(); // 3 -> 2
        acquires++;
        sem.acquireUninterruptibly(2); // 2 -> 0
        acquires++;

        // A contended acquire(): main holds every permit until the acquirer is parked.
        CountDownLatch done = new CountDownLatch(1);
        Thread a = start(() -> {
            try {
                lineSemContended = here(); sem.acquire(); // blocks: 0 permits
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            sem.release(); // 0 -> 1
            done.countDown();
        }, "orca-sem-acquirer");
        semAcquirer = hex(a);
        awaitState(a, Thread.State.WAITING);
        sem.release(); // 0 -> 1, then the acquirer takes it: 1 -> 0
        releases++;
        await(done);
        acquires++; // the acquirer's acquire()
        releases++; // the acquirer's release()
        sem.release(2); // 1 -> 3
        releases++;
        if (sem.availablePermits() != 3) throw new AssertionError("permits " + sem.availablePermits());
    }

    // ---- Monitor contention on warmLock, then on lock ----

    /**
     * Contended enters before the measured ones: with ThreadMXBean contention monitoring on (the
     * agent turns it on), the agent times contended enters with HotSpot's timer once it has found
     * it at start, and turns its MonitorContendedEntered callback off, so the
     * measured contentions are timed by HotSpot's timer (docs/agent.md). With monitoringOff the
     * program turns monitoring off again: the agent must notice and time them itself.
     */
    static void warmUp(boolean monitoringOff) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        // The agent uses the timer on JDK 11-18 only.
        long deadline = System.nanoTime() + (Runtime.version().feature() < 19 ? 5_000_000_000L : 0);
        while (!mx.isThreadContentionMonitoringEnabled() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        CountDownLatch[] held = new CountDownLatch[WARM_CONTENTIONS];
        CountDownLatch[] done = new CountDownLatch[WARM_CONTENTIONS];
        for (int i = 0; i < WARM_CONTENTIONS; i++) {
            held[i] = new CountDownLatch(1);
            done[i] = new CountDownLatch(1);
        }
        Thread[] b = new Thread[1];
        CountDownLatch known = new CountDownLatch(1);
        Thread a = start(() -> {
            await(known);
            for (int i = 0; i < WARM_CONTENTIONS; i++) {
                synchronized (warmLock) {
                    held[i].countDown();
                    awaitState(b[0], Thread.State.BLOCKED);
                }
                await(done[i]);
            }
        }, "orca-warm-owner");
        b[0] = start(() -> {
            for (int i = 0; i < WARM_CONTENTIONS; i++) {
                await(held[i]);
                synchronized (warmLock) { warmContended++; }
                done[i].countDown();
            }
        }, "orca-warm-contender");
        known.countDown();
        while (a.isAlive() || b[0].isAlive()) LockSupport.parkNanos(100_000);
        if (monitoringOff) {
            // ThreadImpl remembers its own last setting (false at first) and ignores a call that
            // does not change it; the agent turned monitoring on natively (docs/agent.md), so an
            // application turns it off by turning it on first.
            mx.setThreadContentionMonitoringEnabled(true);
            mx.setThreadContentionMonitoringEnabled(false);
        }
    }

    static String ownerHash, contenderHash;
    // Per round, System.nanoTime: how long the owner held lock after seeing the contender
    // BLOCKED (a floor for the recorded blocked time), and how long the contender's
    // synchronized statement took to enter (a ceiling).
    static final long[] heldNs = new long[CONTENTIONS], enterNs = new long[CONTENTIONS];

    static void contention() {
        CountDownLatch[] held = new CountDownLatch[CONTENTIONS];
        CountDownLatch[] done = new CountDownLatch[CONTENTIONS];
        for (int i = 0; i < CONTENTIONS; i++) {
            held[i] = new CountDownLatch(1);
            done[i] = new CountDownLatch(1);
        }
        Thread[] contender = new Thread[1];
        CountDownLatch contenderKnown = new CountDownLatch(1);
        Thread owner = start(() -> {
            await(contenderKnown);
            for (int i = 0; i < CONTENTIONS; i++) {
                synchronized (lock) {
                    held[i].countDown();
                    awaitState(contender[0], Thread.State.BLOCKED);
                    // The contender blocks on lock (the only monitor it can block on here) before
                    // its MonitorContendedEnter callback reads the owner; hold on a little longer so
                    // that read finds this thread still owning lock. Margin only: the contention
                    // itself is already certain.
                    long t0 = System.nanoTime();
                    LockSupport.parkNanos(5_000_000);
                    heldNs[i] = System.nanoTime() - t0;
                }
                await(done[i]); // the contender left lock: next round starts uncontended
            }
        }, OWNER_NAME);
        contender[0] = start(() -> {
            for (int i = 0; i < CONTENTIONS; i++) {
                await(held[i]);
                long t0 = System.nanoTime();
                lineContend = here(); synchronized (lock) { enterNs[i] = System.nanoTime() - t0; contended++; }
                done[i].countDown();
            }
        }, CONTENDER_NAME);
        contenderKnown.countDown();
        ownerHash = hex(owner);
        contenderHash = hex(contender[0]);
        CountDownLatch end = done[CONTENTIONS - 1];
        await(end);
        while (owner.isAlive() || contender[0].isAlive()) LockSupport.parkNanos(100_000);
        synchronized (lock) {
            if (contended != CONTENTIONS) throw new AssertionError("contended " + contended);
        }
    }

    static String join(long[] v) {
        StringBuilder b = new StringBuilder();
        for (long x : v) b.append(b.length() == 0 ? "" : ",").append(x);
        return b.toString();
    }
}
