import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

// VirtualStuckBeforeAttach is stuck before any agent comes, with virtual threads (JDK 21+):
// holder, a platform thread, holds a ReentrantLock and sleeps; N virtual threads (args[0],
// default 50) park in lock.lock(), the first N - N/5 started by Thread.ofVirtual() (in the JDK's
// root container), the others by an executor of Executors.newVirtualThreadPerTaskExecutor() (in
// the executor's container), and SLEEPERS more sleep, all unmounted. JVMTI's GetAllThreads lists
// none of them. holder also holds the monitor mon, on which, on JDK 24+, ENTERERS more virtual
// threads block, unmounted (before 24 they would stay pinned to their carriers, which a machine
// with few cores may not spare: none then). It prints READY, waits for the line
// STOPPED on stdin, then prints EXPECT virtual=yes holder=HASH blocker=HASH (the lock's sync, the
// parkers' blocker) parked=HASH,... sleepers=HASH,... enterers=HASH,... and DONE, and exits 0. Prints "EXPECT virtual=no" and DONE at
// once on JDK 17-20. Compiled with --release 17: virtual threads through reflection.
public class VirtualStuckBeforeAttach {
  static final ReentrantLock lock = new ReentrantLock();
  static final Object mon = new Object();
  static final int SLEEPERS = 5, ENTERERS = 3;

  static Thread startVirtual(String name, Runnable r) throws Exception {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    builder = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class).invoke(builder, name);
    return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
  }

  public static void main(String[] args) throws Exception {
    try {
      Thread.class.getMethod("ofVirtual");
    } catch (NoSuchMethodException e) {
      System.out.println("EXPECT virtual=no");
      System.out.println("DONE");
      return;
    }
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    Thread holder = new Thread(() -> {
      synchronized (mon) {
        lock.lock();
        pause(1_000_000);
      }
    }, "holder");
    holder.setDaemon(true);
    holder.start();
    while (!lock.isLocked()) Thread.sleep(1);
    List<Thread> parked = new ArrayList<>(), sleepers = new ArrayList<>(), enterers = new ArrayList<>();
    int direct = n - n / 5;
    for (int i = 0; i < direct; i++) parked.add(startVirtual("parked-" + i, lock::lock));
    Object executor = Class.forName("java.util.concurrent.Executors").getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
    List<Thread> pooled = Collections.synchronizedList(new ArrayList<>());
    for (int i = direct; i < n; i++) {
      ((ExecutorService) executor).execute(() -> {
        pooled.add(Thread.currentThread());
        lock.lock();
      });
    }
    while (pooled.size() < n - direct) LockSupport.parkNanos(100_000);
    parked.addAll(pooled);
    for (int i = 0; i < SLEEPERS; i++) sleepers.add(startVirtual("sleeper-" + i, () -> pause(1_000_000)));
    int enter = Runtime.version().feature() >= 24 ? ENTERERS : 0;
    for (int i = 0; i < enter; i++) enterers.add(startVirtual("enterer-" + i, () -> { synchronized (mon) { } }));
    for (Thread t : enterers) while (t.getState() != Thread.State.BLOCKED) LockSupport.parkNanos(100_000);
    for (Thread t : parked) while (t.getState() != Thread.State.WAITING) LockSupport.parkNanos(100_000);
    for (Thread t : sleepers) while (t.getState() != Thread.State.TIMED_WAITING) LockSupport.parkNanos(100_000);
    System.out.println("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null && !line.equals("STOPPED")) { }
    StringBuilder p = new StringBuilder(), s = new StringBuilder(), m = new StringBuilder();
    for (Thread t : parked) p.append(p.length() > 0 ? "," : "").append(String.format("%08X", System.identityHashCode(t)));
    for (Thread t : sleepers) s.append(s.length() > 0 ? "," : "").append(String.format("%08X", System.identityHashCode(t)));
    for (Thread t : enterers) m.append(m.length() > 0 ? "," : "").append(String.format("%08X", System.identityHashCode(t)));
    System.out.printf("EXPECT virtual=yes holder=%08X blocker=%08X parked=%s sleepers=%s enterers=%s%n", System.identityHashCode(holder),
        System.identityHashCode(LockSupport.getBlocker(parked.get(0))), p, s, m);
    System.out.println("DONE");
    System.exit(0);
  }

  static void pause(long ms) {
    try { Thread.sleep(ms); } catch (InterruptedException e) { }
  }
}
