// HeldShapes: contended monitor enters while the contender holds monitors taken in every shape
// the agent's read of the held monitors from the thread's own frames must decode (hooks/held.c,
// hotspot/walk.c): synchronized blocks nested in one frame and across recursive frames, a
// synchronized instance method and a synchronized static method (the receiver and the class
// mirror), a static final monitor (a constant of the compiled code), a monitor entered twice
// (recursive locking) and a monitor held in a caller whose small callee, likely inlined, contends.
// Each operation ends in `inner`, contended by the other threads. Used with ORCA_HELD_CHECK=1,
// which compares every read with JVMTI's answer (TestHeldCheck), interpreted, compiled and -Xcomp.
//
//   java HeldShapes MS      (runs MS milliseconds, 4 threads; prints "EXPECT ops=N")
public class HeldShapes {
    static final Object INNER = new Object();
    static final Object CONST = new Object();
    static long sink;
    static volatile boolean stop;

    final Object mine = new Object();

    static long work(int n) {
        long x = 0;
        for (int i = 0; i < n; i++) x += i * 31L;
        return x;
    }

    static long contend() {
        synchronized (INNER) {
            return work(300);
        }
    }

    // nested: three monitors in one frame, then the contended one.
    long nested(Object a) {
        synchronized (a) {
            synchronized (mine) {
                synchronized (this) {
                    return contend();
                }
            }
        }
    }

    // deep: one monitor per frame, d frames deep.
    long deep(Object[] own, int d) {
        if (d == own.length) return contend();
        synchronized (own[d]) {
            return deep(own, d + 1) + 1;
        }
    }

    synchronized long method() {
        return staticMethod();
    }

    static synchronized long staticMethod() {
        return contend();
    }

    static long constant() {
        synchronized (CONST) {
            return contend();
        }
    }

    long twice(Object a) {
        synchronized (a) {
            synchronized (a) {
                return contend();
            }
        }
    }

    long inlined(Object a) {
        synchronized (a) {
            return small();
        }
    }

    static long small() {
        synchronized (INNER) {
            return 1;
        }
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        Thread[] ts = new Thread[4];
        long[] ops = new long[ts.length];
        for (int t = 0; t < ts.length; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                HeldShapes h = new HeldShapes();
                Object a = new Object();
                Object[] own = {new Object(), new Object(), new Object(), new Object()};
                long n = 0, x = 0;
                while (!stop) {
                    switch ((int) (n % 6)) {
                        case 0 -> x += h.nested(a);
                        case 1 -> x += h.deep(own, 0);
                        case 2 -> x += id % 2 == 0 ? h.method() : constant();
                        case 3 -> x += constant();
                        case 4 -> x += h.twice(a);
                        default -> x += h.inlined(a);
                    }
                    n++;
                }
                ops[id] = n;
                synchronized (HeldShapes.class) {
                    sink += x;
                }
            }, "shapes-" + t);
            ts[t].start();
        }
        Thread.sleep(ms);
        stop = true;
        long total = 0;
        for (int t = 0; t < ts.length; t++) {
            ts[t].join();
            total += ops[t];
        }
        System.out.println("EXPECT ops=" + total);
    }
}
