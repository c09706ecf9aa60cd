import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class VtCost {
    public static void main(String[] a) throws Exception {
        int n = Integer.parseInt(a[0]);
        if (a.length > 1 && a[1].equals("start")) {
            AtomicInteger done = new AtomicInteger();
            long t0 = System.nanoTime();
            for (int i = 0; i < n; i++) Thread.ofVirtual().start(done::incrementAndGet);
            while (done.get() < n) LockSupport.parkNanos(100_000);
            System.out.printf("start %d empty virtual threads: %.1f ms%n", n, (System.nanoTime() - t0) / 1e6);
            return;
        }
        long[] r = new long[2];
        Thread v = Thread.ofVirtual().start(() -> {
            for (int k = 0; k < 2; k++) { // the second round is measured
                long t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    try { Thread.sleep(0); } catch (InterruptedException e) { throw new AssertionError(e); }
                }
                long t1 = System.nanoTime();
                for (int i = 0; i < n; i++) { LockSupport.unpark(Thread.currentThread()); LockSupport.park(); }
                long t2 = System.nanoTime();
                r[0] = t1 - t0; r[1] = t2 - t1;
            }
        });
        v.join();
        System.out.printf("per sleep(0) on a virtual thread: %.0f ns; per unpark(self)+park(): %.0f ns%n", (double) r[0] / n, (double) r[1] / n);
    }
}
