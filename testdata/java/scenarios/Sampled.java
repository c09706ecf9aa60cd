// Sampled: threads of known behaviour for the samplers (issue 33). Two threads burn CPU, each in
// its own method (Sampled.burnA, Sampled.burnB), until each has used CPU_MS of CPU
// (ThreadMXBean's figure); one sleeps all along; one reads a socket to which another thread of
// this program writes one byte every 20 ms, so it waits in the kernel's socket read most of the
// time, in no state Orca records; one waits in ServerSocket.accept all along (native code, not
// running at all); on JDK 21+ a virtual thread burns in Sampled.burnV for CPU_MS / 2
// of wall-clock time. Then "EXPECT ..." with the threads' hashes (burnV=none without virtual
// threads) and the burners' CPU in nanoseconds as the JVM measured it.
// Usage: Sampled [CPU_MS] [wait]: with wait, it prints READY and starts when a line comes on
// stdin (an attach in between), and after its EXPECT line waits for another line (the recording
// stopped in between) before it exits.
import java.io.*;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.*;
import java.util.concurrent.atomic.AtomicBoolean;

public class Sampled {
    static volatile long sink;
    static final AtomicBoolean done = new AtomicBoolean();
    static final ThreadMXBean mx = ManagementFactory.getThreadMXBean();

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    // The hot methods: all their time in the loop, no call out.
    static long burnA(long n) {
        long x = n;
        for (int i = 0; i < 2_000_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        return x;
    }

    static long burnB(long n) {
        long x = n;
        for (int i = 0; i < 2_000_000; i++) x = (x ^ (x >>> 13)) * 0x9E3779B97F4A7C15L + i;
        return x;
    }

    static long burnV(long n) {
        long x = n;
        for (int i = 0; i < 2_000_000; i++) x = Long.rotateLeft(x, 7) * 31 + i;
        return x;
    }

    static long burn(boolean a, long cpuNs) {
        long x = 1;
        while (mx.getCurrentThreadCpuTime() < cpuNs) x += a ? burnA(x) : burnB(x);
        sink += x;
        return mx.getCurrentThreadCpuTime();
    }

    public static void main(String[] args) throws Exception {
        long cpuMs = args.length > 0 ? Long.parseLong(args[0]) : 2000;
        boolean wait = args.length > 1 && args[1].equals("wait");
        long[] cpu = new long[2];
        Thread a = new Thread(() -> cpu[0] = burn(true, cpuMs * 1_000_000L), "burn-a");
        Thread b = new Thread(() -> cpu[1] = burn(false, cpuMs * 1_000_000L), "burn-b");
        Thread sleeper = new Thread(() -> {
            try {
                while (!done.get()) Thread.sleep(50);
            } catch (InterruptedException e) {
            }
        }, "sleeper");
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread writer = new Thread(() -> {
            try (Socket s = server.accept(); OutputStream out = s.getOutputStream()) {
                while (!done.get()) {
                    out.write(1);
                    out.flush();
                    Thread.sleep(20);
                }
            } catch (Exception e) {
            }
        }, "writer");
        // The acceptor waits in accept all along (native code, off a CPU, not running: its wall
        // samples repeat its first, with no signal).
        ServerSocket idle = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                idle.accept();
            } catch (IOException e) {
            }
        }, "acceptor");
        long[] bytes = new long[1];
        Thread reader = new Thread(() -> {
            try (Socket s = new Socket(server.getInetAddress(), server.getLocalPort()); InputStream in = s.getInputStream()) {
                while (in.read() >= 0) bytes[0]++;
            } catch (IOException e) {
            }
        }, "reader");
        sleeper.start();
        acceptor.start();
        writer.start();
        reader.start();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in));
        if (wait) {
            // The threads wait (and the socket reads) before the attach; the burners start after it.
            System.out.println("READY");
            stdin.readLine();
        }
        Thread v = null;
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            Runnable r = () -> {
                long x = 1, end = System.nanoTime() + cpuMs * 500_000L;
                while (System.nanoTime() < end) x += burnV(x);
                sink += x;
            };
            v = (Thread) Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class).invoke(builder, r);
        } catch (NoSuchMethodException e) {
            // JDK 17: no virtual threads
        }
        try {
            a.start();
            b.start();
            if (v != null) v.start();
            a.join();
            b.join();
            if (v != null) v.join();
        } finally {
            // The reader ends at the writer's end of the stream (also when this failed: the
            // program ends).
            done.set(true);
        }
        writer.join();
        reader.join();
        sleeper.join();
        server.close();
        idle.close();
        acceptor.join();
        System.out.println("EXPECT burnA=" + hex(a) + " burnB=" + hex(b) + " sleeper=" + hex(sleeper) + " reader=" + hex(reader) + " acceptor=" + hex(acceptor) + " burnV=" + (v == null ? "none" : hex(v))
                + " cpuA=" + cpu[0] + " cpuB=" + cpu[1] + " bytes=" + bytes[0]);
        if (wait) stdin.readLine();
    }
}
