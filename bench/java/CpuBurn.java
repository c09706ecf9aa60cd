// CPU-bound workload of a fixed amount of work, for bench/sampling.sh: the
// cost of a CPU sample is the CPU a profiler adds to the same work.
//
//   java CpuBurn [threads=4] [ops=2000] [size=200000]
//
// Each of `threads` threads does `ops` operations, each one call of each of
// two known methods over `size` elements: CpuBurn.hashes (integer mixing)
// and CpuBurn.roots (floating point), about 2/3 and 1/3 of the CPU. No locks,
// no allocation after the start, no I/O: every thread runs or is ready to.
// Prints, on stdout:
//   OPS n          operations done (threads × ops, always)
//   SECONDS s      from the threads' start to the last one's end
//   OPS_PER_S x
//   CPU s          process CPU seconds (all threads, JVM and agents) in that time
//   CPU_TOTAL s    process CPU seconds since JVM start
import java.lang.management.ManagementFactory;

public final class CpuBurn {
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    int ops = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int size = args.length > 2 ? Integer.parseInt(args[2]) : 200000;
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    Thread[] ts = new Thread[threads];
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    for (int i = 0; i < threads; i++) {
      final int id = i;
      ts[i] = new Thread(() -> work(id, ops, size), "burn-" + i);
      ts[i].start();
    }
    for (Thread t : ts) t.join();
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    double secs = (t1 - t0) / 1e9;
    long total = (long) threads * ops;
    System.out.println("OPS " + total);
    System.out.printf("SECONDS %.3f%n", secs);
    System.out.printf("OPS_PER_S %.0f%n", total / secs);
    System.out.printf("CPU %.3f%n", (cpu1 - cpu0) / 1e9);
    System.out.printf("CPU_TOTAL %.3f%n", os.getProcessCpuTime() / 1e9);
  }

  static void work(int id, int ops, int size) {
    long acc = id;
    for (int i = 0; i < ops; i++) {
      acc += hashes(acc, size);
      acc += (long) roots(acc, size / 4);
    }
    sink += acc;
  }

  static long hashes(long seed, int n) {
    long h = seed;
    for (int i = 0; i < n; i++) {
      h ^= h << 13;
      h ^= h >>> 7;
      h ^= h << 17;
      h += i;
    }
    return h;
  }

  static double roots(long seed, int n) {
    double s = seed & 0xff;
    for (int i = 1; i <= n; i++) s += Math.sqrt(s + i) / i;
    return s;
  }
}
