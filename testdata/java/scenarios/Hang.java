// Hang never ends: a worker alternates a little work with Thread.sleep, a waiter waits forever
// on an object nobody notifies, main prints READY and then sleeps forever. The kill -9 test (integration/kill_test.go) kills it and reads what was flushed.
public class Hang {
    static volatile long sink;

    public static void main(String[] args) throws InterruptedException {
        Object lock = new Object();
        Thread worker = new Thread(() -> {
            long n = 0;
            while (true) {
                synchronized (lock) {
                    for (int i = 0; i < 10_000; i++) n += i ^ (n >>> 3);
                    sink = n;
                }
                try {
                    Thread.sleep(5);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "orca-hang-worker");
        worker.setDaemon(true);
        worker.start();
        Object never = new Object();
        Thread waiter = new Thread(() -> {
            synchronized (never) {
                try {
                    never.wait(); // WAITER_LINE
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "orca-hang-waiter");
        waiter.setDaemon(true);
        waiter.start();
        // The identity hash of the object the waiter waits on, before READY.
        System.out.printf("NEVER %08X%n", System.identityHashCode(never));
        System.out.println("READY");
        System.out.flush();
        while (true) Thread.sleep(100);
    }
}
