// Threads that hold a contended monitor while they contend for another, for the perturbation of
// the held monitors the agent lists at each contended enter (issue 36 item 2;
// docs/perf/2026-11-29-issue-36-held-default.md): a thread that holds an Outer monitor and blocks on the
// Inner one keeps the Outer's own waiters behind it; any time the agent spends before it blocks,
// once the Inner is free, lengthens that Outer's hold.
//
//   java HeldBench SECONDS WARMUP [WORK]      (compiled with NestBench.java, whose window it uses)
//
// THREADS threads; each operation recurses DEPTH frames, takes one of OUTERS shared Outer monitors
// (contended by the other threads of its pair), does a little work, then takes the one Inner
// monitor (contended by the holders of the other Outers) and does a little work inside (WORK
// iterations each time, 2000 unless given: long enough that most contenders block rather than spin). Prints,
// over the SECONDS after WARMUP seconds:
//   OPS n          operations in the measured window
//   OPS_PER_S x
public class HeldBench {
    static final int THREADS = 4, OUTERS = 2, DEPTH = 8;
    static int WORK = 2000;

    static final class Outer {}

    static final class Inner {}

    static final Outer[] outer = new Outer[OUTERS];
    static final Inner inner = new Inner();
    static long sink;
    static volatile boolean stop;

    static long work(int k) {
        long x = 0;
        for (int i = 0; i < WORK; i++) x += i * k;
        return x;
    }

    static long op(int k, int d) {
        if (d > 0) return op(k, d - 1) + 1;
        synchronized (outer[k]) {
            long x = work(k);
            synchronized (inner) {
                x += work(k + 1);
                sink += x;
                return x;
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int secs = Integer.parseInt(args[0]), warm = Integer.parseInt(args[1]);
        if (args.length > 2) WORK = Integer.parseInt(args[2]);
        for (int i = 0; i < OUTERS; i++) outer[i] = new Outer();
        long[] ops = new long[THREADS];
        Thread[] ts = new Thread[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                long n = 0;
                while (!stop) {
                    op(id % OUTERS, DEPTH);
                    n++;
                    ops[id] = n;
                }
            }, "held-" + t);
            ts[t].start();
        }
        NestBench.window(ops, ts, warm, secs, () -> stop = true);
    }
}
