// Attachee is the JVM the attach tests (integration/attach_test.go) attach to: started without
// the agent, it starts its worker threads, prints "READY" and then reads commands on stdin:
//
//   go    one round: an exactly known number of operations of several kinds, on objects of its
//         own, by the threads it started before any attach; then "EXPECT key=value ..." with the
//         counts and the identity hashes of the objects and threads (the same counts every round)
//   virtual  (JDK 21+) starts VTHREADS virtual threads, each sleeping SLEEPS times, joins them,
//         then "EXPECT virtualSleeps=N" (N their sleeps; -1 without virtual threads): the first
//         virtual threads of the JVM, so java.lang.VirtualThread is linked only then
//   exit  ends the workers and exits with status 0
//
// Between rounds every thread of the program is idle: main reads stdin, the workers wait in
// ArrayBlockingQueue.take (parks on the queue's own condition, not on the objects counted). Within
// a round, threads hand work over with queues and CountDownLatch (parks on their own objects)
// and wait for each other's state with Thread.getState and Thread.onSpinWait, which record
// nothing; so the only events on the counted objects are the round's:
//
//   contentions  MonitorContendedEnter/Entered on lock: the contender blocks while the owner holds it
//   waits        ObjectWait/Waited on waitObj by the waiter, each ended by one ObjectNotify from main
//   notifyAlls   ObjectNotifyAll on waitObj with no waiter
//   sleeps       ThreadSleep/Slept by the sleeper
//   parks        ThreadPark on parkBlocker by the parker, each ended by main's unpark
//   joins        main starts a thread named JOINED and joins it (ThreadStart, ThreadJoin/Joined)
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

public class Attachee {
    static final int CONTENTIONS = 3, WAITS = 2, NOTIFY_ALLS = 1, SLEEPS = 3, PARKS = 2, VTHREADS = 3;
    static final String JOINED = "orca-attach-joined";

    static final Object lock = new Object[0];
    static final Object waitObj = new StringBuilder("attach wait object");
    static final Object parkBlocker = new int[0];

    /** A worker: a thread started before any attach that runs the tasks it is given. */
    static final class Worker {
        final BlockingQueue<Runnable> tasks = new ArrayBlockingQueue<>(1);
        final Thread thread;

        Worker(String name) {
            thread = new Thread(() -> {
                try {
                    for (;;) {
                        Runnable r = tasks.take();
                        if (r == STOP) return;
                        r.run();
                    }
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }, name);
            thread.start();
        }

        void give(Runnable r) {
            try {
                tasks.put(r);
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
        }
    }

    static final Runnable STOP = () -> {};
    static final Worker owner = new Worker("orca-attach-owner");
    static final Worker contender = new Worker("orca-attach-contender");
    static final Worker waiter = new Worker("orca-attach-waiter");
    static final Worker sleeper = new Worker("orca-attach-sleeper");
    static final Worker parker = new Worker("orca-attach-parker");
    static final Worker[] workers = {owner, contender, waiter, sleeper, parker};

    static int waiting; // guarded by waitObj: how many times the waiter went into wait() this round

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static String utf8Hex(String s) {
        StringBuilder b = new StringBuilder();
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) b.append(String.format("%02X", x));
        return b.toString();
    }

    static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    static void until(Thread t, Thread.State s) {
        while (t.getState() != s) Thread.onSpinWait();
    }

    /** The contender blocks on lock while the owner holds it, CONTENTIONS times. */
    static void contend() {
        for (int i = 0; i < CONTENTIONS; i++) {
            CountDownLatch held = new CountDownLatch(1), release = new CountDownLatch(1), done = new CountDownLatch(2);
            owner.give(() -> {
                synchronized (lock) {
                    held.countDown();
                    await(release);
                }
                done.countDown();
            });
            await(held);
            contender.give(() -> {
                synchronized (lock) {
                    Thread.onSpinWait();
                }
                done.countDown();
            });
            until(contender.thread, Thread.State.BLOCKED);
            release.countDown();
            await(done);
        }
    }

    /** The waiter waits on waitObj WAITS times, each ended by one notify from main. */
    static void waitNotify() {
        synchronized (waitObj) {
            waiting = 0;
        }
        CountDownLatch done = new CountDownLatch(1);
        waiter.give(() -> {
            for (int i = 0; i < WAITS; i++) {
                synchronized (waitObj) {
                    waiting++;
                    try {
                        waitObj.wait(); // a spurious wake-up would add a wait: none are expected of HotSpot
                    } catch (InterruptedException e) {
                        throw new RuntimeException(e);
                    }
                }
            }
            done.countDown();
        });
        for (int i = 1; i <= WAITS; i++) {
            for (;;) {
                synchronized (waitObj) {
                    if (waiting == i && waiter.thread.getState() == Thread.State.WAITING) break;
                }
                Thread.onSpinWait();
            }
            synchronized (waitObj) {
                waitObj.notify();
            }
        }
        await(done);
        for (int i = 0; i < NOTIFY_ALLS; i++) {
            synchronized (waitObj) {
                waitObj.notifyAll();
            }
        }
    }

    static void sleep() {
        CountDownLatch done = new CountDownLatch(1);
        sleeper.give(() -> {
            for (int i = 0; i < SLEEPS; i++) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
            done.countDown();
        });
        await(done);
    }

    static volatile int parked;

    /** The parker parks on parkBlocker PARKS times, each ended by main's unpark. */
    static void park() {
        parked = 0;
        CountDownLatch done = new CountDownLatch(1);
        parker.give(() -> {
            for (int i = 1; i <= PARKS; i++) {
                parked = i;
                LockSupport.park(parkBlocker); // a spurious return would add a park: none are expected of HotSpot
            }
            done.countDown();
        });
        for (int i = 1; i <= PARKS; i++) {
            while (parked != i || parker.thread.getState() != Thread.State.WAITING) Thread.onSpinWait();
            LockSupport.unpark(parker.thread);
        }
        await(done);
    }

    // LOADED is never acquired: Semaphore is loaded before any attach, which rewrites it where
    // that is cheap (TestAttachDeoptimizes reads what HotSpot deoptimised).
    static final Semaphore LOADED = new Semaphore(1);

    // join: the joined thread ends once main waits in join (an attach sees a join in its wait).
    static Thread join() {
        Thread main = Thread.currentThread();
        Thread t = new Thread(() -> {
            while (main.getState() != Thread.State.WAITING) Thread.onSpinWait();
        }, JOINED);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
        return t;
    }

    /** VTHREADS virtual threads sleep SLEEPS times each (by reflection: compiled for 17). */
    static int virtualSleeps() throws Exception {
        Object builder;
        try {
            builder = Thread.class.getMethod("ofVirtual").invoke(null);
        } catch (NoSuchMethodException e) {
            return -1;
        }
        java.lang.reflect.Method unstarted = Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class);
        Thread[] ts = new Thread[VTHREADS];
        for (int i = 0; i < VTHREADS; i++) {
            ts[i] = (Thread) unstarted.invoke(builder, (Runnable) () -> {
                try {
                    for (int k = 0; k < SLEEPS; k++) Thread.sleep(1);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
        }
        for (Thread t : ts) t.start();
        for (Thread t : ts) t.join();
        return VTHREADS * SLEEPS;
    }

    public static void main(String[] args) throws Exception {
        StringBuilder names = new StringBuilder();
        for (Worker w : workers) {
            names.append(" name.").append(hex(w.thread)).append('=').append(utf8Hex(w.thread.getName()));
        }
        System.out.println("READY");
        System.out.flush();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        int rounds = 0;
        for (String cmd; (cmd = in.readLine()) != null; ) {
            if (cmd.equals("exit")) break;
            if (cmd.equals("virtual")) {
                System.out.println("EXPECT virtualSleeps=" + virtualSleeps());
                System.out.flush();
                continue;
            }
            if (!cmd.equals("go")) {
                System.out.println("unknown command " + cmd);
                continue;
            }
            rounds++;
            contend();
            waitNotify();
            sleep();
            park();
            Thread joined = join();
            System.out.println("EXPECT round=" + rounds
                    + " contentions=" + CONTENTIONS + " waits=" + WAITS + " notifies=" + WAITS + " notifyAlls=" + NOTIFY_ALLS
                    + " sleeps=" + SLEEPS + " parks=" + PARKS + " joins=1"
                    + " lock=" + hex(lock) + " waitObj=" + hex(waitObj) + " parkBlocker=" + hex(parkBlocker)
                    + " main=" + hex(Thread.currentThread()) + " joined=" + hex(joined) + " joinedName=" + utf8Hex(JOINED)
                    + " owner=" + hex(owner.thread) + " contender=" + hex(contender.thread) + " waiter=" + hex(waiter.thread)
                    + " sleeper=" + hex(sleeper.thread) + " parker=" + hex(parker.thread) + names);
            System.out.flush();
        }
        for (Worker w : workers) w.give(STOP);
        for (Worker w : workers) w.thread.join();
        System.out.println("BYE rounds=" + rounds);
    }
}
