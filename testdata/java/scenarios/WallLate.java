// WallLate: a thread that is off a CPU in no recorded state, then in a recorded one, in turn
// (issue 33's wall sampler, its signal after its look): "hopper" blocks in a pipe's read (native
// code) until "feeder" writes a byte, every 40 ms, then parks for 30 ms; MS milliseconds of it.
// With the sampler held between its look and its signal (ORCA_TEST_WALL_SIGNAL_MS), a look that
// finds hopper in its read signals it once it is in its park. Then
// "EXPECT hopper=HASH reads=N parks=N".
// Usage: WallLate [MS]
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.locks.LockSupport;

public class WallLate {
    static volatile boolean done;

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        Pipe pipe = Pipe.open();
        long[] counts = new long[2];
        Thread hopper = new Thread(() -> {
            ByteBuffer b = ByteBuffer.allocate(1);
            try {
                while (!done) {
                    b.clear();
                    if (pipe.source().read(b) < 0) break;
                    counts[0]++;
                    LockSupport.parkNanos(30_000_000L);
                    counts[1]++;
                }
            } catch (Exception e) {
                // closed by main: the end
            }
        }, "hopper");
        Thread feeder = new Thread(() -> {
            ByteBuffer one = ByteBuffer.allocate(1);
            try {
                while (!done) {
                    Thread.sleep(40);
                    one.clear();
                    pipe.sink().write(one);
                }
                one.clear();
                pipe.sink().write(one);
            } catch (Exception e) {
                // the end
            }
        }, "feeder");
        hopper.start();
        feeder.start();
        Thread.sleep(ms);
        done = true;
        feeder.join();
        hopper.join();
        System.out.printf("EXPECT hopper=%08X reads=%d parks=%d%n", System.identityHashCode(hopper), counts[0], counts[1]);
    }
}
