// ManyThreads starts THREADS short-lived threads in batches; each does one Thread.sleep(1) and
// ends, and main joins every one. Its last line is "EXPECT ..." with the counts
// (integration/manythreads_test.go). Workers are named PREFIX + index.
public class ManyThreads {
    static final int THREADS = 300;
    static final int BATCH = 30;
    static final String PREFIX = "orca-mt-";

    public static void main(String[] args) throws InterruptedException {
        int starts = 0, joins = 0;
        for (int b = 0; b < THREADS; b += BATCH) {
            Thread[] batch = new Thread[BATCH];
            for (int i = 0; i < BATCH; i++) {
                batch[i] = new Thread(() -> {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }, PREFIX + (b + i));
                batch[i].start();
                starts++;
            }
            for (Thread t : batch) {
                t.join();
                joins++;
            }
        }
        System.out.println("EXPECT threads=" + THREADS + " sleeps=" + THREADS + " joins=" + joins
                + " starts=" + starts + " prefix=" + PREFIX);
    }
}
