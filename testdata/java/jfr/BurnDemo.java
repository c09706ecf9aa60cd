// BurnDemo burns CPU in known methods, for the import of JFR's samples
// (internal/jfrimport TestImportSamples): thread "hot" spins in hot() three
// times as long as thread "warm" spins in warm(), both through spin(), so
// the samples under hot() are about three times those under warm(); thread
// "io" waits in a socket's accept() (native code: JFR's native samples)
// as long as hot spins. The argument is hot's time in milliseconds
// (default 600).
import java.net.ServerSocket;
import java.net.SocketTimeoutException;

public class BurnDemo {
    static volatile long sink;

    static long spin(long until) {
        long x = 0;
        while (System.nanoTime() < until) {
            for (int i = 0; i < 1000; i++) {
                x = x * 31 + i;
            }
        }
        return x;
    }

    static void hot(long ms) {
        sink += spin(System.nanoTime() + ms * 1_000_000L);
    }

    static void warm(long ms) {
        sink += spin(System.nanoTime() + ms * 1_000_000L);
    }

    static void accept(long ms) {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setSoTimeout((int) ms);
            s.accept();
        } catch (SocketTimeoutException expected) {
        } catch (Exception e) {
            throw new RuntimeException(e);
        }
    }

    public static void main(String[] args) throws Exception {
        long ms = args.length > 0 ? Long.parseLong(args[0]) : 600;
        Thread io = new Thread(() -> accept(ms), "io");
        io.start();
        Thread hot = new Thread(() -> hot(ms), "hot");
        Thread warm = new Thread(() -> warm(ms / 3), "warm");
        hot.start();
        warm.start();
        hot.join();
        warm.join();
        io.join();
        System.out.println("EXPECT hot=" + ms + " warm=" + ms / 3);
    }
}
