import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.locks.ReentrantLock;

// StuckBeforeAttach is stuck before any agent comes: dead-1 and dead-2 deadlocked on two
// monitors, parker parked on a ReentrantLock that holder holds while it sleeps, waiter waiting
// on w, napper sleeping until NAP ms after READY and then notifying w. None of these objects'
// identity hashes is taken before the line STOPPED comes on stdin (the agent must name them
// itself); then it prints them (EXPECT KEY=HASH ...) and exits 0, its daemon threads still stuck.
public class StuckBeforeAttach {
  static final Object a = new Object(), b = new Object(), w = new Object();
  static final ReentrantLock lock = new ReentrantLock();
  static final long NAP = 2500;

  public static void main(String[] args) throws Exception {
    Thread d1 = new Thread(() -> { synchronized (a) { pause(200); synchronized (b) { } } }, "dead-1");
    Thread d2 = new Thread(() -> { synchronized (b) { pause(200); synchronized (a) { } } }, "dead-2");
    Thread holder = new Thread(() -> { lock.lock(); pause(1_000_000); }, "holder");
    Thread parker = new Thread(() -> { pause(200); lock.lock(); }, "parker");
    Thread waiter = new Thread(() -> {
      synchronized (w) {
        try { w.wait(); } catch (InterruptedException e) { }
      }
    }, "waiter");
    long start = System.nanoTime();
    Thread napper = new Thread(() -> {
      pause(NAP + 500);
      synchronized (w) { w.notifyAll(); }
    }, "napper");
    for (Thread t : new Thread[] {d1, d2, holder, parker, waiter, napper}) {
      t.setDaemon(true);
      t.start();
    }
    while (d1.getState() != Thread.State.BLOCKED || d2.getState() != Thread.State.BLOCKED
        || parker.getState() != Thread.State.WAITING || waiter.getState() != Thread.State.WAITING) {
      Thread.sleep(10);
    }
    System.out.println("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null && !line.equals("STOPPED")) { }
    System.out.printf("EXPECT a=%08X b=%08X w=%08X dead_1=%08X dead_2=%08X holder=%08X parker=%08X waiter=%08X napper=%08X%n",
        System.identityHashCode(a), System.identityHashCode(b), System.identityHashCode(w),
        System.identityHashCode(d1), System.identityHashCode(d2), System.identityHashCode(holder),
        System.identityHashCode(parker), System.identityHashCode(waiter), System.identityHashCode(napper));
    System.out.println("DONE");
  }

  static void pause(long ms) {
    try { Thread.sleep(ms); } catch (InterruptedException e) { }
  }
}
