// LateNotify: a notify that runs after the waiter's wait(100) timed out ends no wait. The waiter
// ("orca-waiter") waits on obj with a 100 ms timeout; the notifier ("orca-notifier") takes obj
// 20 ms after the waiter began waiting and calls notify, which the agent's record delays before
// the notify itself runs (ORCA_TEST_SLOW_NOTIFY_MS=200: a stack walk the OS preempted), so the
// notify moves nobody: the waiter left the wait set at its timeout, 100 ms after it began, and
// blocks re-entering obj until the notifier lets it go.
//
// Prints "EXPECT obj=HASH waiter=HASH notifier=HASH notify.ns=N": when notify returned, after
// the waiter began waiting.
public class LateNotify {
    static final Object obj = new Object();
    static volatile long begun;

    public static void main(String[] args) throws Exception {
        Thread waiter = new Thread(() -> {
            synchronized (obj) {
                begun = System.nanoTime();
                try {
                    obj.wait(100);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
        }, "orca-waiter");
        long[] returned = new long[1];
        Thread notifier = new Thread(() -> {
            while (waiter.getState() != Thread.State.TIMED_WAITING) Thread.onSpinWait();
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                throw new RuntimeException(e);
            }
            synchronized (obj) {
                obj.notify();
                returned[0] = System.nanoTime() - begun;
            }
        }, "orca-notifier");
        waiter.start();
        notifier.start();
        waiter.join();
        notifier.join();
        System.out.printf("EXPECT obj=%08X waiter=%08X notifier=%08X notify.ns=%d%n", System.identityHashCode(obj),
                System.identityHashCode(waiter), System.identityHashCode(notifier), returned[0]);
    }
}
