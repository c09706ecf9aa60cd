import java.util.concurrent.Semaphore;

// HiddenFrames prints the stacks other tools see inside the methods the
// agent wraps (Semaphore.acquire, Thread.join), one "FRAME where method"
// line per frame, for integration/hidden_test.go to check that no renamed
// orca$ method shows: a Throwable's stack trace thrown inside the call
// (the thread is interrupted first) and Thread.getStackTrace of a thread
// blocked in an acquire, which is also a park long enough (100 ms) for
// JFR's jdk.ThreadPark (20 ms) when the JVM records with
// -XX:StartFlightRecording.
public class HiddenFrames {
    static void print(String where, StackTraceElement[] st) {
        for (StackTraceElement e : st) {
            System.out.println("FRAME " + where + " " + e.getClassName() + "." + e.getMethodName());
        }
    }

    public static void main(String[] args) throws Exception {
        Semaphore sem = new Semaphore(0);
        // A Throwable thrown inside Semaphore.acquire and Thread.join.
        Thread.currentThread().interrupt();
        try {
            sem.acquire();
        } catch (InterruptedException e) {
            print("throwable-acquire", e.getStackTrace());
        }
        Thread sleeper = new Thread(() -> {
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
            }
        }, "sleeper");
        sleeper.start();
        Thread.currentThread().interrupt();
        try {
            sleeper.join();
        } catch (InterruptedException e) {
            print("throwable-join", e.getStackTrace());
        }
        // Thread.getStackTrace of a thread blocked in acquire, then released
        // after 100 ms: a park long enough for JFR.
        Thread blocked = new Thread(() -> {
            try {
                sem.acquire();
            } catch (InterruptedException e) {
            }
        }, "blocked");
        blocked.start();
        while (blocked.getState() != Thread.State.WAITING) {
            Thread.sleep(5);
        }
        Thread.sleep(100);
        print("getstacktrace-acquire", blocked.getStackTrace());
        sem.release();
        blocked.join();
        sleeper.join();
        System.out.println("EXPECT done=1");
    }
}
