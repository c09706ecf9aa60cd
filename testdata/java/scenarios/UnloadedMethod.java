// UnloadedMethod (issue 22 item 2): the agent captures a stack's frames as method ids and names
// them later, on its writer thread. A method whose class is unloaded in between is recorded as
// such. A class loader of its own defines UnloadedMethod$Gone (from this class path, but not
// delegating to the application's loader), whose run() notifies a monitor: an ObjectNotifyAll with
// Gone.run on its stack. Then the loader and the class become unreachable and System.gc() unloads
// the class, well within the writer's flush period (the test records with --flush 1000).
import java.io.InputStream;

public class UnloadedMethod {
    public static class Gone implements Runnable {
        public static final Object LOCK = new Object();
        @Override public void run() {
            synchronized (LOCK) { LOCK.notifyAll(); }
        }
    }

    static final class Own extends ClassLoader {
        Own() { super(null); }
        @Override protected Class<?> findClass(String name) throws ClassNotFoundException {
            try (InputStream in = UnloadedMethod.class.getResourceAsStream("/" + name.replace('.', '/') + ".class")) {
                if (in == null) throw new ClassNotFoundException(name);
                byte[] b = in.readAllBytes();
                return defineClass(name, b, 0, b.length);
            } catch (java.io.IOException e) {
                throw new ClassNotFoundException(name, e);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        java.lang.ref.WeakReference<Class<?>> ref;
        {
            Class<?> c = new Own().loadClass("UnloadedMethod$Gone");
            ((Runnable) c.getDeclaredConstructor().newInstance()).run();
            ref = new java.lang.ref.WeakReference<>(c);
        }
        for (int i = 0; i < 10 && ref.get() != null; i++) System.gc();
        System.out.println("EXPECT unloaded=" + (ref.get() == null));
    }
}
