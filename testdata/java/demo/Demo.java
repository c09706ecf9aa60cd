import java.util.ArrayDeque;
import java.util.concurrent.Semaphore;

/**
 * The program `make demo` records: each kind of concurrency event Orca
 * captures, in phases with known threads and counts, in about 2 seconds.
 * It prints what a recording of it should show.
 */
public class Demo {
    static final Object lock = new Object();

    public static void main(String[] args) throws Exception {
        contention();
        producerConsumer();
        semaphorePool();
        System.out.println("demo: done");
    }

    /**
     * main holds the lock for 500 ms while 4 threads block on it, so each of
     * them records a MonitorContendedEnter whose owner is main; then they
     * pass the lock among themselves (20 ms each). main joins them.
     */
    static void contention() throws InterruptedException {
        Thread[] ts = new Thread[4];
        synchronized (lock) {
            for (int i = 0; i < ts.length; i++) {
                ts[i] = new Thread(Demo::critical, "contender-" + (i + 1));
                ts[i].start();
            }
            Thread.sleep(500);
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.printf("demo: contention: main held the lock %08X for 500 ms while 4 threads blocked on it%n",
                System.identityHashCode(lock));
    }

    static void critical() {
        synchronized (lock) {
            sleep(20);
        }
    }

    /**
     * A producer puts 20 items into a buffer of 2 guarded by wait/notifyAll;
     * the consumer takes them with wait/notify, more slowly, so both wait.
     */
    static void producerConsumer() throws InterruptedException {
        Buffer buf = new Buffer(2);
        Thread producer = new Thread(() -> {
            for (int i = 0; i < 20; i++) {
                buf.put(i);
                sleep(5);
            }
        }, "producer");
        Thread consumer = new Thread(() -> {
            for (int i = 0; i < 20; i++) {
                buf.take();
                sleep(25);
            }
        }, "consumer");
        producer.start();
        consumer.start();
        producer.join();
        consumer.join();
        System.out.printf("demo: producer/consumer: 20 items through buffer %08X of 2 slots%n",
                System.identityHashCode(buf));
    }

    static final class Buffer {
        private final ArrayDeque<Integer> items = new ArrayDeque<>();
        private final int capacity;

        Buffer(int capacity) {
            this.capacity = capacity;
        }

        synchronized void put(int v) {
            while (items.size() == capacity) {
                waitHere();
            }
            items.add(v);
            notifyAll();
        }

        synchronized int take() {
            while (items.isEmpty()) {
                waitHere();
            }
            int v = items.remove();
            notify();
            return v;
        }

        private void waitHere() {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** 4 workers share a pool of 2 permits, 3 rounds of 100 ms each. */
    static void semaphorePool() throws InterruptedException {
        Semaphore pool = new Semaphore(2);
        Thread[] ts = new Thread[4];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread(() -> {
                for (int round = 0; round < 3; round++) {
                    try {
                        pool.acquire();
                    } catch (InterruptedException e) {
                        return;
                    }
                    try {
                        sleep(100);
                    } finally {
                        pool.release();
                    }
                }
            }, "worker-" + (i + 1));
            ts[i].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        System.out.printf("demo: semaphore: 4 workers, 12 acquires of semaphore %08X (2 permits)%n",
                System.identityHashCode(pool));
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
