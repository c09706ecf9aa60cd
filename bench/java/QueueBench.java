// Bounded-queue pipelines for bench/run.sh (workload "queue"): producers and consumers
// handing items through java.util.concurrent's bounded queues, where threads block by
// parking on the queue's lock and on its notFull/notEmpty Conditions.
//
//   java QueueBench [threads=8] [seconds=5] [warmup=2] [capacity=16]
//
// Half the threads share an ArrayBlockingQueue, half a LinkedBlockingQueue, each of the
// given capacity; on each queue half the threads produce (put) and half consume (take),
// at least one of each. Each item costs some work on both sides (the same spin as
// ParkBench's, outside the queue's lock). One operation: an item taken by a consumer.
//
// Only the operations done in the measured window (after warmup seconds) count.
// Prints, on stdout, like ParkBench:
//   OPS n, SECONDS s, OPS_PER_S x, CPU s (process CPU in the window), CPU_TOTAL s
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

public final class QueueBench {
  static final int WORK = 40;
  static volatile boolean measuring;
  static volatile boolean stop;
  static volatile long sink;

  static long spin(long acc, int n) {
    for (int i = 0; i < n; i++) acc = acc * 6364136223846793005L + 1442695040888963407L;
    return acc;
  }

  static final class Producer extends Thread {
    final BlockingQueue<Long> q;
    long produced;

    Producer(String name, BlockingQueue<Long> q) {
      super(name);
      this.q = q;
    }

    @Override
    public void run() {
      long acc = getId();
      try {
        while (!stop) {
          acc = spin(acc, WORK);
          // offer with a timeout rather than put, so that a producer stops when asked
          if (q.offer(acc, 10, TimeUnit.MILLISECONDS)) produced++;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  static final class Consumer extends Thread {
    final BlockingQueue<Long> q;
    long consumed, measured;

    Consumer(String name, BlockingQueue<Long> q) {
      super(name);
      this.q = q;
    }

    @Override
    public void run() {
      long base = -1, acc = 0;
      try {
        while (!stop) {
          Long x = q.poll(10, TimeUnit.MILLISECONDS);
          if (x == null) continue;
          consumed++;
          if (measuring && base < 0) base = consumed;
          acc = spin(acc ^ x, WORK);
        }
      } catch (InterruptedException e) {
        return;
      }
      sink += acc;
      measured = base < 0 ? 0 : consumed - base;
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 8;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 5;
    double warmup = args.length > 2 ? Double.parseDouble(args[2]) : 2;
    int capacity = args.length > 3 ? Integer.parseInt(args[3]) : 16;

    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    List<BlockingQueue<Long>> queues = List.of(new ArrayBlockingQueue<>(capacity), new LinkedBlockingQueue<>(capacity));
    List<Producer> ps = new ArrayList<>();
    List<Consumer> cs = new ArrayList<>();
    for (int k = 0; k < 2; k++) {
      BlockingQueue<Long> q = queues.get(k);
      String kind = k == 0 ? "abq" : "lbq";
      int n = Math.max(2, (k == 0 ? threads / 2 : threads - threads / 2));
      int np = Math.max(1, n / 2);
      for (int i = 0; i < np; i++) ps.add(new Producer("queuebench-" + kind + "-producer-" + i, q));
      for (int i = 0; i < n - np; i++) cs.add(new Consumer("queuebench-" + kind + "-consumer-" + i, q));
    }
    for (Thread t : ps) t.start();
    for (Thread t : cs) t.start();

    Thread.sleep((long) (warmup * 1000));
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    measuring = true;
    Thread.sleep((long) (seconds * 1000));
    stop = true;
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    long ops = 0, produced = 0, consumed = 0;
    for (Producer p : ps) {
      p.join();
      produced += p.produced;
    }
    for (Consumer c : cs) {
      c.join();
      ops += c.measured;
      consumed += c.consumed;
    }
    long left = 0;
    for (BlockingQueue<Long> q : queues) left += q.size();
    if (produced != consumed + left) {
      System.err.println("QueueBench: produced " + produced + " != consumed " + consumed + " + left " + left);
      System.exit(2);
    }
    double secs = (t1 - t0) / 1e9;
    System.out.println("OPS " + ops);
    System.out.printf("SECONDS %.3f%n", secs);
    System.out.printf("OPS_PER_S %.0f%n", ops / secs);
    System.out.printf("CPU %.3f%n", (cpu1 - cpu0) / 1e9);
    System.out.printf("CPU_TOTAL %.3f%n", os.getProcessCpuTime() / 1e9);
  }
}
