// NotifyFlood: daemon threads call notify() as fast as they can from deep stacks, then main calls
// System.exit while they still run. Arguments: threads, stack depth, run time in ms. It prints
// "EXPECT exit_ms=<wall clock ms at the System.exit call>" just before the call.
// integration/flood_test.go uses it for the agent's exit time (issue 12, item 3), its memory
// (item 10) and a full disk (item 4).
public class NotifyFlood {
    static final Object lock = new Object();
    static volatile long sink;

    static void deep(int n) {
        if (n > 0) {
            deep(n - 1);
            sink++;
            return;
        }
        while (true) {
            synchronized (lock) {
                lock.notify();
            }
        }
    }

    public static void main(String[] args) throws InterruptedException {
        int threads = Integer.parseInt(args[0]);
        int depth = Integer.parseInt(args[1]);
        long runMs = Long.parseLong(args[2]);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> deep(depth), "flood-" + i);
            t.setDaemon(true);
            t.start();
        }
        Thread.sleep(runMs);
        System.out.println("EXPECT exit_ms=" + System.currentTimeMillis());
        System.out.flush();
        System.exit(0);
    }
}
