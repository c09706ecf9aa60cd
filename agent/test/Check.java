import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

// Check loads the rewritten Target (the verifier checks the rewritten
// methods and their stack map frames as it links the class) and prints one line per
// check, "ok NAME" or "FAIL NAME: why", for classfile_test.c to count.
public class Check {
    static void check(String name, boolean ok, String why) {
        System.out.println((ok ? "ok " : "FAIL ") + name + (ok ? "" : ": " + why));
    }

    static Method method(Class<?> c, String name, Class<?>... params) {
        try {
            return c.getDeclaredMethod(name, params);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    public static void main(String[] args) throws Exception {
        Class<?> c;
        try {
            c = Class.forName("Target"); // links: verifies every method
        } catch (Throwable e) {
            check("verify", false, e.toString());
            return;
        }
        check("verify", true, "");
        Method hook = method(c, "orca$hook", int.class, Object.class);
        check("hook", hook != null && Modifier.isPrivate(hook.getModifiers()) && Modifier.isStatic(hook.getModifiers())
                && Modifier.isNative(hook.getModifiers()) && hook.isSynthetic(), "orca$hook(int, Object): " + hook);
        Method hookJ = method(c, "orca$hookJ", int.class, Object.class, long.class);
        check("hookJ", hookJ != null && Modifier.isPrivate(hookJ.getModifiers()) && Modifier.isStatic(hookJ.getModifiers())
                && Modifier.isNative(hookJ.getModifiers()) && hookJ.isSynthetic(), "orca$hookJ(int, Object, long): " + hookJ);
        for (Object[] m : new Object[][] {{"acquire", new Class<?>[0]}, {"acquire", new Class<?>[] {int.class}},
                {"release", new Class<?>[] {int.class}}, {"park", new Class<?>[] {long.class}}}) {
            Class<?>[] p = (Class<?>[]) m[1];
            Method kept = method(c, (String) m[0], p), renamed = method(c, "orca$" + m[0], p);
            String what = m[0] + "/" + p.length;
            check("kept " + what, kept != null && Modifier.isPublic(kept.getModifiers()) && !kept.isSynthetic(), "" + kept);
            check("not renamed " + what, renamed == null, "" + renamed);
        }
        // The method's annotations are its own still.
        Method a1 = method(c, "acquire", int.class);
        Deprecated dep = a1 == null ? null : a1.getAnnotation(Deprecated.class);
        check("annotations kept", dep != null && dep.since().equals("test") && a1.getAnnotations().length == 1,
                "acquire(int): " + dep);
        check("untouched name()", method(c, "orca$name") == null && Modifier.isSynchronized(method(c, "name").getModifiers()), "");
        check("untouched twice()", method(c, "orca$twice", int.class) == null, "");
        // The rewritten methods call the hook first: unbound here, so the call fails there.
        Object t = c.getDeclaredConstructor().newInstance();
        for (String m : new String[] {"acquire", "release", "park"}) {
            String got;
            try {
                if (m.equals("park")) c.getMethod(m, long.class).invoke(t, 7L);
                else c.getMethod(m, int.class).invoke(t, 1);
                got = "returned";
            } catch (java.lang.reflect.InvocationTargetException e) {
                got = e.getCause().toString();
            }
            String want = m.equals("park") ? "orca$hookJ" : "orca$hook";
            check("calls the hook: " + m, got.contains("UnsatisfiedLinkError") && got.contains(want), got);
        }
        check("twice() runs", (Integer) c.getMethod("twice", int.class).invoke(null, 21) == 42, "");
    }
}
