import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.regex.Pattern;

// InplaceCheck runs code of the JDK classes inplace_test.c rewrote (every
// method with a call of jdk.internal.misc.OrcaTestHooks at its entry, its
// returns and its catch-all handler), the JVM verifying them
// (-XX:+BytecodeVerificationLocal), and prints "ok NAME" or "FAIL NAME: why"
// per check.
public class InplaceCheck {
    static void check(String name, boolean ok, String why) {
        System.out.println((ok ? "ok " : "FAIL ") + name + (ok ? "" : ": " + why));
    }

    static String work() throws Exception {
        StringBuilder sb = new StringBuilder();
        // Pattern: big switches (tableswitch, lookupswitch), loops, handlers.
        Pattern p = Pattern.compile("(a|b)+[c-x]*\\d{2,3}(?<name>z?)\\p{Alpha}");
        sb.append(p.matcher("abababcx123zQ").matches());
        sb.append(String.format("%08.3f|%-6s|%x", 3.14159, "ab", 255));
        try {
            Pattern.compile("(");
        } catch (Exception e) {
            sb.append(e.getClass().getSimpleName());
        }
        BigDecimal d = new BigDecimal("12345.6789").multiply(new BigDecimal("3.3")).divide(new BigDecimal(7), MathContext.DECIMAL64);
        sb.append(d.toPlainString()).append(d.setScale(2, java.math.RoundingMode.HALF_EVEN));
        ConcurrentHashMap<String, Integer> m = new ConcurrentHashMap<>();
        for (int i = 0; i < 1000; i++) m.merge("k" + (i % 37), 1, Integer::sum);
        sb.append(m.get("k3"));
        Semaphore s = new Semaphore(1);
        s.acquire();
        s.release();
        sb.append(s.tryAcquire());
        Thread t = new Thread(() -> {});
        t.start();
        t.join();
        t.join(10);
        sb.append(t.getState());
        return sb.toString();
    }

    public static void main(String[] args) throws Exception {
        String plain = work();
        Class<?> hooks = Class.forName("jdk.internal.misc.OrcaTestHooks");
        Method run = hooks.getMethod("run", Runnable.class);
        String[] out = new String[1];
        long[] n = (long[]) run.invoke(null, (Runnable) () -> {
            try {
                out[0] = work();
            } catch (Exception e) {
                out[0] = e.toString();
            }
        });
        check("same results", plain.equals(out[0]), plain + " then " + out[0]);
        check("entries", n[0] > 1000, "" + n[0]);
        check("exits", n[1] > 1000, "" + n[1]);
        check("throws", n[2] > 0, "" + n[2]);
        check("balanced", n[0] == n[1] + n[2], n[0] + " entries, " + n[1] + " exits, " + n[2] + " throws");
        for (String c : args) {
            try {
                Class.forName(c); // linked: verified
                check("verified " + c, true, "");
            } catch (Throwable e) {
                check("verified " + c, false, e.toString());
            }
        }
    }
}
