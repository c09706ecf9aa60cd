// WallQuiet: a server at rest for the wall sampler (issue 33): one thread blocked in
// ServerSocket.accept for MS milliseconds (native code, off a CPU, not running at all) and
// PARKED threads parked all along (a pool's idle workers: a state Orca records), nothing else.
// Then "EXPECT acceptor=HASH accept_ns=N": the acceptor's identity hash and the nanoseconds from
// just before its accept to the moment main closed the socket (its time in accept, less the
// microseconds to enter it).
// Usage: WallQuiet [MS] [PARKED]
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;

public class WallQuiet {
    static volatile long acceptFrom;

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 3000;
        int parked = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        // A pool's idle workers: parked in their queue's take.
        ThreadPoolExecutor pool = (ThreadPoolExecutor) Executors.newFixedThreadPool(parked);
        pool.prestartAllCoreThreads();
        ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                acceptFrom = System.nanoTime();
                server.accept();
            } catch (Exception e) {
                // closed by main: the end
            }
        }, "acceptor");
        acceptor.start();
        Thread.sleep(ms);
        long to = System.nanoTime();
        server.close();
        acceptor.join();
        pool.shutdown();
        System.out.printf("EXPECT acceptor=%08X accept_ns=%d%n", System.identityHashCode(acceptor), to - acceptFrom);
    }
}
