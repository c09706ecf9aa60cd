package jdk.internal.misc;

// The hooks of inplace_test.c: the JDK classes it rewrites (every method)
// call these; they count the calls of one thread, between run's start and
// end, by op (HOOK_ENTER, EXIT, THROW, ONCE: classfile.h).
public final class OrcaTestHooks {
    static volatile Thread only;
    static final long[] counts = new long[4];

    public static void hook(int op, Object o) {
        Thread t = only;   // null while the JVM starts: Thread's natives are not registered yet
        if (t != null && Thread.currentThread() == t) counts[op & 3]++;
    }

    public static void hookJ(int op, Object o, long arg) {
        hook(op, o);
    }

    // run runs r and returns the calls counted meanwhile by op.
    public static long[] run(Runnable r) {
        java.util.Arrays.fill(counts, 0);
        only = Thread.currentThread();
        try {
            r.run();
        } finally {
            only = null;
        }
        return counts.clone();
    }
}
