// EnterTiming: a contended enter's time and owner when the agent's read of the contender's held
// monitors lasts long (ORCA_TEST_PREEMPT_HELD_MS: the read yields its CPU that long, as one the
// OS preempts on a loaded machine; ORCA_TEST_SLOW_HELD_MS: it sleeps, as an agent that waits).
// Two rounds, one after the other, each on a lock of its own: an owner takes the lock, waits
// until the contender is BLOCKED on it, then keeps it HOLD ms more (args: the long round's, then
// the short round's) and lets it go. The contender holds a monitor of its own ("held", waited on
// first, so that the agent knows it and reads it from the frames) when it blocks.
//
// Prints "EXPECT lockL=HASH lockS=HASH ownerL=HASH ownerS=HASH long=HASH short=HASH
// long.held.ns=N long.enter.ns=N short.held.ns=N short.enter.ns=N": per round, how long the
// owner held the lock after it saw the contender BLOCKED (a floor of the blocked time), and how
// long the contender's enter took by its own clock (a ceiling).
import java.util.concurrent.CountDownLatch;

public class EnterTiming {
    static final Object held = new Object(), lockL = new Object(), lockS = new Object();

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static void pause() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            throw new RuntimeException(e);
        }
    }

    // round runs one contention on lock; returns {owner, contender, held ns, enter ns} as text.
    static String[] round(String name, Object lock, long holdMs) throws InterruptedException {
        long[] ns = new long[2];
        Thread contender = new Thread(() -> {
            synchronized (held) {
                long t0 = System.nanoTime();
                synchronized (lock) {
                    ns[1] = System.nanoTime() - t0;
                }
            }
        }, "orca-" + name);
        CountDownLatch locked = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            synchronized (lock) {
                locked.countDown();
                while (contender.getState() != Thread.State.BLOCKED) pause();
                long t = System.nanoTime();
                while (System.nanoTime() - t < holdMs * 1_000_000) pause();
                ns[0] = System.nanoTime() - t;
            }
        }, "orca-owner-" + name);
        owner.start();
        locked.await();
        contender.start();
        owner.join();
        contender.join();
        return new String[] {hex(owner), hex(contender), Long.toString(ns[0]), Long.toString(ns[1])};
    }

    public static void main(String[] args) throws Exception {
        synchronized (held) {
            held.wait(1);
        }
        String[] l = round("long", lockL, Long.parseLong(args[0]));
        String[] s = round("short", lockS, Long.parseLong(args[1]));
        System.out.printf("EXPECT lockL=%s lockS=%s ownerL=%s ownerS=%s long=%s short=%s long.held.ns=%s long.enter.ns=%s "
                + "short.held.ns=%s short.enter.ns=%s%n", hex(lockL), hex(lockS), l[0], s[0], l[1], s[1], l[2], l[3], s[2], s[3]);
    }
}
