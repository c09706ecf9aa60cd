// LockOrder (issue 36, item 2): lock-order inversions that never deadlock, and nestings that
// cannot. Each part runs its threads one after the other (never two nestings at once), and makes
// each nesting's second acquisition contended: a holder thread takes the second lock first and
// keeps it HOLD_MS, so the agent sees the enter and what the thread holds as it blocks.
//
//   inv-1, inv-2       inv-1 takes a in outerA, then b in innerB; later inv-2 takes b in outerB,
//                      then a in innerA: the inversion, one potential deadlock (a -> b by inv-1,
//                      b -> a by inv-2)
//   gate-1, gate-2     the same inversion over c and d, each inside synchronized (g): the gate
//                      lock held across both makes it safe, none
//   fixed-1, fixed-2   e then f, both threads: a fixed order, none
//   alone              p then q, later q then p, one thread: none
//   fresh-1, fresh-2   a new Object x then a new Object y, each thread its own (two plain
//                      Objects nested in a fixed order): none, and no self-loop of Object
//
// main prints the locks' identity hashes:
//
//   EXPECT a=HASH b=HASH c=HASH d=HASH g=HASH e=HASH f=HASH p=HASH q=HASH
import java.util.concurrent.CountDownLatch;

public class LockOrder {
    static final int HOLD_MS = 100;
    static final Object a = new Object(), b = new Object(), c = new Object(), d = new Object(), g = new Object(),
            e = new Object(), f = new Object(), p = new Object(), q = new Object();

    // contended runs body in a thread named name while a holder thread holds second for HOLD_MS
    // (taken before body starts), and waits for both.
    static void contended(String name, Object second, Runnable body) throws InterruptedException {
        CountDownLatch taken = new CountDownLatch(1);
        Thread holder = new Thread(() -> {
            synchronized (second) {
                taken.countDown();
                sleep(HOLD_MS);
            }
        }, "holder-" + name);
        holder.start();
        taken.await();
        Thread t = new Thread(body, name);
        t.start();
        t.join();
        holder.join();
    }

    static void sleep(long ms) {
        try { Thread.sleep(ms); } catch (InterruptedException x) { Thread.currentThread().interrupt(); }
    }

    static void innerB() {
        synchronized (b) {
        }
    }

    static void outerA() {
        synchronized (a) {
            innerB();
        }
    }

    static void innerA() {
        synchronized (a) {
        }
    }

    static void outerB() {
        synchronized (b) {
            innerA();
        }
    }

    static void nest(Object first, Object second) {
        synchronized (first) {
            synchronized (second) {
            }
        }
    }

    static void gated(Object first, Object second) {
        synchronized (g) {
            nest(first, second);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        contended("inv-1", b, LockOrder::outerA);
        contended("inv-2", a, LockOrder::outerB);
        contended("gate-1", d, () -> gated(c, d));
        contended("gate-2", c, () -> gated(d, c));
        contended("fixed-1", f, () -> nest(e, f));
        contended("fixed-2", f, () -> nest(e, f));
        // One thread, both orders: its second nesting waits for a holder started meanwhile.
        CountDownLatch first = new CountDownLatch(1), held = new CountDownLatch(1);
        Thread alone = new Thread(() -> {
            nest(p, q);
            first.countDown();
            try {
                held.await();
            } catch (InterruptedException x) {
                return;
            }
            nest(q, p);
        }, "alone");
        Thread holdQ = new Thread(() -> {
            synchronized (q) {
                sleep(HOLD_MS);
            }
        }, "holder-alone-q");
        Thread holdP = new Thread(() -> {
            synchronized (p) {
                held.countDown();
                sleep(HOLD_MS);
            }
        }, "holder-alone-p");
        holdQ.start();
        while (holdQ.getState() != Thread.State.TIMED_WAITING) Thread.sleep(1);
        alone.start();
        first.await();
        holdQ.join();
        holdP.start();
        alone.join();
        holdP.join();
        for (String name : new String[] {"fresh-1", "fresh-2"}) {
            Object x = new Object(), y = new Object();
            contended(name, y, () -> nest(x, y));
        }
        System.out.printf("EXPECT a=%08X b=%08X c=%08X d=%08X g=%08X e=%08X f=%08X p=%08X q=%08X%n",
                System.identityHashCode(a), System.identityHashCode(b), System.identityHashCode(c),
                System.identityHashCode(d), System.identityHashCode(g), System.identityHashCode(e),
                System.identityHashCode(f), System.identityHashCode(p), System.identityHashCode(q));
    }
}
