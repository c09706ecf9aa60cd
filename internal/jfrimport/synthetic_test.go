package jfrimport

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"

	jt "orca/internal/jfr/jfrtest"
)

// synthetic is jfrtest.Sample: main starts a worker, which contends on a
// Lock held by main, sleeps, parks and ends; main waits on the Lock and is
// notified by the worker, then joins the worker.
func synthetic() []byte { return jt.Sample() }

func syntheticSeeds() [][]byte {
	s := synthetic()
	return [][]byte{s, s[:len(s)-1], s[:len(s)/2], append(append([]byte(nil), s...), s...)}
}

func TestImportSynthetic(t *testing.T) {
	fs, bufs := bufferFiles("syn", format.EncodingSeed)
	res, err := convert(bytes.NewReader(synthetic()), -1, fs, Options{Source: "syn.jfr"})
	if err != nil {
		t.Fatal(err)
	}
	checkOutput(t, bufs)
	main := threadKey{java: 1}.hash()
	worker := threadKey{java: 7}.hash()
	lock := objectKey{"LDemo$Lock;", 0x7f00}.hash()
	blocker := objectKey{"LDemo$Blocker;", 0x4000}.hash()
	r := strings.NewReplacer("MAIN", fmt.Sprintf("%08X", main), "WORKER", fmt.Sprintf("%08X", worker),
		"LOCK", fmt.Sprintf("%08X", lock), "BLOCKER", fmt.Sprintf("%08X", blocker))
	// 1 tick = 1 µs; times are the tick counter's (not the wall clock).
	want := r.Replace(`0.0010000000,ThreadStarted,MAIN,main
0.0010000000,ThreadStart,MAIN,WORKER,1;00000003;00000007
0.0010000000,ThreadStarted,WORKER,"worker, ""w"""
0.0020000000,ObjectClass,WORKER,LOCK,LDemo$Lock;
0.0020000000,MonitorContendedEnter,WORKER,LOCK,MAIN,1;00000002;00000003
0.0025000000,MonitorContendedEntered,WORKER,LOCK,1;00000002;00000003
0.0030000000,ObjectWait,MAIN,LOCK,2;00000003;00000014;00000003;00000007
0.0040000000,ObjectNotify,WORKER,LOCK,0
0.0040000000,ObjectWaited,MAIN,LOCK,2;00000003;00000014;00000003;00000007
0.0050000000,ThreadSleep,WORKER,2;00000001;FFFFFFFF;00000002;00000009
0.0070000000,ThreadSlept,WORKER,2;00000001;FFFFFFFF;00000002;00000009
0.0070000000,ObjectClass,WORKER,BLOCKER,LDemo$Blocker;
0.0070000000,ThreadPark,WORKER,BLOCKER,00000000,5000,,1;00000002;00000003
0.0071000000,ThreadUnparked,WORKER,BLOCKER,timeout,0
0.0080000000,ThreadJoin,MAIN,WORKER,2;00000004;00000005;00000003;0000001E
0.0090000000,ThreadEnded,WORKER
0.0095000000,ThreadJoined,MAIN,WORKER,2;00000004;00000005;00000003;0000001E
`)
	if got := bufs[".orca"].String(); got != want {
		t.Errorf(".orca:\n%s\nwant:\n%s", got, want)
	}
	wantExt := r.Replace(`0.0010000000,JavaThread,MAIN,1,100
0.0010000000,JavaThread,WORKER,7,101
0.0020000000,ObjectClass,LOCK,LDemo$Lock;
0.0040000000,WaitNotifier,MAIN,LOCK,WORKER,,false
0.0050000000,SleepTime,WORKER,2000000
0.0070000000,ObjectClass,BLOCKER,LDemo$Blocker;
`)
	if got := bufs[".ext"].String(); got != wantExt {
		t.Errorf(".ext:\n%s\nwant:\n%s", got, wantExt)
	}
	// Line tables hold the bytecode indexes seen; no source files.
	// Ids in the order events name them in the file; dated by the chunk.
	wantMethods := r.Replace(`0.0005000000,00000001,sleep,(J)V,CLS2,-1
0.0005000000,00000002,run,()V,CLS1,2;00000003;00000014;00000009;00000016
0.0005000000,00000003,main,([Ljava/lang/String;)V,CLS1,3;00000007;0000000C;00000014;0000000E;0000001E;00000010
0.0005000000,00000004,join,(J)V,CLS2,1;00000005;00000064
`)
	wantMethods = strings.NewReplacer("CLS1", fmt.Sprintf("%08X", classHash("LDemo;")), "CLS2", fmt.Sprintf("%08X", classHash("Ljava/lang/Thread;"))).Replace(wantMethods)
	if got := bufs[".methods"].String(); got != wantMethods {
		t.Errorf(".methods:\n%s\nwant:\n%s", got, wantMethods)
	}
	wantClasses := fmt.Sprintf("0.0005000000,%08X,Ljava/lang/Thread;,\n0.0005000000,%08X,LDemo;,\n", classHash("Ljava/lang/Thread;"), classHash("LDemo;"))
	if got := bufs[".classtable"].String(); got != wantClasses {
		t.Errorf(".classtable:\n%s\nwant:\n%s", got, wantClasses)
	}
	info := bufs[".info"].String()
	for _, kv := range []string{"origin_unix_ns=1700000000000000000\n", "origin_mono_ns=500000\n", "complete=true\n",
		"truncated_stacks=1\n", "events.ThreadStarted=2\n", "joins_from_waits=1\n", "notifies_from_waits=1\n", "dropped_total=0\n", "events.ThreadPark=1\n", "jfr_events.jdk.JavaMonitorWait=2\n"} {
		if !strings.Contains(info, kv) {
			t.Errorf(".info lacks %q:\n%s", kv, info)
		}
	}
	if res.Threads != 2 || res.Objects != 2 || res.Methods != 4 || res.Classes != 2 {
		t.Errorf("result %+v", res)
	}

	// What orca report builds on: the wait woken by the worker's notify,
	// the join of the worker.
	prefix := filepath.Join(t.TempDir(), "syn")
	if _, err := Import(bytes.NewReader(synthetic()), -1, prefix, Options{}); err != nil {
		t.Fatal(err)
	}
	m := checkModel(t, readBack(t, prefix).rec)
	var waits, joins int
	for _, th := range m.Threads {
		for _, iv := range th.Intervals {
			switch {
			case iv.Cont:
			case iv.State == model.Waiting && th.ID == format.ThreadID(main) && iv.Wake == model.WakeNotify && iv.Other == format.ThreadID(worker):
				waits++
			case iv.State == model.Joining && th.ID == format.ThreadID(main) && iv.Other == format.ThreadID(worker):
				joins++
			case iv.State == model.Waiting || iv.State == model.Joining:
				t.Errorf("thread %v: %+v", th.ID, iv)
			}
		}
	}
	if waits != 1 || joins != 1 {
		t.Errorf("model: %d waits woken by the worker's notify, %d joins of the worker; want 1, 1", waits, joins)
	}
}

// TestExtReader checks reader.ExtEvents on lines the import never writes
// (the reader's own tests cover the other files; this file is the
// import's).
func TestExtReader(t *testing.T) {
	in := `1.0000000000,ThreadPark,0000000A,0000000B,,,0
1.5000000000,Future,whatever,fields
2.0000000000,WaitNotifier,0000000A,0000000B,0000000C,30000000,true
2.5000000000,WaitNotifier,0000000A,0000000B,0000000C,30000000
3.0000000000,SleepTime,XYZ,5
3.5000000000,JavaThread,0000000A,12,-1
4.0000000000,ObjectClass,0000000B,"LFoo,Bar;"
5.0000000000,ThreadUnparked,0000000A,0000000B,0`
	xs := reader.NewExtEvents(strings.NewReader(in), "t.ext")
	var got []string
	for {
		x, err := xs.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			got = append(got, "error: "+err.Error())
			continue
		}
		got = append(got, fmt.Sprintf("%d %s %v %v %v %q %d %d %v %d %d", x.Line, x.Name, x.Thread, x.Object, x.Other, x.Class, x.Timeout, x.Until, x.TimedOut, x.JavaID, x.OSID))
	}
	want := []string{
		`1 ThreadPark 0000000A 0000000B 00000000 "" -1 -1 false 0 0`,
		`2 Future 00000000 00000000 00000000 "" -1 -1 false 0 0`,
		`3 WaitNotifier 0000000A 0000000B 0000000C "" 30000000 -1 true 0 0`,
		`error: t.ext:4: WaitNotifier: want 7 fields, got 6`,
		`error: t.ext:5: SleepTime: field 3 "XYZ": want 1-8 hex digits`,
		`6 JavaThread 0000000A 00000000 00000000 "" -1 -1 false 12 -1`,
		`7 ObjectClass 00000000 0000000B 00000000 "LFoo,Bar;" -1 -1 false 0 0`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !xs.Truncated() {
		t.Error("the last line, without a newline, is not reported cut")
	}
}

// TestImportFilesPlanted (issue 30): the import's files are made under random temporary names,
// exclusively: a link another user put at the name they had (PREFIX.EXT.importing, fixed) is not
// written through, and the files are the user's alone (0600).
func TestImportFilesPlanted(t *testing.T) {
	dir := t.TempDir()
	prefix := filepath.Join(dir, "imp")
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ext := range Exts {
		if err := os.Symlink(victim, prefix+ext+".importing"); err != nil {
			t.Fatal(err)
		}
	}
	fs, err := createFiles(prefix, format.EncodingSeed)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range Exts {
		fs.w[ext].WriteString("written\n")
	}
	if err := fs.commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "precious" {
		t.Errorf("the planted links' target was written through: %q", b)
	}
	for _, ext := range Exts {
		fi, err := os.Lstat(prefix + ext)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s%s: %v, %v; want a regular file of mode 0600", prefix, ext, fi.Mode(), err)
		}
	}
}

// TestImportCompiledFrames: JFR writes bytecode index -1 for some compiled frames ("JIT
// compiled", "Inlined": a synchronized method's entry in compiled code) with their line. Such a
// frame is no native method: it resolves to its line, and at the line of an interpreted frame
// of the same method it is the same frame, so one call site stays one stack (issue 31, item 8:
// it was "(Native Method)", the site split in two). A native method's frame (JFR types it
// "Native"; it has no line table) stays native.
func TestImportCompiledFrames(t *testing.T) {
	c := &jt.Chunk{Classes: jt.JDKClasses(), StartNanos: 1_700_000_000_000_000_000, StartTicks: 500, TicksPerSecond: 1_000_000}
	c.Thread(1, "main", 1, 100)
	c.Symbol(10, "Demo")
	c.Symbol(11, "Demo$Lock")
	c.Symbol(14, "run")
	c.Symbol(15, "()V")
	c.Symbol(16, "step")
	c.Symbol(17, "pause0")
	c.Class(20, 10)
	c.Class(21, 11)
	c.Method(31, 20, 14, 15, 0x21)  // Demo.run, public synchronized
	c.Method(32, 20, 16, 15, 0x21)  // Demo.step, public synchronized
	c.Method(33, 20, 17, 15, 0x109) // Demo.pause0, public static native
	c.FrameType(40, "Interpreted")
	c.FrameType(41, "Native")
	c.FrameType(42, "JIT compiled")
	c.FrameType(43, "Inlined")
	// run: interpreted at bci 0 first, then compiled at -1; step: inlined at -1 first, then
	// interpreted; then a native method's frame, typed Native (no line table: native).
	c.Stack(50, false, jt.StackFrame{Method: 31, Line: 20, BCI: 0, Type: 40})
	c.Stack(51, false, jt.StackFrame{Method: 31, Line: 20, BCI: -1, Type: 42})
	c.Stack(52, false, jt.StackFrame{Method: 32, Line: 30, BCI: -1, Type: 43}, jt.StackFrame{Method: 31, Line: 21, BCI: 5, Type: 42})
	c.Stack(53, false, jt.StackFrame{Method: 32, Line: 30, BCI: 0, Type: 40}, jt.StackFrame{Method: 31, Line: 21, BCI: 5, Type: 40})
	c.Stack(54, false, jt.StackFrame{Method: 33, Line: -1, BCI: -1, Type: 41})
	for i, st := range []int64{50, 51, 52, 53, 54} {
		c.Event(jt.TMonitorEnter, jt.Varint(int64(1000*(i+1))), jt.Varint(500), jt.Varint(1), jt.Varint(st), jt.Varint(21), jt.Varint(0), jt.Varint(0x7f00))
	}
	prefix := filepath.Join(t.TempDir(), "jit")
	if _, err := Import(bytes.NewReader(c.Bytes()), -1, prefix, Options{}); err != nil {
		t.Fatal(err)
	}
	im := readBack(t, prefix)
	var sites []string
	for _, ev := range im.events {
		if ev.Kind != format.MonitorContendedEnter {
			continue
		}
		var s []string
		for _, f := range ev.Stack {
			s = append(s, im.rec.Resolve(f))
		}
		sites = append(sites, strings.Join(s, " < "))
	}
	want := []string{
		"Demo.run(Unknown Source:20)",
		"Demo.run(Unknown Source:20)",
		"Demo.step(Unknown Source:30) < Demo.run(Unknown Source:21)",
		"Demo.step(Unknown Source:30) < Demo.run(Unknown Source:21)",
		"Demo.pause0(Native Method)",
	}
	if strings.Join(sites, "\n") != strings.Join(want, "\n") {
		t.Errorf("the enters' stacks:\n%s\nwant:\n%s", strings.Join(sites, "\n"), strings.Join(want, "\n"))
	}
	var enters []reader.Event
	for _, ev := range im.events {
		if ev.Kind == format.MonitorContendedEnter {
			enters = append(enters, ev)
		}
	}
	// A compiled frame after an interpreted one at its line takes its location: the same stack.
	// (One first seen compiled keeps a location of its own, at the same line: the report's
	// sites, grouped by line, and the frames' names are one.)
	if len(enters) == 5 && fmt.Sprint(enters[0].Stack) != fmt.Sprint(enters[1].Stack) {
		t.Errorf("one call site, two frames: %v %v", enters[0].Stack, enters[1].Stack)
	}
}
