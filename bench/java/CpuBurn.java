// CpuBurn: a fixed amount of CPU-bound work for the samplers' cost (bench/samples-cost.sh):
// THREADS threads (default 2) each run ITERS (default 400) calls of a loop of 2 million
// multiplications in CpuBurn.burn, then exit. The work is fixed, not its time: what an agent
// adds is the process's CPU beyond the run without it.
public class CpuBurn {
    static volatile long sink;

    static long burn(long n) {
        long x = n;
        for (int i = 0; i < 2_000_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int iters = args.length > 1 ? Integer.parseInt(args[1]) : 400;
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            ts[t] = new Thread(() -> {
                long x = 1;
                for (int i = 0; i < iters; i++) x += burn(x);
                sink += x;
            }, "burn-" + t);
            ts[t].start();
        }
        for (Thread t : ts) t.join();
    }
}
