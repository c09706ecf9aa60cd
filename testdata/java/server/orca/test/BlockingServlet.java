package orca.test;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

// A servlet that blocks in every way a request thread of a real server does: a contended monitor,
// Object.wait, Thread.sleep, a contended ReentrantLock, a read lock blocked by writers, a
// Condition, a CompletableFuture computed by a small pool, a latch, a bounded queue and a bare
// parkNanos. Each request takes one path, round robin, so under load every kind of blocking is
// frequent and contended. The servlet prints nothing and counts nothing: the test compares two
// captures of the same JVM (Orca and JDK Flight Recorder), not against a known count.
public class BlockingServlet extends HttpServlet {
    private static final Object MONITOR = new Object();
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final Condition READY = LOCK.newCondition();
    private static final ReentrantReadWriteLock RW = new ReentrantReadWriteLock();
    private static final BlockingQueue<Integer> QUEUE = new ArrayBlockingQueue<>(4);
    private static final AtomicInteger NEXT = new AtomicInteger();
    private static final AtomicLong SINK = new AtomicLong();
    private static boolean ready;

    private final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "blocking-pool-" + NEXT.get());
        t.setDaemon(true);
        return t;
    });

    @Override
    public void init() {
        // The queue's consumer: takes what requests put (they block when it is full).
        Thread consumer = new Thread(() -> {
            try {
                while (true) {
                    SINK.addAndGet(QUEUE.take());
                    LockSupport.parkNanos(50_000);
                }
            } catch (InterruptedException e) {
                // the server stops
            }
        }, "blocking-consumer");
        consumer.setDaemon(true);
        consumer.start();
    }

    @Override
    public void destroy() {
        pool.shutdownNow();
    }

    private static void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        int n = NEXT.incrementAndGet();
        try {
            switch (n % 9) {
                case 0: // a contended monitor
                    synchronized (MONITOR) {
                        pause(100_000);
                    }
                    break;
                case 1: // Object.wait with a timeout, sometimes notified
                    synchronized (MONITOR) {
                        if (n % 2 == 0) {
                            MONITOR.notifyAll();
                        }
                        MONITOR.wait(1);
                    }
                    break;
                case 2:
                    Thread.sleep(1);
                    break;
                case 3: // a contended ReentrantLock
                    LOCK.lock();
                    try {
                        pause(100_000);
                    } finally {
                        LOCK.unlock();
                    }
                    break;
                case 4: // readers blocked by a writer, a writer by readers
                    if (n % 4 == 0) {
                        RW.writeLock().lock();
                        try {
                            pause(200_000);
                        } finally {
                            RW.writeLock().unlock();
                        }
                    } else {
                        RW.readLock().lock();
                        try {
                            pause(50_000);
                        } finally {
                            RW.readLock().unlock();
                        }
                    }
                    break;
                case 5: // a Condition: wait for the next request of this kind, at most 2 ms
                    LOCK.lock();
                    try {
                        if (ready) {
                            ready = false;
                            READY.signal();
                        } else {
                            ready = true;
                            READY.await(2, TimeUnit.MILLISECONDS);
                        }
                    } finally {
                        LOCK.unlock();
                    }
                    break;
                case 6: // a future computed by the pool, and the pool's latch
                    CountDownLatch done = new CountDownLatch(1);
                    CompletableFuture<Long> f = CompletableFuture.supplyAsync(() -> {
                        pause(200_000);
                        done.countDown();
                        return 1L;
                    }, pool);
                    SINK.addAndGet(f.join());
                    done.await();
                    break;
                case 7: // a bounded queue: blocks while the consumer is behind
                    QUEUE.put(n);
                    break;
                default:
                    LockSupport.parkNanos(300_000);
                    break;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        resp.setContentType("text/plain");
        resp.getWriter().println(n);
    }
}
