// The cost of the java.util.concurrent lock hooks of orca record --lock-order (issue 36 item 2;
// docs/agent.md, "Held monitors"): one thread takes and releases, without contention, a
// ReentrantLock (lock/unlock), the read and the write lock of a ReentrantReadWriteLock, and a
// ReentrantLock by tryLock, 12 frames deep, and prints the nanoseconds per pair of each.
//
//   java JucPairBench SECONDS_EACH ROUNDS
//
// Prints, for each kind, the best of ROUNDS windows of SECONDS_EACH (after one window of warm-up):
//   NS_PER_PAIR kind x
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

public class JucPairBench {
    static final ReentrantLock lock = new ReentrantLock(), tried = new ReentrantLock();
    static final ReentrantReadWriteLock rw = new ReentrantReadWriteLock();
    static long sink;

    static long pairs(Lock l, boolean tryLock, int n, int d) {
        if (d > 0) return pairs(l, tryLock, n, d - 1);
        long x = 0;
        for (int i = 0; i < n; i++) {
            if (tryLock) {
                if (!l.tryLock()) throw new IllegalStateException();
            } else {
                l.lock();
            }
            try {
                x += i;
            } finally {
                l.unlock();
            }
        }
        return x;
    }

    static double window(Lock l, boolean tryLock, double secs) {
        long end = System.nanoTime() + (long) (secs * 1e9), n = 0, t0 = System.nanoTime(), t1;
        do {
            sink += pairs(l, tryLock, 10_000, 12);
            n += 10_000;
        } while ((t1 = System.nanoTime()) < end);
        return (double) (t1 - t0) / n;
    }

    public static void main(String[] args) {
        double secs = Double.parseDouble(args[0]);
        int rounds = Integer.parseInt(args[1]);
        String[] kinds = {"lock", "read", "write", "tryLock"};
        Lock[] locks = {lock, rw.readLock(), rw.writeLock(), tried};
        double[] best = new double[kinds.length];
        java.util.Arrays.fill(best, Double.MAX_VALUE);
        for (int r = -1; r < rounds; r++) {
            for (int k = 0; k < kinds.length; k++) {
                double ns = window(locks[k], k == 3, secs);
                if (r >= 0) best[k] = Math.min(best[k], ns);
            }
        }
        for (int k = 0; k < kinds.length; k++) System.out.printf("NS_PER_PAIR %s %.1f%n", kinds[k], best[k]);
        System.out.println("SINK " + (sink & 1));
    }
}
