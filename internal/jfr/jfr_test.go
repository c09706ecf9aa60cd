package jfr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"math/big"
	"strings"
	"testing"

	jt "orca/internal/jfr/jfrtest"
)

// small is a chunk with one pooled thread, one stack and two events.
func small() *jt.Chunk {
	c := &jt.Chunk{Classes: jt.JDKClasses(), StartTicks: 10, TicksPerSecond: 1000}
	c.Thread(1, "main", 1, 42)
	c.Symbol(2, "Demo")
	c.Symbol(3, "run")
	c.Symbol(4, "()V")
	c.Class(5, 2)
	c.Method(6, 5, 3, 4, 1)
	c.FrameType(7, "Interpreted")
	c.Stack(8, false, jt.StackFrame{Method: 6, Line: 12, BCI: 3, Type: 7}, jt.StackFrame{Method: 6, Line: -1, BCI: 0, Type: 7})
	c.Event(jt.TThreadSleep, jt.Varint(2000), jt.Varint(500), jt.Varint(1), jt.Varint(8), jt.Varint(-1))
	c.Event(jt.TThreadEnd, jt.Varint(3000), jt.Varint(1), jt.Varint(0))
	return c
}

func readAll(t *testing.T, b []byte, want ...string) (events []Event, chunks []*Chunk, errs []error) {
	t.Helper()
	r := NewReader(bytes.NewReader(b), int64(len(b)), want...)
	for {
		c, err := r.NextChunk()
		if err == io.EOF {
			return
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		chunks = append(chunks, c)
		for {
			e, err := c.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				errs = append(errs, err)
				break
			}
			events = append(events, e)
		}
	}
}

func TestDecode(t *testing.T) {
	evs, chunks, errs := readAll(t, small().Bytes(), "jdk.ThreadSleep", "jdk.ThreadEnd")
	if len(errs) > 0 || len(chunks) != 1 || len(evs) != 2 {
		t.Fatalf("%d chunks, %d events, errors %v", len(chunks), len(evs), errs)
	}
	c := chunks[0]
	o := c.Obj(evs[0])
	if o.Type().Name != "jdk.ThreadSleep" {
		t.Fatalf("first event %s", o.Type().Name)
	}
	if ns := c.Header.TicksToNanos(o.Field("startTime").Int()); ns != 2e9 {
		t.Errorf("start %d ns, want 2e9", ns)
	}
	if ns, ok := o.Field("duration").Nanos(); !ok || ns != 5e8 {
		t.Errorf("duration %d ns (%v), want 5e8", ns, ok)
	}
	if ns, ok := o.Field("time").Nanos(); !ok || ns != -1e6 {
		t.Errorf("time %d ns (%v): a negative millisecond count, want -1e6", ns, ok)
	}
	th := o.Field("eventThread")
	if th.Field("javaName").Str() != "main" || th.Field("osThreadId").Int() != 42 {
		t.Errorf("thread %q %d", th.Field("javaName").Str(), th.Field("osThreadId").Int())
	}
	if k, ok := th.Ref(); !ok || k != 1 {
		t.Errorf("thread ref %d %v", k, ok)
	}
	frames := o.Field("stackTrace").Field("frames")
	if frames.Len() != 2 {
		t.Fatalf("%d frames", frames.Len())
	}
	f := frames.Index(0)
	m := f.Field("method")
	if got := m.Field("type").Field("name").Field("string").Str() + "." + m.Field("name").Field("string").Str() + m.Field("descriptor").Field("string").Str(); got != "Demo.run()V" {
		t.Errorf("method %q", got)
	}
	if f.Field("lineNumber").Int() != 12 || f.Field("bytecodeIndex").Int() != 3 || f.Field("type").Field("description").Str() != "Interpreted" {
		t.Errorf("frame line %d bci %d", f.Field("lineNumber").Int(), f.Field("bytecodeIndex").Int())
	}
	if l := frames.Index(1).Field("lineNumber").Int(); l != -1 {
		t.Errorf("line %d, want -1", l)
	}
	// Key 0 is null; missing names are the zero Obj.
	end := c.Obj(evs[1])
	if end.Field("thread").Valid() || end.Field("nope").Valid() || end.Field("thread").Field("javaName").Str() != "" {
		t.Error("null thread is valid")
	}
	// Unwanted types are skipped.
	if evs, _, _ := readAll(t, small().Bytes(), "jdk.ThreadEnd"); len(evs) != 1 {
		t.Errorf("%d events of one wanted type", len(evs))
	}
}

func TestStrings(t *testing.T) {
	for _, tc := range []struct {
		enc  []byte
		want string
	}{
		{[]byte{0}, ""},
		{[]byte{1}, ""},
		{jt.String("žluť"), "žluť"},
		{[]byte{5, 2, 0xE9, 'x'}, "éx"}, // Latin-1
		{jt.Cat([]byte{4, 3}, jt.Varint(0xD83D), jt.Varint(0xDC0B), jt.Varint('a')), "🐋a"}, // UTF-16
		{jt.Cat([]byte{4, 1}, jt.Varint(0xD83D)), "\uFFFD"},                                // lone surrogate
	} {
		d := &decoder{b: tc.enc, end: len(tc.enc)}
		s, _, _, err := d.str()
		if err != nil || s != tc.want || d.pos != len(tc.enc) {
			t.Errorf("%x: %q, %v, pos %d; want %q", tc.enc, s, err, d.pos, tc.want)
		}
	}
	for _, bad := range [][]byte{{}, {3}, {3, 5, 'a'}, {6}, {4, 9, 1}} {
		d := &decoder{b: bad, end: len(bad)}
		if _, _, _, err := d.str(); err == nil {
			t.Errorf("%x: no error", bad)
		}
	}
}

func TestVarint(t *testing.T) {
	for _, v := range []int64{0, 1, 127, 128, 1 << 40, math.MaxInt64, -1, math.MinInt64} {
		b := jt.Varint(v)
		d := &decoder{b: b, end: len(b)}
		got, err := d.long()
		if err != nil || got != v || d.pos != len(b) {
			t.Errorf("%d: %d, %v", v, got, err)
		}
	}
	if v := jt.Varint(-1); len(v) != 9 {
		t.Errorf("-1 takes %d bytes, want 9", len(v))
	}
}

func TestTicksToNanos(t *testing.T) {
	for _, tps := range []int64{1e9, 1e6, 3_000_000_007} { // ns, µs, a TSC's odd rate
		h := Header{TicksPerSecond: tps}
		for _, ticks := range []int64{0, 1, tps, 7*tps + 3, 1 << 50, math.MaxInt64} {
			want := new(big.Int).Mul(big.NewInt(ticks), big.NewInt(1e9))
			want.Quo(want, big.NewInt(tps))
			if got := h.TicksToNanos(ticks); got != want.Int64() || h.TicksToNanos(-ticks) != -got {
				t.Errorf("%d ticks at %d/s: %d ns, want %d", ticks, tps, got, want)
			}
		}
	}
}

// TestDamage checks damage that fuzzing is unlikely to build: each is an
// error, never a hang, a panic or an allocation the input does not pay for.
func TestDamage(t *testing.T) {
	good := small().Bytes()
	hdr := func(b []byte) (cp, meta int) {
		return int(binary.BigEndian.Uint64(b[16:])), int(binary.BigEndian.Uint64(b[24:]))
	}
	for _, tc := range []struct {
		name string
		make func() []byte
		want string
	}{
		{"not jfr", func() []byte { return []byte(strings.Repeat("hello ", 20)) }, "not a JFR chunk"},
		{"version 1", func() []byte { b := clone(good); b[5] = 1; return b }, "format 1.1"},
		{"in progress", func() []byte { b := clone(good); b[64] = 1; return b }, "still being written"},
		{"uncompressed", func() []byte { b := clone(good); b[67] = 2; return b }, "not compressed"},
		{"size beyond file", func() []byte { b := clone(good); binary.BigEndian.PutUint64(b[8:], 1<<62); return b }, "cut short"},
		{"zero ticks per second", func() []byte { b := clone(good); binary.BigEndian.PutUint64(b[56:], 0); return b }, "ticks per second"},
		{"metadata outside", func() []byte { b := clone(good); binary.BigEndian.PutUint64(b[24:], 3); return b }, "metadata offset"},
		{"pool offset at metadata", func() []byte {
			b := clone(good)
			_, meta := hdr(b)
			binary.BigEndian.PutUint64(b[16:], uint64(meta))
			return b
		}, "want a checkpoint"},
		{"checkpoint loop", checkpointLoop, "loops back"},
		{"self-nesting type", func() []byte {
			c := &jt.Chunk{Classes: []jt.Class{{ID: 1, Name: "long"}, {ID: 2, Name: "Nest", Fields: []jt.Field{{Name: "n", Type: 2}, {Name: "x", Type: 1}}},
				{ID: 3, Name: "E", Fields: []jt.Field{{Name: "nest", Type: 2}}}}}
			c.Event(3, jt.Varint(1))
			return c.Bytes()
		}, "nested deeper"},
		{"empty struct", func() []byte {
			c := &jt.Chunk{Classes: []jt.Class{{ID: 2, Name: "Empty"}, {ID: 3, Name: "E", Fields: []jt.Field{{Name: "e", Type: 2, Array: true}}}}}
			c.Event(3, jt.Varint(1), []byte{0})
			return c.Bytes()
		}, "no fields"},
		{"huge array", func() []byte {
			c := small()
			c.Event(jt.TThreadEnd, jt.Varint(1), jt.Varint(1))
			c.Constant(jt.TStackTrace, 9, jt.Bool(false), jt.Varint(1<<40))
			return c.Bytes()
		}, "exceeds"},
		{"unknown field type", func() []byte {
			c := &jt.Chunk{Classes: []jt.Class{{ID: 3, Name: "E", Fields: []jt.Field{{Name: "x", Type: 77}}}}}
			return c.Bytes()
		}, "unknown type id 77"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, errs := readAll(t, tc.make(), "E", "jdk.ThreadSleep", "jdk.ThreadEnd")
			if len(errs) == 0 || !strings.Contains(errs[0].Error(), tc.want) {
				t.Fatalf("errors %v, want %q", errs, tc.want)
			}
			var e *Error
			if !errors.As(errs[0], &e) {
				t.Fatalf("%T is not an *Error", errs[0])
			}
		})
	}
}

func clone(b []byte) []byte { return append([]byte(nil), b...) }

// checkpointLoop is a chunk whose two checkpoints point at each other.
func checkpointLoop() []byte {
	b := (&jt.Chunk{Classes: jt.JDKClasses()}).Bytes()
	cp := int(binary.BigEndian.Uint64(b[16:]))
	b = b[:cp]
	body := func(delta int64) []byte {
		return jt.Frame(1, jt.Cat(jt.Varint(0), jt.Varint(0), jt.Varint(delta), []byte{0}, jt.Varint(0)))
	}
	n := int64(len(body(100)))
	a := body(n) // forward to b
	b = append(b, a...)
	b = append(b, body(-int64(len(a)))...)
	binary.BigEndian.PutUint64(b[8:], uint64(len(b)))
	binary.BigEndian.PutUint64(b[16:], uint64(cp+len(a)))
	return b
}

// TestDamageEveryByte cuts the chunk at every length and changes every
// byte: errors, never panics. Later chunks are still read after a damaged one.
func TestDamageEveryByte(t *testing.T) {
	good := small().Bytes()
	for n := range len(good) {
		if _, _, errs := readAll(t, good[:n], "jdk.ThreadSleep", "jdk.ThreadEnd"); n > 0 && len(errs) == 0 {
			t.Errorf("cut at %d: no error", n)
		}
	}
	for i := range len(good) {
		for _, v := range []byte{0, 0x7F, 0x80, 0xFF} {
			b := clone(good)
			b[i] = v
			readAll(t, b, "jdk.ThreadSleep", "jdk.ThreadEnd")
		}
	}
	// A chunk whose pools are damaged is skipped; the next one is read.
	bad := clone(good)
	cp := int(binary.BigEndian.Uint64(bad[16:]))
	bad[cp+1] = 0 // the checkpoint's type
	evs, chunks, errs := readAll(t, append(bad, good...), "jdk.ThreadSleep", "jdk.ThreadEnd")
	if len(chunks) != 1 || len(evs) != 2 || len(errs) != 1 || errs[0].(*Error).Lost != int64(len(good)) {
		t.Errorf("%d chunks, %d events, errors %v", len(chunks), len(evs), errs)
	}
}
