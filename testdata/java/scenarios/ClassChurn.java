// ClassChurn (stop 100, docs/perf/2026-12-07-range-widen.md): an object whose class the agent
// wrote once and the compact encoder's table of classes (what a later chunk restates) then let go
// of, contended on again in a later chunk: a range read from that chunk must still name its class.
//
//   java ClassChurn FLOOD
//
// "early" blocks on the Keeper k (its class written); main then makes Churn objects until three
// have identity hashes in k's set of the encoder's table (agent/record/compact.c, fact_set: two
// slots a set, the one an event named less lately let go) and none in k's slot of the agent's set
// of objects whose class it wrote (agent/stacks/objclass.c, seen_slot), and notifies each (a class
// line each: the table lets k go, the agent's set still holds it); then, a second later (the
// writer's flushes), FLOOD notifies on one object (later chunks), and "late" blocks on k. Before stop 100 the agent did not write k's class
// again and the chunk of late's contention could not restate it. Prints EXPECT with k's, the
// churned objects' and the threads' identity hashes.
public class ClassChurn {
    static final class Keeper {}

    static final class Churn {}

    static final int FACTS = 16384, SEEN = 4096; // compact.h COMPACT_FACTS, objclass.c SEEN_SLOTS

    // compact.c's fact_set, on the identity hash as an unsigned 32-bit value.
    static long factSet(int h) {
        return (((h & 0xFFFFFFFFL) * 0x9E3779B97F4A7C15L) >>> 40) & (FACTS - 2);
    }

    // objclass.c's seen_slot: (h * 2654435761u) >> 20 & (SEEN - 1), in 32 bits.
    static int seenSlot(int h) {
        return ((h * (int) 2654435761L) >>> 20) & (SEEN - 1);
    }

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    // contend has t block on k, held by main, and lets it in.
    static void contend(Object k, Thread t) {
        synchronized (k) {
            t.start();
            while (t.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
        }
    }

    public static void main(String[] args) throws Exception {
        long flood = Long.parseLong(args[0]);
        Keeper k = new Keeper();
        Runnable in = () -> {
            synchronized (k) {
                k.hashCode();
            }
        };
        Thread early = new Thread(in, "early"), late = new Thread(in, "late");
        contend(k, early);
        early.join();
        int kh = System.identityHashCode(k);
        java.util.List<Churn> churned = new java.util.ArrayList<>();
        java.util.List<Churn> made = new java.util.ArrayList<>(); // kept alive: no hash reused
        while (churned.size() < 3) {
            Churn c = new Churn();
            made.add(c);
            int h = System.identityHashCode(c);
            if (h != kh && factSet(h) == factSet(kh) && seenSlot(h) != seenSlot(kh)) churned.add(c);
        }
        StringBuilder list = new StringBuilder();
        for (Churn c : churned) {
            synchronized (c) {
                c.notify();
            }
            list.append(list.length() > 0 ? "," : "").append(hex(c));
        }
        // The writer encodes those lines, lets k go and has the agent forget it within a
        // flush (200 ms by default); an event on k before then is restated without its class
        // in a later chunk (the window docs/format.md leaves): JDK 25 ran the rest in less.
        Thread.sleep(1000);
        Object flag = new Object();
        for (long i = 0; i < flood; i++) {
            synchronized (flag) {
                flag.notify();
            }
        }
        contend(k, late);
        late.join();
        System.out.printf("EXPECT keeper=%s churned=%s early=%s late=%s made=%d%n", hex(k), list, hex(early), hex(late), made.size());
    }
}
