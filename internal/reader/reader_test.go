package reader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"orca/internal/format"
)

// readAll returns the events and the error texts of a .orca file.
func readAll(t *testing.T, data []byte) (evs []Event, errs []string, truncated bool) {
	t.Helper()
	r := NewEvents(bytes.NewReader(data), "t.orca")
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs, errs, r.Truncated()
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("read error: %v", err)
			}
			errs = append(errs, err.Error())
			continue
		}
		evs = append(evs, ev)
	}
}

func TestParseErrorText(t *testing.T) {
	e := &ParseError{File: "run.orca", Line: 12, Msg: "ObjectWaited: want 5 fields, got 4"}
	if got, want := e.Error(), "run.orca:12: ObjectWaited: want 5 fields, got 4"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	_, errs, _ := readAll(t, []byte("1.0,ThreadEnded,1\n1.5,ObjectWaited,00000001,0000BEEF\n"))
	if len(errs) != 1 || errs[0] != "t.orca:2: ObjectWaited: want 5 fields, got 4" {
		t.Errorf("errors: %q", errs)
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]format.Time{
		"0":                     0,
		"12345.6789012340":      12345_678901234,
		"12345.6789012349":      12345_678901234,
		"0.1":                   100_000_000,
		"9223372036.854775807":  9223372036_854775807,
		"480181.4255238244":     480181_425523824,
		"0000000001.0000000010": 1_000000001,
	} {
		if got, ok := parseTime([]byte(in)); !ok || got != want {
			t.Errorf("parseTime(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	for _, in := range []string{"", ".", "1.", ".1", "1.2.3", "1,5", "-1", "1e9", "0.00000000001", "9223372036.854775808", "18446744073709551616"} {
		if got, ok := parseTime([]byte(in)); ok {
			t.Errorf("parseTime(%q) = %d, want an error", in, got)
		}
	}
}

func TestParseHex(t *testing.T) {
	for in, want := range map[string]uint32{"0": 0, "a": 10, "FFFFFFFF": 0xFFFFFFFF, "15DB9742": 0x15DB9742, "15db9742": 0x15DB9742} {
		if got, ok := parseHex([]byte(in)); !ok || got != want {
			t.Errorf("parseHex(%q) = %#x, %v; want %#x", in, got, ok, want)
		}
		if got, n, ok := scanHex([]byte(in + ";1")); !ok || got != want || n != len(in) {
			t.Errorf("scanHex(%q) = %#x, %d, %v; want %#x", in+";1", got, n, ok, want)
		}
	}
	for _, in := range []string{"", "123456789", "0x12", "G", " 1", "1234567g"} {
		if _, ok := parseHex([]byte(in)); ok {
			t.Errorf("parseHex(%q) succeeded", in)
		}
		if _, _, ok := scanHex([]byte(in + ";1")); ok {
			t.Errorf("scanHex(%q) succeeded", in+";1")
		}
	}
}

// Callers keep events (a model holds their stacks), so no two events may
// share a stack's backing array.
func TestStacksNotShared(t *testing.T) {
	evs, errs, _ := readAll(t, []byte(
		"1.0,ThreadSleep,1,2;00000001;00000002;00000003;00000004\n"+
			"2.0,ThreadSleep,1,2;00000005;00000006;00000007;00000008\n"))
	if len(errs) != 0 || len(evs) != 2 {
		t.Fatalf("got %d events, errors %q", len(evs), errs)
	}
	a, b := evs[0].Stack, evs[1].Stack
	if cap(a) != 2 || cap(b) != 2 {
		t.Errorf("stack capacities %d, %d; want exactly the depth", cap(a), cap(b))
	}
	a[0].Method = 99
	if b[0].Method != 5 || b[1] != (format.Frame{Method: 7, Location: 8}) {
		t.Errorf("second stack changed with the first: %v", b)
	}
}

// A read error is not a bad line: it comes back as itself, every time.
func TestReadError(t *testing.T) {
	boom := errors.New("disk on fire")
	r := NewEvents(io.MultiReader(strings.NewReader("1.0,ThreadEnded,1\n"), iotest.ErrReader(boom)), "t.orca")
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		_, err := r.Next()
		var pe *ParseError
		if !errors.Is(err, boom) || errors.As(err, &pe) {
			t.Fatalf("got %v, want the read error", err)
		}
	}
}

// Lines longer than the read buffer are read whole; lines longer than
// maxLine are one error and reading goes on.
func TestLongLines(t *testing.T) {
	const depth = 50_000 // 0.9 MB, more than the 256 KiB buffer, less than maxLine
	var b bytes.Buffer
	fmt.Fprintf(&b, "1.0,ThreadSleep,1,%d", depth)
	for i := range depth {
		fmt.Fprintf(&b, ";%08X;%08X", i, i)
	}
	b.WriteString("\n2.0,ThreadStarted,2,")
	b.WriteString(strings.Repeat("x", maxLine))
	b.WriteString("\n3.0,ThreadEnded,3\n")
	evs, errs, _ := readAll(t, b.Bytes())
	if len(evs) != 2 || len(evs[0].Stack) != depth || evs[0].Stack[depth-1].Method != depth-1 || evs[1].Line != 3 {
		t.Fatalf("got %d events", len(evs))
	}
	if want := []string{"t.orca:2: line longer than 1 MiB"}; fmt.Sprint(errs) != fmt.Sprint(want) {
		t.Errorf("errors %q, want %q", errs, want)
	}
}

// A stray quote costs its own line, however many lines follow it.
func TestStrayQuote(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("1.0,ThreadStarted,1,\"stray\n")
	for i := range 200 {
		fmt.Fprintf(&b, "%d.0,ThreadStarted,%X,\"name, %d\"\n", i+2, i+2, i)
	}
	evs, errs, _ := readAll(t, b.Bytes())
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "t.orca:1: quoted field not closed within 64 lines") {
		t.Errorf("errors %q", errs)
	}
	if len(evs) != 200 || evs[0].Line != 2 || evs[199].Line != 201 || evs[199].Name != "name, 199" {
		t.Errorf("got %d events, want 200 from line 2", len(evs))
	}
}

func writeRecording(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "run")
}

func TestOpen(t *testing.T) {
	prefix := writeRecording(t, map[string]string{
		"run.orca":       "1.0,ThreadSleep,1,1;00000001;00000003\n",
		"run.methods":    "0.1,00000001,sleep,(J)V,0000BABE,1;00000000;0000002A\n",
		"run.classtable": "0.1,0000BABE,Ljava/lang/Thread;,Thread.java\n",
		"run.info":       "format=orca-1\n",
	})
	for _, name := range []string{prefix, prefix + ".orca", prefix + ".info", prefix + ".methods"} {
		r, err := Open(name)
		if err != nil {
			t.Fatalf("Open(%q): %v", name, err)
		}
		if r.Prefix != prefix || len(r.Warnings) != 0 || r.Info["format"] != "orca-1" {
			t.Errorf("Open(%q): prefix %q, warnings %q, info %v", name, r.Prefix, r.Warnings, r.Info)
		}
		evs, c, err := r.Events()
		if err != nil {
			t.Fatal(err)
		}
		ev, err := evs.Next()
		c.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Resolve(ev.Stack[0]); got != "java.lang.Thread.sleep(Thread.java:42)" {
			t.Errorf("Resolve = %q", got)
		}
		if file, line := r.Line(ev.Stack[0]); file != "Thread.java" || line != 42 {
			t.Errorf("Line = %q, %d", file, line)
		}
		if got := r.ClassName(1); got != "java.lang.Thread" {
			t.Errorf("ClassName = %q", got)
		}
	}
	_, err := Open(filepath.Join(filepath.Dir(prefix), "absent"))
	if !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "absent.orca") {
		t.Errorf("Open of a missing recording: %v", err)
	}
}

func TestOpenUnknownFormat(t *testing.T) {
	prefix := writeRecording(t, map[string]string{"run.orca": "", "run.methods": "", "run.classtable": "", "run.info": "format=orca-9\n"})
	r, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], `format "orca-9"`) {
		t.Errorf("warnings %q", r.Warnings)
	}
}

// A Recording built by hand (as other packages' tests do) resolves too.
func TestResolveByHand(t *testing.T) {
	r := &Recording{
		Methods: map[format.MethodID]*Method{
			1: {ID: 1, Name: "run", Class: 7, Lines: []LineEntry{{Start: 0, Line: 5}, {Start: 10, Line: 6}}},
			3: {ID: 3, Name: "write0", Class: 7},                                       // native: no line table
			4: {ID: 4, Name: "get", Class: 8, Lines: []LineEntry{{Start: 0, Line: 9}}}, // no source file
		},
		Classes: map[format.ClassID]*Class{7: {ID: 7, Signature: "Lp/Hidden.0x1234;", Source: "Hidden.java"}, 8: {ID: 8, Signature: "Lq/R;"}},
	}
	for fr, want := range map[format.Frame]string{
		{Method: 1, Location: 12}: "p.Hidden/0x1234.run(Hidden.java:6)",
		// A method with a line table is not native: a sample's frame of
		// unknown bytecode (ActiveMQ's getRegionDestination read "(Native
		// Method)").
		{Method: 1, Location: format.NoLocation}: "p.Hidden/0x1234.run(Hidden.java)",
		{Method: 4, Location: format.NoLocation}: "q.R.get(Unknown Source)",
		{Method: 3, Location: format.NoLocation}: "p.Hidden/0x1234.write0(Native Method)",
		{Method: 2}:                              "<unknown method 00000002>",
	} {
		if got := r.Resolve(fr); got != want {
			t.Errorf("Resolve(%v) = %q, want %q", fr, got, want)
		}
	}
	if r.ClassName(2) != "" {
		t.Error("ClassName of an unknown method is not empty")
	}
}

func TestInfo(t *testing.T) {
	m, errs := readInfo(strings.NewReader("a=1\r\nwarning=x\n\nwarning=y=z\nbad\nwarning=\n"), "t.info")
	if m["a"] != "1" || m["warning"] != "x\ny=z\n" || len(m) != 2 {
		t.Errorf("got %q", m)
	}
	if len(errs) != 1 || errs[0].Error() != "t.info:5: want key=value" {
		t.Errorf("errors %v", errs)
	}
}

// TestInfoAccessors reads the run facts the commands use through Info's
// accessors: one decision each, for the report, the viewer, the exports
// and orca record's summary.
func TestInfoAccessors(t *testing.T) {
	in := ReadInfo(strings.NewReader("complete=false\nstart_s=1.5\nend_s=3.25\ndropped_total=x\n" +
		"events.ThreadPark=2\nevents.Zebra=5\nevents.ObjectWait=3\nevents.ThreadSleep=0\n" +
		"owner_unknown.released=4\nowner_unknown.bad=?\nwarning=a\nwarning=b\norigin_unix_ns=100\norigin_mono_ns=7\n"))
	if c, known := in.Complete(); c || !known || !in.Incomplete() {
		t.Errorf("Complete() = %v, %v", c, known)
	}
	if s, e, ok := in.Span(); !ok || s != 1500000000 || e != 3250000000 {
		t.Errorf("Span() = %v, %v, %v", s, e, ok)
	}
	if _, ok := in.Dropped(); ok {
		t.Error("a malformed dropped_total is known")
	}
	if got := fmt.Sprint(in.KindCounts(format.InfoEvents)); got != "[{ObjectWait 3} {ThreadPark 2} {Zebra 5}]" {
		t.Errorf("KindCounts = %s", got)
	}
	if got := in.Counters(format.InfoOwnerUnknown + "."); len(got) != 1 || got["released"] != 4 {
		t.Errorf("Counters = %v", got)
	}
	if w := in.Warnings(); len(w) != 2 || w[1] != "b" || !in.ParksRecorded() {
		t.Errorf("Warnings = %q, ParksRecorded %v", w, in.ParksRecorded())
	}
	if u, m, ok := in.Origin(); !ok || u != 100 || m != 7 {
		t.Errorf("Origin() = %d, %d, %v", u, m, ok)
	}
	var none Info
	if _, known := none.Complete(); known || none.Incomplete() || none.Warnings() != nil || none.Cut() != nil || none.Sight() != nil {
		t.Error("a recording without .info says something")
	}
}

// The generated recording used by the benchmark decodes without errors and
// survives the agent's encoding unchanged.
func TestGenerated(t *testing.T) {
	data := genEvents(5000)
	evs, errs, truncated := readAll(t, data)
	if len(evs) != 5000 || len(errs) != 0 || truncated {
		t.Fatalf("got %d events, errors %q, truncated %v", len(evs), errs, truncated)
	}
	var again bytes.Buffer
	for _, ev := range evs {
		again.Write(encodeEvent(ev))
	}
	if !bytes.Equal(again.Bytes(), data) {
		t.Error("re-encoding differs from the input")
	}
}

// zeros reads as n NUL bytes (an endless device, such as /dev/full, cut
// at n so that a reader that would spin on it ends), counting what was read.
type zeros struct{ n, read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.read >= z.n {
		return 0, io.EOF
	}
	k := int(min(int64(len(p)), z.n-z.read))
	clear(p[:k])
	z.read += int64(k)
	return k, nil
}

// TestEndlessLine is issue 12's `orca report` on a link to /dev/full: NULs
// without a newline, which the reader read to the (never coming) newline
// at 100 % CPU. It must stop after maxSkip bytes, with an error that names
// the file and line.
func TestEndlessLine(t *testing.T) {
	z := &zeros{n: 4 * maxSkip}
	evs := NewEvents(io.MultiReader(strings.NewReader("1.0,ThreadEnded,1\n"), z), "t.orca")
	if ev, err := evs.Next(); err != nil || ev.Kind != format.ThreadEnded {
		t.Fatalf("first line: %+v, %v", ev, err)
	}
	_, err := evs.Next()
	var pe *ParseError
	if err == nil || errors.As(err, &pe) || err.Error() != "reading t.orca: line 2: no newline in 64 MiB: not a recording" {
		t.Errorf("got %v, want a read error", err)
	}
	if z.read > maxSkip+eventsBufSize {
		t.Errorf("read %d bytes of NULs; want at most %d", z.read, maxSkip+eventsBufSize)
	}
	if _, err2 := evs.Next(); fmt.Sprint(err2) != fmt.Sprint(err) {
		t.Errorf("then %v", err2)
	}
}

// TestNotRegular: a recording whose .orca is a device is refused before
// reading (it would never end); a metadata file that is one is ignored
// with a warning.
func TestNotRegular(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	prefix := filepath.Join(dir, "full")
	if err := os.Symlink("/dev/full", prefix+".orca"); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(prefix); err == nil || err.Error() != "opening recording: "+prefix+".orca is not a regular file" {
		t.Errorf("Open = %v", err)
	}
	prefix = filepath.Join(dir, "meta")
	if err := os.WriteFile(prefix+".orca", []byte("1.0,ThreadEnded,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{".info", ".methods", ".classtable"} {
		if err := os.Symlink("/dev/full", prefix+s); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if r.Info != nil || !slices.Contains(r.Warnings, prefix+".info: not a regular file; ignored") || !slices.Contains(r.Warnings, prefix+".methods: not a regular file; ignored") {
		t.Errorf("info %v, warnings %q", r.Info, r.Warnings)
	}
}

// TestDemangleNatives: the C++ symbols of native frames (libjvm's, from its
// .symtab) read demangled and without parameters; a C symbol, an unnamed
// frame and a Java method whose name looks mangled stay as they are.
func TestDemangleNatives(t *testing.T) {
	r := &Recording{
		Methods: map[format.MethodID]*Method{
			1: {ID: 1, Name: "_ZN13ObjectMonitor5enterEP10JavaThread", Class: 9},
			2: {ID: 2, Name: "read", Class: 9},
			3: {ID: 3, Name: "", Class: 9},
			4: {ID: 4, Name: "_ZN3FooE", Class: 7},
			5: {ID: 5, Name: "_ZN15G1CollectedHeap23attempt_allocation_slowEm.cold", Class: 9},
		},
		Classes: map[format.ClassID]*Class{7: {ID: 7, Signature: "Lp/Odd;"}, 9: {ID: 9, Signature: "<native:libjvm.so>"}},
	}
	r.demangleNatives()
	for id, want := range map[format.MethodID]string{1: "ObjectMonitor::enter", 2: "read", 3: "", 4: "_ZN3FooE", 5: "G1CollectedHeap::attempt_allocation_slow"} {
		if got := r.Methods[id].Name; got != want {
			t.Errorf("method %d: %q, want %q", id, got, want)
		}
	}
	if got := r.Resolve(format.Frame{Method: 1, Location: format.NoLocation}); got != "ObjectMonitor::enter [libjvm.so]" {
		t.Errorf("Resolve: %q", got)
	}
}
