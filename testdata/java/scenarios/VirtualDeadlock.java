// VirtualDeadlock: on JDK 21+, two deadlocks of virtual threads. vx holds monitor a and vy monitor
// b, each taken fast (never contended before: lightweight locking keeps them on the holder's lock
// stack); each parks until the other holds its own, then takes the other's. On 24+ a virtual
// thread that blocks unmounts and its lock stack moves into its stack chunk, where HotSpot names no
// owner of an inflated fast lock: the agent names it (docs/agent.md, vheld.c). vz holds monitor c
// and parks on ReentrantLock rl, which vw holds while it blocks on c: a deadlock through a
// ReentrantLock and a monitor. main waits until all four are blocked and exits (they never end).
// Prints "EXPECT virtual=no" on JDK 17-20. Compiled with --release 17: virtual threads through
// reflection.
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

public class VirtualDeadlock {
    static final Object a = new Object(), b = new Object(), c = new Object();
    static final ReentrantLock rl = new ReentrantLock();
    static volatile boolean xHolds, yHolds, zHolds, wHolds;

    static Thread startVirtual(String name, Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = Class.forName("java.lang.Thread$Builder").getMethod("name", String.class).invoke(builder, name);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    static void until(java.util.function.BooleanSupplier c) {
        while (!c.getAsBoolean()) LockSupport.parkNanos(100_000);
    }

    static void awaitBlocked(Thread t) {
        until(() -> t.getState() == Thread.State.BLOCKED || t.getState() == Thread.State.WAITING);
    }

    public static void main(String[] args) throws Exception {
        if (Runtime.version().feature() < 21) {
            System.out.println("EXPECT virtual=no");
            return;
        }
        Thread vx = startVirtual("orca-vx", () -> {
            synchronized (a) {
                xHolds = true;
                until(() -> yHolds);
                synchronized (b) { }
            }
        });
        Thread vy = startVirtual("orca-vy", () -> {
            synchronized (b) {
                yHolds = true;
                until(() -> xHolds);
                synchronized (a) { }
            }
        });
        Thread vz = startVirtual("orca-vz", () -> {
            synchronized (c) {
                zHolds = true;
                until(() -> wHolds);
                rl.lock();
                rl.unlock();
            }
        });
        Thread vw = startVirtual("orca-vw", () -> {
            rl.lock();
            try {
                wHolds = true;
                until(() -> zHolds);
                synchronized (c) { }
            } finally {
                rl.unlock();
            }
        });
        for (Thread t : new Thread[] {vx, vy, vz, vw}) awaitBlocked(t);
        LockSupport.parkNanos(300_000_000L); // a flush period: the agent writes the open enters
        System.out.printf("EXPECT virtual=yes vx=%08X vy=%08X vz=%08X vw=%08X a=%08X b=%08X c=%08X%n",
                System.identityHashCode(vx), System.identityHashCode(vy), System.identityHashCode(vz),
                System.identityHashCode(vw), System.identityHashCode(a), System.identityHashCode(b),
                System.identityHashCode(c));
        System.exit(0);
    }
}
