// WallLate: threads that are off a CPU in no recorded state, then in a recorded one, in turn
// (issue 33's wall sampler, its signal after its look): each of HOPPERS threads "hopper-I" blocks
// in its own pipe's read (native code) until its feeder writes a byte, every 130 ms, then parks
// for 60 ms; MS milliseconds of it. The feeders start 130 / HOPPERS ms apart, so that some hopper
// is in its read at most moments, and a read lasts ~70 ms: a park or sleep that overshoots by
// tens of milliseconds on a loaded machine still leaves the read blocked. With the sampler held
// between its look and its signal (ORCA_TEST_WALL_SIGNAL_MS, 40 in the test), a look in the
// last 40 ms of a read signals the hopper once it is in its park.
// Then "EXPECT hoppers=HASH,... reads=N parks=N" (summed over the hoppers).
// Usage: WallLate [MS] [HOPPERS]
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.locks.LockSupport;

public class WallLate {
    static volatile boolean done;
    static final long PERIOD_MS = 130, PARK_NS = 60_000_000L;

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        Thread[] hoppers = new Thread[n], feeders = new Thread[n];
        long[][] counts = new long[n][2];
        for (int i = 0; i < n; i++) {
            Pipe pipe = Pipe.open();
            long[] c = counts[i];
            long phase = PERIOD_MS * i / n;
            hoppers[i] = new Thread(() -> {
                ByteBuffer b = ByteBuffer.allocate(1);
                try {
                    while (!done) {
                        b.clear();
                        if (pipe.source().read(b) < 0) break;
                        c[0]++;
                        LockSupport.parkNanos(PARK_NS);
                        c[1]++;
                    }
                } catch (Exception e) {
                    // closed: the end
                }
            }, "hopper-" + i);
            feeders[i] = new Thread(() -> {
                ByteBuffer one = ByteBuffer.allocate(1);
                try {
                    Thread.sleep(phase);
                    while (!done) {
                        Thread.sleep(PERIOD_MS);
                        one.clear();
                        pipe.sink().write(one);
                    }
                    one.clear();
                    pipe.sink().write(one);
                } catch (Exception e) {
                    // the end
                }
            }, "feeder-" + i);
        }
        for (int i = 0; i < n; i++) {
            hoppers[i].start();
            feeders[i].start();
        }
        Thread.sleep(ms);
        done = true;
        StringBuilder hashes = new StringBuilder();
        long reads = 0, parks = 0;
        for (int i = 0; i < n; i++) {
            feeders[i].join();
            hoppers[i].join();
            hashes.append(i == 0 ? "" : ",").append(String.format("%08X", System.identityHashCode(hoppers[i])));
            reads += counts[i][0];
            parks += counts[i][1];
        }
        System.out.printf("EXPECT hoppers=%s reads=%d parks=%d%n", hashes, reads, parks);
    }
}
