// TickThreads keeps THREADS threads alive for SECONDS, each waking every 100 ms (a sleep), so
// that every thread's scheduler times change between two of the agent's polls and each poll
// writes a ThreadCPU for each: the worst case of the poll's cost (docs/agent.md, "Threads'
// scheduler times"):
//
//   javac -d /tmp/tick bench/java/TickThreads.java
//   ORCA_TIME_WRITER=1 java -agentpath:internal/agentlib/liborca.so=prefix=/tmp/tick/r -cp /tmp/tick TickThreads 500 10
public class TickThreads {
  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 500;
    long seconds = args.length > 1 ? Long.parseLong(args[1]) : 10;
    long end = System.nanoTime() + seconds * 1_000_000_000L;
    Thread[] ts = new Thread[n];
    for (int i = 0; i < n; i++) {
      ts[i] = new Thread(() -> {
        while (System.nanoTime() < end) {
          try { Thread.sleep(100); } catch (InterruptedException e) { return; }
        }
      }, "tick-" + i);
      ts[i].start();
    }
    for (Thread t : ts) t.join();
  }
}
