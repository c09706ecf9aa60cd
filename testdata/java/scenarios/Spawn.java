// Spawn starts a second JVM, itself with the argument "child", with this JVM's java and class
// path and its standard streams, waits for it and prints "EXPECT children=1 child_exit=N". The
// child sleeps 20 ms (one ThreadSleep) and prints "child done". integration/record_java_test.go
// records it: both JVMs record, though only the first got the agent on its command line.
import java.io.File;

public class Spawn {
    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            Thread.sleep(20);
            System.out.println("child done");
            return;
        }
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "Spawn", "child")
                .inheritIO().start();
        int code = p.waitFor();
        System.out.println("EXPECT children=1 child_exit=" + code);
    }
}
