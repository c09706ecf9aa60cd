// JoinTimed: N threads that end at once, each joined with a timeout
// (Thread.join(long), synchronized on JDK 17-18): the joined thread's exit
// takes its own monitor to notify the joiner, so its contended enters
// measure how long the joiner holds it (docs/agent.md, "One rewriter, not
// two"). java -agentpath:LIB=prefix=P -cp CLASSES JoinTimed 2000
public class JoinTimed {
    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(args[0]);
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {});
            t.start();
            t.join(1000);
        }
    }
}
