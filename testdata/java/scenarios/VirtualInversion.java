// VirtualInversion (issue 36 item 2, virtual threads): on JDK 21+, virtual threads nest monitors
// in opposite orders, one nesting after the other, so nothing ever deadlocks; the second monitor
// of each nesting is contended (a holder keeps it until the nester is BLOCKED on it, and 200 ms
// more). Two kinds of nester:
//   park  va takes a in outerPark, parks until vb's holder holds b (24+: it unmounts holding a,
//         its frames go to its continuation's stack chunk), then enters b in innerPark; vb the
//         same with b then a. At the contended enter the frames below the top ones are still in
//         the stack chunk (HotSpot thaws lazily): not readable from the carrier's stack.
//   spin  vc spins (never parks: its frames never leave the carrier's stack) until vd's holder
//         holds d, takes c in outerSpin and enters d in innerSpin; vd the same with d then c.
// So the lock-order graph has two potential deadlocks, over a and b (va, vb) and over c and d
// (vc, vd). Prints "EXPECT virtual=yes va=ID vb=ID vc=ID vd=ID a=HASH b=HASH c=HASH d=HASH" (the
// threads' identity hashes), "EXPECT virtual=no" on JDK 17-20. Compiled with --release 17:
// virtual threads through reflection.
import java.util.concurrent.locks.LockSupport;

public class VirtualInversion {
    static final Object a = new Object(), b = new Object(), c = new Object(), d = new Object();
    static volatile boolean holds;

    static Thread startVirtual(String name, Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class).invoke(builder, name);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    static void until(java.util.function.BooleanSupplier c) {
        while (!c.getAsBoolean()) LockSupport.parkNanos(100_000);
    }

    static void spinUntil(java.util.function.BooleanSupplier c) {
        while (!c.getAsBoolean()) Thread.onSpinWait();
    }

    static void outerPark(Object first, Object second) {
        synchronized (first) {
            until(() -> holds);
            innerPark(second);
        }
    }

    static void innerPark(Object second) {
        synchronized (second) {
            holds = holds;
        }
    }

    static void outerSpin(Object first, Object second) {
        synchronized (first) {
            innerSpin(second);
        }
    }

    static void innerSpin(Object second) {
        synchronized (second) {
            holds = holds;
        }
    }

    // nest runs the nester, then a holder of second that keeps it until the nester blocks on it
    // (and 200 ms more: the agent's held thread, asked while the nester blocks, may come tens of
    // ms late on a loaded machine), and waits for both.
    static Thread nest(String name, Object first, Object second, boolean spin) throws Exception {
        holds = false;
        Thread n = startVirtual(name, () -> {
            if (spin) {
                spinUntil(() -> holds);
                outerSpin(first, second);
            } else {
                outerPark(first, second);
            }
        });
        Thread h = startVirtual("holder-" + name, () -> {
            synchronized (second) {
                holds = true;
                until(() -> n.getState() == Thread.State.BLOCKED);
                LockSupport.parkNanos(200_000_000);
            }
        });
        n.join();
        h.join();
        return n;
    }

    public static void main(String[] args) throws Exception {
        try {
            Thread.class.getMethod("ofVirtual");
        } catch (NoSuchMethodException e) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        Thread va = nest("va", a, b, false), vb = nest("vb", b, a, false);
        Thread vc = nest("vc", c, d, true), vd = nest("vd", d, c, true);
        System.out.printf("EXPECT virtual=yes va=%08X vb=%08X vc=%08X vd=%08X a=%08X b=%08X c=%08X d=%08X%n",
                System.identityHashCode(va), System.identityHashCode(vb), System.identityHashCode(vc),
                System.identityHashCode(vd), System.identityHashCode(a), System.identityHashCode(b),
                System.identityHashCode(c), System.identityHashCode(d));
    }
}
