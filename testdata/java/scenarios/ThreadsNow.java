import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

// ThreadsNow is a JVM stuck in known ways for orca threads, before any agent comes:
//   - a monitor deadlock: mon-a holds ma and blocks on mb, mon-b holds mb and blocks on ma;
//   - a j.u.c. deadlock: juc-a holds ReentrantLock ja and parks on jb, juc-b the reverse;
//   - a mixed one: mix-a holds the monitor xm and parks on the ReentrantLock xl, mix-b holds
//     xl and blocks on xm;
//   - a chain: sleeper holds the monitor sm and sleeps; behind-1..3 block on sm; and
//     gate-holder holds the ReentrantLock gate and waits in Object.wait on idle, for ever,
//     behind which gate-1 and gate-2 park in gate.lock();
//   - spinner runs (on a CPU, holding the monitor spinmon).
// With args "virtual N" (JDK 21+), N virtual threads more park in vlock.lock(), a
// ReentrantLock that the platform thread vholder holds while it sleeps; with "vnested N" as
// well, N more park in it under three frames of nest() (a stack of their own); with "platform N",
// N platform threads crowd-0..N-1 more park in a CountDownLatch's await that never opens. It prints READY
// once every thread is in its state, then, for each line LIST on stdin, the names of the
// live platform threads (Thread.getAllStackTraces), one "THREAD name" line each and "END";
// it exits 0 at the line EXIT (its threads are daemons). Compiled with --release 17:
// virtual threads through reflection.
public class ThreadsNow {
  static final Object ma = new Object(), mb = new Object(), xm = new Object(), sm = new Object(), idle = new Object(),
      spinmon = new Object();
  static final ReentrantLock ja = new ReentrantLock(), jb = new ReentrantLock(), xl = new ReentrantLock(),
      gate = new ReentrantLock(), vlock = new ReentrantLock();
  static volatile long spins;

  static Thread start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
    return t;
  }

  static void pause(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
    }
  }

  public static void main(String[] args) throws Exception {
    List<Thread> all = new ArrayList<>();
    CountDownLatch first = new CountDownLatch(6);
    all.add(start("mon-a", () -> { synchronized (ma) { await(first); synchronized (mb) { } } }));
    all.add(start("mon-b", () -> { synchronized (mb) { await(first); synchronized (ma) { } } }));
    all.add(start("juc-a", () -> { ja.lock(); await(first); jb.lock(); }));
    all.add(start("juc-b", () -> { jb.lock(); await(first); ja.lock(); }));
    all.add(start("mix-a", () -> { synchronized (xm) { await(first); xl.lock(); } }));
    all.add(start("mix-b", () -> { xl.lock(); await(first); synchronized (xm) { } }));
    CountDownLatch held = new CountDownLatch(2);
    start("sleeper", () -> { synchronized (sm) { held.countDown(); pause(1_000_000_000L); } });
    start("gate-holder", () -> {
      gate.lock();
      held.countDown();
      synchronized (idle) {
        try {
          idle.wait();
        } catch (InterruptedException e) {
        }
      }
    });
    held.await();
    for (int i = 1; i <= 3; i++) all.add(start("behind-" + i, () -> { synchronized (sm) { } }));
    for (int i = 1; i <= 2; i++) all.add(start("gate-" + i, gate::lock));
    CountDownLatch spinning = new CountDownLatch(1);
    Thread spinner = start("spinner", () -> {
      synchronized (spinmon) {
        spinning.countDown();
        while (true) spins++;
      }
    });
    spinning.await();
    List<Thread> virtual = new ArrayList<>(), crowd = new ArrayList<>();
    CountDownLatch never = new CountDownLatch(1);
    boolean vholder = false;
    for (int a = 0; a + 1 < args.length; a += 2) {
      int n = Integer.parseInt(args[a + 1]);
      if (args[a].equals("platform")) {
        for (int i = 0; i < n; i++) crowd.add(start("crowd-" + i, () -> hold(never)));
        continue;
      }
      if (!args[a].equals("virtual") && !args[a].equals("vnested")) continue;
      if (!vholder) {
        vholder = true;
        CountDownLatch v = new CountDownLatch(1);
        start("vholder", () -> { vlock.lock(); v.countDown(); pause(1_000_000_000L); });
        v.await();
      }
      Runnable r = args[a].equals("virtual") ? vlock::lock : () -> nest(3);
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      java.lang.reflect.Method st = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
      for (int i = 0; i < n; i++) virtual.add((Thread) st.invoke(builder, r));
    }
    for (Thread t : crowd) while (t.getState() != Thread.State.WAITING) Thread.sleep(1);
    for (Thread t : all) while (t.getState() != Thread.State.BLOCKED && t.getState() != Thread.State.WAITING) Thread.sleep(1);
    for (Thread t : virtual) while (t.getState() != Thread.State.WAITING) LockSupport.parkNanos(100_000);
    System.out.println("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null && !line.equals("EXIT")) {
      if (line.equals("LIST")) {
        for (Thread t : Thread.getAllStackTraces().keySet()) System.out.println("THREAD " + t.getName());
        System.out.println("END spins=" + (spins > 0));
      }
    }
    System.exit(0);
  }

  // nest parks in vlock.lock() under k frames of its own.
  static void nest(int k) {
    if (k > 1) nest(k - 1);
    else vlock.lock();
  }

  static void hold(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
    }
  }

  static void await(CountDownLatch l) {
    l.countDown();
    try {
      l.await();
    } catch (InterruptedException e) {
    }
  }
}
