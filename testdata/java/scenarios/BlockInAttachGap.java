import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

// BlockInAttachGap: blocker is parked when an agent attaches (READY), then, on GO, blocks entering
// m, which holder holds until RELEASE. The test widens the attach's gap between its snapshot and
// the events' start (ORCA_TEST_ATTACH_GAP_MS) and sends GO inside it: the snapshot saw blocker
// parked, the events were off when it blocked, and its MonitorContendedEntered comes after they
// are on. Then, on STOPPED: EXPECT m=HASH holder=HASH blocker=HASH, DONE, exit 0.
public class BlockInAttachGap {
  static final Object m = new Object();
  static volatile boolean go;

  public static void main(String[] args) throws Exception {
    CountDownLatch held = new CountDownLatch(1), release = new CountDownLatch(1);
    Thread holder = new Thread(() -> {
      synchronized (m) {
        held.countDown();
        try { release.await(); } catch (InterruptedException e) { }
      }
    }, "holder");
    Thread blocker = new Thread(() -> {
      while (!go) LockSupport.park();
      synchronized (m) { }
    }, "blocker");
    holder.start();
    held.await();
    blocker.start();
    while (blocker.getState() != Thread.State.WAITING) Thread.sleep(10);
    System.out.println("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    Steps.expect(in, "GO");
    go = true;
    LockSupport.unpark(blocker);
    while (blocker.getState() != Thread.State.BLOCKED) Thread.sleep(1);
    System.out.println("BLOCKED");
    Steps.expect(in, "RELEASE");
    release.countDown();
    blocker.join();
    holder.join();
    System.out.println("RELEASED");
    Steps.expect(in, "STOPPED");
    System.out.printf("EXPECT m=%08X holder=%08X blocker=%08X%n",
        System.identityHashCode(m), System.identityHashCode(holder), System.identityHashCode(blocker));
    System.out.println("DONE");
  }
}
