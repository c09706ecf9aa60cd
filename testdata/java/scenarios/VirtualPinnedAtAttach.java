import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.locks.LockSupport;

// VirtualPinnedAtAttach (JDK 21+; "EXPECT virtual=no" before): two virtual threads are pinned
// to their carriers when an agent attaches, each inside a class initializer (a VM frame pins
// on every JDK): "orca-vpinpark" parked on BLOCKER, "orca-vpinsleep" sleeping in a loop,
// "orca-vpinenter" blocked entering LOCK, which main holds. They are mounted, which is how a
// virtual thread stuck while pinned looks (on 21-23 also one parked holding a monitor, or any
// blocked entering one). READY once all are in it; on STOPPED they are let go, then: EXPECT
// virtual=yes park=HASH sleep=HASH enter=HASH blocker=HASH lock=HASH main=HASH, DONE, exit 0.
// Compiled with --release 17: virtual threads through reflection.
public class VirtualPinnedAtAttach {
  static final Object BLOCKER = new Object(), LOCK = new Object();
  static volatile boolean release;

  static class ParkInit {
    static {
      while (!release) LockSupport.park(BLOCKER);
    }
    static void touch() { }
  }

  static class SleepInit {
    static {
      while (!release) {
        try { Thread.sleep(20); } catch (InterruptedException e) { throw new AssertionError(e); }
      }
    }
    static void touch() { }
  }

  static class EnterInit {
    static {
      synchronized (LOCK) { }
    }
    static void touch() { }
  }

  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    if (Steps.withoutVirtualThreads(in)) return;
    // A carrier each (a pinned virtual thread keeps its carrier), one to spare.
    System.setProperty("jdk.virtualThreadScheduler.parallelism", "4");
    Thread park = Steps.startVirtual("orca-vpinpark", ParkInit::touch);
    Thread sleep = Steps.startVirtual("orca-vpinsleep", SleepInit::touch);
    Thread enter;
    synchronized (LOCK) {
      enter = Steps.startVirtual("orca-vpinenter", EnterInit::touch);
      while (park.getState() != Thread.State.WAITING || sleep.getState() != Thread.State.TIMED_WAITING
          || enter.getState() != Thread.State.BLOCKED) {
        Thread.sleep(5);
      }
      Thread.sleep(100);
      System.out.println("READY");
      Steps.expect(in, "STOPPED");
    }
    release = true;
    LockSupport.unpark(park);
    while (park.isAlive() || sleep.isAlive() || enter.isAlive()) Thread.sleep(5);
    System.out.printf("EXPECT virtual=yes park=%08X sleep=%08X enter=%08X blocker=%08X lock=%08X main=%08X%n",
        System.identityHashCode(park), System.identityHashCode(sleep), System.identityHashCode(enter),
        System.identityHashCode(BLOCKER), System.identityHashCode(LOCK), System.identityHashCode(Thread.currentThread()));
    System.out.println("DONE");
  }
}
