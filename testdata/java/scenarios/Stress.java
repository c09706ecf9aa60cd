// Stress runs THREADS threads for a given time (first argument, seconds; default 6) doing every
// operation Orca records, mixed with exception storms and GC churn, then prints DONE. It asserts
// no counts: integration/stress_test.go only checks that the JVM survives the agent and the
// recording is well formed. Every blocking call has a timeout or a guaranteed wake-up, so the
// program always ends.
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

public class Stress {
    static final int THREADS = 16;
    static final Object[] monitors = {new Object(), new Object(), new Object()};
    static final Semaphore sem = new Semaphore(4);
    static volatile Object sink;
    static volatile long deadline;

    public static void main(String[] args) throws InterruptedException {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 6;
        long start = System.nanoTime();
        deadline = start + (long) (seconds * 1e9);
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < THREADS; i++) {
            final int id = i;
            // Odd names on purpose: they must survive quoting.
            Thread t = new Thread(() -> work(id), "stress-" + i + (i % 4 == 0 ? ",\"ž\"" : ""));
            workers.add(t);
            t.start();
        }
        // A few full GCs while the workers run.
        for (int gc = 0; gc < 4 && System.nanoTime() < deadline; gc++) {
            System.gc();
            long left = deadline - System.nanoTime();
            if (left > 0) Thread.sleep(Math.min(TimeUnit.NANOSECONDS.toMillis(left) / 4 + 1, 1500));
        }
        for (Thread t : workers) t.join();
        System.out.println("DONE");
    }

    static void work(int id) {
        Random rnd = new Random(id);
        List<Object> keep = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            try {
                switch (rnd.nextInt(9)) {
                    case 0, 1 -> contend(rnd);
                    case 2 -> npeStorm(rnd);
                    case 3 -> churn(rnd, keep);
                    case 4 -> waitNotify(rnd);
                    case 5 -> semaphore(rnd);
                    case 6 -> startJoin(rnd);
                    case 7 -> Thread.sleep(rnd.nextInt(2));
                    default -> deep(rnd.nextInt(40), rnd);
                }
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    static void contend(Random rnd) {
        Object m = monitors[rnd.nextInt(monitors.length)];
        synchronized (m) {
            long x = 0;
            for (int i = 0; i < 2000 + rnd.nextInt(20000); i++) x += i * 31L ^ x;
            sink = x;
            if (rnd.nextInt(8) == 0) m.notifyAll();
        }
    }

    static void npeStorm(Random rnd) {
        Object nothing = rnd.nextInt(1000) < 0 ? new Object() : null;
        for (int i = 0; i < 200; i++) {
            try {
                sink = nothing.toString(); // implicit NullPointerException
            } catch (NullPointerException e) {
                sink = e;
            }
            try {
                throw new NullPointerException("storm " + i);
            } catch (NullPointerException e) {
                sink = e.getMessage();
            }
        }
    }

    static void churn(Random rnd, List<Object> keep) {
        for (int i = 0; i < 200; i++) {
            Object o = (i % 3 == 0) ? new byte[rnd.nextInt(64 * 1024)] : new long[rnd.nextInt(512)];
            if (rnd.nextInt(20) == 0) keep.add(o);
            sink = o;
        }
        if (keep.size() > 200) keep.subList(0, 150).clear();
    }

    static void waitNotify(Random rnd) throws InterruptedException {
        Object m = monitors[rnd.nextInt(monitors.length)];
        synchronized (m) {
            if (rnd.nextBoolean()) {
                m.wait(1 + rnd.nextInt(3)); // timed: nobody has to notify
            } else if (rnd.nextBoolean()) {
                m.notify();
            } else {
                m.notifyAll();
            }
        }
    }

    static void semaphore(Random rnd) throws InterruptedException {
        int n = 1 + rnd.nextInt(2);
        switch (rnd.nextInt(3)) {
            case 0 -> sem.acquire(n);
            case 1 -> sem.acquireUninterruptibly(n);
            default -> {
                if (!sem.tryAcquire(n, 5, TimeUnit.MILLISECONDS)) return;
            }
        }
        try {
            sink = new Object();
        } finally {
            if (n == 1) sem.release(); else sem.release(n);
        }
    }

    static void startJoin(Random rnd) throws InterruptedException {
        Thread t = new Thread(() -> {
            sink = new int[rnd.nextInt(100) + 1];
            synchronized (monitors[0]) {
                sink = Thread.currentThread().getName();
            }
        }, "stress-child");
        t.start();
        if (rnd.nextBoolean()) t.join(); else t.join(1000);
    }

    // Recursion so that events have stacks deeper than the agent's default depth.
    static void deep(int n, Random rnd) throws InterruptedException {
        if (n > 0) {
            deep(n - 1, rnd);
            return;
        }
        if (rnd.nextBoolean()) Thread.sleep(0);
        else contend(rnd);
    }
}
