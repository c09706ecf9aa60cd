// Nested monitors under contention, for the cost of the held monitors the agent lists at each
// contended enter (issue 36 item 2; docs/PERFORMANCE.md, "Held monitors at contended enters").
//
//   java NestBench SECONDS WARMUP [virtual]
//
// virtual (JDK 21+): the threads are virtual threads (on 24+ one blocked on a monitor unmounts;
// its frames go to its continuation's stack chunk and come back lazily).
// THREADS threads; each operation recurses DEPTH frames, takes its own two monitors (never
// contended; they escape, so the JIT elides no lock) and then one of LOCKS shared monitors
// (contended), and does a little work inside. Prints, over the SECONDS after WARMUP seconds:
//   OPS n          operations in the measured window
//   OPS_PER_S x
public class NestBench {
    static final int THREADS = 4, LOCKS = 2, DEPTH = 8;
    static final Object[] shared = new Object[LOCKS];
    static final Object[] own = new Object[2 * THREADS]; // the threads' own monitors escape: no lock elided
    static long sink;
    static volatile boolean stop;

    static long op(Object a, Object b, int k, int d) {
        if (d > 0) return op(a, b, k, d - 1) + 1;
        synchronized (a) {
            synchronized (b) {
                synchronized (shared[k]) {
                    long x = 0;
                    for (int i = 0; i < 20; i++) x += i * k;
                    sink += x;
                    return x;
                }
            }
        }
    }

    public static void main(String[] args) throws Exception {
        int secs = Integer.parseInt(args[0]), warm = Integer.parseInt(args[1]);
        for (int i = 0; i < LOCKS; i++) shared[i] = new Object();
        long[] ops = new long[THREADS];
        Thread[] ts = new Thread[THREADS];
        boolean virt = args.length > 2 && args[2].equals("virtual");
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            Runnable run = () -> {
                Object a = own[2 * id] = new Object(), b = own[2 * id + 1] = new Object();
                long n = 0;
                while (!stop) {
                    op(a, b, (int) (n & (LOCKS - 1)), DEPTH);
                    n++;
                    ops[id] = n;
                }
            };
            ts[t] = virt ? virtualThread(run) : new Thread(run);
            ts[t].start();
        }
        window(ops, ts, warm, secs, () -> stop = true);
    }

    // virtualThread: an unstarted virtual thread (compiled --release 17: through reflection).
    static Thread virtualThread(Runnable r) throws Exception {
        Object b = Thread.class.getMethod("ofVirtual").invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class).invoke(b, r);
    }

    // window counts the operations of the threads ts (ops: each one's count so far) over the secs
    // seconds after warm seconds, prints them, then ends the threads (stop) and joins them. HeldBench
    // measures with it too.
    static void window(long[] ops, Thread[] ts, int warm, int secs, Runnable stop) throws InterruptedException {
        Thread.sleep(warm * 1000L);
        long before = 0;
        for (long o : ops) before += o;
        long t0 = System.nanoTime();
        Thread.sleep(secs * 1000L);
        long after = 0;
        for (long o : ops) after += o;
        long t1 = System.nanoTime();
        stop.run();
        for (Thread t : ts) t.join();
        System.out.println("OPS " + (after - before));
        System.out.printf("OPS_PER_S %.0f%n", (after - before) * 1e9 / (t1 - t0));
    }
}
