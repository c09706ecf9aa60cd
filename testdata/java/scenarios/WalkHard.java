// WalkHard: threads whose CPU samples are hard to walk (issue 33): THREADS threads (4) each run
// until they have used CPU_MS (1000) of CPU (ThreadMXBean's figure), in WalkHard.step, a compiled
// recursion CALLS deep of a small method that calls itself (a call, a prolog and an epilog every few
// instructions: where AsyncGetCallTrace finds no frame to start from) and allocates (a young
// collection every few milliseconds), under WalkHard.run. Then "EXPECT threads=N".
// Usage: WalkHard [CPU_MS] [THREADS]
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

public class WalkHard {
    static final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    static volatile Object keep;
    static volatile long sink;

    static long step(long x, int d) {
        if (d == 0) {
            keep = new long[4];
            return x;
        }
        return step(x * 31 + d, d - 1) + 1;
    }

    static void run(long cpuNs) {
        long x = 1;
        while (mx.getCurrentThreadCpuTime() < cpuNs)
            for (int i = 0; i < 1000; i++) x += step(x, 64);
        sink += x;
    }

    public static void main(String[] args) throws Exception {
        long cpuMs = args.length > 0 ? Long.parseLong(args[0]) : 1000;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 4;
        Thread[] ts = new Thread[n];
        for (int i = 0; i < n; i++) (ts[i] = new Thread(() -> run(cpuMs * 1_000_000L), "walk-" + i)).start();
        for (Thread t : ts) t.join();
        System.out.println("EXPECT threads=" + n);
    }
}
