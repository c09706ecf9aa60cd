import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.locks.LockSupport;

// WallIdle: the wall-clock samplers' workload (bench/sampling.sh idle): a
// server's threads at rest — PARKED threads parked (a pool's idle workers:
// a state Orca records) and NATIVE threads blocked in ServerSocket.accept
// (an acceptor, a selector: in native code, off a CPU, what Orca's wall
// sampler samples) — for MS milliseconds. Fixed work (none): the CPU a
// profiler adds is the process's CPU over the run's less the base's.
//
//   java WallIdle PARKED NATIVE MS
public class WallIdle {
  public static void main(String[] args) throws Exception {
    int parked = Integer.parseInt(args[0]), natives = Integer.parseInt(args[1]);
    long ms = Long.parseLong(args[2]);
    for (int i = 0; i < parked; i++) {
      Thread t = new Thread(() -> {
        for (;;) LockSupport.park();
      }, "parked-" + i);
      t.setDaemon(true);
      t.start();
    }
    for (int i = 0; i < natives; i++) {
      ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
      Thread t = new Thread(() -> {
        try {
          s.accept();
        } catch (Exception e) {
        }
      }, "accept-" + i);
      t.setDaemon(true);
      t.start();
    }
    Thread.sleep(ms);
    System.out.println("OPS 1");
    System.out.println("CPU 0");
  }
}
