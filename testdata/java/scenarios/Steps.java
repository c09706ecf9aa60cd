import java.io.BufferedReader;

// Steps: what the scenarios driven line by line on stdin share (compiled with them).
final class Steps {
  private Steps() { }

  // expect reads lines until want (or the end of the input).
  static void expect(BufferedReader in, String want) throws Exception {
    String line;
    while ((line = in.readLine()) != null && !line.equals(want)) { }
  }

  // withoutVirtualThreads: on JDK 17-20, READY, then on STOPPED "EXPECT virtual=no" and DONE;
  // true when it did so (the scenario has nothing else to do).
  static boolean withoutVirtualThreads(BufferedReader in) throws Exception {
    if (Runtime.version().feature() >= 21) return false;
    System.out.println("READY");
    expect(in, "STOPPED");
    System.out.println("EXPECT virtual=no");
    System.out.println("DONE");
    return true;
  }

  // startVirtual starts a virtual thread named name (JDK 21+), through reflection: the
  // scenarios are compiled with --release 17.
  static Thread startVirtual(String name, Runnable r) throws Exception {
    Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
    builder = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class).invoke(builder, name);
    return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
  }
}
