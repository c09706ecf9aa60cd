// Chain3 (docs/perf/2026-12-03-unseen-programs.md): nested synchronized on three monitors with a
// known holder chain, whose root then moves:
//
//   "c"  enters C and sleeps ROOT_MS
//   "b"  enters B, then blocks on C (held by c)
//   "a"  enters A, then blocks on B (held by b)
//   "d"  blocks on A (held by a)
//
// When c lets C go, b gets it and sleeps MID_MS holding B and C; then a gets B, lets both go, and
// d gets A. Until c's release the root is "c", sleeping, with b, a and d behind it (depth 3); after
// it "b", sleeping, with a and d (depth 2). Each thread measures its own time blocked (us), and the
// threads' time behind each root from when each began to block (c_behind_us, b_behind_us).
public class Chain3 {
    static final Object A = new Object(), B = new Object(), C = new Object();
    static final int ROOT_MS = 600, MID_MS = 300;
    static final long[] blockedNs = new long[3];
    static volatile long bStart, aStart, dStart, bGotC, aGotB;

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    static void sleep(int ms) {
        try { Thread.sleep(ms); } catch (InterruptedException e) { throw new AssertionError(e); }
    }

    static void blocked(Thread t) {
        while (t.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
    }

    public static void main(String[] args) throws Exception {
        Thread c = new Thread(() -> { synchronized (C) { sleep(ROOT_MS); } }, "c");
        c.start();
        while (c.getState() != Thread.State.TIMED_WAITING) Thread.onSpinWait();
        Thread b = new Thread(() -> {
            synchronized (B) {
                long s = bStart = System.nanoTime();
                synchronized (C) { bGotC = System.nanoTime(); blockedNs[0] = bGotC - s; sleep(MID_MS); }
            }
        }, "b");
        b.start();
        blocked(b);
        Thread a = new Thread(() -> {
            synchronized (A) {
                long s = aStart = System.nanoTime();
                synchronized (B) { aGotB = System.nanoTime(); blockedNs[1] = aGotB - s; }
            }
        }, "a");
        a.start();
        blocked(a);
        Thread d = new Thread(() -> {
            long s = dStart = System.nanoTime();
            synchronized (A) { blockedNs[2] = System.nanoTime() - s; }
        }, "d");
        d.start();
        blocked(d);
        c.join(); b.join(); a.join(); d.join();
        System.out.printf("EXPECT a=%s b=%s c=%s d=%s A=%s B=%s C=%s b_on_C_us=%d a_on_B_us=%d d_on_A_us=%d c_behind_us=%d b_behind_us=%d%n",
            hex(a), hex(b), hex(c), hex(d), hex(A), hex(B), hex(C),
            blockedNs[0] / 1000, blockedNs[1] / 1000, blockedNs[2] / 1000,
            (3 * bGotC - bStart - aStart - dStart) / 1000, 2 * (aGotB - bGotC) / 1000);
    }
}
