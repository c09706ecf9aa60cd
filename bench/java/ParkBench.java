// Park-heavy synthetic workload for bench/run.sh: java.util.concurrent, where
// threads block by parking (LockSupport.park) rather than on monitors.
//
//   java ParkBench [threads=8] [seconds=5] [warmup=2]
//
// A third of the threads contend on 4 ReentrantLocks (a small critical
// section, work outside it); a third play Condition ping-pong in pairs (each
// hand-off is a signal and an await); the rest drive a CompletableFuture
// pipeline of three stages on a ForkJoinPool of 2 workers and join each
// result. One operation: a lock acquisition, a hand-off, or a pipeline result.
//
// Only the operations done in the measured window (after warmup seconds) count.
// Prints, on stdout, like LockBench:
//   OPS n, SECONDS s, OPS_PER_S x, CPU s (process CPU in the window), CPU_TOTAL s
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

public final class ParkBench {
  static final int INSIDE = 8;
  static final int OUTSIDE = 40;

  static final ReentrantLock[] locks = new ReentrantLock[4];
  static final long[] counters = new long[4]; // counters[k] guarded by locks[k]
  static volatile boolean measuring;
  static volatile boolean stop;
  static volatile long sink;
  static final ForkJoinPool pool = new ForkJoinPool(2);

  static long spin(long acc, int n) {
    for (int i = 0; i < n; i++) acc = acc * 6364136223846793005L + 1442695040888963407L;
    return acc;
  }

  abstract static class Worker extends Thread {
    long ops, measured;

    Worker(String name) {
      super(name);
    }

    abstract void op(long acc) throws InterruptedException;

    @Override
    public void run() {
      long base = -1;
      try {
        while (!stop) {
          op(ops);
          ops++;
          if (measuring && base < 0) base = ops;
        }
      } catch (InterruptedException e) {
        return;
      }
      measured = base < 0 ? 0 : ops - base;
    }
  }

  static final class LockWorker extends Worker {
    int seed;

    LockWorker(int id) {
      super("parkbench-lock-" + id);
      seed = 0x9E3779B9 * (id + 1);
    }

    @Override
    void op(long acc) {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      int k = (seed & 0x7fffffff) % locks.length;
      ReentrantLock l = locks[k];
      l.lock();
      try {
        acc += spin(counters[k], INSIDE);
        counters[k]++;
      } finally {
        l.unlock();
      }
      sink += spin(acc, OUTSIDE);
    }
  }

  // Two threads hand a turn back and forth under one lock and condition.
  static final class Pair {
    final ReentrantLock lock = new ReentrantLock();
    final Condition turned = lock.newCondition();
    int turn;
  }

  static final class PingPong extends Worker {
    final Pair p;
    final int me;

    PingPong(int id, Pair p, int me) {
      super("parkbench-pingpong-" + id);
      this.p = p;
      this.me = me;
    }

    @Override
    void op(long acc) throws InterruptedException {
      p.lock.lock();
      try {
        while (p.turn != me && !stop) p.turned.awaitNanos(10_000_000);
        p.turn = 1 - me;
        p.turned.signal();
      } finally {
        p.lock.unlock();
      }
    }
  }

  static final class Pipeline extends Worker {
    Pipeline(int id) {
      super("parkbench-pipeline-" + id);
    }

    @Override
    void op(long acc) {
      long r = CompletableFuture.supplyAsync(() -> spin(acc, OUTSIDE), pool)
          .thenApplyAsync(x -> spin(x, OUTSIDE), pool)
          .thenApplyAsync(x -> spin(x, OUTSIDE), pool)
          .join();
      sink += r;
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
    double warmup = args.length > 2 ? Double.parseDouble(args[2]) : 2;
    for (int i = 0; i < locks.length; i++) locks[i] = new ReentrantLock();

    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    int nlock = Math.max(1, threads / 3);
    int npairs = Math.max(1, threads / 6);
    int npipe = Math.max(1, threads - nlock - 2 * npairs);
    java.util.List<Worker> ws = new java.util.ArrayList<>();
    for (int i = 0; i < nlock; i++) ws.add(new LockWorker(i));
    for (int i = 0; i < npairs; i++) {
      Pair p = new Pair();
      ws.add(new PingPong(2 * i, p, 0));
      ws.add(new PingPong(2 * i + 1, p, 1));
    }
    for (int i = 0; i < npipe; i++) ws.add(new Pipeline(i));
    for (Worker w : ws) w.start();

    Thread.sleep((long) (warmup * 1000));
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    measuring = true;
    Thread.sleep((long) (seconds * 1000));
    stop = true;
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    long ops = 0, lockOps = 0;
    for (Worker w : ws) {
      w.join();
      ops += w.measured;
      if (w instanceof LockWorker) lockOps += w.ops;
    }
    long sum = 0;
    for (int i = 0; i < locks.length; i++) {
      locks[i].lock();
      try {
        sum += counters[i];
      } finally {
        locks[i].unlock();
      }
    }
    if (sum != lockOps) {
      System.err.println("ParkBench: counters " + sum + " != lock operations " + lockOps);
      System.exit(2);
    }
    pool.shutdown();
    double secs = (t1 - t0) / 1e9;
    System.out.println("OPS " + ops);
    System.out.printf("SECONDS %.3f%n", secs);
    System.out.printf("OPS_PER_S %.0f%n", ops / secs);
    System.out.printf("CPU %.3f%n", (cpu1 - cpu0) / 1e9);
    System.out.printf("CPU_TOTAL %.3f%n", os.getProcessCpuTime() / 1e9);
  }
}
