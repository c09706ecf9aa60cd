// NoManagement: a short program that never touches java.lang.management (issue 13, item 4). At
// start-up its main thread bootstraps invokedynamic call sites (lambdas, method references,
// string concatenation): before, the agent's walker thread called ThreadMXBean at the same time,
// loading 42-44 management classes and bootstrapping its own lambdas, and main blocked on the
// JDK's LambdaForm monitors (owner unknown) in runs where the two met: contended enters the
// program never made. Then it makes exactly CONTENDED handshaked contended enters on lock, all by
// one helper thread; main makes none. Before that, BURST threads start at once and end: their first
// events reach the agent together (issue 14: the agent's lookup of the virtual-thread classes ran
// the application class loader's Java code inside each one's callback, and they contended on that
// loader's lock for the class's name, a MonitorContendedEnter nested in the agent's own).
//
// Prints "EXPECT main=HASH helper=HASH lock=HASH contended=N".
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

public class NoManagement {
    static final int CONTENDED = 5, BURST = 16;
    static final Object lock = new Object();
    static volatile int go, passed;

    static void awaitBlocked(Thread t) {
        while (t.getState() != Thread.State.BLOCKED) LockSupport.parkNanos(50_000);
    }

    // startUp bootstraps call sites of several shapes, as a program's start-up does.
    static long startUp() {
        long sum = 0;
        List<String> seen = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            final int r = round;
            Function<Integer, String> f = i -> "v" + i + r;
            Supplier<String> s = () -> "x" + r + 'c' + 1.5 + 2L;
            BiFunction<Integer, Integer, Integer> add = Integer::sum;
            Predicate<String> p = x -> x.length() > 3;
            Consumer<String> c = seen::add;
            Comparator<String> byLength = Comparator.comparing(String::length);
            sum += IntStream.range(0, 50).mapToObj(f::apply).filter(p).map(String::length).reduce(0, add::apply);
            c.accept(s.get());
            sum += seen.stream().sorted(byLength.thenComparing(Function.identity())).collect(Collectors.joining(",")).length();
        }
        return sum;
    }

    // burst starts BURST threads at once, each waiting for its turn to end: they end one at a time
    // (on JDK 17 a thread's exit takes its group's monitor: threads ending together contend on it)
    // and none while main is still in its Thread.start (which holds the thread's monitor on 25).
    static void burst() throws InterruptedException {
        // A timed wait on a closed latch first: the burst's threads' first awaits would otherwise
        // initialise AQS's node classes together, contending on the class's init lock (an int[]).
        new CountDownLatch(1).await(1, TimeUnit.MILLISECONDS);
        CountDownLatch[] turn = new CountDownLatch[BURST];
        Thread[] ts = new Thread[BURST];
        for (int i = 0; i < BURST; i++) {
            CountDownLatch mine = turn[i] = new CountDownLatch(1);
            ts[i] = new Thread(() -> {
                try {
                    mine.await();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }, "orca-burst-" + i);
        }
        for (Thread t : ts) t.start();
        for (int i = 0; i < BURST; i++) {
            turn[i].countDown();
            while (ts[i].isAlive()) LockSupport.parkNanos(20_000); // join would be recorded
        }
    }

    public static void main(String[] args) throws Exception {
        long sum = startUp();
        burst();
        // Loaded before the helper runs: two threads loading one class contend on the class
        // loader's lock for its name (contention of the program's own, seen: main's
        // getState and the helper's parkNanos loading LockSupport at once).
        LockSupport.parkNanos(1_000);
        sum += Thread.currentThread().getState().ordinal() + Thread.State.BLOCKED.ordinal();
        Thread helper = new Thread(() -> {
            for (int j = 0; j < CONTENDED; j++) {
                while (go <= j) LockSupport.parkNanos(20_000);
                synchronized (lock) { }
                passed = j + 1;
            }
        }, "orca-helper");
        helper.start();
        for (int j = 0; j < CONTENDED; j++) {
            synchronized (lock) {
                go = j + 1;
                awaitBlocked(helper);
            }
            while (passed <= j) LockSupport.parkNanos(20_000);
        }
        while (helper.isAlive()) LockSupport.parkNanos(100_000); // join would be recorded
        LockSupport.parkNanos(300_000_000L); // the walker's and the writer's rounds go on
        System.out.printf("EXPECT main=%08X helper=%08X lock=%08X contended=%d burst=%d sum=%d%n",
                System.identityHashCode(Thread.currentThread()), System.identityHashCode(helper),
                System.identityHashCode(lock), CONTENDED, BURST, sum);
    }
}
