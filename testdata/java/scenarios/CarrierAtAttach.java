import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.locks.LockSupport;

// CarrierAtAttach (JDK 21+; "EXPECT virtual=no" before): the one carrier of the virtual-thread
// scheduler (parallelism 1) is idle, parked, when an agent attaches (READY). On GO a virtual
// thread "orca-vunparker" starts on it and its first act is LockSupport.unpark(main): the
// carrier's first event since the attach happens while it carries a virtual thread, so the
// agent makes the carrier's own state then. Then ENDED; on STOPPED: EXPECT virtual=yes
// vunparker=HASH main=HASH, DONE, exit 0. Compiled with --release 17: virtual threads through
// reflection.
public class CarrierAtAttach {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    if (Steps.withoutVirtualThreads(in)) return;
    System.setProperty("jdk.virtualThreadScheduler.parallelism", "1");
    Thread main = Thread.currentThread();
    Thread warm = Steps.startVirtual("orca-vwarm", () -> { });
    while (warm.isAlive()) Thread.sleep(5);
    Thread.sleep(200); // the carrier is idle: parked
    System.out.println("READY");
    Steps.expect(in, "GO");
    Thread v = Steps.startVirtual("orca-vunparker", () -> LockSupport.unpark(main));
    while (v.isAlive()) Thread.sleep(5);
    System.out.println("ENDED");
    Steps.expect(in, "STOPPED");
    System.out.printf("EXPECT virtual=yes vunparker=%08X main=%08X%n", System.identityHashCode(v), System.identityHashCode(main));
    System.out.println("DONE");
  }
}
