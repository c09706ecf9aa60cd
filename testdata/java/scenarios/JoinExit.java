// JoinExit: THREADS threads that end at once, each joined by main with a timeout (Thread.join(long):
// synchronized on the Thread on JDK 17-18, a synchronized block on it on 19+) as soon as it is
// started. A thread's exit (HotSpot's ensure_join, after ThreadEnd) takes its own Thread's monitor
// to notify its joiners, and blocks on it when main, inside join, holds it (checking isAlive before
// its wait, or back from it): a wait-for cycle of a few µs (main joining the thread, the thread
// blocked on main) that is no deadlock, main running (TestChainJoinExit; bench/java/JoinTimed.java
// measured 146-236 such contentions in 2 000 joins on 17). main prints EXPECT with its identity
// and the count.
public class JoinExit {
    static final int THREADS = 2000;

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < THREADS; i++) {
            Thread t = new Thread(() -> {}, "exiting-" + i);
            t.start();
            t.join(10_000);
        }
        System.out.println("EXPECT main=" + String.format("%08x", System.identityHashCode(Thread.currentThread()))
                + " threads=" + THREADS);
    }
}
