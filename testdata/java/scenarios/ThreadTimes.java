import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;

// ThreadTimes runs threads of known CPU and scheduler times, for the agent's ThreadCPU lines
// (issue 33), best on one CPU (taskset -c 0): "pre" burns PRE_MS of CPU before READY (an attach
// finds it with times of its own), then, after "go" on stdin (or at once with the argument now),
// burns BURN_MS more; "sleeper" sleeps SLEEP_MS; "short" lives ~50 ms burning SHORT_MS; then
// "busy-1" .. "busy-K" burn BUSY_MS each, all at once (on one CPU each waits, ready, about as
// long as the others run). Each thread, as its last acts, reads its own /proc/thread-self/schedstat
// (cpu and ready, nanoseconds), then the JVM's figure of its CPU (ThreadMXBean), and leaves them
// to main, which prints them once every thread has ended: "TIMES name hash=HHHHHHHH jvm_cpu=N
// cpu=N ready=N" ("pre" also prints one before READY: "PRE ..."). The JVM's figure is the last
// read, and nothing is formatted after it: formatting a line, interpreted on a loaded CPU, took
// a thread up to 9 ms of CPU between its figure and its end (issue 33's test then compared its
// end's ThreadCPU with a figure 9 ms early). Last: "EXPECT threads=N", then "DONE".
public class ThreadTimes {
  static final long PRE_MS = 300, BURN_MS = 1000, SLEEP_MS = 1000, SHORT_MS = 30, BUSY_MS = 1000;
  static final int K = 2;
  static final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
  static final ConcurrentLinkedQueue<End> ends = new ConcurrentLinkedQueue<>();
  static volatile long sink;

  public static void main(String[] args) throws Exception {
    boolean now = args.length > 0 && args[0].equals("now");
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch preReady = new CountDownLatch(1);
    Thread pre = new Thread(() -> {
      burn(PRE_MS);
      System.out.println(times("PRE pre"));
      preReady.countDown();
      try { go.await(); } catch (InterruptedException e) { }
      burn(BURN_MS);
      done("TIMES pre");
    }, "pre");
    pre.start();
    preReady.await();
    if (!now) {
      System.out.println("READY");
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
      String line;
      while ((line = in.readLine()) != null && !line.equals("go")) { }
    }
    go.countDown();
    List<Thread> all = new ArrayList<>();
    all.add(pre);
    Thread sleeper = new Thread(() -> {
      try { Thread.sleep(SLEEP_MS); } catch (InterruptedException e) { }
      done("TIMES sleeper");
    }, "sleeper");
    Thread shortOne = new Thread(() -> {
      burn(SHORT_MS);
      try { Thread.sleep(20); } catch (InterruptedException e) { }
      done("TIMES short");
    }, "short");
    for (Thread t : new Thread[] {sleeper, shortOne}) {
      t.start();
      all.add(t);
    }
    pre.join();
    sleeper.join();
    shortOne.join();
    List<Thread> busy = new ArrayList<>();
    for (int i = 1; i <= K; i++) {
      String name = "busy-" + i;
      busy.add(new Thread(() -> {
        burn(BUSY_MS);
        done("TIMES " + name);
      }, name));
    }
    for (Thread t : busy) t.start();
    for (Thread t : busy) t.join();
    all.addAll(busy);
    for (End e : ends) System.out.println(e.line());
    System.out.println("EXPECT threads=" + all.size());
    System.out.println("DONE");
    if (!now) {
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
      String line;
      while ((line = in.readLine()) != null && !line.equals("exit")) { }
    }
  }

  // burn spins until the calling thread has used ms more of CPU (the JVM's figure).
  static void burn(long ms) {
    long until = mx.getCurrentThreadCpuTime() + ms * 1_000_000L;
    long x = 0;
    while (mx.getCurrentThreadCpuTime() < until) {
      for (int i = 0; i < 10_000; i++) x += i ^ (x >>> 3);
    }
    sink += x;
  }

  // End is what a thread read of itself as its last acts (done), printed by main.
  static final class End {
    final String what;
    final int hash;
    final String[] sched;
    long jvm;

    End(String what, int hash, String[] sched) {
      this.what = what;
      this.hash = hash;
      this.sched = sched;
    }

    String line() {
      return String.format("%s hash=%08X jvm_cpu=%d cpu=%s ready=%s", what, hash, jvm, sched[0], sched[1]);
    }
  }

  // done is the calling thread's last acts: the kernel's figures, then the JVM's, kept for main.
  static void done(String what) {
    End e = new End(what, System.identityHashCode(Thread.currentThread()), schedstat());
    e.jvm = mx.getCurrentThreadCpuTime();
    ends.add(e);
  }

  // times is the calling thread's line now: its hash, the JVM's CPU figure, then the kernel's.
  static String times(String what) {
    long jvm = mx.getCurrentThreadCpuTime();
    String[] f = schedstat();
    return String.format("%s hash=%08X jvm_cpu=%d cpu=%s ready=%s", what, System.identityHashCode(Thread.currentThread()), jvm, f[0], f[1]);
  }

  // schedstat is the calling thread's cpu and ready time by the kernel, nanoseconds ("-1" unread).
  static String[] schedstat() {
    try {
      String[] f = Files.readString(Paths.get("/proc/thread-self/schedstat")).trim().split(" ");
      if (f.length >= 2) return f;
    } catch (Exception e) { }
    return new String[] {"-1", "-1"};
  }
}
