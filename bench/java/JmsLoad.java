// JMS load on an ActiveMQ broker: P producers and C consumers on one queue for S seconds.
import javax.jms.*;
import org.apache.activemq.ActiveMQConnectionFactory;
public final class JmsLoad {
  public static void main(String[] a) throws Exception {
    String url = a[0];
    int np = Integer.parseInt(a[1]), nc = Integer.parseInt(a[2]);
    double secs = Double.parseDouble(a[3]);
    ActiveMQConnectionFactory f = new ActiveMQConnectionFactory(url);
    long end = System.nanoTime() + (long) (secs * 1e9);
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
            while (System.nanoTime() < end + 1_000_000_000L) { if (mc.receive(200) != null) got[id - np]++; }
          }
          c.close();
        } catch (JMSException e) { e.printStackTrace(); }
      }, (id < np ? "producer-" + id : "consumer-" + (id - np)));
      ts[i].start();
    }
    for (Thread t : ts) t.join();
    long S = 0, G = 0; for (long x : sent) S += x; for (long x : got) G += x;
    System.out.println("sent " + S + " received " + G);
  }
}
