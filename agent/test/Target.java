// The class agent/test/classfile_test.c wraps, shaped like the JDK's
// Semaphore: paired methods (ENTER, then EXIT or THROW around the call), a
// once method (ONCE before the call), and methods left alone.
public class Target {
    int permits;

    public void acquire() throws InterruptedException { acquire(1); }

    // A runtime annotation with elements: the rewriter adds @Hidden beside it.
    @Deprecated(since = "test", forRemoval = false)
    public void acquire(int n) throws InterruptedException {
        if (n < 0) throw new IllegalArgumentException();
        permits -= n;
    }

    public long release(int n) { permits += n; return permits; }

    // Its ENTER hook gets the long too (orca$hookJ), like VirtualThread.parkNanos.
    public void park(long nanos) { permits += (int) nanos; }

    public synchronized String name() { return "target"; }

    public static int twice(int x) { return 2 * x; }
}
