// AnonymousOwner: issue 31, item 1. Two threads call a synchronized method of one shared object
// N times each (args[0], default 30 000 000). The test runs the JVM on one CPU (taskset -c 0), so
// the OS preempts a worker anywhere in its loop, and the other worker contends whenever the
// preempted one holds the lock. With lightweight locking (JDK 23+) the contender inflates the
// fast-locked object with an anonymous owner and looks for it on the threads' lock stacks; when
// the holder was preempted inside its compiled fast unlock, between the pop of its lock stack and
// its CAS of the header (or inside its fast lock, between the CAS and the push), the object is on
// no lock stack: only in the entry just above the holder's top (docs/agent.md, "The owner of a
// contended monitor"). Each worker's lock stack holds this object alone, so that entry is exact.
//
// Prints "EXPECT count=2N lock=HASH worker.0=HASH worker.1=HASH".
public class AnonymousOwner {
    static final AnonymousOwner lock = new AnonymousOwner();
    static long count;
    static volatile int sink;

    synchronized void inc() { count++; }

    public static void main(String[] args) throws Exception {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 30_000_000L;
        Thread[] ws = new Thread[2];
        for (int t = 0; t < ws.length; t++) {
            // The volatile store keeps C2 from coarsening the loop's locks into one region.
            ws[t] = new Thread(() -> { for (long i = 0; i < n; i++) { lock.inc(); sink = 1; } }, "orca-worker-" + t);
            ws[t].start();
        }
        for (Thread w : ws) w.join();
        System.out.printf("EXPECT count=%d lock=%08X worker.0=%08X worker.1=%08X%n", count,
                System.identityHashCode(lock), System.identityHashCode(ws[0]), System.identityHashCode(ws[1]));
    }
}
