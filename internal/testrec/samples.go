package testrec

import (
	"os"
	"testing"

	"orca/internal/format"
)

// Samples writes, through format.Writer in encoding enc, a recording with
// samples (issue 33) small enough to check by hand:
//
//   - burner (0000000A) has 8 CPU samples of 10 ms: 3 in Burner.hot at
//     line 10, 2 at line 11, 2 in Burner.warm (line 20), 1 in memcpy
//     [libc.so.6] called from Burner.hot at line 11; all under Burner.run.
//   - reader (0000000B) has 1 CPU sample of 10 ms in Burner.parse (line
//     30) and 3 wall samples of 50 ms in read [libc.so.6] called from the
//     native SocketInputStream.socketRead0 called from Burner.parse; it is
//     blocked on monitor 0000F1A6, held by burner, from 0.5 to 0.6 s.
//   - main (00000001) starts them and has no sample.
//
// CPU: 9 samples, 90 ms, Burner.hot 50 ms flat. Both kinds: 12 samples,
// 240 ms, read 150 ms flat. Each thread has ThreadCPU lines at its start
// and end. SamplesCPU, SamplesCPUNS, SamplesWall, SamplesWallNS hold the
// totals.
func Samples(t testing.TB, prefix string, enc format.Encoding) {
	t.Helper()
	files := map[string]*os.File{}
	for _, s := range []string{format.SuffixEvents, format.SuffixMethods, format.SuffixClasses, format.SuffixInfo} {
		f, err := os.Create(prefix + s)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		files[s] = f
	}
	w := format.NewWriterOptions(format.Files{Prefix: prefix, Events: files[format.SuffixEvents], Methods: files[format.SuffixMethods],
		Classes: files[format.SuffixClasses], Info: files[format.SuffixInfo]}, format.Options{Encoding: enc})
	const (
		main, burner, reader = format.ThreadID(1), format.ThreadID(0xA), format.ThreadID(0xB)
		burnerC, libc, sis   = format.ClassID(0xC1A5), format.ClassID(0xC1A6), format.ClassID(0xC1A7)
		run, hot, warm       = format.MethodID(1), format.MethodID(2), format.MethodID(3)
		memcpy, read, sread  = format.MethodID(4), format.MethodID(5), format.MethodID(6)
		parse                = format.MethodID(7)
		native               = format.NoLocation
		ms                   = format.Time(1e6)
	)
	w.Class(0, &format.Class{ID: burnerC, Signature: "LBurner;", Source: "Burner.java"})
	w.Class(0, &format.Class{ID: libc, Signature: format.NativeClassPrefix + "libc.so.6>"})
	w.Class(0, &format.Class{ID: sis, Signature: "Ljava/net/SocketInputStream;", Source: "SocketInputStream.java"})
	for _, m := range []format.Method{
		{ID: run, Name: "run", Signature: "()V", Class: burnerC, Lines: []format.LineEntry{{Start: 0, Line: 5}}},
		{ID: hot, Name: "hot", Signature: "()V", Class: burnerC, Lines: []format.LineEntry{{Start: 0, Line: 10}, {Start: 4, Line: 11}}},
		{ID: warm, Name: "warm", Signature: "()V", Class: burnerC, Lines: []format.LineEntry{{Start: 0, Line: 20}}},
		{ID: memcpy, Name: "memcpy", Class: libc},
		{ID: read, Name: "read", Class: libc},
		{ID: sread, Name: "socketRead0", Signature: "(Ljava/io/FileDescriptor;[BIII)I", Class: sis},
		{ID: parse, Name: "parse", Signature: "()V", Class: burnerC, Lines: []format.LineEntry{{Start: 0, Line: 30}}},
	} {
		w.Method(0, &m)
	}
	fr := func(m format.MethodID, loc uint32) format.Frame { return format.Frame{Method: m, Location: loc} }
	var (
		hot10  = []format.Frame{fr(hot, 0), fr(run, 0)}
		hot11  = []format.Frame{fr(hot, 4), fr(run, 0)}
		warm20 = []format.Frame{fr(warm, 0), fr(run, 0)}
		inCopy = []format.Frame{fr(memcpy, native), fr(hot, 4), fr(run, 0)}
		inRead = []format.Frame{fr(read, native), fr(sread, native), fr(parse, 0)}
		parsed = []format.Frame{fr(parse, 0)}
		start  = []format.Frame{fr(run, 0)}
	)
	ev := func(e format.Event) {
		if err := w.Event(&e); err != nil {
			t.Fatal(err)
		}
	}
	sample := func(at format.Time, th format.ThreadID, k format.SampleKind, weight format.Time, st []format.Frame) {
		ev(format.Event{Time: at, Kind: format.Sample, Thread: th, Sampled: k, Weight: int64(weight), Stack: st})
	}
	ev(format.Event{Time: 0, Kind: format.ThreadStarted, Thread: main, Name: "main"})
	ev(format.Event{Time: 100 * ms, Kind: format.ThreadStart, Thread: main, Target: burner, Stack: start})
	ev(format.Event{Time: 100 * ms, Kind: format.ThreadStarted, Thread: burner, Name: "burner"})
	ev(format.Event{Time: 100 * ms, Kind: format.ThreadCPU, Thread: burner, CPU: 0, Ready: 0})
	ev(format.Event{Time: 110 * ms, Kind: format.ThreadStart, Thread: main, Target: reader, Stack: start})
	ev(format.Event{Time: 110 * ms, Kind: format.ThreadStarted, Thread: reader, Name: "reader"})
	ev(format.Event{Time: 110 * ms, Kind: format.ThreadCPU, Thread: reader, CPU: 0, Ready: 0})
	for i, st := range [][]format.Frame{hot10, hot10, hot10, hot11, hot11, warm20, warm20, inCopy} {
		sample(200*ms+format.Time(i)*10*ms, burner, format.SampleCPU, 10*ms, st)
	}
	sample(300*ms, reader, format.SampleCPU, 10*ms, parsed)
	for i := range 3 {
		sample(350*ms+format.Time(i)*50*ms, reader, format.SampleWall, 50*ms, inRead)
	}
	ev(format.Event{Time: 500 * ms, Kind: format.MonitorContendedEnter, Thread: reader, Object: 0xF1A6, Owner: burner, Stack: parsed})
	ev(format.Event{Time: 600 * ms, Kind: format.MonitorContendedEntered, Thread: reader, Object: 0xF1A6, Stack: parsed})
	ev(format.Event{Time: 1000 * ms, Kind: format.ThreadCPU, Thread: burner, CPU: int64(80 * ms), Ready: int64(5 * ms)})
	ev(format.Event{Time: 1000 * ms, Kind: format.ThreadEnded, Thread: burner})
	ev(format.Event{Time: 1000 * ms, Kind: format.ThreadCPU, Thread: reader, CPU: int64(10 * ms), Ready: 0})
	ev(format.Event{Time: 1000 * ms, Kind: format.ThreadEnded, Thread: reader})
	ev(format.Event{Time: 1100 * ms, Kind: format.ThreadEnded, Thread: main})
	if enc != format.EncodingSeed {
		w.Info(format.InfoEncoding, enc.String())
	}
	w.Info(format.InfoFormat, format.Version)
	w.Info(format.InfoSampleCPU, int64(10*ms))
	w.Info(format.InfoSampleWall, int64(50*ms))
	w.Info(format.InfoSamples+"cpu", SamplesCPU)
	w.Info(format.InfoSamples+"wall", SamplesWall)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// The totals of Samples' recording.
const (
	SamplesCPU    = 9          // CPU samples
	SamplesCPUNS  = 90_000_000 // … the nanoseconds they stand for
	SamplesWall   = 3          // wall samples
	SamplesWallNS = 150_000_000
)
