import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

// OwnEventAfterAttach: three threads are parked in go.await() when an agent attaches (READY);
// on GO each leaves its park and its first event is not a park, a wait or an enter: "sem"
// acquires and releases a free Semaphore (no event where the attach did not rewrite Semaphore:
// its first is then its end), "joiner" joins a thread ("joined", parked too) that ends once
// joiner waits in the join, "unparker" unparks main. Each event of a thread's own ends the park
// the attach saw (its end passes no wrapper: the thread was inside the native when the agent came). Then ENDED; on STOPPED:
// EXPECT sem=HASH joiner=HASH unparker=HASH, DONE, exit 0.
public class OwnEventAfterAttach {
  public static void main(String[] args) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    Semaphore permits = new Semaphore(1);
    Thread main = Thread.currentThread();
    // joined ends once joiner waits in its join (an attach sees a join in its wait: a join of an
    // ended thread would not be recorded).
    Thread[] joinerOf = new Thread[1];
    AtomicBoolean joining = new AtomicBoolean();
    Thread joined = new Thread(() -> {
      await(go);
      while (!joining.get() || joinerOf[0].getState() != Thread.State.WAITING) Thread.onSpinWait();
    }, "joined");
    Thread sem = new Thread(() -> {
      await(go);
      permits.acquireUninterruptibly();
      permits.release();
    }, "sem");
    Thread joiner = new Thread(() -> {
      await(go);
      joining.set(true);
      try { joined.join(); } catch (InterruptedException e) { throw new AssertionError(e); }
    }, "joiner");
    joinerOf[0] = joiner;
    Thread unparker = new Thread(() -> {
      await(go);
      LockSupport.unpark(main);
    }, "unparker");
    Thread[] all = {sem, joiner, unparker, joined};
    for (Thread t : all) t.start();
    for (Thread t : all) while (t.getState() != Thread.State.WAITING) Thread.sleep(10);
    System.out.println("READY");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    Steps.expect(in, "GO");
    go.countDown();
    for (Thread t : all) while (t.isAlive()) Thread.sleep(5);
    System.out.println("ENDED");
    Steps.expect(in, "STOPPED");
    System.out.printf("EXPECT sem=%08X joiner=%08X unparker=%08X%n",
        System.identityHashCode(sem), System.identityHashCode(joiner), System.identityHashCode(unparker));
    System.out.println("DONE");
  }

  static void await(CountDownLatch l) {
    try { l.await(); } catch (InterruptedException e) { throw new AssertionError(e); }
  }
}
