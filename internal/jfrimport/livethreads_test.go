package jfrimport

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"orca/internal/format"

	jt "orca/internal/jfr/jfrtest"
)

// manyLiveThreads is a JFR recording of threads that never end as far as
// it tells: threads each sleep once and have no jdk.ThreadEnd (a server's
// virtual threads recorded without jdk.VirtualThreadEnd: 57 398 of them in
// 4 MB of JFR from Tomcat on JDK 25), then main sleeps again and again.
func manyLiveThreads(threads, sleeps int) []byte {
	c := &jt.Chunk{Classes: jt.JDKClasses(), StartNanos: 1_700_000_000_000_000_000, StartTicks: 0, TicksPerSecond: 1_000_000}
	c.Symbol(10, "Server")
	c.Symbol(11, "handle")
	c.Symbol(12, "()V")
	c.Class(20, 10)
	c.Method(30, 20, 11, 12, 1)
	c.FrameType(40, "Interpreted")
	c.Stack(50, false, jt.StackFrame{Method: 30, Line: 7, BCI: 1, Type: 40})
	c.Thread(1, "main", 1, 100)
	for i := range int64(threads) {
		c.Thread(2+i, "worker", 10+i, 1000+i)
		c.Event(jt.TThreadSleep, jt.Varint(1000+10*i), jt.Varint(5), jt.Varint(2+i), jt.Varint(50), jt.Varint(1))
	}
	for i := range int64(sleeps) {
		c.Event(jt.TThreadSleep, jt.Varint(1_000_000+10*i), jt.Varint(5), jt.Varint(1), jt.Varint(50), jt.Varint(1))
	}
	return c.Bytes()
}

// TestImportManyLiveThreads: an import is as large as its events whatever
// the threads left alive, each restated at each chunk's start (docs/jfr.md,
// "Threads without an end"): in chunks of 4 kB, 1 500 live threads and
// 3 000 sleeps make less than twice the bytes of one chunk, and the same
// recording as the text (every event, the report). Before, every event
// past the threads' state began a chunk restating it: 298 MB.
func TestImportManyLiveThreads(t *testing.T) {
	data := manyLiveThreads(1500, 3000)
	dir := t.TempDir()
	size := map[string]int64{}
	for _, run := range []struct {
		name  string
		enc   format.Encoding
		chunk int
	}{{"seed", format.EncodingSeed, 0}, {"one", format.EncodingCompact, 0}, {"small", format.EncodingCompact, 4096}} {
		prefix := filepath.Join(dir, run.name, "run")
		os.Mkdir(filepath.Dir(prefix), 0o755)
		res, err := Import(bytes.NewReader(data), int64(len(data)), prefix, Options{Source: "run.jfr", Encoding: run.enc, chunkBytes: run.chunk})
		if err != nil {
			t.Fatal(err)
		}
		if res.Events[format.ThreadStarted] != 1501 || res.Events[format.ThreadEnded] != 0 || res.Events[format.ThreadSleep] != 4500 {
			t.Fatalf("%s: %d ThreadStarted, %d ThreadEnded, %d ThreadSleep; want 1501, 0, 4500", run.name,
				res.Events[format.ThreadStarted], res.Events[format.ThreadEnded], res.Events[format.ThreadSleep])
		}
		st, err := os.Stat(prefix + format.SuffixEvents)
		if err != nil {
			t.Fatal(err)
		}
		size[run.name] = st.Size()
	}
	t.Logf(".orca bytes: %v (JFR %d)", size, len(data))
	if size["small"] > 2*size["one"] {
		t.Errorf("chunks of 4 kB: %d bytes, one chunk %d: the live threads are restated per event, not per chunk", size["small"], size["one"])
	}
	sameImports(t, filepath.Join(dir, "seed", "run"), filepath.Join(dir, "small", "run"))
}
