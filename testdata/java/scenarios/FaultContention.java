// FaultContention: issue 22 item 3, run with faults injected into the agent's reads of HotSpot's
// memory (ORCA_TEST_FAULTS). ROUNDS times a holder thread takes a lock of its own and a contender
// blocks on it; the holder sees the contender BLOCKED, waits a little more (the agent reads the
// owner while the contender is already BLOCKED) and releases: exactly ROUNDS contended enters, on
// known locks, with known owners. On JDK 21+ also VIRTUAL virtual threads sleep while they hold a
// monitor (24+: they unmount holding a fast lock, and the agent reads their own lock stacks as they
// block and resume). Compiled with --release 17: virtual threads through reflection.
//
// Prints "EXPECT rounds=N locks=HASH,... owners=HASH,... virtual=V".
import java.util.concurrent.locks.LockSupport;

public class FaultContention {
    static final int ROUNDS = 30, VIRTUAL = 20;

    static Thread startVirtual(Runnable r) throws Exception {
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        return (Thread) Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class).invoke(builder, r);
    }

    public static void main(String[] args) throws Exception {
        StringBuilder locks = new StringBuilder(), owners = new StringBuilder();
        for (int i = 0; i < ROUNDS; i++) {
            final Object lock = new Object();
            final Thread[] contender = new Thread[1];
            Thread holder = new Thread(() -> {
                synchronized (lock) {
                    contender[0] = new Thread(() -> { synchronized (lock) { } }, "orca-contender");
                    contender[0].start();
                    while (contender[0].getState() != Thread.State.BLOCKED) LockSupport.parkNanos(50_000);
                    LockSupport.parkNanos(20_000_000);
                }
            }, "orca-holder");
            holder.start();
            holder.join();
            contender[0].join();
            String sep = i == 0 ? "" : ",";
            locks.append(sep).append(String.format("%08X", System.identityHashCode(lock)));
            owners.append(sep).append(String.format("%08X", System.identityHashCode(holder)));
        }
        int virtual = 0;
        if (Runtime.version().feature() >= 21) {
            Thread[] vs = new Thread[VIRTUAL];
            for (int i = 0; i < VIRTUAL; i++) {
                final Object mine = new Object();
                vs[i] = startVirtual(() -> {
                    synchronized (mine) {
                        try {
                            Thread.sleep(2);
                        } catch (InterruptedException e) {
                            throw new RuntimeException(e);
                        }
                    }
                });
            }
            for (Thread v : vs) v.join();
            virtual = VIRTUAL;
        }
        System.out.printf("EXPECT rounds=%d locks=%s owners=%s virtual=%d%n", ROUNDS, locks, owners, virtual);
    }
}
