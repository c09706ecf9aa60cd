import java.io.File;

// SlowStart: a JVM that an attach reaches while it starts. Run with
// -Djava.system.class.loader=SlowStart -Dslowstart.release=PATH, it is its own system class
// loader, whose constructor runs in the JVM's initPhase3: after the JVM catches SIGQUIT and
// serves an attach, before JVMTI's live phase. There it prints WAITING on stderr and waits until
// PATH exists (at most 60 s); then main prints LIVE and sleeps args[0] ms.
public class SlowStart extends ClassLoader {
  public SlowStart(ClassLoader parent) {
    super(parent);
    File release = new File(System.getProperty("slowstart.release", "/nonexistent"));
    System.err.println("WAITING");
    for (long end = System.nanoTime() + 60_000_000_000L; !release.exists() && System.nanoTime() < end; ) {
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  public static void main(String[] args) throws Exception {
    System.out.println("LIVE");
    Thread.sleep(Long.parseLong(args[0]));
  }
}
