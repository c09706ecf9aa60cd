// WallStarved: a thread always runnable in native code but starved of a CPU, for the wall
// sampler (docs/agent.md, "The wall sampler"). The JVM pins itself to one CPU (taskset -a) and
// the thread "deflater" gives itself the lowest priority (renice 19 of its own id, read from
// /proc/thread-self), then deflates incompressible data (zlib: native code, never blocked)
// while "spinner" burns Java code at the normal priority on the same CPU: the deflater waits on
// the run queue for stretches longer than a wall tick, ready, never off a CPU of its own accord,
// so it should have no wall sample. "reader" reads a socket that gets a byte every 20 ms: native
// code blocked in the kernel, the wall samples' control. After MS ms (default 3000):
// EXPECT deflater=HASH spinner=HASH reader=HASH deflated=BYTES.
import java.io.*;
import java.net.*;
import java.nio.file.*;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.zip.Deflater;

public class WallStarved {
    static volatile long sink;
    static volatile boolean stop;

    static String hex(Object o) {
        return String.format("%08X", System.identityHashCode(o));
    }

    static void run(String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (p.waitFor() != 0) throw new IllegalStateException(String.join(" ", cmd) + ": " + out);
    }

    // The calling thread's id in the kernel: /proc/thread-self is PID/task/TID.
    static String tid() throws IOException {
        String s = Files.readSymbolicLink(Paths.get("/proc/thread-self")).toString();
        return s.substring(s.lastIndexOf('/') + 1);
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        // Every thread of the JVM on CPU 0; the threads made later inherit it.
        run("taskset", "-a", "-p", "-c", "0", String.valueOf(ProcessHandle.current().pid()));
        byte[] in = new byte[1 << 20];
        new Random(1).nextBytes(in);
        byte[] out = new byte[(1 << 20) + 4096];
        CountDownLatch reniced = new CountDownLatch(1);
        long[] deflated = new long[1];
        Throwable[] failed = new Throwable[1];
        Thread deflater = new Thread(() -> {
            try {
                run("renice", "-n", "19", "-p", tid());
            } catch (Exception e) {
                failed[0] = e;
                return;
            } finally {
                reniced.countDown();
            }
            Deflater d = new Deflater(9);
            while (!stop) {
                d.reset();
                d.setInput(in);
                d.finish();
                while (!d.finished()) deflated[0] += d.deflate(out);
            }
            d.end();
        }, "deflater");
        Thread spinner = new Thread(() -> {
            long x = 1;
            while (!stop) x = x * 6364136223846793005L + 1442695040888963407L;
            sink = x;
        }, "spinner");
        ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Socket w = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
        Socket r = ss.accept();
        Thread reader = new Thread(() -> {
            try {
                InputStream is = r.getInputStream();
                while (is.read() >= 0) {
                }
            } catch (IOException e) {
            }
        }, "reader");
        deflater.start();
        reniced.await();
        if (failed[0] != null) throw new IllegalStateException("renice", failed[0]);
        spinner.start();
        reader.start();
        long end = System.nanoTime() + ms * 1_000_000L;
        OutputStream os = w.getOutputStream();
        while (System.nanoTime() < end) {
            os.write(1);
            os.flush();
            Thread.sleep(20);
        }
        stop = true;
        deflater.join();
        spinner.join();
        w.close();
        reader.join();
        r.close();
        ss.close();
        System.out.println("EXPECT deflater=" + hex(deflater) + " spinner=" + hex(spinner) + " reader=" + hex(reader)
                + " deflated=" + deflated[0]);
    }
}
