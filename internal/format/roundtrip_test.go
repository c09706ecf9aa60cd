package format_test

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
)

// The codec's property: what format.Writer writes, internal/reader reads
// back as it was given (texts with invalid UTF-8 come back repaired, .info
// values on one line).

// rec is the content of a recording, as given to the writer.
type rec struct {
	events  []format.Event
	ext     []format.ExtEvent
	methods []format.Method
	classes []format.Class
	info    [][2]string
}

// pieces make texts that exercise the quoting: separators, quotes, line
// breaks, multi-byte and invalid UTF-8.
var pieces = []string{"a", "Z", "0", " ", ",", "\"", "\"\"", "\n", "\r", "\r\n", ";", "=", "é", "🐋", "…", "\x00", "\xff", "\xc3", "\xed\xa0\x80", "main", "pool-1-thread-2"}

func text(r *rand.Rand) string {
	var b strings.Builder
	for range r.IntN(12) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func frames(r *rand.Rand) []format.Frame {
	n := r.IntN(20)
	if n == 0 {
		return nil
	}
	fr := make([]format.Frame, n)
	for i := range fr {
		fr[i] = format.Frame{Method: format.MethodID(r.Uint32()), Location: r.Uint32()}
		if r.IntN(4) == 0 {
			fr[i].Location = format.NoLocation
		}
	}
	return fr
}

func id(r *rand.Rand) uint32 {
	switch r.IntN(8) {
	case 0:
		return 0
	case 1:
		return math.MaxUint32
	}
	return r.Uint32()
}

func timeOf(r *rand.Rand) format.Time {
	switch r.IntN(20) {
	case 0:
		return 0
	case 1:
		return math.MaxInt64
	}
	return format.Time(r.Int64N(1 << 50))
}

func optional(r *rand.Rand) int64 {
	if r.IntN(3) == 0 {
		return -1
	}
	return r.Int64N(math.MaxInt64)
}

func randomRecording(r *rand.Rand) rec {
	var c rec
	for range 200 {
		k := format.Kind(1 + r.IntN(int(format.NumKinds)-1))
		e := format.Event{Time: timeOf(r), Kind: k, Thread: format.ThreadID(id(r))}
		for _, f := range format.Specs[k].Fields {
			switch f {
			case format.FObject:
				e.Object = format.ObjectID(id(r))
			case format.FTarget:
				e.Target = format.ThreadID(id(r))
			case format.FOwner:
				e.Owner = format.ThreadID(id(r))
			case format.FName:
				e.Name = text(r)
			case format.FTimeout:
				e.Timeout = optional(r)
			case format.FHow:
				e.How = format.ParkEnd(r.IntN(int(format.NumParkEnds)))
			case format.FClass:
				e.Class = text(r)
			case format.FMode:
				e.Mode = format.AcquireMode(r.IntN(int(format.NumModes)))
			case format.FStack:
				e.Stack = frames(r)
				if r.IntN(2) == 0 {
					e.EncodedStack = format.EncodeStack(e.Stack)
				}
			}
		}
		c.events = append(c.events, e)
	}
	for range 100 {
		k := format.ExtKind(1 + r.IntN(int(format.NumExtKinds)-1))
		e := format.ExtEvent{Time: timeOf(r), Kind: k, Timeout: -1, Until: -1}
		for _, f := range format.ExtSpecs[k].Fields {
			switch f {
			case format.XThread:
				e.Thread = format.ThreadID(id(r))
			case format.XObject:
				e.Object = format.ObjectID(id(r))
			case format.XOther:
				e.Other = format.ThreadID(id(r))
			case format.XClass:
				e.Class = text(r)
			case format.XTimeout:
				e.Timeout = optional(r)
			case format.XUntil:
				e.Until = optional(r)
			case format.XTimedOut:
				e.TimedOut = r.IntN(2) == 0
			case format.XJavaID:
				e.JavaID = r.Int64() - r.Int64()
			case format.XOSID:
				e.OSID = r.Int64()
			case format.XStack:
				e.Stack = frames(r)
			}
		}
		c.ext = append(c.ext, e)
	}
	for i := range 50 {
		m := format.Method{ID: format.MethodID(i + 1), Name: text(r), Signature: text(r), Class: format.ClassID(id(r))}
		for range r.IntN(6) {
			m.Lines = append(m.Lines, format.LineEntry{Start: r.Uint32N(8), Line: r.Uint32()})
		}
		// The reader sorts a table by location, keeping the order of equal ones.
		slices.SortStableFunc(m.Lines, func(a, b format.LineEntry) int { return int(a.Start) - int(b.Start) })
		c.methods = append(c.methods, m)
	}
	for i := range 30 {
		c.classes = append(c.classes, format.Class{ID: format.ClassID(i * 7919), Signature: text(r), Source: text(r)})
	}
	for range 30 {
		c.info = append(c.info, [2]string{format.InfoKeys[r.IntN(len(format.InfoKeys))], text(r)})
	}
	return c
}

// write writes c with a format.Writer, by file suffix.
func write(t *testing.T, c rec) map[string]*bytes.Buffer {
	t.Helper()
	bufs := map[string]*bytes.Buffer{}
	for _, s := range []string{format.SuffixEvents, format.SuffixExt, format.SuffixMethods, format.SuffixClasses, format.SuffixInfo} {
		bufs[s] = &bytes.Buffer{}
	}
	w := format.NewWriter(format.Files{Prefix: "rt", Events: bufs[format.SuffixEvents], Ext: bufs[format.SuffixExt],
		Methods: bufs[format.SuffixMethods], Classes: bufs[format.SuffixClasses], Info: bufs[format.SuffixInfo]})
	for i := range c.events {
		if err := w.Event(&c.events[i]); err != nil {
			t.Fatal(err)
		}
	}
	for i := range c.ext {
		w.Ext(&c.ext[i])
	}
	for i := range c.methods {
		w.Method(format.Time(i), &c.methods[i])
	}
	for i := range c.classes {
		w.Class(format.Time(i), &c.classes[i])
	}
	for _, kv := range c.info {
		w.Info(kv[0], kv[1])
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	for k := range format.NumKinds {
		n := 0
		for _, e := range c.events {
			if e.Kind == k {
				n++
			}
		}
		if w.Written.Events[k] != int64(n) {
			t.Errorf("Written.Events[%s] = %d, wrote %d", k, w.Written.Events[k], n)
		}
	}
	if w.Written.EventBytes != int64(bufs[format.SuffixEvents].Len()) {
		t.Errorf("Written.EventBytes = %d, .orca has %d", w.Written.EventBytes, bufs[format.SuffixEvents].Len())
	}
	return bufs
}

// repaired is what a text becomes in the files.
func repaired(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

func check(t *testing.T, c rec, bufs map[string]*bytes.Buffer) {
	t.Helper()
	evs := reader.NewEvents(bytes.NewReader(bufs[format.SuffixEvents].Bytes()), "rt.orca")
	for i, want := range c.events {
		got, err := evs.Next()
		if err != nil {
			t.Fatalf("event %d (%s): %v", i, want.Kind, err)
		}
		want.Name, want.Class, want.EncodedStack = repaired(want.Name), repaired(want.Class), ""
		g := format.Event{Time: got.Time, Kind: got.Kind, Thread: got.Thread, Object: got.Object, Target: got.Target,
			Owner: got.Owner, Name: got.Name, Stack: got.Stack, Timeout: got.Timeout, How: got.How, Class: got.Class, Mode: got.Mode}
		if !sameEvent(g, want) {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, g, want)
		}
	}
	if got, err := evs.Next(); err != io.EOF {
		t.Fatalf("after the last event: %+v, %v", got, err)
	}

	xs := reader.NewExtEvents(bytes.NewReader(bufs[format.SuffixExt].Bytes()), "rt.ext")
	for i, want := range c.ext {
		got, err := xs.Next()
		if err != nil {
			t.Fatalf(".ext line %d (%s): %v", i, want.Kind, err)
		}
		want.Class = repaired(want.Class)
		g := got.ExtEvent
		if got.Name != want.Kind.String() || !slices.Equal(g.Stack, want.Stack) {
			t.Fatalf(".ext line %d:\n got %+v\nwant %+v", i, got, want)
		}
		g.Stack, want.Stack = nil, nil
		if !reflect.DeepEqual(g, want) {
			t.Fatalf(".ext line %d:\n got %+v\nwant %+v", i, g, want)
		}
	}
	if got, err := xs.Next(); err != io.EOF {
		t.Fatalf("after the last .ext line: %+v, %v", got, err)
	}

	ms, errs := reader.ReadMethods(bytes.NewReader(bufs[format.SuffixMethods].Bytes()), "rt.methods")
	if len(errs) > 0 || len(ms) != len(c.methods) {
		t.Fatalf(".methods: %d of %d read, errors %v", len(ms), len(c.methods), errs)
	}
	for _, want := range c.methods {
		got := ms[want.ID]
		want.Name, want.Signature = repaired(want.Name), repaired(want.Signature)
		if got == nil || got.Name != want.Name || got.Signature != want.Signature || got.Class != want.Class || !slices.Equal(got.Lines, want.Lines) {
			t.Fatalf(".methods %v:\n got %+v\nwant %+v", want.ID, got, want)
		}
	}

	cs, errs := reader.ReadClasses(bytes.NewReader(bufs[format.SuffixClasses].Bytes()), "rt.classtable")
	if len(errs) > 0 || len(cs) != len(c.classes) {
		t.Fatalf(".classtable: %d of %d read, errors %v", len(cs), len(c.classes), errs)
	}
	for _, want := range c.classes {
		want.Signature, want.Source = repaired(want.Signature), repaired(want.Source)
		if got := cs[want.ID]; got == nil || *got != want {
			t.Fatalf(".classtable %v:\n got %+v\nwant %+v", want.ID, got, want)
		}
	}

	info := reader.ReadInfo(bytes.NewReader(bufs[format.SuffixInfo].Bytes()))
	want := map[string]string{}
	for _, kv := range c.info {
		v := strings.NewReplacer("\r", " ", "\n", " ").Replace(repaired(kv[1]))
		if old, ok := want[kv[0]]; ok {
			v = old + "\n" + v // a repeated key: the reader keeps every value
		}
		want[kv[0]] = v
	}
	if len(info) != len(want) {
		t.Fatalf(".info: %d keys read, want %d", len(info), len(want))
	}
	for k, v := range want {
		if info[k] != v {
			t.Fatalf(".info %s: got %q, want %q", k, info[k], v)
		}
	}
}

func sameEvent(a, b format.Event) bool {
	if !slices.Equal(a.Stack, b.Stack) {
		return false
	}
	a.Stack, b.Stack = nil, nil
	return reflect.DeepEqual(a, b)
}

func TestRoundTrip(t *testing.T) {
	for seed := range uint64(30) {
		c := randomRecording(rand.New(rand.NewPCG(seed, 0x0DCA)))
		check(t, c, write(t, c))
	}
}

// FuzzText checks that any text field comes back as it was written
// (repaired when not UTF-8). Its seeds run with the unit tests.
func FuzzText(f *testing.F) {
	for _, s := range append(pieces, "", "a,b", `say "hi"`, "two\nlines", "cr\r", "\r\n\r\n", "\"\n\"", ",\"\r\n") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Count(s, "\n") > 30 || len(s) > 1<<16 {
			// A .methods line holds the text twice, and the reader
			// takes a record of at most 64 lines.
			t.Skip("over 30 line breaks")
		}
		c := rec{
			events:  []format.Event{{Time: 1, Kind: format.ThreadStarted, Thread: 1, Name: s}},
			ext:     []format.ExtEvent{{Time: 2, Kind: format.ExtObjectClass, Object: 3, Class: s, Timeout: -1, Until: -1}},
			methods: []format.Method{{ID: 1, Name: s, Signature: s, Class: 4}},
			classes: []format.Class{{ID: 4, Signature: s, Source: s}},
			info:    [][2]string{{format.InfoCommand, s}},
		}
		check(t, c, write(t, c))
	})
}

// TestWriterRefuses checks what the writer will not write, and that its
// first error sticks.
func TestWriterRefuses(t *testing.T) {
	var b bytes.Buffer
	cases := []struct {
		name  string
		write func(w *format.Writer) error
	}{
		{"no kind", func(w *format.Writer) error { return w.Event(&format.Event{Time: 1}) }},
		{"kind past the table", func(w *format.Writer) error { return w.Event(&format.Event{Kind: format.NumKinds}) }},
		{"negative time", func(w *format.Writer) error {
			return w.Event(&format.Event{Time: -1, Kind: format.ThreadEnded, Thread: 1})
		}},
		{"unknown .ext kind", func(w *format.Writer) error { return w.Ext(&format.ExtEvent{Time: 1}) }},
		{"key with =", func(w *format.Writer) error { return w.Info("a=b", 1) }},
		{"key with a newline", func(w *format.Writer) error { return w.Info("a\nb", 1) }},
		{"empty key", func(w *format.Writer) error { return w.Info("", 1) }},
		{"no such file", func(w *format.Writer) error { return w.Class(0, &format.Class{ID: 1}) }},
	}
	for _, c := range cases {
		b.Reset()
		w := format.NewWriter(format.Files{Events: &b, Info: &b, Ext: &b})
		if err := c.write(w); err == nil {
			t.Errorf("%s: no error", c.name)
		}
		if b.Len() != 0 {
			t.Errorf("%s: wrote %q", c.name, b.String())
		}
		if err := w.Event(&format.Event{Time: 1, Kind: format.ThreadEnded, Thread: 1}); err == nil || b.Len() != 0 {
			t.Errorf("%s: the error did not stick", c.name)
		}
	}
	w := format.NewWriter(format.Files{Prefix: "run", Events: failing{}})
	if err := w.Event(&format.Event{Time: 1, Kind: format.ThreadEnded, Thread: 1}); err == nil || !strings.Contains(err.Error(), "run.orca") {
		t.Errorf("a failed write: %v", err)
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestLines pins the exact bytes of each file's lines (docs/format.md).
func TestLines(t *testing.T) {
	var ev, ext, meth, cls, info bytes.Buffer
	w := format.NewWriter(format.Files{Events: &ev, Ext: &ext, Methods: &meth, Classes: &cls, Info: &info})
	st := []format.Frame{{Method: 0x1F, Location: 4}, {Method: 2, Location: format.NoLocation}}
	w.Event(&format.Event{Time: 12345_678901234, Kind: format.MonitorContendedEnter, Thread: 0xA, Object: 0xB, Owner: 0, Stack: st})
	w.Event(&format.Event{Time: 0, Kind: format.ThreadStarted, Thread: 0xA, Name: "worker \"A\", the first"})
	w.Event(&format.Event{Time: 1, Kind: format.ThreadSleep, Thread: 0xA})
	w.Ext(&format.ExtEvent{Time: 1, Kind: format.ExtWaitNotifier, Thread: 1, Object: 2, Other: 0, Timeout: 5, Until: -1, TimedOut: true})
	w.Method(1, &format.Method{ID: 1, Name: "run", Signature: "()V", Class: 0xC, Lines: []format.LineEntry{{Start: 0, Line: 10}}})
	w.Method(1, &format.Method{ID: 2, Name: "wait", Signature: "(J)V", Class: 0xC})
	w.Class(1, &format.Class{ID: 0xC, Signature: "Ljava/lang/Object;"})
	w.Info(format.InfoStart, format.Time(1_500_000_000))
	w.Info(format.InfoCommand, "a\nb\xff")
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{ev.String(), "12345.6789012340,MonitorContendedEnter,0000000A,0000000B,00000000,2;0000001F;00000004;00000002;FFFFFFFF\n" +
			"0.0000000000,ThreadStarted,0000000A,\"worker \"\"A\"\", the first\"\n" +
			"0.0000000010,ThreadSleep,0000000A,0\n"},
		{ext.String(), "0.0000000010,WaitNotifier,00000001,00000002,00000000,5,true\n"},
		{meth.String(), "0.0000000010,00000001,run,()V,0000000C,1;00000000;0000000A\n0.0000000010,00000002,wait,(J)V,0000000C,-1\n"},
		{cls.String(), "0.0000000010,0000000C,Ljava/lang/Object;,\n"},
		{info.String(), "start_s=1.5000000000\ncommand=a b\uFFFD\n"},
	} {
		if c.got != c.want {
			t.Errorf("got  %q\nwant %q", c.got, c.want)
		}
	}
}
