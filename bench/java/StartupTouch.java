import java.util.concurrent.Semaphore;

// StartupTouch: what bench/startup-ab.sh starts. Without arguments a Hello;
// with "touch", it also calls the methods the agent rewrites at their class's
// load (Semaphore.acquire/release, Thread.join), so that their first calls
// (the hooks' natives bound by name) are in the time.
public class StartupTouch {
    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("touch")) {
            Semaphore s = new Semaphore(1);
            s.acquire();
            s.release();
            Thread t = new Thread(() -> {});
            t.start();
            t.join();
        }
        System.out.println("hello");
    }
}
