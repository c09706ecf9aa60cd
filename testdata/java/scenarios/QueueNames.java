import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

// QueueNames parks threads inside java.util.concurrent classes a known number of times, each
// park ended by main once the thread is seen WAITING: "producer" in ArrayBlockingQueue.put on
// a full queue (K parks on the queue's notFull condition), "consumer" in
// LinkedBlockingQueue.take on an empty queue (K parks on its notEmpty condition), "awaiter" in
// CountDownLatch.await (1 park on the latch's sync). Prints EXPECT k=K.
public class QueueNames {
  static final int K = 3;

  public static void main(String[] args) throws Exception {
    ArrayBlockingQueue<Integer> full = new ArrayBlockingQueue<>(1);
    full.put(0);
    LinkedBlockingQueue<Integer> empty = new LinkedBlockingQueue<>();
    CountDownLatch latch = new CountDownLatch(1);
    Thread producer = new Thread(() -> {
      try {
        for (int i = 1; i <= K; i++) full.put(i);
      } catch (InterruptedException e) { }
    }, "producer");
    Thread consumer = new Thread(() -> {
      try {
        for (int i = 0; i < K; i++) empty.take();
      } catch (InterruptedException e) { }
    }, "consumer");
    Thread awaiter = new Thread(() -> {
      try {
        latch.await();
      } catch (InterruptedException e) { }
    }, "awaiter");
    producer.start();
    consumer.start();
    awaiter.start();
    for (int i = 0; i < K; i++) {
      waitFor(producer);
      full.take();
      waitFor(consumer);
      empty.put(i);
    }
    waitFor(awaiter);
    latch.countDown();
    producer.join();
    consumer.join();
    awaiter.join();
    System.out.println("EXPECT k=" + K);
  }

  // waitFor returns once t is parked (WAITING) and has been for 50 ms.
  static void waitFor(Thread t) throws InterruptedException {
    while (t.getState() != Thread.State.WAITING) Thread.sleep(5);
    Thread.sleep(50);
  }
}
