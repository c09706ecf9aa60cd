// FrameCache (issue 23 item 4, TestFrameCache): the agent's walker keeps the frames of a compiled
// frame by its return address (walk.c, "The frame cache"), so a notify site it has seen is not
// decoded again. Its callers are not part of the key: this program reaches one notifyAll site and
// one park site, each through one shared middle method, from two different callers, interleaved,
// many times, so that they are compiled and their frames cached. Every recorded stack must still
// name the caller that made it (viaA or viaB), and the counts per caller are exact. The test runs
// it with site and middle kept out of line (-XX:CompileCommand=dontinline: a physical frame each,
// the same return addresses from both callers) and with the JIT's own inlining.
//
//   java FrameCache [notifiesA=30000] [notifiesB=20000] [parksA=1500] [parksB=1000]
//
// Prints "EXPECT box=HASH notifies.a=N notifies.b=N parks.a=N parks.b=N".
import java.util.concurrent.locks.LockSupport;

public class FrameCache {
    static final Object box = new Object();
    static final Object blocker = new Object();

    static void site(boolean park) {
        if (park) {
            LockSupport.parkNanos(blocker, 1000);
        } else {
            synchronized (box) {
                box.notifyAll();
            }
        }
    }

    static void middle(boolean park) {
        site(park);
    }

    static void viaA(boolean park) {
        middle(park);
    }

    static void viaB(boolean park) {
        middle(park);
    }

    // run calls viaA a times and viaB b times, interleaved (a frame cache slot that held the
    // other caller's stack would be used at once).
    static void run(int a, int b, boolean park) {
        int i = 0, j = 0;
        while (i < a || j < b) {
            if (i < a && (j >= b || (i + j) % 5 < 3)) {
                viaA(park);
                i++;
            } else {
                viaB(park);
                j++;
            }
        }
    }

    public static void main(String[] args) {
        int na = args.length > 0 ? Integer.parseInt(args[0]) : 30000;
        int nb = args.length > 1 ? Integer.parseInt(args[1]) : 20000;
        int pa = args.length > 2 ? Integer.parseInt(args[2]) : 1500;
        int pb = args.length > 3 ? Integer.parseInt(args[3]) : 1000;
        run(na, nb, false);
        run(pa, pb, true);
        System.out.printf("EXPECT box=%08X notifies.a=%d notifies.b=%d parks.a=%d parks.b=%d%n",
                System.identityHashCode(box), na, nb, pa, pb);
    }
}
