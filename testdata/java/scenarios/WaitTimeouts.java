// WaitTimeouts (issue 20 item 2): what the hang rule sees at the end of a clean stop. Each part
// runs in a thread of its own, named after it, daemon, started before READY:
//
//   timed-waiter     waits on `timed` with wait(60 000): still waiting at the end, for seconds,
//                    but its wait ends by itself (its ObjectWaitTimeout line): not a hang
//   untimed-waiter   waits on `untimed` with wait(0L) through wait(long) (no wait() frame: only
//                    the recording's wait_timeouts says it is untimed): stuck for seconds, a hang
//   ticker           TICKS timed waits of TICK_MS on `tick` that time out, then ends: one
//                    ObjectWaitTimeout line each, TICK_MS in nanoseconds
//   consumer         takes from an ArrayBlockingQueue nobody fills: waiting for work, not a hang
//
// main waits until the ticker has ended and the others are in their states, sleeps STUCK_MS so
// that each has been in it for more than a second, prints EXPECT and returns: the JVM exits.
import java.util.concurrent.ArrayBlockingQueue;

public class WaitTimeouts {
    static final int TICKS = 20, TICK_MS = 5, STUCK_MS = 1500;

    static Thread start(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void waitOn(Object o, long ms) {
        synchronized (o) {
            try {
                o.wait(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void until(Thread t, Thread.State s) throws InterruptedException {
        while (t.getState() != s) Thread.sleep(1);
    }

    public static void main(String[] args) throws InterruptedException {
        Object timed = new Object(), untimed = new Object(), tick = new Object();
        ArrayBlockingQueue<Object> queue = new ArrayBlockingQueue<>(1);
        Thread ticker = start("ticker", () -> {
            for (int i = 0; i < TICKS; i++) waitOn(tick, TICK_MS);
        });
        ticker.join();
        Thread tw = start("timed-waiter", () -> waitOn(timed, 60_000));
        long zero = args.length; // 0: wait(long) with 0, not the constant wait()
        Thread uw = start("untimed-waiter", () -> waitOn(untimed, zero));
        Thread consumer = start("consumer", () -> {
            try {
                queue.take();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        until(tw, Thread.State.TIMED_WAITING);
        until(uw, Thread.State.WAITING);
        until(consumer, Thread.State.WAITING);
        System.out.println("READY");
        Thread.sleep(STUCK_MS);
        System.out.printf("EXPECT timed=%08X untimed=%08X tick=%08X ticks=%d tick_ns=%d%n", System.identityHashCode(timed),
                System.identityHashCode(untimed), System.identityHashCode(tick), TICKS, TICK_MS * 1_000_000L);
    }
}
