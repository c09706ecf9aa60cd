// QueueHandoff: a producer that waits for its consumer, in two queues:
//
//   SynchronousQueue  "sqProd" puts ITEMS; "sqCons" waits until sqProd is parked in its put,
//                     then sleeps GAP_MS and takes: ITEMS parks of sqProd, each unparked by
//                     sqCons, which never parks
//   LinkedBlockingQueue(CAP)  "lbProd" puts ITEMS at once; "lbCons" starts taking once the
//                     queue is full, sleeping GAP_MS before each take: ITEMS - CAP puts park on
//                     the full queue (its notFull condition), each unparked by lbCons
//
// The parks are a put's, named so on every JDK (JDK 21+ parks a SynchronousQueue's put in
// LinkedTransferQueue's node), never the consumer's wait for work.
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.SynchronousQueue;

public class QueueHandoff {
    static final int ITEMS = 6, CAP = 2, GAP_MS = 40;
    static volatile int sqPutting = -1, lbPutting = -1;   // the item each producer is putting

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    static void sleep() {
        try { Thread.sleep(GAP_MS); } catch (InterruptedException e) { throw new AssertionError(e); }
    }

    interface Body { void run() throws InterruptedException; }

    static Thread thread(String name, Body b) {
        return new Thread(() -> {
            try { b.run(); } catch (InterruptedException e) { throw new AssertionError(e); }
        }, name);
    }

    public static void main(String[] args) throws Exception {
        SynchronousQueue<Integer> sq = new SynchronousQueue<>();
        Thread sp = thread("sqProd", () -> {
            for (int i = 0; i < ITEMS; i++) {
                sqPutting = i;
                sq.put(i);
            }
        });
        Thread sc = thread("sqCons", () -> {
            for (int i = 0; i < ITEMS; i++) {
                // Parked in its put of item i: not still WAITING from the last (unparked by
                // the last take, not yet run on a loaded machine: the take would then wait
                // for the put, which would not park: 5 parks of 6 once).
                while (sqPutting != i || sp.getState() != Thread.State.WAITING) Thread.onSpinWait();
                sleep();
                sq.take();
            }
        });
        sp.start(); sc.start(); sp.join(); sc.join();

        LinkedBlockingQueue<Integer> lbq = new LinkedBlockingQueue<>(CAP);
        Thread lp = thread("lbProd", () -> {
            for (int i = 0; i < ITEMS; i++) {
                lbPutting = i;
                lbq.put(i);
            }
        });
        Thread lc = thread("lbCons", () -> {
            for (int i = 0; i < ITEMS; i++) {
                // The put of item CAP + i parked on the full queue, as above.
                while (i < ITEMS - CAP && (lbPutting != CAP + i || lp.getState() != Thread.State.WAITING)) Thread.onSpinWait();
                sleep();
                lbq.take();
            }
        });
        lp.start(); lc.start(); lp.join(); lc.join();
        System.out.println("EXPECT sqProd=" + hex(sp) + " sqCons=" + hex(sc) + " lbProd=" + hex(lp) + " lbCons=" + hex(lc)
            + " sq_parks=" + ITEMS + " lbq_parks=" + (ITEMS - CAP));
    }
}
