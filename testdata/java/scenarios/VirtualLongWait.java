// VirtualLongWait (issue 19): on JDK 21+, virtual threads wait in Object.wait, half of them longer
// than the agent's flush period (wait(250), never notified: each times out) on a new object each
// round (the walker names each one's class: hundreds of namings a run), half briefly (wait(1), then
// garbage and Thread.yield, so collections run and carriers switch threads) on an object of their
// own; two platform threads wait long too. On 24+ a virtual thread's wait native
// returns when it unmounts: the agent must never read its argument afterwards (the walker's
// GetObjectClass on it crashed the JVM with Serial, Parallel and G1). Every wait is recorded on its
// own object, whose class is the program's. Prints "EXPECT virtual=no" on JDK 17-20.
// Args: [virtual threads (default 64)] [long rounds (4)] [short rounds (300)].
// Compiled with --release 17: virtual threads through reflection.
import java.util.concurrent.locks.LockSupport;

public class VirtualLongWait {
    static final class LongMon {}
    static final class ShortMon {}
    static final class PlatformMon {}
    static volatile Object sink;

    static Thread startVirtual(Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    // waitRounds waits rounds times on objs[0], or on objs[r] when fresh.
    static void waitRounds(Object[] objs, boolean fresh, int rounds, long ms, boolean garbage) {
        for (int r = 0; r < rounds; r++) {
            Object o = objs[fresh ? r : 0];
            synchronized (o) {
                try {
                    o.wait(ms);
                } catch (InterruptedException e) {
                    throw new AssertionError(e);
                }
            }
            if (garbage) {
                sink = new byte[64 << 10];
                Thread.yield();
            }
        }
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
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int longRounds = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        int shortRounds = args.length > 2 ? Integer.parseInt(args[2]) : 300;
        int nlong = threads / 2;
        Object[] longs = new Object[nlong * longRounds], shorts = new Object[threads - nlong];
        Object[] plats = {new PlatformMon(), new PlatformMon()};
        for (int i = 0; i < longs.length; i++) longs[i] = new LongMon();
        for (int i = 0; i < shorts.length; i++) shorts[i] = new ShortMon();
        Thread[] ts = new Thread[threads + plats.length];
        for (int i = 0; i < nlong; i++) {
            Object[] mine = java.util.Arrays.copyOfRange(longs, i * longRounds, (i + 1) * longRounds);
            ts[i] = startVirtual(() -> waitRounds(mine, true, longRounds, 250, false));
        }
        for (int i = 0; i < shorts.length; i++) {
            Object[] mine = {shorts[i]};
            ts[nlong + i] = startVirtual(() -> waitRounds(mine, false, shortRounds, 1, true));
        }
        for (int i = 0; i < plats.length; i++) {
            Object[] mine = {plats[i]};
            ts[threads + i] = new Thread(() -> waitRounds(mine, false, longRounds, 250, false), "orca-pwait-" + i);
            ts[threads + i].start();
        }
        for (Thread t : ts) while (t.isAlive()) LockSupport.parkNanos(1_000_000); // join would be recorded
        System.out.printf("EXPECT virtual=yes long=%s short=%s platform=%s longRounds=%d shortRounds=%d%n",
                hex(longs), hex(shorts), hex(plats), longRounds, shortRounds);
    }
}
