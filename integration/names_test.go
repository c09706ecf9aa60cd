package integration

import (
	"bytes"
	"strings"
	"testing"

	"orca/internal/report"
)

// TestQueueNames: parks inside java.util.concurrent classes are named by the call the program
// made (issue 31, item 8; docs/report-json.md, "Names a user knows"). QueueNames parks
// "producer" K times in ArrayBlockingQueue.put, "consumer" K times in LinkedBlockingQueue.take
// and "awaiter" once in CountDownLatch.await: the report's waits have those calls, with exactly
// those park counts, the text names the queues' conditions "in ArrayBlockingQueue.put" and "in
// LinkedBlockingQueue.take" (the latch's sync names itself) and shows the call's frame in the
// stacks (the consumer's take is idle, item 4: named on the idle line, without a stack). Before, the conditions were bare AbstractQueuedSynchronizer$ConditionObject and the
// queue's frame was folded into "N JDK frames".
func TestQueueNames(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "QueueNames")
		k := e.int(t, "k")
		rec, built := buildModel(t, prefix)
		rep := report.New(rec, built, report.Options{})
		var txt bytes.Buffer
		rep.WriteText(&txt)
		text := txt.String()
		for _, c := range []struct {
			call, class, label, frame string
			parks                     int
		}{
			{"java.util.concurrent.ArrayBlockingQueue.put", "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;",
				" in ArrayBlockingQueue.put: ", "java.util.concurrent.ArrayBlockingQueue.put(ArrayBlockingQueue.java:", k},
			{"java.util.concurrent.LinkedBlockingQueue.take", "Ljava/util/concurrent/locks/AbstractQueuedSynchronizer$ConditionObject;",
				" in LinkedBlockingQueue.take", "", k}, // idle (item 4): on the text's idle line, by its call, no stack
			{"java.util.concurrent.CountDownLatch.await", "Ljava/util/concurrent/CountDownLatch$Sync;", "", "java.util.concurrent.CountDownLatch.await(CountDownLatch.java:", 1},
		} {
			var found []report.Wait
			for _, w := range rep.Waits {
				if w.Call == c.call {
					found = append(found, w)
				}
			}
			if len(found) != 1 || found[0].Waits != c.parks || found[0].Class == nil || *found[0].Class != c.class {
				t.Errorf("waits with call %s: %+v, want one %s with %d parks", c.call, found, c.class, c.parks)
			}
			if c.label != "" && !strings.Contains(text, c.label) {
				t.Errorf("the text does not name the condition %q", c.label)
			}
			if c.frame != "" && !strings.Contains(text, c.frame) {
				t.Errorf("the text shows no frame %s", c.frame)
			}
		}
		if strings.Contains(text, "in CountDownLatch.await") {
			t.Errorf("the text names the latch's own sync by its call: it names itself")
		}
		if t.Failed() {
			t.Logf("report:\n%s", text)
		}
	})
}
