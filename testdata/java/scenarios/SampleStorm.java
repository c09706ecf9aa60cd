// SampleStorm (issue 33, "Signal safety"): threads in every state a sampler's SIGPROF can find
// them in, for SECONDS (4 by default), while a storm redefines a hot class and invalidates
// compiled code:
//   workers (4 platform threads) run CPU-heavy code in many small methods (interpreted, compiled
//            by C1 and C2, inlined), polymorphic calls, SampleStormHot's methods (the class the
//            storm redefines), file I/O through natives, System.arraycopy, identity hashes,
//            exceptions thrown and caught (explicit and implicit), garbage;
//   monitor pairs (2) a holder takes its StormMon, lets its waiter try and waits until the waiter
//            is BLOCKED (so each round is exactly one contended enter), computes, releases; then
//            a wait/notify handshake on a StormWaitMon (each wait and notify counted);
//   lock pairs (2) the same on a ReentrantLock: the waiter is parked on its Sync (the blocker)
//            exactly once a round;
//   redefiner    with the test's -javaagent (this class's premain), Instrumentation.redefineClasses
//            of SampleStormHot every ~2 ms, alternating its own bytes and a second version (a file
//            the test compiled from testdata/java/samplestorm), so that frames on the workers'
//            stacks become obsolete and the compiled code that inlined them is deoptimised;
//   CHA          in a fresh class loader each generation, SampleStormChaDriver calls
//            SampleStormChaBase.step on its one implementor (inlined by class hierarchy analysis)
//            on a runner thread; then a second implementor is loaded in that loader, which
//            deoptimises the runner's compiled code while it runs; the old loaders are collected
//            (class unloading) at the main thread's System.gc() calls;
//   virtual threads (JDK 21+) started by main in batches, each computes, sleeps 1 ms, computes.
// Then "EXPECT virtual=yes|no vstarted=N sleeps=N waits=N notifies=N monRounds=N lockRounds=N
// redefinitions=N chaGenerations=N main=HASH threads=HASH,... mons=... waitMons=... syncs=...".
// Usage: SampleStorm [SECONDS] [HOT2 (the second version's class file)] [wait]: with wait, it prints
// READY and starts when a line comes on stdin (an attach in between), and after its EXPECT line
// waits for another line before it exits. Compiled with --release 17: virtual threads through
// reflection.
import java.io.File;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.lang.instrument.ClassDefinition;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongUnaryOperator;

public class SampleStorm {
    static volatile Instrumentation inst;

    public static void premain(String args, Instrumentation i) { inst = i; }

    public static void agentmain(String args, Instrumentation i) { inst = i; }

    static final class StormMon {}
    static final class StormWaitMon {}

    static volatile long sink;
    static volatile Object osink;
    static volatile long deadline;
    static final AtomicLong sleeps = new AtomicLong(), waits = new AtomicLong(), notifies = new AtomicLong(),
            monRounds = new AtomicLong(), lockRounds = new AtomicLong(), vstarted = new AtomicLong();
    static long redefinitions, chaGenerations;
    static final List<Object> syncs = new ArrayList<>();

    static String hex(Object o) { return String.format("%08X", System.identityHashCode(o)); }

    static String hexes(List<?> os) {
        StringBuilder b = new StringBuilder();
        for (Object o : os) b.append(b.length() > 0 ? "," : "").append(hex(o));
        return b.toString();
    }

    // ---- the workers: CPU in many methods, natives, exceptions, garbage ----

    interface Shape { long area(long x); }
    static final class Sq implements Shape { public long area(long x) { return x * x + 1; } }
    static final class Tri implements Shape { public long area(long x) { return (x * (x + 1)) >>> 1; } }
    static final class Circ implements Shape { public long area(long x) { return x * 355 / 113; } }
    static final Shape[] shapes = {new Sq(), new Tri(), new Circ()};

    static long c0(long x, int n) { for (int i = 0; i < n; i++) x = c1(x) + SampleStormHot.fold(x, 4); return x; }
    static long c1(long x) { return c2(x ^ (x >>> 7)) * 31; }
    static long c2(long x) { return (x & 1) == 0 ? c3(x) : c4(x); }
    static long c3(long x) { return Long.rotateLeft(x, 13) + SampleStormHot.mix(x); }
    static long c4(long x) { return x * 0x9E3779B97F4A7C15L + c5(x); }
    static long c5(long x) { return new SampleStormHot().step(x) ^ 0x5DEECE66DL; }

    static long poly(Random rnd) {
        long x = rnd.nextLong();
        for (int i = 0; i < 3000; i++) x += shapes[i % 3].area(x & 0xFFFF);
        return x;
    }

    static int depth(int n, int kind) {
        if (n > 0) return depth(n - 1, kind) + 1;
        switch (kind) {
            case 0: throw new IllegalStateException("storm");
            case 1: { Object o = null; return o.hashCode(); }          // implicit NullPointerException
            default: { int z = kind - 2; return 10 / z; }              // implicit ArithmeticException
        }
    }

    static long throwCatch(Random rnd) {
        long n = 0;
        for (int i = 0; i < 50; i++) {
            try {
                n += depth(rnd.nextInt(30), i % 3);
            } catch (RuntimeException e) {
                n += e.getClass().getName().length();
            }
        }
        return n;
    }

    static void work(int id) {
        Random rnd = new Random(id);
        File f = new File("storm-" + id + ".dat");
        byte[] buf = new byte[8192];
        long[] a = new long[1 << 15], b = new long[1 << 15];
        List<Object> keep = new ArrayList<>();
        try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
            while (System.nanoTime() < deadline) {
                switch (rnd.nextInt(8)) {
                    case 0, 1, 2 -> sink += c0(rnd.nextLong(), 2000);
                    case 3 -> {
                        raf.seek(0);
                        raf.write(buf);
                        raf.seek(0);
                        raf.readFully(buf);
                        raf.getFD().sync();
                    }
                    case 4 -> {
                        System.arraycopy(a, 0, b, 1, a.length - 1);
                        System.arraycopy(b, 0, a, 0, b.length);
                        for (int i = 0; i < 200; i++) sink += new Object().hashCode();
                    }
                    case 5 -> sink += throwCatch(rnd);
                    case 6 -> {
                        for (int i = 0; i < 100; i++) {
                            Object o = (i & 1) == 0 ? new byte[rnd.nextInt(32 << 10)] : new long[rnd.nextInt(256)];
                            if (rnd.nextInt(16) == 0) keep.add(o);
                        }
                        if (keep.size() > 400) keep.subList(0, 300).clear();
                    }
                    default -> sink += poly(rnd);
                }
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        f.delete();
    }

    static long burn(int n) {
        long x = n;
        for (int i = 0; i < n; i++) x = SampleStormHot.mix(x) + i;
        return x;
    }

    // ---- the pairs: blocking events of known number ----

    static final class Pair {
        volatile int go, done, notified, ack;
        Thread waiter;
    }

    static void monHolder(Pair p, StormMon m, StormWaitMon wm) {
        for (int k = 1; ; k++) {
            if (System.nanoTime() >= deadline) {
                p.go = -1;
                return;
            }
            synchronized (m) {
                p.go = k;
                while (p.waiter.getState() != Thread.State.BLOCKED) Thread.yield();
                sink += burn(20_000);   // the holder computes while its waiter is blocked
            }
            while (p.done != k) Thread.yield();
            synchronized (wm) {
                p.notified = k;
                wm.notify();
                notifies.incrementAndGet();
            }
            while (p.ack != k) Thread.yield();
            monRounds.incrementAndGet();
        }
    }

    static void monWaiter(Pair p, StormMon m, StormWaitMon wm) {
        for (int seen = 0; ; ) {
            int k;
            while ((k = p.go) == seen) Thread.yield();
            if (k < 0) return;
            synchronized (m) {   // contended: the holder holds m until this thread is BLOCKED
                sink++;
            }
            p.done = k;
            synchronized (wm) {
                while (p.notified != k) {
                    waits.incrementAndGet();
                    try {
                        wm.wait();
                    } catch (InterruptedException e) {
                        throw new AssertionError(e);
                    }
                }
            }
            p.ack = k;
            seen = k;
        }
    }

    static void lockHolder(Pair p, ReentrantLock lock) {
        for (int k = 1; ; k++) {
            if (System.nanoTime() >= deadline) {
                p.go = -1;
                return;
            }
            lock.lock();
            try {
                p.go = k;
                Object blocker;
                while (p.waiter.getState() != Thread.State.WAITING || (blocker = LockSupport.getBlocker(p.waiter)) == null)
                    Thread.yield();
                if (k == 1) synchronized (syncs) { syncs.add(blocker); }
                sink += burn(20_000);
            } finally {
                lock.unlock();
            }
            while (p.done != k) Thread.yield();
            lockRounds.incrementAndGet();
        }
    }

    static void lockWaiter(Pair p, ReentrantLock lock) {
        for (int seen = 0; ; ) {
            int k;
            while ((k = p.go) == seen) Thread.yield();
            if (k < 0) return;
            lock.lock();   // parks once: the holder holds the lock until this thread is parked
            try {
                sink++;
            } finally {
                lock.unlock();
            }
            p.done = k;
            seen = k;
        }
    }

    // ---- the storms ----

    static byte[] bytes(String name) {
        try (InputStream in = SampleStorm.class.getClassLoader().getResourceAsStream(name + ".class")) {
            return in.readAllBytes();
        } catch (Exception e) {
            throw new AssertionError(name, e);
        }
    }

    static void sleep1() {
        try {
            Thread.sleep(1);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
        sleeps.incrementAndGet();
    }

    static void redefine(byte[] v2) {
        if (inst == null || v2 == null) return;
        byte[] v1 = bytes("SampleStormHot");
        try {
            while (System.nanoTime() < deadline) {
                inst.redefineClasses(new ClassDefinition(SampleStormHot.class, (redefinitions & 1) == 0 ? v2 : v1));
                redefinitions++;
                sleep1();
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    // Fresh defines the CHA classes itself (a new hierarchy each generation), the rest by its parent.
    static final class Fresh extends ClassLoader {
        static final String[] OWN = {"SampleStormChaBase", "SampleStormChaOne", "SampleStormChaTwo", "SampleStormChaDriver"};
        static final byte[][] code = new byte[OWN.length][];

        Fresh() { super(SampleStorm.class.getClassLoader()); }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            for (int i = 0; i < OWN.length; i++) {
                if (!OWN[i].equals(name)) continue;
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        if (code[i] == null) code[i] = bytes(name);
                        c = defineClass(name, code[i], 0, code[i].length);
                    }
                    return c;
                }
            }
            return super.loadClass(name, resolve);
        }
    }

    static volatile LongUnaryOperator driver;
    static final AtomicLong driven = new AtomicLong();

    static void chaRunner() {
        long x = 1;
        while (System.nanoTime() < deadline) {
            LongUnaryOperator d = driver;
            if (d == null) {
                Thread.yield();
                continue;
            }
            x += d.applyAsLong(x);
            driven.incrementAndGet();
        }
        sink += x;
    }

    static void cha() {
        try {
            while (System.nanoTime() < deadline) {
                Fresh l = new Fresh();
                long base = driven.get();
                var ctor = l.loadClass("SampleStormChaDriver").getDeclaredConstructor();
                ctor.setAccessible(true);   // another runtime package: the fresh loader's
                driver = (LongUnaryOperator) ctor.newInstance();
                while (driven.get() < base + 20 && System.nanoTime() < deadline) Thread.yield();
                Class.forName("SampleStormChaTwo", true, l);   // the driver's inlined step is wrong now
                base = driven.get();
                while (driven.get() < base + 5 && System.nanoTime() < deadline) Thread.yield();
                chaGenerations++;
            }
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        driver = null;
    }

    // ---- virtual threads (21+) ----

    static Object vbuilder;
    static Method vstart;

    static Thread virtual(Runnable r) throws Exception {
        return (Thread) vstart.invoke(vbuilder, r);
    }

    static void vwork(int i) {
        sink += c0(i, 300);
        sleep1();
        sink += poly(new Random(i));
    }

    public static void main(String[] args) throws Exception {
        double seconds = args.length > 0 ? Double.parseDouble(args[0]) : 4;
        byte[] v2 = args.length > 1 && !args[1].equals("-") ? Files.readAllBytes(Paths.get(args[1])) : null;
        boolean wait = args.length > 2 && args[2].equals("wait");
        // A thread that fails ends the program with status 3: the test sees it.
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            System.out.println("BROKEN: " + t.getName() + ": " + e);
            e.printStackTrace();
            Runtime.getRuntime().halt(3);
        });
        try {
            vbuilder = Thread.class.getMethod("ofVirtual").invoke(null);
            vstart = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        } catch (NoSuchMethodException e) {
            vbuilder = null;
        }
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
        if (wait) {
            System.out.println("READY");
            System.out.flush();
            in.readLine();
        }
        deadline = System.nanoTime() + (long) (seconds * 1e9);
        List<Thread> threads = new ArrayList<>();
        List<Object> mons = new ArrayList<>(), waitMons = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            final int id = i;
            threads.add(new Thread(() -> work(id), "storm-worker-" + i));
        }
        for (int i = 0; i < 2; i++) {
            Pair p = new Pair();
            StormMon m = new StormMon();
            StormWaitMon wm = new StormWaitMon();
            mons.add(m);
            waitMons.add(wm);
            Thread w = new Thread(() -> monWaiter(p, m, wm), "storm-mon-waiter-" + i);
            p.waiter = w;
            threads.add(w);
            threads.add(new Thread(() -> monHolder(p, m, wm), "storm-mon-holder-" + i));
        }
        for (int i = 0; i < 2; i++) {
            Pair p = new Pair();
            ReentrantLock lock = new ReentrantLock();
            Thread w = new Thread(() -> lockWaiter(p, lock), "storm-lock-waiter-" + i);
            p.waiter = w;
            threads.add(w);
            threads.add(new Thread(() -> lockHolder(p, lock), "storm-lock-holder-" + i));
        }
        threads.add(new Thread(() -> redefine(v2), "storm-redefine"));
        threads.add(new Thread(SampleStorm::cha, "storm-cha"));
        threads.add(new Thread(SampleStorm::chaRunner, "storm-cha-runner"));
        for (Thread t : threads) t.start();
        List<Thread> vthreads = new ArrayList<>();
        long nextGC = System.nanoTime() + 700_000_000L;
        while (System.nanoTime() < deadline) {
            if (vbuilder != null) {
                for (int i = 0; i < 10; i++) {
                    final int id = vthreads.size();
                    vthreads.add(virtual(() -> vwork(id)));
                }
            }
            if (System.nanoTime() >= nextGC) {
                System.gc();   // the old loaders' classes are unloaded
                nextGC += 700_000_000L;
            }
            sink += burn(50_000);
            Thread.yield();
        }
        for (Thread t : threads) t.join();
        for (Thread t : vthreads) t.join();
        vstarted.set(vthreads.size());
        if (v2 != null && inst != null && redefinitions == 0) System.out.println("BROKEN: no redefinition");
        System.out.printf("EXPECT virtual=%s vstarted=%d sleeps=%d waits=%d notifies=%d monRounds=%d lockRounds=%d "
                        + "redefinitions=%d chaGenerations=%d main=%s threads=%s mons=%s waitMons=%s syncs=%s%n",
                vbuilder != null ? "yes" : "no", vstarted.get(), sleeps.get(), waits.get(), notifies.get(), monRounds.get(),
                lockRounds.get(), redefinitions, chaGenerations, hex(Thread.currentThread()), hexes(threads), hexes(mons),
                hexes(waitMons), hexes(syncs));
        System.out.flush();
        if (wait) in.readLine();
    }
}

// The class the storm redefines: its version here and testdata/java/samplestorm/SampleStormHot.java
// have the same methods and fields, other bodies.
class SampleStormHot {
    long salt = 0x2545F4914F6CDD1DL;

    static long mix(long x) {
        return (x ^ (x >>> 29)) * 0xBF58476D1CE4E5B9L;
    }

    static long fold(long x, int n) {
        for (int i = 0; i < n; i++) x = mix(x) ^ (x >>> 17);
        return x;
    }

    long step(long x) {
        return mix(x + salt);
    }
}

// Class hierarchy analysis: SampleStormChaDriver's call of step has one implementor until
// SampleStormChaTwo is loaded (each generation in a fresh loader: SampleStorm.Fresh).
abstract class SampleStormChaBase {
    abstract long step(long x);
}

class SampleStormChaOne extends SampleStormChaBase {
    long step(long x) { return x * 6364136223846793005L + 1442695040888963407L; }
}

class SampleStormChaTwo extends SampleStormChaBase {
    long step(long x) { return Long.rotateLeft(x, 11) ^ 0x9E3779B97F4A7C15L; }
}

class SampleStormChaDriver implements java.util.function.LongUnaryOperator {
    final SampleStormChaBase one = new SampleStormChaOne();

    public long applyAsLong(long n) {
        long x = n;
        for (int i = 0; i < 20_000; i++) x = one.step(x);
        return x;
    }
}
