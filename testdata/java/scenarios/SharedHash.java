// SharedHash starts two threads that share an identity hash (issue 30, item 4b), deterministically:
// identity hashes are 31 bits, and main makes unstarted threads (platform ones, or virtual ones
// with the argument "virtual", JDK 21+), hashing each, until two share a hash (about 60 000 on
// average); it starts those two, named shared-1 and shared-2, and each waits forever on its own
// object (obj1, obj2: never notified), so both hang. main waits until both wait, then 1.5 s more
// (longer than a hang must last), and exits (the two are daemons). The last line says
// "EXPECT virtual=yes|unused made=N hash=H obj1=… obj2=…" ("EXPECT virtual=no" before JDK 21, asked
// for virtual threads).
import java.lang.reflect.Method;
import java.util.HashMap;

public class SharedHash {
    static final Object obj1 = new Object(), obj2 = new Object();
    static volatile Thread first, second;

    // Every thread made runs this: the two started wait, each on its own object.
    static void run() {
        Object o = Thread.currentThread() == first ? obj1 : obj2;
        synchronized (o) {
            try {
                o.wait();
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        boolean virtual = args.length > 0 && args[0].equals("virtual");
        if (virtual && Runtime.version().feature() < 21) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        String objs = String.format("obj1=%08X obj2=%08X", System.identityHashCode(obj1), System.identityHashCode(obj2));
        Object builder = virtual ? Thread.class.getMethod("ofVirtual").invoke(null) : null;
        Method unstarted = virtual ? Class.forName("java.lang.Thread$Builder").getMethod("unstarted", Runnable.class) : null;
        Runnable task = SharedHash::run;
        HashMap<Integer, Thread> seen = new HashMap<>();
        int made = 0;
        Thread a = null, b = null;
        while (b == null && made < 10_000_000) {
            Thread t = virtual ? (Thread) unstarted.invoke(builder, task) : new Thread(task);
            made++;
            Thread other = seen.putIfAbsent(System.identityHashCode(t), t);
            if (other != null) {
                a = other;
                b = t;
            }
        }
        seen = null;
        if (b == null) throw new AssertionError("no two threads of one hash in " + made);
        first = a;
        second = b;
        a.setName("shared-1");
        b.setName("shared-2");
        if (!virtual) {
            a.setDaemon(true);
            b.setDaemon(true);
        }
        a.start();
        b.start();
        for (Thread t : new Thread[] {a, b}) {
            while (t.getState() != Thread.State.WAITING) Thread.sleep(1);
        }
        Thread.sleep(1500);
        System.out.printf("EXPECT virtual=%s made=%d hash=%08X %s%n", virtual ? "yes" : "unused", made, System.identityHashCode(a), objs);
    }
}
