// ClassHashes makes the identity hashes of classes collide (issue 30, item 4a). On JDK 17 the
// mirrors of classes in the CDS archive carry the identity hashes the dumping JVM gave them, from
// the main thread's hash sequence; the running JVM's main thread starts that sequence again, so
// its first hashes repeat them (java.lang.Thread's is its tenth). main hashes the 64 classes C0…C63
// first, before anything else it does, so some of them share a hash with an archived class that
// is on every stack below (Thread, LockSupport, Unsafe). Then it prints READY and its collisions,
// and at the line on stdin it starts, per class Ci, a thread "c-I" that runs Ci.run: three parks
// of 1 ms (frames Unsafe.park, LockSupport.parkNanos, ClassHashes.park, Ci.run, Thread.run), the
// first two with the Ci as blocker, the third with the thread itself (so that the classes of
// blockers include two that share a hash). It prints DONE and exits at the next line.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.concurrent.locks.LockSupport;

public class ClassHashes {
    static void park(Object blocker) {
        for (int k = 0; k < 3; k++) LockSupport.parkNanos(k < 2 ? blocker : Thread.currentThread(), 1_000_000);
    }

    static class C0 implements Runnable { public void run() { park(this); } }
    static class C1 implements Runnable { public void run() { park(this); } }
    static class C2 implements Runnable { public void run() { park(this); } }
    static class C3 implements Runnable { public void run() { park(this); } }
    static class C4 implements Runnable { public void run() { park(this); } }
    static class C5 implements Runnable { public void run() { park(this); } }
    static class C6 implements Runnable { public void run() { park(this); } }
    static class C7 implements Runnable { public void run() { park(this); } }
    static class C8 implements Runnable { public void run() { park(this); } }
    static class C9 implements Runnable { public void run() { park(this); } }
    static class C10 implements Runnable { public void run() { park(this); } }
    static class C11 implements Runnable { public void run() { park(this); } }
    static class C12 implements Runnable { public void run() { park(this); } }
    static class C13 implements Runnable { public void run() { park(this); } }
    static class C14 implements Runnable { public void run() { park(this); } }
    static class C15 implements Runnable { public void run() { park(this); } }
    static class C16 implements Runnable { public void run() { park(this); } }
    static class C17 implements Runnable { public void run() { park(this); } }
    static class C18 implements Runnable { public void run() { park(this); } }
    static class C19 implements Runnable { public void run() { park(this); } }
    static class C20 implements Runnable { public void run() { park(this); } }
    static class C21 implements Runnable { public void run() { park(this); } }
    static class C22 implements Runnable { public void run() { park(this); } }
    static class C23 implements Runnable { public void run() { park(this); } }
    static class C24 implements Runnable { public void run() { park(this); } }
    static class C25 implements Runnable { public void run() { park(this); } }
    static class C26 implements Runnable { public void run() { park(this); } }
    static class C27 implements Runnable { public void run() { park(this); } }
    static class C28 implements Runnable { public void run() { park(this); } }
    static class C29 implements Runnable { public void run() { park(this); } }
    static class C30 implements Runnable { public void run() { park(this); } }
    static class C31 implements Runnable { public void run() { park(this); } }
    static class C32 implements Runnable { public void run() { park(this); } }
    static class C33 implements Runnable { public void run() { park(this); } }
    static class C34 implements Runnable { public void run() { park(this); } }
    static class C35 implements Runnable { public void run() { park(this); } }
    static class C36 implements Runnable { public void run() { park(this); } }
    static class C37 implements Runnable { public void run() { park(this); } }
    static class C38 implements Runnable { public void run() { park(this); } }
    static class C39 implements Runnable { public void run() { park(this); } }
    static class C40 implements Runnable { public void run() { park(this); } }
    static class C41 implements Runnable { public void run() { park(this); } }
    static class C42 implements Runnable { public void run() { park(this); } }
    static class C43 implements Runnable { public void run() { park(this); } }
    static class C44 implements Runnable { public void run() { park(this); } }
    static class C45 implements Runnable { public void run() { park(this); } }
    static class C46 implements Runnable { public void run() { park(this); } }
    static class C47 implements Runnable { public void run() { park(this); } }
    static class C48 implements Runnable { public void run() { park(this); } }
    static class C49 implements Runnable { public void run() { park(this); } }
    static class C50 implements Runnable { public void run() { park(this); } }
    static class C51 implements Runnable { public void run() { park(this); } }
    static class C52 implements Runnable { public void run() { park(this); } }
    static class C53 implements Runnable { public void run() { park(this); } }
    static class C54 implements Runnable { public void run() { park(this); } }
    static class C55 implements Runnable { public void run() { park(this); } }
    static class C56 implements Runnable { public void run() { park(this); } }
    static class C57 implements Runnable { public void run() { park(this); } }
    static class C58 implements Runnable { public void run() { park(this); } }
    static class C59 implements Runnable { public void run() { park(this); } }
    static class C60 implements Runnable { public void run() { park(this); } }
    static class C61 implements Runnable { public void run() { park(this); } }
    static class C62 implements Runnable { public void run() { park(this); } }
    static class C63 implements Runnable { public void run() { park(this); } }

    static final Class<?>[] CLASSES = {
        C0.class,
        C1.class,
        C2.class,
        C3.class,
        C4.class,
        C5.class,
        C6.class,
        C7.class,
        C8.class,
        C9.class,
        C10.class,
        C11.class,
        C12.class,
        C13.class,
        C14.class,
        C15.class,
        C16.class,
        C17.class,
        C18.class,
        C19.class,
        C20.class,
        C21.class,
        C22.class,
        C23.class,
        C24.class,
        C25.class,
        C26.class,
        C27.class,
        C28.class,
        C29.class,
        C30.class,
        C31.class,
        C32.class,
        C33.class,
        C34.class,
        C35.class,
        C36.class,
        C37.class,
        C38.class,
        C39.class,
        C40.class,
        C41.class,
        C42.class,
        C43.class,
        C44.class,
        C45.class,
        C46.class,
        C47.class,
        C48.class,
        C49.class,
        C50.class,
        C51.class,
        C52.class,
        C53.class,
        C54.class,
        C55.class,
        C56.class,
        C57.class,
        C58.class,
        C59.class,
        C60.class,
        C61.class,
        C62.class,
        C63.class,
    };

    public static void main(String[] args) throws Exception {
        int[] hashes = new int[CLASSES.length];
        for (int i = 0; i < CLASSES.length; i++) hashes[i] = System.identityHashCode(CLASSES[i]);
        StringBuilder collide = new StringBuilder();
        for (Class<?> c : new Class<?>[] {Thread.class, LockSupport.class, Class.forName("jdk.internal.misc.Unsafe")}) {
            int h = System.identityHashCode(c);
            for (int i = 0; i < hashes.length; i++) {
                if (hashes[i] == h) collide.append(String.format(" C%d=%s=%08X", i, c.getName(), h));
            }
        }
        System.out.println("READY");
        System.out.println("COLLISIONS" + collide);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        in.readLine();
        Thread[] ts = new Thread[CLASSES.length];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = new Thread((Runnable) CLASSES[i].getDeclaredConstructor().newInstance(), "c-" + i);
            ts[i].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("DONE");
        in.readLine();
    }
}
