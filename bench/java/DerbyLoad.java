// Embedded Apache Derby (libderby-java) under a transactional load: T threads each move a unit
// between two random rows of an R-row table in one transaction, the rows taken in random order,
// so that Derby's lock manager makes threads wait for row locks (Object.wait in its lock table)
// and finds real database deadlocks (SQLState 40001; start the JVM with
// -Dderby.locks.deadlockTimeout=1 -Dderby.locks.waitTimeout=3 to find them within seconds).
// Runs until killed (SIGTERM), or for S seconds when given; prints the commits, deadlocks and
// lock timeouts at the end.
//
//   java -cp /usr/share/java/derby.jar:CLASSES DerbyLoad T R [S]
import java.sql.*;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

public final class DerbyLoad {
  public static void main(String[] a) throws Exception {
    int threads = Integer.parseInt(a[0]), rows = Integer.parseInt(a[1]);
    long secs = a.length > 2 ? Long.parseLong(a[2]) : 0;
    String url = "jdbc:derby:memory:load;create=true";
    try (Connection c = DriverManager.getConnection(url); Statement s = c.createStatement()) {
      s.executeUpdate("CREATE TABLE acct (id INT PRIMARY KEY, bal BIGINT)");
      for (int i = 0; i < rows; i++) s.executeUpdate("INSERT INTO acct VALUES (" + i + ", 1000)");
    }
    AtomicLong commits = new AtomicLong(), deadlocks = new AtomicLong(), timeouts = new AtomicLong();
    Runtime.getRuntime().addShutdownHook(new Thread(() ->
        System.out.println("commits " + commits + " deadlocks " + deadlocks + " timeouts " + timeouts)));
    long end = secs > 0 ? System.nanoTime() + secs * 1_000_000_000L : Long.MAX_VALUE;
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      ts[t] = new Thread(() -> {
        try (Connection c = DriverManager.getConnection(url)) {
          c.setAutoCommit(false);
          PreparedStatement up = c.prepareStatement("UPDATE acct SET bal = bal + ? WHERE id = ?");
          while (System.nanoTime() < end) {
            int x = ThreadLocalRandom.current().nextInt(rows), y = ThreadLocalRandom.current().nextInt(rows);
            try {
              up.setLong(1, -1);
              up.setInt(2, x);
              up.executeUpdate();
              up.setLong(1, 1);
              up.setInt(2, y);
              up.executeUpdate();
              c.commit();
              commits.incrementAndGet();
            } catch (SQLException e) {
              if ("40001".equals(e.getSQLState())) deadlocks.incrementAndGet();
              else if ("40XL1".equals(e.getSQLState())) timeouts.incrementAndGet();
              else throw e;
              c.rollback();
            }
          }
        } catch (SQLException e) {
          throw new RuntimeException(e);
        }
      }, "derby-worker-" + t);
      ts[t].start();
    }
    for (Thread t : ts) t.join();
  }
}
