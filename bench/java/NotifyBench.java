// A notifyAll storm with no waiter, for the agent's cost per notify
// (issue 23 item 4): each thread calls notifyAll on its own object, under
// its monitor, from a call site DEPTH frames deep, in a loop; nobody waits.
// A second mode, "unpark", has each thread LockSupport.unpark a thread that
// is not parked (its partner, which never parks).
//
//   java NotifyBench [threads=2] [seconds=3] [warmup=1] [depth=20] [mode=notifyAll|unpark]
//
// Prints, on stdout:
//   OPS n          calls in the measured window (all threads)
//   NS_PER_OP x    wall ns per call per thread (seconds * threads / ops)
//   CPU_NS_PER_OP x process CPU ns per call (JVM, agent and writer)
//   APP_NS_PER_OP x the calling threads' own CPU ns per call: what the
//                  application pays, without the agent's writer thread
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.locks.LockSupport;

public final class NotifyBench {
  static volatile boolean measuring, stop;
  static String mode;

  static final class Box {}

  static final class Worker extends Thread {
    final Box box = new Box();
    final int depth;
    Thread partner;
    long ops, cpu;

    Worker(int depth) {
      this.depth = depth;
      setDaemon(true);
    }

    // call reaches the call site `d` frames down (not inlined away: each
    // frame is still a frame of the recorded stack, virtual or real).
    long call(int d) {
      if (d > 0) return call(d - 1) + 1;
      if (mode.equals("unpark")) {
        LockSupport.unpark(partner);
      } else {
        synchronized (box) {
          box.notifyAll();
        }
      }
      return 0;
    }

    @Override
    public void run() {
      ThreadMXBean tm = ManagementFactory.getThreadMXBean();
      long n = 0, c0 = 0;
      boolean counted = false;
      while (!stop) {
        call(depth);
        if (measuring) {
          if (!counted) c0 = tm.getCurrentThreadCpuTime();
          counted = true;
          n++;
        } else if (counted) {
          break;
        }
      }
      cpu = tm.getCurrentThreadCpuTime() - c0;
      ops = n;
    }
  }

  public static void main(String[] args) throws Exception {
    int threads = args.length > 0 ? Integer.parseInt(args[0]) : 2;
    double seconds = args.length > 1 ? Double.parseDouble(args[1]) : 3;
    double warmup = args.length > 2 ? Double.parseDouble(args[2]) : 1;
    int depth = args.length > 3 ? Integer.parseInt(args[3]) : 20;
    mode = args.length > 4 ? args[4] : "notifyAll";
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    Worker[] ws = new Worker[threads];
    for (int i = 0; i < threads; i++) ws[i] = new Worker(depth);
    for (int i = 0; i < threads; i++) {
      ws[i].partner = ws[(i + 1) % threads];
      ws[i].setName("notifybench-" + i);
      ws[i].start();
    }
    Thread.sleep((long) (warmup * 1000));
    long cpu0 = os.getProcessCpuTime();
    long t0 = System.nanoTime();
    measuring = true;
    Thread.sleep((long) (seconds * 1000));
    measuring = false;
    long t1 = System.nanoTime();
    long cpu1 = os.getProcessCpuTime();
    stop = true;
    for (Worker w : ws) w.join();
    long ops = 0, app = 0;
    for (Worker w : ws) {
      ops += w.ops;
      app += w.cpu;
    }
    double secs = (t1 - t0) / 1e9;
    System.out.printf("OPS %d%n", ops);
    System.out.printf("NS_PER_OP %.1f%n", secs * 1e9 * threads / ops);
    System.out.printf("CPU_NS_PER_OP %.1f%n", (cpu1 - cpu0) / (double) ops);
    System.out.printf("APP_NS_PER_OP %.1f%n", app / (double) ops);
  }
}
