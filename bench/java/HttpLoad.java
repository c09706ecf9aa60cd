// HTTP load with a count of completions per 100 ms (bench/attach-rate.sh): N threads, each a
// keep-alive connection, GET URL in a loop for S seconds. Writes to RATEFILE the start time
// (epoch ms) and then the responses completed in each 100 ms from it, one a line; prints
// "sent S received R" like JmsLoad.
import java.io.*;
import java.net.*;
import java.nio.file.*;
import java.util.concurrent.atomic.AtomicLongArray;

public final class HttpLoad {
  public static void main(String[] a) throws Exception {
    URL url = new URL(a[0]);
    int n = Integer.parseInt(a[1]);
    double secs = Double.parseDouble(a[2]);
    String rateFile = a[3];
    int buckets = (int) Math.ceil(secs * 10) + 1;
    AtomicLongArray done = new AtomicLongArray(buckets);
    long startMs = System.currentTimeMillis(), t0 = System.nanoTime(), end = t0 + (long) (secs * 1e9);
    long[] ok = new long[n], bad = new long[n];
    Thread[] ts = new Thread[n];
    for (int i = 0; i < n; i++) {
      final int id = i;
      ts[i] = new Thread(() -> {
        byte[] buf = new byte[8192];
        long now;
        while ((now = System.nanoTime()) < end) {
          try {
            HttpURLConnection c = (HttpURLConnection) url.openConnection();
            try (InputStream in = c.getResponseCode() == 200 ? c.getInputStream() : c.getErrorStream()) {
              while (in != null && in.read(buf) >= 0) { }
            }
            now = System.nanoTime();
            int b = (int) ((now - t0) / 100_000_000L);
            if (b < buckets) done.incrementAndGet(b);
            ok[id]++;
          } catch (IOException e) {
            bad[id]++;
          }
        }
      }, "http-" + i);
      ts[i].start();
    }
    for (Thread t : ts) t.join();
    long s = 0, e = 0;
    for (int i = 0; i < n; i++) { s += ok[i]; e += bad[i]; }
    StringBuilder sb = new StringBuilder().append(startMs).append('\n');
    for (int i = 0; i < buckets; i++) sb.append(done.get(i)).append('\n');
    Files.writeString(Path.of(rateFile), sb);
    System.out.println("sent " + (s + e) + " received " + s + " errors " + e);
  }
}
