import java.io.BufferedReader;
import java.io.InputStreamReader;

// HotNotify calls notifyAll and notify on one object in a method hot enough to be compiled by C2
// (HotSpot may inline Object.notify as an intrinsic there) before any agent attaches; then, on
// a line on stdin, exactly BURST more of each, and DONE. An attached agent must count them all.
public class HotNotify {
  static final Object o = new Object();
  static final int BURST = 50000;

  static void burst(int n) {
    for (int i = 0; i < n; i++) {
      synchronized (o) {
        o.notifyAll();
        o.notify();
      }
    }
  }

  public static void main(String[] args) throws Exception {
    for (int i = 0; i < 200; i++) burst(5000);
    System.out.printf("READY%nEXPECT o=%08X burst=%d%n", System.identityHashCode(o), BURST);
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    in.readLine();
    burst(BURST);
    System.out.println("DONE");
    in.readLine();
  }
}
