// OwnerLeft: the owner a contended enter names is the one at the enter's time. The contender
// ("orca-contender") holds a monitor of its own ("held", waited on first, so that the agent knows
// it) when it blocks on "lock", so the agent reads the monitors it holds from its frames after it
// read the owner, and times the enter after that reading
// (ORCA_TEST_SLOW_HELD_MS makes the reading last that long); the owner ("orca-left") lets the
// lock go as soon as the contender is blocked on it, and ends. Before, the enter, timed after
// the reading, named the owner read first, which had ended by then (a virtual thread on Tomcat
// 25 did: docs/perf/2026-12-02-jfr-servers.md).
//
// Prints "EXPECT lock=HASH left=HASH contender=HASH".
import java.util.concurrent.CountDownLatch;

public class OwnerLeft {
    static final Object lock = new Object(), held = new Object();

    public static void main(String[] args) throws Exception {
        // The agent reads a contender's held monitors from its own frames only once it has seen
        // each (its hash and class): a wait shows it "held".
        synchronized (held) {
            held.wait(1);
        }
        CountDownLatch locked = new CountDownLatch(1);
        Thread contender = new Thread(() -> {
            synchronized (held) {
                synchronized (lock) {
                    held.hashCode();
                }
            }
        }, "orca-contender");
        Thread left = new Thread(() -> {
            synchronized (lock) {
                locked.countDown();
                while (contender.getState() != Thread.State.BLOCKED) {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "orca-left");
        left.start();
        locked.await();
        contender.start();
        left.join();
        contender.join();
        System.out.printf("EXPECT lock=%08X left=%08X contender=%08X%n", System.identityHashCode(lock),
                System.identityHashCode(left), System.identityHashCode(contender));
    }
}
