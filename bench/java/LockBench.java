// Lock-heavy synthetic workload for bench/run.sh.
//
//   java LockBench [threads=8] [seconds=5] [warmup=2] [locks=4]
//
// Each thread loops: pick one of a few shared locks, increment its counter in
// a small synchronized block, then do some work outside the lock. Every 1024
// operations a thread notifies a shared mailbox, every 16384 it waits on it
// (up to 1 ms), every 65536 it sleeps 1 ms: a little wait/notify and sleep
// traffic on top of the monitor contention.
//
// Only the operations done in the measured window (after warmup seconds) count.
// Prints, on stdout:
//   OPS n          operations in the measured window
//   SECONDS s      length of the measured window
//   OPS_PER_S x
//   CPU s          process CPU seconds (all threads, JVM and agents) in the window
//   CPU_TOTAL s    process CPU seconds since JVM start
import java.lang.management.ManagementFactory;

public final class LockBench {
  static final int INSIDE = 8; // iterations of work inside the lock
  static final int OUTSIDE = 40; // iterations of work outside the lock

  static final class Lock {}

  static final class Mailbox {}

  static Lock[] locks;
  static long[] counters; // counters[k] guarded by locks[k]
  static final Mailbox mailbox = new Mailbox();
  static long mail; // guarded by mailbox
  static volatile boolean measuring;
  static volatile boolean stop;
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
    double warmup = args.length > 2 ? Double.parseDouble(args[2]) : 2;
    int nlocks = args.length > 3 ? Integer.parseInt(args[3]) : 4;

    locks = new Lock[nlocks];
    counters = new long[nlocks];
    for (int i = 0; i < nlocks; i++) locks[i] = new Lock();

    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    Worker[] ws = new Worker[threads];
    for (int i = 0; i < threads; i++) {
      ws[i] = new Worker(i);
      ws[i].setName("lockbench-" + i);
      ws[i].start();
    }
    Thread.sleep((long) (warmup * 1000));
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    measuring = true;
    Thread.sleep((long) (seconds * 1000));
    stop = true;
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    long ops = 0, all = 0;
    for (Worker w : ws) {
      w.join();
      ops += w.measured;
      all += w.ops;
    }
    long sum = 0;
    for (int i = 0; i < nlocks; i++) {
      synchronized (locks[i]) {
        sum += counters[i];
      }
    }
    if (sum != all) {
      System.err.println("LockBench: counters " + sum + " != operations " + all);
      System.exit(2);
    }
    double secs = (t1 - t0) / 1e9;
    System.out.println("OPS " + ops);
    System.out.printf("SECONDS %.3f%n", secs);
    System.out.printf("OPS_PER_S %.0f%n", ops / secs);
    System.out.printf("CPU %.3f%n", (cpu1 - cpu0) / 1e9);
    System.out.printf("CPU_TOTAL %.3f%n", os.getProcessCpuTime() / 1e9);
  }

  static final class Worker extends Thread {
    final int id;
    long ops, measured;

    Worker(int id) {
      this.id = id;
    }

    @Override
    public void run() {
      int seed = 0x9E3779B9 * (id + 1);
      long acc = id;
      long ops = 0, base = -1;
      final int n = locks.length;
      try {
        while (!stop) {
          seed ^= seed << 13;
          seed ^= seed >>> 17;
          seed ^= seed << 5;
          int k = (seed & 0x7fffffff) % n;
          Lock l = locks[k];
          synchronized (l) {
            long c = counters[k] + 1;
            for (int i = 0; i < INSIDE; i++) c = c * 6364136223846793005L + 1442695040888963407L;
            acc += c;
            counters[k]++;
          }
          for (int i = 0; i < OUTSIDE; i++) acc = acc * 6364136223846793005L + 1442695040888963407L;
          ops++;
          if ((ops & 1023) == 0) {
            synchronized (mailbox) {
              mail++;
              mailbox.notifyAll();
            }
          }
          if ((ops & 16383) == 0) {
            synchronized (mailbox) {
              mailbox.wait(1);
            }
          }
          if ((ops & 65535) == 0) Thread.sleep(1);
          if (base < 0 && measuring) base = ops;
        }
      } catch (InterruptedException e) {
        throw new RuntimeException(e);
      }
      sink = acc;
      this.ops = ops;
      this.measured = base < 0 ? 0 : ops - base;
    }
  }
}
