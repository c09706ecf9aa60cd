// HolderDoing (issue 33, item 4): what a lock's holder does while others wait for it. ROUNDS
// rounds, each:
//
//   holder    takes `lock`, waits (Thread.sleep(1) polls) until WAITERS threads are BLOCKED on
//             it, then, still holding it, computes for COMPUTE_MS of its own CPU in compute()
//             and reads a byte from a local socket whose peer answers IO_MS later (readSlow: a
//             socket read, neither on a CPU nor in a recorded state), and releases it
//   waiter-R-I  started once the holder holds the lock: blocks entering it, then leaves
//   peer      the local server: accepts, sleeps IO_MS, writes one byte
//
// While the waiters are blocked, the holder is running (compute) about COMPUTE_MS a round and in
// I/O (readSlow) about IO_MS. main prints EXPECT with the measured CPU of compute and the time of
// readSlow, summed over the rounds, the holder's time in its waiters' Thread.start, and the
// holder's and lock's identities.
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

public class HolderDoing {
    static final int ROUNDS = 3, WAITERS = 3, COMPUTE_MS = 400, IO_MS = 300;
    static final ThreadMXBean MX = ManagementFactory.getThreadMXBean();
    static final Object lock = new Object();
    static volatile long sink;
    static long computeNs, ioNs, startNs; // startNs: the holder's time in Thread.start of its waiters (native: "other" too)

    // compute burns COMPUTE_MS of the calling thread's CPU time, in its own
    // loop: the clock is read every ~1 ms of it (a thread CPU clock is a
    // system call, slow in some virtual machines: read every 20 000 steps,
    // half the samples were in it, not in compute).
    static void compute() {
        long start = MX.getCurrentThreadCpuTime(), x = sink;
        while (MX.getCurrentThreadCpuTime() - start < COMPUTE_MS * 1_000_000L) {
            for (int i = 0; i < 1_000_000; i++) x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
        computeNs += MX.getCurrentThreadCpuTime() - start;
    }

    // readSlow reads one byte the peer writes IO_MS after the connection.
    static void readSlow(ServerSocket server) throws Exception {
        long start = System.nanoTime();
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
            InputStream in = s.getInputStream();
            if (in.read() < 0) throw new IllegalStateException("peer closed");
        }
        ioNs += System.nanoTime() - start;
    }

    public static void main(String[] args) throws Exception {
        ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
        Thread peer = new Thread(() -> {
            try {
                while (true) {
                    try (Socket c = server.accept()) {
                        Thread.sleep(IO_MS);
                        OutputStream out = c.getOutputStream();
                        out.write(1);
                        out.flush();
                    }
                }
            } catch (Exception e) {
                // the server closed: the program ends
            }
        }, "peer");
        peer.setDaemon(true);
        peer.start();
        Thread[][] waiters = new Thread[ROUNDS][WAITERS];
        Thread holder = new Thread(() -> {
            try {
                for (int r = 0; r < ROUNDS; r++) {
                    synchronized (lock) {
                        for (int i = 0; i < WAITERS; i++) {
                            Thread w = new Thread(() -> {
                                synchronized (lock) {
                                    sink++;
                                }
                            }, "waiter-" + r + "-" + i);
                            waiters[r][i] = w;
                            long s0 = System.nanoTime();
                            w.start();
                            startNs += System.nanoTime() - s0;
                        }
                        for (Thread w : waiters[r]) {
                            while (w.getState() != Thread.State.BLOCKED) Thread.sleep(1);
                        }
                        compute();
                        readSlow(server);
                    }
                    for (Thread w : waiters[r]) w.join();
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        }, "holder");
        holder.start();
        holder.join();
        server.close();
        System.out.println("EXPECT holder=" + String.format("%08x", System.identityHashCode(holder))
                + " lock=" + String.format("%08x", System.identityHashCode(lock))
                + " rounds=" + ROUNDS + " waiters=" + WAITERS
                + " compute_ns=" + computeNs + " io_ns=" + ioNs + " start_ns=" + startNs);
    }
}
