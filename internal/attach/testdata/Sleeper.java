// Sleeper is the JVM the attach tests attach to: it says "ready" once main runs (the JVM's
// signal handlers are installed by then) and sleeps until it is ended.
public class Sleeper {
    public static void main(String[] args) throws InterruptedException {
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
