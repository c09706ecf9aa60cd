// StopInFlight: THREADS daemon threads (4 by default) spin on the CPU while main sleeps MS
// milliseconds (300 by default), then main prints its EXPECT line and returns: the JVM ends
// with every spinner still running, so its samplers stop (VMDeath) while their signal handlers
// are inside a walk. integration/stopinflight_test.go records it with the handlers slowed down
// (ORCA_TEST_SLOW_SAMPLE_US) and checks that the JVM ends cleanly.
public class StopInFlight {
    static volatile long sink;

    public static void main(String[] args) throws InterruptedException {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        long ms = args.length > 1 ? Long.parseLong(args[1]) : 300;
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> {
                long x = 1;
                while (true) {
                    x = x * 6364136223846793005L + 1442695040888963407L;
                    if ((x & 0xFFFFF) == 0) sink = x;
                }
            }, "spinner-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(ms);
        System.out.println("EXPECT spinners=" + threads);
    }
}
