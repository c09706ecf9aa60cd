package synth_test

import (
	"bytes"
	"io"
	"reflect"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/reader"
	"orca/internal/synth"
)

// TestFolds checks that a generated recording is what the generator
// promises: it decodes without errors, every kind occurs, and the fold
// finds nothing out of place and no broken invariant.
func TestFolds(t *testing.T) {
	var buf bytes.Buffer
	st, err := synth.New(synth.Options{Size: 4 << 20, Seed: 7, LockOrder: true, Conditions: true}).WriteEvents(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if st.Bytes != int64(buf.Len()) || st.Bytes < 4<<20 {
		t.Fatalf("stats say %d bytes, wrote %d", st.Bytes, buf.Len())
	}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		if st.Kinds[k] == 0 {
			t.Errorf("no %s event", k)
		}
	}
	b := model.New()
	n := 0
	_, err = reader.EachEventAt(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "synth.orca", reader.EachOptions{
		Malformed: func(pe *reader.ParseError) { t.Error(pe) },
	}, func(ev *reader.Event) error {
		n++
		b.Event(ev)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if int64(n) != st.Lines {
		t.Errorf("%d events read, %d written", n, st.Lines)
	}
	m := b.Finalize()
	for _, p := range m.Problems {
		t.Error(p)
	}
	for _, e := range modeltest.Validate(m) {
		t.Error(e)
	}
	if len(m.Threads) < 200 || len(m.Locks) < 100 || len(m.Stacks) < 1000 {
		t.Errorf("%d threads, %d locks, %d stacks: want at least 200, 100, 1000", len(m.Threads), len(m.Locks), len(m.Stacks))
	}
}

// TestDeterministic checks that the output depends only on the options.
func TestDeterministic(t *testing.T) {
	gen := func(seed uint64) []byte {
		var b bytes.Buffer
		g := synth.New(synth.Options{Size: 1 << 20, Seed: seed})
		if _, err := g.WriteEvents(&b); err != nil {
			t.Fatal(err)
		}
		if err := g.WriteMethods(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b, c := gen(1), gen(1), gen(2)
	if !bytes.Equal(a, b) {
		t.Error("same seed, different output")
	}
	if bytes.Equal(a, c) {
		t.Error("different seeds, same output")
	}
}

// TestCompact checks the generator's compact encoding: the same events as
// the text (more of them, as Size counts bytes), and .info says so.
func TestCompact(t *testing.T) {
	read := func(enc format.Encoding) []reader.Event {
		var b bytes.Buffer
		if _, err := synth.New(synth.Options{Size: 1 << 20, Seed: 3, Encoding: enc}).WriteEvents(&b); err != nil {
			t.Fatal(err)
		}
		var evs []reader.Event
		_, err := reader.EachEventAt(bytes.NewReader(b.Bytes()), int64(b.Len()), "s.orca", reader.EachOptions{
			Malformed: func(pe *reader.ParseError) { t.Fatal(pe) },
		}, func(ev *reader.Event) error {
			e := *ev
			e.Stack = append([]format.Frame(nil), e.Stack...)
			evs = append(evs, e)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return evs
	}
	text, compact := read(format.EncodingSeed), read(format.EncodingCompact)
	if len(compact) < 5*len(text) {
		t.Fatalf("%d compact events in 1 MiB, %d text ones", len(compact), len(text))
	}
	for i := range text {
		text[i].Line, compact[i].Line = 0, 0
		if !reflect.DeepEqual(text[i], compact[i]) {
			t.Fatalf("event %d:\n compact %+v\n    text %+v", i, compact[i], text[i])
		}
	}
	var info bytes.Buffer
	synth.New(synth.Options{Encoding: format.EncodingCompact}).WriteInfo(&info)
	if !bytes.Contains(info.Bytes(), []byte("\nencoding=compact\n")) {
		t.Errorf(".info:\n%s", info.String())
	}
}

// TestSlow checks Options.Slow: the same mix of events (each frequent kind's share within a
// tenth of the default's) at about 1/Slow the rate.
func TestSlow(t *testing.T) {
	gen := func(slow int) synth.Stats {
		st, err := synth.New(synth.Options{Size: 4 << 20, Seed: 5, Slow: slow}).WriteEvents(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	a, b := gen(1), gen(5)
	rate := func(st synth.Stats) float64 { return float64(st.Lines) / float64(st.End-st.Start) }
	if r := rate(a) / rate(b); r < 4.5 || r > 5.5 {
		t.Errorf("Slow 5: 1/%.2f the events a second, want about 1/5", r)
	}
	for k := range a.Kinds {
		if a.Kinds[k] < 2000 {
			continue
		}
		sa, sb := float64(a.Kinds[k])/float64(a.Lines), float64(b.Kinds[k])/float64(b.Lines)
		if sb < sa*0.9 || sb > sa*1.1 {
			t.Errorf("%v: %.4f of the events with Slow 5, %.4f without", format.Kind(k), sb, sa)
		}
	}
}
