// VirtualStress (issue 19, item 4): on JDK 21+, THREADS virtual threads (100 000 by default), at
// most LIVE alive at once, each in one of seven roles, ROUNDS times:
//   mon      synchronized on one of 32 shared StressMon objects (sometimes two, in order), yields or
//            sleeps inside now and then (24+: unmounted while holding it, so others contend);
//            non-atomic counters under the monitor check mutual exclusion
//   lock     the same on one of 16 shared ReentrantLocks (contenders park on its Sync)
//   sleep    Thread.sleep(0..3 ms)
//   park     LockSupport.parkNanos on one of 8 ParkBlocker objects, every other round after
//            unparking itself (the permit: the park returns at once)
//   handoff  a pair: the parker parks on a HandoffBlocker until its unparker (a thread of its own)
//            sets a flag and unparks it
//   wait     Object.wait on one of 64 shared WaitMon objects, a quarter of them 300 ms (longer than
//            the agent's 200 ms flush period: the walker writes them while the thread is unmounted,
//            24+), the others 1-20 ms; then notify (or, each eighth time, notifyAll) on another
//   long     once: wait(250-400 ms) on a new LongMon, never notified (issue 19's crash: the walker
//            named such objects after the wait native had returned), then notifyAll on it
// Every thread also leaves garbage (an 8 KiB array a round), so collections run throughout.
// Prints what it did exactly: "EXPECT virtual=yes started=N sleeps=N ..." with the identity hashes
// of its objects; "EXPECT virtual=no" on JDK 17-20. A counter that breaks mutual exclusion prints
// "BROKEN". Args: [threads (100000)] [live (4000)] [rounds (4)].
// Compiled with --release 17: virtual threads through reflection.
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

public class VirtualStress {
    static final class StressMon { long count; }
    static final class WaitMon {}
    static final class LongMon {}
    static final class ParkBlocker {}
    static final class HandoffBlocker {}

    static final StressMon[] mons = new StressMon[32];
    static final ReentrantLock[] locks = new ReentrantLock[16];
    static final long[] lockCounts = new long[locks.length]; // each under its lock
    static final WaitMon[] waitMons = new WaitMon[64];
    static final ParkBlocker[] parkBlockers = new ParkBlocker[8];
    static final HandoffBlocker[] handoffBlockers = new HandoffBlocker[8];
    static final List<LongMon> longMons = new ArrayList<>();

    static final LongAdder monEntries = new LongAdder(), lockEntries = new LongAdder(), sleeps = new LongAdder(),
            timedParks = new LongAdder(), handoffParks = new LongAdder(), unparks = new LongAdder(),
            waits = new LongAdder(), notifies = new LongAdder(), notifyAlls = new LongAdder(),
            longWaits = new LongAdder(), garbage = new LongAdder();
    static final AtomicInteger live = new AtomicInteger();
    static volatile Object sink;

    static Object builder;
    static Method start, unstarted;

    static Thread virtual(Runnable r, boolean run) throws Exception {
        try {
            return (Thread) (run ? start : unstarted).invoke(builder, r);
        } catch (InvocationTargetException e) {
            throw new AssertionError(e.getCause());
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        sleeps.increment();
    }

    static void waitOn(Object o, long ms) {
        synchronized (o) {
            try {
                o.wait(ms);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static void litter() {
        sink = new byte[8 << 10];
        garbage.increment();
    }

    static void monRound(ThreadLocalRandom rnd, int r) {
        int a = rnd.nextInt(mons.length), b = rnd.nextInt(mons.length);
        synchronized (mons[Math.min(a, b)]) {
            mons[Math.min(a, b)].count++;
            monEntries.increment();
            if (a != b && rnd.nextInt(4) == 0) { // nested, always in index order: no deadlock
                synchronized (mons[Math.max(a, b)]) {
                    mons[Math.max(a, b)].count++;
                    monEntries.increment();
                    Thread.yield();
                }
            }
            if (r % 2 == 0) Thread.yield();
            else if (rnd.nextInt(10) == 0) sleep(1);
        }
    }

    static void lockRound(ThreadLocalRandom rnd, int r) {
        int k = rnd.nextInt(locks.length);
        ReentrantLock l = locks[k];
        l.lock();
        try {
            lockCounts[k]++;
            lockEntries.increment();
            if (r % 2 == 0) Thread.yield();
            else if (rnd.nextInt(10) == 0) sleep(1);
        } finally {
            l.unlock();
        }
    }

    static void parkRound(ThreadLocalRandom rnd, int r) {
        if (r % 2 == 1) {
            LockSupport.unpark(Thread.currentThread());
            unparks.increment();
        }
        LockSupport.parkNanos(parkBlockers[rnd.nextInt(parkBlockers.length)], 50_000 + rnd.nextInt(2_000_000));
        timedParks.increment();
    }

    static void waitRound(ThreadLocalRandom rnd, int r) {
        long ms = rnd.nextInt(4) == 0 ? 300 : 1 + rnd.nextInt(20);
        waitOn(waitMons[rnd.nextInt(waitMons.length)], ms);
        waits.increment();
        WaitMon m = waitMons[rnd.nextInt(waitMons.length)];
        synchronized (m) {
            if (rnd.nextInt(8) == 0) {
                m.notifyAll();
                notifyAlls.increment();
            } else {
                m.notify();
                notifies.increment();
            }
        }
    }

    // A handoff: the parker parks until the unparker has set done and unparked it.
    static final class Handoff {
        volatile boolean done;
        final HandoffBlocker blocker;
        Thread parker;

        Handoff(HandoffBlocker b) { blocker = b; }

        void park() {
            while (!done) {
                LockSupport.park(blocker);
                handoffParks.increment();
            }
        }

        void unpark() {
            if (ThreadLocalRandom.current().nextBoolean()) Thread.yield();
            done = true;
            LockSupport.unpark(parker);
            unparks.increment();
        }
    }

    static Runnable role(int i, int rounds) {
        switch (i % 20) {
            case 0: case 1: case 2: case 3:
                return () -> { for (int r = 0; r < rounds; r++) { monRound(ThreadLocalRandom.current(), r); litter(); } };
            case 4: case 5: case 6: case 7:
                return () -> { for (int r = 0; r < rounds; r++) { lockRound(ThreadLocalRandom.current(), r); litter(); } };
            case 8: case 9: case 10:
                return () -> { for (int r = 0; r < rounds; r++) { sleep(ThreadLocalRandom.current().nextInt(4)); litter(); } };
            case 11: case 12:
                return () -> { for (int r = 0; r < rounds; r++) { parkRound(ThreadLocalRandom.current(), r); litter(); } };
            case 13: case 14: case 15:
                return () -> { for (int r = 0; r < rounds; r++) { waitRound(ThreadLocalRandom.current(), r); litter(); } };
            case 16: {
                LongMon m = new LongMon();
                longMons.add(m); // main only
                return () -> {
                    waitOn(m, 250 + ThreadLocalRandom.current().nextInt(150));
                    longWaits.increment();
                    synchronized (m) { m.notifyAll(); }
                    litter();
                };
            }
            default:
                return null; // 17-19: handoff pairs, started by main
        }
    }

    // run wraps r so that the thread leaves the live count when it ends.
    static Runnable counted(Runnable r) {
        return () -> {
            try {
                r.run();
            } finally {
                live.decrementAndGet();
            }
        };
    }

    static String hex(Object[] os) {
        StringBuilder b = new StringBuilder();
        for (Object o : os) b.append(b.length() > 0 ? "," : "").append(String.format("%08X", System.identityHashCode(o)));
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        if (Runtime.version().feature() < 21) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int maxLive = args.length > 1 ? Integer.parseInt(args[1]) : 4000;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 4;
        for (int i = 0; i < mons.length; i++) mons[i] = new StressMon();
        for (int i = 0; i < locks.length; i++) locks[i] = new ReentrantLock();
        for (int i = 0; i < waitMons.length; i++) waitMons[i] = new WaitMon();
        for (int i = 0; i < parkBlockers.length; i++) parkBlockers[i] = new ParkBlocker();
        for (int i = 0; i < handoffBlockers.length; i++) handoffBlockers[i] = new HandoffBlocker();
        builder = Thread.class.getMethod("ofVirtual").invoke(null);
        Class<?> b = Class.forName("java.lang.Thread$Builder");
        start = b.getMethod("start", Runnable.class);
        unstarted = b.getMethod("unstarted", Runnable.class);

        long t0 = System.nanoTime();
        int started = 0, handoffs = 0;
        for (int i = 0; started < threads; i++) {
            while (live.get() >= maxLive) LockSupport.parkNanos(1_000_000);
            Runnable r = role(i, rounds);
            if (r != null) {
                live.incrementAndGet();
                virtual(counted(r), true);
                started++;
            } else if (i % 20 == 17 && started + 2 <= threads) {
                Handoff h = new Handoff(handoffBlockers[handoffs++ % handoffBlockers.length]);
                live.addAndGet(2);
                h.parker = virtual(counted(h::park), false);
                h.parker.start();
                virtual(counted(h::unpark), true);
                started += 2;
            }
        }
        while (live.get() > 0) LockSupport.parkNanos(1_000_000);
        long ms = (System.nanoTime() - t0) / 1_000_000;

        long monSum = 0, lockSum = 0;
        for (StressMon m : mons) synchronized (m) { monSum += m.count; }
        for (int k = 0; k < locks.length; k++) {
            locks[k].lock();
            try {
                lockSum += lockCounts[k];
            } finally {
                locks[k].unlock();
            }
        }
        if (monSum != monEntries.sum() || lockSum != lockEntries.sum())
            System.out.printf("BROKEN: monitors counted %d of %d entries, locks %d of %d%n", monSum, monEntries.sum(), lockSum, lockEntries.sum());
        System.out.printf("DONE in %d ms: %d virtual threads, at most %d alive, %d rounds%n", ms, started, maxLive, rounds);
        System.out.printf("EXPECT virtual=yes started=%d handoffs=%d rounds=%d monEntries=%d lockEntries=%d sleeps=%d "
                + "timedParks=%d handoffParks=%d unparks=%d waits=%d notifies=%d notifyAlls=%d longWaits=%d garbage=%d "
                + "main=%08X mons=%s waitMons=%s parkBlockers=%s handoffBlockers=%s longMons=%s%n",
                started, handoffs, rounds, monEntries.sum(), lockEntries.sum(), sleeps.sum(), timedParks.sum(),
                handoffParks.sum(), unparks.sum(), waits.sum(), notifies.sum(), notifyAlls.sum(), longWaits.sum(),
                garbage.sum(), System.identityHashCode(Thread.currentThread()), hex(mons), hex(waitMons),
                hex(parkBlockers), hex(handoffBlockers), hex(longMons.toArray()));
    }
}
