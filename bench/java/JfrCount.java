// Counts the contention JFR recorded, for bench/run.sh's perturbation check.
//
//   java JfrCount FILE.jfr...
//
// Prints one line per file:
//   FILE enters=N blocked_s=S median_us=U waits=N parks=N parked_s=S sleeps=N other=N enters[CLASS]=N...
// enters/blocked_s/median_us: jdk.JavaMonitorEnter events (contended monitor
// enters), the sum and the median of their durations. waits, parks, sleeps:
// jdk.JavaMonitorWait, jdk.ThreadPark, jdk.ThreadSleep counts; parked_s: the
// sum of the parks' durations. other: events
// of any type not in zero.jfc (to check the recording recorded only those).
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

public final class JfrCount {
  static final Set<String> EXPECTED = Set.of("jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark",
      "jdk.ThreadSleep", "jdk.ThreadStart", "jdk.ThreadEnd",
      // written by JFR itself into every recording
      "jdk.ActiveRecording", "jdk.ActiveSetting");

  public static void main(String[] args) throws Exception {
    for (String a : args) {
      long enters = 0, waits = 0, parks = 0, sleeps = 0, other = 0;
      long[] durs = new long[1024];
      double blocked = 0, parked = 0;
      Map<String, Long> byClass = new TreeMap<>();
      try (RecordingFile f = new RecordingFile(Path.of(a))) {
        while (f.hasMoreEvents()) {
          RecordedEvent e = f.readEvent();
          String t = e.getEventType().getName();
          switch (t) {
            case "jdk.JavaMonitorEnter":
              long d = e.getDuration().toNanos();
              if (enters == durs.length) durs = Arrays.copyOf(durs, durs.length * 2);
              durs[(int) enters++] = d;
              blocked += d / 1e9;
              byClass.merge(e.getClass("monitorClass").getName(), 1L, Long::sum);
              break;
            case "jdk.JavaMonitorWait": waits++; break;
            case "jdk.ThreadPark": parks++; parked += e.getDuration().toNanos() / 1e9; break;
            case "jdk.ThreadSleep": sleeps++; break;
            default: if (!EXPECTED.contains(t)) other++;
          }
        }
      }
      Arrays.sort(durs, 0, (int) enters);
      double median = enters == 0 ? 0 : durs[(int) (enters / 2)] / 1e3;
      System.out.printf("%s enters=%d blocked_s=%.6f median_us=%.2f waits=%d parks=%d parked_s=%.6f sleeps=%d other=%d",
          a, enters, blocked, median, waits, parks, parked, sleeps, other);
      for (Map.Entry<String, Long> c : byClass.entrySet()) System.out.printf(" enters[%s]=%d", c.getKey(), c.getValue());
      System.out.println();
    }
  }
}
