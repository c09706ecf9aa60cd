package analysis

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
)

// TestSharedHash is issue 30's item 4b: 100 000 virtual threads gave two that share an identity
// hash (v-6892 and v-9025, both 5CDA6869), and the recording had one thread fewer, one hang fewer,
// and "1 event could not be placed". A compact recording names the second by its rank (an alias
// record), and the reader, the model and the hangs keep the two apart: both alive at once, each
// with its start, name, wait and hang; the contention on the second's monitor names the second as
// its owner, the unpark of the first targets the first. The IDs show as "5CDA6869" and
// "5CDA6869#2"; the seed's text writes the hash alone, as the manual says.
func TestSharedHash(t *testing.T) {
	const h = 0x5CDA6869
	main, first, second, c := format.ThreadID(0xA), format.NewThreadID(h, 0), format.NewThreadID(h, 1), format.ThreadID(0xC)
	ms := func(v float64) format.Time { return format.Time(v * 1e6) }
	events := []format.Event{
		{Time: 0, Kind: format.ThreadStarted, Thread: main, Name: "main"},
		{Time: 0, Kind: format.ThreadStarted, Thread: c, Name: "c"},
		{Time: ms(1), Kind: format.ThreadStart, Thread: main, Target: first},
		{Time: ms(2), Kind: format.ThreadStarted, Thread: first, Name: "v-6892"},
		{Time: ms(3), Kind: format.ThreadStart, Thread: main, Target: second},
		{Time: ms(4), Kind: format.ThreadStarted, Thread: second, Name: "v-9025"},
		{Time: ms(5), Kind: format.ThreadPark, Thread: first, Object: 0xF1, Timeout: 1000},
		{Time: ms(6), Kind: format.ThreadUnpark, Thread: main, Target: first},
		{Time: ms(7), Kind: format.ThreadUnparked, Thread: first, Object: 0xF1, How: format.ParkEndUnparked},
		{Time: ms(10), Kind: format.ObjectWait, Thread: first, Object: 0x1111},
		{Time: ms(11), Kind: format.ObjectWait, Thread: second, Object: 0x2222},
		{Time: ms(12), Kind: format.MonitorContendedEnter, Thread: c, Object: 0x3333, Owner: second},
		{Time: ms(3000), Kind: format.ThreadSleep, Thread: main},
	}
	prefix := filepath.Join(t.TempDir(), "shared")
	write := func(enc format.Encoding, prefix string) {
		f, err := os.Create(prefix + format.SuffixEvents)
		if err != nil {
			t.Fatal(err)
		}
		bw := bufio.NewWriter(f)
		w := format.NewWriterOptions(format.Files{Prefix: prefix, Events: bw}, format.Options{Encoding: enc})
		for i := range events {
			w.Event(&events[i])
		}
		if err := w.Err(); err != nil {
			t.Fatal(err)
		}
		if err := bw.Flush(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	write(format.EncodingCompact, prefix)
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	var got []format.Event
	it, closer, err := rec.Events()
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := it.Next()
		if err != nil {
			break
		}
		got = append(got, format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Target: ev.Target, Owner: ev.Owner})
	}
	closer.Close()
	if len(got) != len(events) {
		t.Fatalf("read %d events, want %d", len(got), len(events))
	}
	for i, e := range events {
		if g := got[i]; g.Thread != e.Thread || g.Target != e.Target || g.Owner != e.Owner {
			t.Errorf("event %d %s: thread %v target %v owner %v, want %v %v %v", i, e.Kind, g.Thread, g.Target, g.Owner, e.Thread, e.Target, e.Owner)
		}
	}

	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Model
	for _, e := range modeltest.Validate(m) {
		t.Errorf("invariant: %v", e)
	}
	for _, p := range m.Problems {
		t.Errorf("an event could not be placed: %v", p)
	}
	byID := map[format.ThreadID]*model.Thread{}
	for _, th := range m.Threads {
		byID[th.ID] = th
	}
	for id, name := range map[format.ThreadID]string{first: "v-6892", second: "v-9025"} {
		th := byID[id]
		if th == nil {
			t.Errorf("no thread %v (%s): threads %v", id, name, m.Threads)
			continue
		}
		if th.Name != name || th.Parent != main {
			t.Errorf("thread %v: name %q parent %v, want %q, %v", id, th.Name, th.Parent, name, main)
		}
	}
	if s1, s2 := first.String(), second.String(); s1 != "5CDA6869" || s2 != "5CDA6869#2" {
		t.Errorf("the IDs show as %q and %q, want 5CDA6869 and 5CDA6869#2", s1, s2)
	}
	var hangs []string
	for _, hg := range OpenAtEnd(m) {
		hangs = append(hangs, hg.Thread.String()+" "+hg.State.String()+" "+hg.Object.String()+" "+hg.Other.String()+" "+hg.Why.String())
	}
	slices.Sort(hangs)
	// The first waits alone (nobody behind it, main ran after); the
	// second is a hang: c is blocked behind it.
	want := []string{"0000000C blocked 00003333 5CDA6869#2 ", "5CDA6869 waiting 00001111 00000000 alone", "5CDA6869#2 waiting 00002222 00000000 "}
	if !slices.Equal(hangs, want) {
		t.Errorf("hangs: %q, want %q", hangs, want)
	}

	// The seed's text writes the hash of both, as the manual says.
	seed := filepath.Join(t.TempDir(), "seed")
	write(format.EncodingSeed, seed)
	b, err := os.ReadFile(seed + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	const line = "0.0040000000,ThreadStarted,5CDA6869,v-9025\n"
	if !strings.Contains(string(b), line) {
		t.Errorf("the seed's text of v-9025's start: want %q in\n%s", line, b)
	}
}
