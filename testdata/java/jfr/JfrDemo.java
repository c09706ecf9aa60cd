// JfrDemo performs a known number of each operation the JFR import turns into Orca events and
// prints, as its last line, "EXPECT key=value ...": the counts, the JFR thread ids of the threads
// involved and the source lines of the call sites. internal/jfrimport's tests run it under
// -XX:StartFlightRecording with orca.jfc, import the recording and compare it with that line.
//
// Each operation the test counts uses an object of its own class (Lock, WaitBox, Blocker), so
// the JVM's own contention, waits and parks (class loading, latches, joins) do not change the
// counts. Contentions and notifications are forced by handshakes (thread-state polling), never
// by timing.
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

public class JfrDemo {
    static final int CONTENTIONS = 3; // owner holds lock, contender blocks on it
    static final int NOTIFIED_WAITS = 2; // waiter waits on box, main notifies
    static final int TIMED_WAITS = 1; // main waits on box with a timeout nobody ends
    static final int SLEEPS = 3;
    static final int PARKS = 2; // parkNanos with a Blocker

    // Names with a comma, a quote and non-ASCII text: the import must quote them.
    static final String OWNER_NAME = "jfr-owner, \"quoted\"";
    static final String CONTENDER_NAME = "jfr-contender-ž";
    static final String WAITER_NAME = "jfr-waiter";
    static final String PARKER_NAME = "jfr-parker";

    static final class Lock {}
    static final class WaitBox {}
    static final class Blocker {}

    static final Lock lock = new Lock();
    static final WaitBox box = new WaitBox();
    static final Blocker blocker = new Blocker();

    static volatile boolean ownerHolds, ownerRelease;
    static int notified; // guarded by box
    static boolean waiting; // guarded by box
    static volatile int lineContend, lineWait, lineTimedWait, lineNotify, lineSleep, linePark, lineStart;
    static final List<Thread> started = new ArrayList<>();

    /** The source line of the caller: write it on the same line as the call it describes. */
    static int here() {
        return new Throwable().getStackTrace()[1].getLineNumber();
    }

    static Thread start(Runnable r, String name) {
        Thread t = new Thread(r, name);
        started.add(t);
        lineStart = here(); t.start();
        return t;
    }

    /** Polls until t is in state s. */
    static void awaitState(Thread t, Thread.State s) {
        while (t.getState() != s) Thread.onSpinWait();
    }

    public static void main(String[] args) throws Exception {
        contention();
        waits();
        sleeps();
        parks();
        for (Thread t : started) t.join();
        StringBuilder out = new StringBuilder("EXPECT");
        out.append(" main=").append(Thread.currentThread().getId());
        out.append(" contentions=").append(CONTENTIONS);
        out.append(" notifiedWaits=").append(NOTIFIED_WAITS);
        out.append(" timedWaits=").append(TIMED_WAITS);
        out.append(" sleeps=").append(SLEEPS);
        out.append(" parks=").append(PARKS);
        out.append(" starts=").append(started.size());
        out.append(" line.contend=").append(lineContend);
        out.append(" line.wait=").append(lineWait);
        out.append(" line.timedwait=").append(lineTimedWait);
        out.append(" line.sleep=").append(lineSleep);
        out.append(" line.park=").append(linePark);
        out.append(" line.start=").append(lineStart);
        for (Thread t : started) out.append(" thread.").append(t.getId()).append('=').append(t.getName().replace(' ', '_'));
        System.out.println(out);
    }

    static void contention() throws InterruptedException {
        for (int r = 0; r < CONTENTIONS; r++) {
            ownerHolds = false;
            ownerRelease = false;
            Thread owner = start(() -> {
                synchronized (lock) {
                    ownerHolds = true;
                    while (!ownerRelease) Thread.onSpinWait();
                }
            }, OWNER_NAME);
            while (!ownerHolds) Thread.onSpinWait();
            Thread contender = start(() -> {
                // One line: JFR's frame points past the monitorenter.
                lineContend = here(); synchronized (lock) { lock.hashCode(); }
            }, CONTENDER_NAME);
            awaitState(contender, Thread.State.BLOCKED);
            ownerRelease = true;
            owner.join();
            contender.join();
        }
    }

    static void waits() throws InterruptedException {
        Thread waiter = start(() -> {
            for (int r = 0; r < NOTIFIED_WAITS; r++) {
                synchronized (box) {
                    waiting = true;
                    int seen = notified;
                    while (notified == seen) {
                        try {
                            lineWait = here(); box.wait();
                        } catch (InterruptedException e) {
                            throw new AssertionError(e);
                        }
                    }
                }
            }
        }, WAITER_NAME);
        for (int r = 0; r < NOTIFIED_WAITS; r++) {
            while (true) {
                synchronized (box) {
                    // Holding box, a WAITING waiter that set waiting is in the wait set.
                    if (waiting && waiter.getState() == Thread.State.WAITING) {
                        waiting = false;
                        notified++;
                        lineNotify = here(); box.notify();
                        break;
                    }
                }
                Thread.onSpinWait();
            }
        }
        waiter.join();
        for (int i = 0; i < TIMED_WAITS; i++) {
            synchronized (box) {
                lineTimedWait = here(); box.wait(30);
            }
        }
    }

    static void sleeps() throws InterruptedException {
        for (int i = 0; i < SLEEPS; i++) {
            lineSleep = here(); Thread.sleep(5);
        }
    }

    static void parks() throws InterruptedException {
        Thread parker = start(() -> {
            for (int i = 0; i < PARKS; i++) {
                linePark = here(); LockSupport.parkNanos(blocker, 2_000_000);
            }
        }, PARKER_NAME);
        parker.join();
    }
}
