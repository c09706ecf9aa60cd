import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

// Bank is a new user's program, as issue 31 tried Orca on: a hot
// synchronized cache, a class whose initialisation others wait for, a
// counter array locked by several threads, a producer/consumer on an
// ArrayBlockingQueue, a lock-order deadlock between two tellers with an
// auditor blocked behind it, and main awaiting a latch nobody counts down
// (forgotten). A daemon ends the program with System.exit while the
// deadlock and the latch are still there, so the report, the viewer and
// the exports all see the same stuck threads. Handshakes, not timing, make
// the deadlock: each teller holds its first account before either asks for
// its second.
public class Bank {
    static final class Account {
        final String name;
        long balance = 1000;

        Account(String name) {
            this.name = name;
        }
    }

    // Rates is slow to initialise: threads that use it meanwhile wait for
    // its class initialisation.
    static final class Rates {
        static final double RATE;

        static {
            sleep(300);
            RATE = 0.01;
        }
    }

    static final Map<String, Long> cache = new HashMap<>();
    static final int[] stats = new int[4];

    public static void main(String[] args) throws Exception {
        Thread killer = new Thread(() -> {
            sleep(5000);
            System.out.println("bank: exit");
            System.exit(0);
        }, "exit-timer");
        killer.setDaemon(true);
        killer.start();

        // A hot synchronized cache: 4 readers, each lookup holds the cache.
        Thread[] readers = new Thread[4];
        for (int i = 0; i < readers.length; i++) {
            int id = i;
            readers[i] = new Thread(() -> {
                for (int n = 0; n < 40; n++) {
                    lookup("k" + (n % 8));
                    synchronized (stats) {
                        stats[id]++;
                        spin(2);
                    }
                }
            }, "cache-" + (i + 1));
            readers[i].start();
        }

        // Rates' class initialisation, by 3 threads at once.
        Thread[] raters = new Thread[3];
        for (int i = 0; i < raters.length; i++) {
            raters[i] = new Thread(() -> System.out.println("rate " + Rates.RATE), "rater-" + (i + 1));
            raters[i].start();
        }

        // A producer/consumer on an ArrayBlockingQueue of 2.
        BlockingQueue<Integer> queue = new ArrayBlockingQueue<>(2);
        Thread producer = new Thread(() -> {
            for (int i = 0; i < 30; i++) {
                try {
                    queue.put(i);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "producer");
        Thread consumer = new Thread(() -> {
            for (int i = 0; i < 30; i++) {
                try {
                    queue.take();
                } catch (InterruptedException e) {
                    return;
                }
                sleep(20);
            }
        }, "consumer");
        producer.start();
        consumer.start();
        for (Thread t : readers) {
            t.join();
        }
        for (Thread t : raters) {
            t.join();
        }
        producer.join();
        consumer.join();

        // The tellers' lock-order deadlock, with an auditor blocked behind it.
        Account a = new Account("alice");
        Account b = new Account("bob");
        CountDownLatch both = new CountDownLatch(2);
        Thread t1 = new Thread(() -> transfer(a, b, both), "teller-1");
        Thread t2 = new Thread(() -> transfer(b, a, both), "teller-2");
        t1.start();
        t2.start();
        waitBlocked(t1, t2);
        Thread auditor = new Thread(() -> {
            synchronized (a) {
                System.out.println("unreachable");
            }
        }, "auditor");
        auditor.start();
        waitBlocked(auditor);

        // The forgotten latch: nobody counts it down.
        CountDownLatch ready = new CountDownLatch(1);
        System.out.printf("EXPECT alice=%08X bob=%08X stats=%08X cache=%08X%n",
                System.identityHashCode(a), System.identityHashCode(b),
                System.identityHashCode(stats), System.identityHashCode(cache));
        System.out.flush();
        ready.await();
    }

    static long lookup(String key) {
        synchronized (cache) {
            spin(3);
            return cache.merge(key, 1L, Long::sum);
        }
    }

    static void transfer(Account from, Account to, CountDownLatch both) {
        synchronized (from) {
            both.countDown();
            try {
                both.await();
            } catch (InterruptedException e) {
                return;
            }
            synchronized (to) {
                from.balance -= 10;
                to.balance += 10;
            }
        }
    }

    // spin works for ms milliseconds without leaving the CPU, as a lookup
    // that computes would.
    static void spin(long ms) {
        long end = System.nanoTime() + ms * 1_000_000;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void waitBlocked(Thread... ts) {
        for (Thread t : ts) {
            while (t.getState() != Thread.State.BLOCKED) {
                LockSupport.parkNanos(1_000_000);
            }
        }
    }
}
