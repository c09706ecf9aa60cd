// ClassInit (issue 20 items 6 and 7): threads that touch a class while another thread runs its
// static initializer wait for it inside the JVM, on HotSpot's init lock of the class (an int[]; JDK
// 17 and 22+), not in any Java method:
//
//   initialiser   runs Slow.<clinit>, which waits until both touchers are about to touch Slow,
//                 then sleeps HOLD_MS
//   toucher-I     reads Slow.v while Slow is being initialised: waits for initialiser's <clinit>
//
// Each toucher's wait must be class initialisation of ClassInit$Slow, never an int[] monitor.
import java.util.concurrent.CountDownLatch;

public class ClassInit {
    static final int TOUCHERS = 2, HOLD_MS = 300;
    static final CountDownLatch touching = new CountDownLatch(TOUCHERS);
    static final CountDownLatch initialising = new CountDownLatch(1);

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static class Slow {
        static int v;
        static {
            initialising.countDown();
            try {
                touching.await();
                Thread.sleep(HOLD_MS);
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            v = 1;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread init = new Thread(() -> { int x = Slow.v; }, "initialiser");
        init.start();
        initialising.await();
        Thread[] ts = new Thread[TOUCHERS];
        for (int i = 0; i < TOUCHERS; i++) {
            ts[i] = new Thread(() -> {
                touching.countDown();
                if (Slow.v != 1) throw new AssertionError("Slow.v");
            }, "toucher-" + i);
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        init.join();
        System.out.println("EXPECT initialiser=" + hex(init) + " touchers=" + TOUCHERS + " class=LClassInit$Slow;");
    }
}
