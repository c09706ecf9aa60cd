// ClassInitDeadlock (h153): class-initialisation waits still open, which HotSpot posts no event
// for until they end (docs/agent.md, "Class initialisation"; JDK 17 and 22+):
//
//   slow-init    runs Slow.<clinit>, which waits until the WAITERS waiters are about to touch
//                Slow, then sleeps HOLD_MS (longer than the agent's walker's rounds)
//   slow-W-i     read Slow.v while Slow is being initialised: each waits HOLD_MS for slow-init
//   dlA          runs A.<clinit>, which reads B.v once dlB runs B.<clinit>
//   dlB          runs B.<clinit>, which reads A.v once dlA runs A.<clinit>: dlA waits for
//                dlB's initialisation of B and dlB for dlA's of A, for ever (a deadlock no
//                lock of the program's is in)
//
// main leaves the deadlock DEADLOCK_MS, prints the EXPECT line and ends the JVM (System.exit:
// the two threads never end).
import java.util.concurrent.CountDownLatch;

public class ClassInitDeadlock {
    static final int WAITERS = 3, HOLD_MS = 1500, DEADLOCK_MS = 1500;
    static final CountDownLatch touching = new CountDownLatch(WAITERS);
    static final CountDownLatch initialising = new CountDownLatch(1);
    static final CountDownLatch bothIn = new CountDownLatch(2);

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

    static void meet() {
        bothIn.countDown();
        try {
            bothIn.await();
            Thread.sleep(50); // the other is at its meet too, past it soon
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    static class A {
        static int v;
        static {
            meet();
            v = B.v + 1;
        }
    }

    static class B {
        static int v;
        static {
            meet();
            v = A.v + 1;
        }
    }

    public static void main(String[] args) throws Exception {
        Thread init = new Thread(() -> { int x = Slow.v; }, "slow-init");
        init.start();
        initialising.await();
        Thread[] ts = new Thread[WAITERS];
        for (int i = 0; i < WAITERS; i++) {
            ts[i] = new Thread(() -> {
                touching.countDown();
                if (Slow.v != 1) throw new AssertionError("Slow.v");
            }, "slow-W-" + i);
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        init.join();

        Thread a = new Thread(() -> { int x = A.v; }, "dlA");
        Thread b = new Thread(() -> { int x = B.v; }, "dlB");
        a.start();
        b.start();
        Thread.sleep(DEADLOCK_MS);
        System.out.println("EXPECT slowinit=" + hex(init) + " waiters=" + WAITERS + " slow=LClassInitDeadlock$Slow;"
                + " dlA=" + hex(a) + " dlB=" + hex(b) + " a=LClassInitDeadlock$A; b=LClassInitDeadlock$B;");
        System.out.flush();
        System.exit(0);
    }
}
