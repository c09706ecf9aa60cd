// LongName starts a thread whose name is 6 001 bytes of UTF-8 made of 2-, 3- and 4-byte
// characters (issue 12, item 14: the agent cut such a name in the middle of a character).
// It prints "EXPECT thread=HASH name=hex(UTF-8 of the name)".
import java.nio.charset.StandardCharsets;

public class LongName {
    public static void main(String[] args) throws InterruptedException {
        StringBuilder b = new StringBuilder("x");   // 1 byte, then 9-byte groups
        while (b.toString().getBytes(StandardCharsets.UTF_8).length < 6001) b.append("é€🐋");
        String name = b.toString();
        Thread t = new Thread(() -> {}, name);
        t.start();
        t.join();
        StringBuilder hex = new StringBuilder();
        for (byte x : name.getBytes(StandardCharsets.UTF_8)) hex.append(String.format("%02x", x & 0xff));
        System.out.printf("EXPECT thread=%08X bytes=%d name=%s%n", System.identityHashCode(t),
                name.getBytes(StandardCharsets.UTF_8).length, hex);
    }
}
