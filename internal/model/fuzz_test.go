package model_test

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// fold parses .orca text and folds it; malformed lines are skipped.
func fold(data []byte) *Model {
	evs := reader.NewEvents(bytes.NewReader(data), "fuzz.orca")
	b := New()
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if _, ok := err.(*reader.ParseError); ok {
			continue
		}
		if err != nil {
			break
		}
		b.Event(&ev)
	}
	return b.Finalize()
}

// genState is a thread of a generated run.
type genThread struct {
	id      format.ThreadID
	started bool
	ended   bool
	open    []genOpen // innermost last
}

type genOpen struct {
	kind format.Kind // the opening kind
	obj  uint32      // object, or target thread for a join
}

// generate turns fuzz bytes into a well-formed run: per thread, events in
// time order, every closing event after its opening one, states nested only
// as the JVM nests them (a contention inside a join or a wait), nothing
// after ThreadEnded. Across threads anything goes: owners may be stale,
// notifies may find nobody, joins may time out.
func generate(data []byte) []byte {
	i := 0
	next := func() int {
		if i >= len(data) {
			return 0
		}
		i++
		return int(data[i-1])
	}
	var out bytes.Buffer
	var now format.Time
	ths := []*genThread{}
	for id := format.ThreadID(1); id <= 6; id++ {
		ths = append(ths, &genThread{id: id})
	}
	w := format.NewWriter(format.Files{Events: &out})
	// emit writes an event of th through the format's writer: obj is the
	// object, or the thread started or joined; the writer keeps the
	// fields the kind has.
	emit := func(th *genThread, kind format.Kind, obj, owner uint32, st []format.Frame, name string) {
		w.Event(&format.Event{Time: now, Kind: kind, Thread: th.id, Object: format.ObjectID(obj), Target: format.ThreadID(obj),
			Owner: format.ThreadID(owner), Stack: st, Name: name})
	}
	stack := func() []format.Frame {
		if b := next(); b%3 != 0 {
			return []format.Frame{{Method: format.MethodID(b%5 + 1), Location: uint32(b % 7)}, {Method: format.MethodID(b%3 + 6)}}
		}
		return nil
	}
	objs := []uint32{0xA1, 0xA2, 0xA3}
	// Threads 1..4 exist from the start; 5 and 6 are started by others.
	for _, th := range ths[:4] {
		th.started = true
		emit(th, format.ThreadStarted, 0, 0, nil, fmt.Sprintf("t%d", th.id))
	}
	for i < len(data) {
		// Time moves by 0 (same instant) to 255 µs.
		if b := next(); b%4 != 0 {
			now += format.Time(b) * 1000
		}
		th := ths[next()%len(ths)]
		if !th.started || th.ended {
			continue
		}
		pick := next()
		if n := len(th.open); n > 0 {
			top := th.open[n-1]
			close := func() {
				th.open = th.open[:n-1]
				emit(th, top.kind.End(), top.obj, 0, stack(), "") // the event table pairs them
			}
			// Inside a join or a wait, the thread can block on the monitor
			// (the Thread's, the waited object's) before it returns.
			if (top.kind == format.ThreadJoin || top.kind == format.ObjectWait) && pick%3 == 0 {
				owner := uint32(ths[next()%len(ths)].id)
				if owner == uint32(th.id) || pick%2 == 0 {
					owner = 0
				}
				th.open = append(th.open, genOpen{format.MonitorContendedEnter, top.obj})
				emit(th, format.MonitorContendedEnter, top.obj, owner, stack(), "")
				continue
			}
			close()
			continue
		}
		obj := objs[next()%len(objs)]
		other := ths[next()%len(ths)]
		switch pick % 11 {
		case 0:
			th.open = append(th.open, genOpen{format.ThreadSleep, 0})
			emit(th, format.ThreadSleep, 0, 0, stack(), "")
		case 1:
			th.open = append(th.open, genOpen{format.ObjectWait, obj})
			emit(th, format.ObjectWait, obj, 0, stack(), "")
		case 2:
			emit(th, format.ObjectNotify, obj, 0, stack(), "")
		case 3:
			emit(th, format.ObjectNotifyAll, obj, 0, stack(), "")
		case 4, 5:
			owner := uint32(other.id)
			if other == th || pick%5 == 0 {
				owner = 0
			}
			th.open = append(th.open, genOpen{format.MonitorContendedEnter, obj})
			emit(th, format.MonitorContendedEnter, obj, owner, stack(), "")
		case 6:
			if other == th {
				continue
			}
			th.open = append(th.open, genOpen{format.ThreadJoin, uint32(other.id)})
			emit(th, format.ThreadJoin, uint32(other.id), 0, stack(), "")
		case 7:
			th.open = append(th.open, genOpen{format.SemaphoreAcquire, obj + 0x100})
			emit(th, format.SemaphoreAcquire, obj+0x100, 0, stack(), "")
		case 8:
			emit(th, format.SemaphoreRelease, obj+0x100, 0, stack(), "")
		case 9:
			if other.started {
				continue
			}
			emit(th, format.ThreadStart, uint32(other.id), 0, stack(), "")
			other.started = true
			if pick%2 == 0 {
				emit(other, format.ThreadStarted, 0, 0, nil, fmt.Sprintf("t%d", other.id))
			}
		case 10:
			th.ended = true
			emit(th, format.ThreadEnded, 0, 0, nil, "")
		}
	}
	return out.Bytes()
}

// FuzzModel folds generated well-formed runs: the fold must not panic, the
// model must pass Validate and have no Problems (every event pairs up).
func FuzzModel(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("deadlock, wait, notify, join, semaphore and more"))
	f.Add(bytes.Repeat([]byte{1, 2, 4, 1, 1, 3, 0, 5, 9, 7}, 30))
	f.Add(bytes.Repeat([]byte{4, 0, 4, 0, 0, 4, 1, 4, 5, 1, 0, 0}, 20))
	for seed := range 8 {
		b := make([]byte, 400)
		x := uint32(seed*2654435761 + 1)
		for j := range b {
			x ^= x << 13
			x ^= x >> 17
			x ^= x << 5
			b[j] = byte(x)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orca := generate(data)
		m := fold(orca)
		for _, e := range modeltest.Validate(m) {
			t.Errorf("%v", e)
		}
		for _, p := range m.Problems {
			t.Errorf("problem: %s", p)
		}
		if t.Failed() {
			t.Logf("events:\n%s", orca)
		}
	})
}

// FuzzModelText folds arbitrary .orca text (seeded with the cases): the
// fold must not panic, and whatever the input, the model it makes must
// pass Validate — problems are reported, not turned into a broken model.
func FuzzModelText(f *testing.F) {
	testrec.AddModelSeeds(f, ".", false)
	f.Fuzz(func(t *testing.T, data []byte) {
		m := fold(data)
		for _, e := range modeltest.Validate(m) {
			t.Errorf("%v", e)
		}
		if t.Failed() {
			t.Logf("events:\n%s", data)
		}
	})
}

// waitLines turns fuzz bytes into a few lines of the kinds whose
// order decides the wait-for graph: contended enters (naming an owner or
// none) and their ends, parks to acquire a j.u.c. lock, MonitorOwned,
// joins, waits, unparks and ends, of five threads on three objects (an
// object both a monitor and a j.u.c. lock), at times 0-7 s in any order
// between threads and within one. Five bytes a line. A handful of such
// lines is what the fold's deadlocks and WaitGraphAt disagreed on, over
// and over (the corpus of FuzzModelText: deadlock-*, owned-*, chain-*),
// which random text reaches only in hours.
func waitLines(data []byte) []byte {
	ths := "ABCDE"
	objs := []string{"1", "2", "AA"}
	var out bytes.Buffer
	for ; len(data) >= 5; data = data[5:] {
		tm, th, obj := data[0]%8, ths[data[2]%5], objs[data[3]%3]
		other := ths[data[4]%5]
		switch k := data[1] % 20; {
		case k < 7:
			owner := "0"
			if data[4]%6 < 5 {
				owner = string(other)
			}
			fmt.Fprintf(&out, "%d,MonitorContendedEnter,%c,%s,%s,1;0;0\n", tm, th, obj, owner)
		case k < 10:
			fmt.Fprintf(&out, "%d,MonitorContendedEntered,%c,%s,1;0;0\n", tm, th, obj)
		case k < 12:
			fmt.Fprintf(&out, "%d,ThreadPark,%c,%s,%c,,exclusive,1;0;0\n", tm, th, obj, other)
		case k < 13:
			fmt.Fprintf(&out, "%d,ThreadUnparked,%c,%s,unparked,1;0;0\n", tm, th, obj)
		case k < 14:
			fmt.Fprintf(&out, "%d,ThreadJoin,%c,%c,1;0;0\n", tm, th, other)
		case k < 15:
			fmt.Fprintf(&out, "%d,ThreadJoined,%c,%c,1;0;0\n", tm, th, other)
		case k < 16:
			fmt.Fprintf(&out, "%d,MonitorOwned,%c,%s\n", tm, th, obj)
		case k < 17:
			fmt.Fprintf(&out, "%d,ObjectWait,%c,%s,1;0;0\n", tm, th, obj)
		case k < 18:
			fmt.Fprintf(&out, "%d,ObjectWaited,%c,%s,1;0;0\n", tm, th, obj)
		case k < 19:
			fmt.Fprintf(&out, "%d,ThreadEnded,%c\n", tm, th)
		default:
			fmt.Fprintf(&out, "%d,ThreadUnpark,%c,%c,1;0;0\n", tm, th, other)
		}
	}
	return out.Bytes()
}

// FuzzModelLines folds waitLines: the model must pass Validate.
func FuzzModelLines(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 0, 4, 0, 3, 5, 0, 2, 1, 4})
	for seed := range 16 {
		f.Add(xorshiftBytes(uint32(seed*2654435761+7), 40))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orca := waitLines(data)
		for _, e := range modeltest.Validate(fold(orca)) {
			t.Errorf("%v", e)
		}
		if t.Failed() {
			t.Logf("events:\n%s", orca)
		}
	})
}

// TestModelLines folds a few thousand runs of waitLines from fixed
// pseudo-random bytes, so that go test tries the family of FuzzModelLines
// beyond its seeds: each must pass Validate.
func TestModelLines(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range n {
		data := xorshiftBytes(uint32(seed)*2654435761+1, 5*(3+seed%6))
		orca := waitLines(data)
		for _, e := range modeltest.Validate(fold(orca)) {
			t.Errorf("seed %d: %v\nevents:\n%s", seed, e, orca)
			break
		}
		if t.Failed() {
			return
		}
	}
}

// xorshiftBytes returns n pseudo-random bytes from seed x (not 0).
func xorshiftBytes(x uint32, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[j] = byte(x)
	}
	return b
}

// TestSynth folds a synthetic recording shaped like a busy server's
// (internal/synth: hundreds of threads, every event paired and in order):
// it must pass Validate with no Problems.
func TestSynth(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "synth")
	if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 7, Threads: 40, Monitors: 12, Semaphores: 4, Size: 4 << 20}); err != nil {
		t.Fatal(err)
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	m := buildChecked(t, rec, Options{})
	var contentions, waits int
	for _, l := range m.Locks {
		contentions += l.Contentions
		waits += l.Waits
	}
	if contentions == 0 || waits == 0 || len(m.Edges) == 0 {
		t.Errorf("a busy recording with %d contentions, %d waits, %d edges", contentions, waits, len(m.Edges))
	}
	t.Logf("%d events, %d threads, %d locks, %d contentions, %d waits, %d edges, %d cycles",
		m.Events, len(m.Threads), len(m.Locks), contentions, waits, len(m.Edges), len(m.Deadlocks))
}
