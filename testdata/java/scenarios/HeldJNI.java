// HeldJNI (issue 36 item 2: monitors entered through JNI): jni-1 enters a through JNI's
// MonitorEnter (the native jniNest, testdata/jni/heldjni.c, loaded from the path in the system
// property heldjni.lib) and, from the native method, enters b with synchronized (inner) while a
// holder keeps b: a contended enter holding a, which is in no frame of jni-1's. Then jni-2 enters
// b with synchronized in outer and a in inner, a contended too: the inversion of jni-1's order,
// never at once. Each holder keeps its monitor until its nester is BLOCKED on it, and 200 ms more
// (jni-1's held monitors are asked by the agent's held thread while it blocks: it may come tens
// of ms late on a loaded machine).
// Prints "EXPECT a=HASH b=HASH".
public class HeldJNI {
    static final Object a = new Object(), b = new Object();
    static volatile boolean holds;

    static native void jniNest(Object first, Object second);

    static void inner(Object second) {
        synchronized (second) {
            holds = holds;
        }
    }

    static void outer(Object first, Object second) {
        synchronized (first) {
            inner(second);
        }
    }

    static void nest(String name, Object second, Runnable r) throws Exception {
        holds = false;
        Thread n = new Thread(() -> {
            while (!holds) Thread.onSpinWait();
            r.run();
        }, name);
        Thread h = new Thread(() -> {
            synchronized (second) {
                holds = true;
                while (n.getState() != Thread.State.BLOCKED) Thread.onSpinWait();
                try {
                    Thread.sleep(200);
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            }
        }, "holder-" + name);
        n.start();
        h.start();
        n.join();
        h.join();
    }

    public static void main(String[] args) throws Exception {
        System.load(System.getProperty("heldjni.lib"));
        nest("jni-1", b, () -> jniNest(a, b));
        nest("jni-2", a, () -> outer(b, a));
        System.out.printf("EXPECT a=%08X b=%08X%n", System.identityHashCode(a), System.identityHashCode(b));
    }
}
