// JMS load on an ActiveMQ broker: P producers and C consumers on one queue for S seconds.
// With a fifth argument RATEFILE, writes there the start time (epoch ms) and then the messages
// received in each 100 ms from it, one a line (bench/attach-rate.sh).
import java.nio.file.*;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.jms.*;
import org.apache.activemq.ActiveMQConnectionFactory;
public final class JmsLoad {
  public static void main(String[] a) throws Exception {
    String url = a[0];
    int np = Integer.parseInt(a[1]), nc = Integer.parseInt(a[2]);
    double secs = Double.parseDouble(a[3]);
    ActiveMQConnectionFactory f = new ActiveMQConnectionFactory(url);
    long startMs = System.currentTimeMillis(), t0 = System.nanoTime(), end = t0 + (long) (secs * 1e9);
    int buckets = (int) Math.ceil(secs * 10) + 11;
    AtomicLongArray rate = new AtomicLongArray(buckets);
    long[] sent = new long[np], got = new long[nc];
    Thread[] ts = new Thread[np + nc];
    for (int i = 0; i < np + nc; i++) {
      final int id = i;
      ts[i] = new Thread(() -> {
        try {
          Connection c = f.createConnection(); c.start();
          Session s = c.createSession(false, Session.AUTO_ACKNOWLEDGE);
          Queue q = s.createQueue("load" + (id % 3));
          if (id < np) {
            MessageProducer p = s.createProducer(q);
            p.setDeliveryMode(id % 2 == 0 ? DeliveryMode.PERSISTENT : DeliveryMode.NON_PERSISTENT);
            while (System.nanoTime() < end) { p.send(s.createTextMessage("m" + sent[id])); sent[id]++; }
          } else {
            MessageConsumer mc = s.createConsumer(q);
            while (System.nanoTime() < end + 1_000_000_000L) { if (mc.receive(200) != null) {
              got[id - np]++;
              int b = (int) ((System.nanoTime() - t0) / 100_000_000L);
              if (b < buckets) rate.incrementAndGet(b);
            } }
          }
          c.close();
        } catch (JMSException e) { e.printStackTrace(); }
      }, (id < np ? "producer-" + id : "consumer-" + (id - np)));
      ts[i].start();
    }
    for (Thread t : ts) t.join();
    long S = 0, G = 0; for (long x : sent) S += x; for (long x : got) G += x;
    if (a.length > 4) {
      StringBuilder sb = new StringBuilder().append(startMs).append('\n');
      for (int i = 0; i < buckets; i++) sb.append(rate.get(i)).append('\n');
      Files.writeString(Path.of(a[4]), sb);
    }
    System.out.println("sent " + S + " received " + G);
  }
}
