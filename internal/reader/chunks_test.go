package reader

import (
	"bytes"
	"fmt"
	"io"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"orca/internal/synth"
)

// synthEvents returns a generated .orca file of about size bytes.
func synthEvents(t testing.TB, size int64) []byte {
	t.Helper()
	var b bytes.Buffer
	if _, err := synth.New(synth.Options{Size: size}).WriteEvents(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// nextAll renders what Next returns, one entry per event or malformed line.
func nextAll(data []byte) (seq []string, truncated bool) {
	evs := NewEvents(bytes.NewReader(data), "f.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			return seq, evs.Truncated()
		}
		seq = append(seq, fmt.Sprintf("%+v %v", ev, err))
	}
}

// TestEachEventSynth checks EachEventAt against Next on a generated
// recording, with thread names whose second line looks like an event (so
// chunks are cut inside records), and spoiled in places: a stray quote, a
// line that breaks a record, a cut last line.
func TestEachEventSynth(t *testing.T) {
	lines := strings.SplitAfter(string(synthEvents(t, 2<<20)), "\n")
	for i := 500; i < len(lines); i += 1000 {
		lines[i] = `1.0,ThreadStarted,00000001,"x` + "\n" + `1.0,ThreadEnded,5"` + "\n"
	}
	data := strings.Join(lines, "")
	lines[1000] = `1.0,ThreadStarted,00000001,"stray` + "\n"   // swallows lines, read again
	lines[2000] = "1.0,ThreadStarted,00000001,\"multi\n"       // a real two-line name
	lines[2001] = "2.0,ObjectWait,00000001,00000002,0\",and\n" // closes it: a malformed record
	lines[3000] = "garbage\n"
	spoiled := strings.Join(lines, "")
	spoiled = spoiled[:len(spoiled)-7] // cut the last line
	for _, d := range []string{data, spoiled} {
		seq, truncated := nextAll([]byte(d))
		for _, opt := range []EachOptions{
			{Workers: 1, ChunkSize: 1 << 20},
			{Workers: 2, ChunkSize: 64 << 10},
			{Workers: 4, ChunkSize: 4000},
			{Workers: 3, ChunkSize: 300}, // about a line
		} {
			checkEach(t, []byte(d), opt, seq, truncated)
		}
	}
}

// TestEachEventStop checks that an error from fn stops EachEventAt, and
// that no goroutine is left behind.
func TestEachEventStop(t *testing.T) {
	data := synthEvents(t, 1<<20)
	before := runtime.NumGoroutine()
	stop := fmt.Errorf("stop")
	n := 0
	_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", EachOptions{Workers: 2, ChunkSize: 10000}, func(*Event) error {
		if n++; n == 1000 {
			return stop
		}
		return nil
	})
	if err != stop || n != 1000 {
		t.Fatalf("got %v after %d events, want stop after 1000", err, n)
	}
	// A goroutine that has signalled the WaitGroup may still be exiting:
	// give them a second before calling one left behind.
	after := runtime.NumGoroutine()
	for deadline := time.Now().Add(time.Second); after > before && time.Now().Before(deadline); after = runtime.NumGoroutine() {
		time.Sleep(time.Millisecond)
	}
	if after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}

func TestCutAt(t *testing.T) {
	data := "1.0,ThreadEnded,1\n\"x\n2.0,ThreadEnded,2\nfoo\n3.5,a\n10.25,B,\n"
	buf := make([]byte, 48) // windows shorter than the data, longer than the lookahead
	for p, want := range map[int64]int64{1: 21, 18: 21, 21: 21, 22: 49, 49: 49, 50: int64(len(data))} {
		got, err := cutAt(strings.NewReader(data), p, int64(len(data)), buf)
		if err != nil || got != want {
			t.Errorf("cutAt(%d) = %d, %v; want %d", p, got, err, want)
		}
	}
}

// failAt is a ReaderAt whose bytes from off on cannot be read.
type failAt struct {
	r   *bytes.Reader
	off int64
}

func (f failAt) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.off {
		n, _ := f.r.ReadAt(p[:max(0, f.off-off)], off)
		return n, fmt.Errorf("disk on fire")
	}
	return f.r.ReadAt(p, off)
}

func TestEachEventReadError(t *testing.T) {
	data := synthEvents(t, 1<<20)
	for _, chunk := range []int{1 << 20, 50000} {
		n := 0
		_, err := EachEventAt(failAt{bytes.NewReader(data), 300000}, int64(len(data)), "f.orca", EachOptions{Workers: 2, ChunkSize: chunk}, func(*Event) error {
			n++
			return nil
		})
		if err == nil || !strings.Contains(err.Error(), "disk on fire") || !strings.Contains(err.Error(), "f.orca") {
			t.Errorf("chunks of %d: got %v after %d events, want the read error", chunk, err, n)
		}
	}
}

// TestEachEventStacks checks the stack numbers EachEvent gives: those of
// a StackTable filled in file order, whatever the chunks, also when the
// stack caches forget what they hold.
func TestEachEventStacks(t *testing.T) {
	t.Run("cache", testEachEventStacks)
	defer func(n int) { maxCachedStacks = n }(maxCachedStacks)
	maxCachedStacks = 50
	t.Run("small-cache", testEachEventStacks)
}

func testEachEventStacks(t *testing.T) {
	data := synthEvents(t, 1<<20)
	want := NewStackTable()
	var ids []uint32
	evs := NewEvents(bytes.NewReader(data), "f.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, want.ID(ev.Stack))
	}
	if len(want.Frames) < 100 {
		t.Fatalf("only %d stacks", len(want.Frames))
	}
	for _, chunk := range []int{0, 20000, 3000} {
		got := NewStackTable()
		i := 0
		_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", EachOptions{Workers: 2, ChunkSize: chunk, Stacks: got}, func(ev *Event) error {
			if ev.StackID != ids[i] || !slices.Equal(got.Frames[ev.StackID], ev.Stack) {
				t.Fatalf("chunks of %d: event %d (line %d): stack %d, want %d", chunk, i, ev.Line, ev.StackID, ids[i])
			}
			i++
			return nil
		})
		if err != nil || i != len(ids) {
			t.Fatalf("chunks of %d: %d events, %v", chunk, i, err)
		}
		if !reflect.DeepEqual(got.Frames, want.Frames) {
			t.Errorf("chunks of %d: tables differ", chunk)
		}
	}
}

// TestEachEventBuffers: calls that decode with one Buffers (its batches,
// decoders and stack caches kept from call to call) hand on the same
// events, with the same stack numbers, as calls with none: a compact and a
// text file in turns, the same StackTable and then a new one, one worker
// (a compact file streamed a few events at a time: stream) or more, and a
// stack cache small enough to be emptied between and within calls.
func TestEachEventBuffers(t *testing.T) {
	t.Run("cache", testEachEventBuffers)
	defer func(n, m int) { maxCachedStacks, streamEvents = n, m }(maxCachedStacks, streamEvents)
	maxCachedStacks, streamEvents = 50, 7
	t.Run("small-cache", testEachEventBuffers)
}

func testEachEventBuffers(t *testing.T) {
	_, compact := synthCompact(t, 600<<10)
	files := map[string][]byte{"compact": compact, "text": synthEvents(t, 300<<10)}
	render := func(data []byte, opt EachOptions) string {
		var sb strings.Builder
		_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", opt, func(ev *Event) error {
			fmt.Fprintf(&sb, "%+v\n", *ev)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return sb.String()
	}
	want := map[string]string{}
	for name, data := range files {
		want[name] = render(data, EachOptions{Workers: 2, Stacks: NewStackTable()})
	}
	var bf Buffers
	tables := map[string]*StackTable{"compact": NewStackTable(), "text": NewStackTable()}
	for round, opt := range []EachOptions{
		{Workers: 2}, {Workers: 1}, {Workers: 2, ChunkSize: 20000}, {Workers: 3, ChunkSize: 100 << 10},
	} {
		for _, name := range []string{"compact", "text"} {
			if round == 2 {
				tables[name] = NewStackTable() // numbered again
			}
			opt.Stacks, opt.Buffers = tables[name], &bf
			if got := render(files[name], opt); got != want[name] {
				t.Fatalf("round %d, %s, %+v: the events differ from a call without Buffers", round, name, opt)
			}
		}
	}
	if len(bf.batches) == 0 || len(bf.decoders) < 2 {
		t.Errorf("kept %d batches and %d decoders, want some of each", len(bf.batches), len(bf.decoders))
	}
}

// TestEachEventBatch: EachOptions.Batch hands on the same events, and the
// malformed records among them in the same places, as fn one at a time: a
// compact file whole and damaged (its bytes overwritten here and there: a
// chunk's rest skipped, a run cut), a text file, each in one batch or
// many, by one worker or more, streamed (Buffers, one worker), and a time
// range of the compact file (a Span: filtered one event at a time).
func TestEachEventBatch(t *testing.T) {
	prefix, compact := synthCompact(t, 600<<10)
	damaged := bytes.Clone(compact)
	for i := 40 << 10; i+8 < len(damaged); i += 97 << 10 {
		copy(damaged[i:], "\xFF\x00\x07\x80\x80\x80\x80\x80")
	}
	text := synthEvents(t, 300<<10)
	damagedText := bytes.Clone(text)
	for i := 10 << 10; i+8 < len(damagedText); i += 37 << 10 {
		copy(damagedText[i:], "\n1.5,Nn\n")
	}
	files := map[string][]byte{"compact": compact, "damaged": damaged, "text": text, "damaged text": damagedText}
	render := func(data []byte, opt EachOptions, batch bool) string {
		var sb strings.Builder
		opt.Malformed = func(pe *ParseError) { fmt.Fprintf(&sb, "malformed %v\n", pe) }
		fn := func(ev *Event) error {
			fmt.Fprintf(&sb, "%+v\n", *ev)
			return nil
		}
		calls := 0
		each := fn
		if batch {
			opt.Batch = func(evs []Event) error {
				calls++
				for i := range evs {
					fn(&evs[i])
				}
				return nil
			}
			each = nil
		}
		_, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", opt, each)
		if err != nil {
			t.Fatal(err)
		}
		if batch && calls == 0 {
			t.Fatal("Batch never called")
		}
		return sb.String()
	}
	for name, data := range files {
		for _, opt := range []EachOptions{
			{Workers: 2}, {Workers: 1}, {Workers: 2, ChunkSize: 20000}, {Workers: 3, ChunkSize: 100 << 10},
			{Workers: 1, Buffers: &Buffers{}}, {Workers: 2, Stacks: NewStackTable()},
		} {
			want := render(data, opt, false)
			if opt.Stacks != nil {
				opt.Stacks = NewStackTable()
			}
			if got := render(data, opt, true); got != want {
				t.Errorf("%s, %+v: Batch hands on other events than fn", name, opt)
			}
			if strings.HasPrefix(name, "damaged") && !strings.Contains(want, "malformed") {
				t.Errorf("%s: no malformed record told", name)
			}
		}
	}
	rec, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	first, last, ok, err := rec.TimeBounds()
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	sp, err := rec.Span(first+(last-first)/3, first+(last-first)/2)
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	if _, err := rec.EachEvent(EachOptions{Span: sp}, func(ev *Event) error {
		want = append(want, fmt.Sprintf("%+v", *ev))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := rec.EachEvent(EachOptions{Span: sp, Batch: func(evs []Event) error {
		for i := range evs {
			got = append(got, fmt.Sprintf("%+v", evs[i]))
		}
		return nil
	}}, nil); err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("a span: %d events by Batch, %d by fn, or they differ", len(got), len(want))
	}
}
