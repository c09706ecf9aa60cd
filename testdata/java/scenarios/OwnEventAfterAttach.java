import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

// OwnEventAfterAttach: three threads are parked in go.await() when an agent attaches (READY);
// on GO each leaves its park and its first event is not a park, a wait or an enter: "sem"
// acquires and releases a free Semaphore, "joiner" joins a thread that has ended, "unparker"
// unparks main. Each event of a thread's own ends the park the attach saw (its end passes no
// wrapper: the thread was inside the native when the agent came). Then ENDED; on STOPPED:
// EXPECT sem=HASH joiner=HASH unparker=HASH, DONE, exit 0.
public class OwnEventAfterAttach {
  public static void main(String[] args) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    Semaphore permits = new Semaphore(1);
    Thread ended = new Thread(() -> { }, "ended");
    ended.start();
    while (ended.isAlive()) Thread.onSpinWait(); // join would be recorded: nothing of main's is checked, but keep it quiet
    Thread main = Thread.currentThread();
    Thread sem = new Thread(() -> {
      await(go);
      permits.acquireUninterruptibly();
      permits.release();
    }, "sem");
    Thread joiner = new Thread(() -> {
      await(go);
      try { ended.join(); } catch (InterruptedException e) { throw new AssertionError(e); }
    }, "joiner");
    Thread unparker = new Thread(() -> {
      await(go);
      LockSupport.unpark(main);
    }, "unparker");
    Thread[] all = {sem, joiner, unparker};
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
