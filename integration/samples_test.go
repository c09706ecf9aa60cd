package integration

import (
	"cmp"
	"debug/elf"
	"fmt"
	"io"
	"maps"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/testjvm"
)

// TestSamples is issue 33's test of the samplers (docs/agent.md, "The sample path") on Sampled
// (testdata/java/scenarios), started with the agent and attached to (orca record --pid; the
// reader and the sleeper are blocked before the attach, the burners start after it), on each JDK:
//   - each burner's CPU samples stand for its CPU as the JVM measured it (ThreadMXBean), within
//     5 % (their weights: a sample whose timer overran stands for more than 10 ms), and their
//     count is 95-102 % of that CPU ÷ 10 ms with perf_events' task clock (.info
//     sample_cpu_clock perf; 80 % with the rest carried in weights: signals the kernel lost),
//     50-102 % with another clock (the test logs it: a timer's overruns
//     come with load); .info sample_cpu_folded agrees with the weights (checkFolded);
//   - the burner's hot method (Sampled.burnA, burnB) is the innermost frame of 90 % of its samples;
//   - the thread that sleeps all along has no CPU sample;
//   - on JDK 25 the virtual thread's samples (burning in Sampled.burnV on a carrier) are the
//     virtual thread's, and no carrier has a sample in burnV;
//   - no sample is timed before its thread's ThreadStarted;
//   - the acceptor's wall samples are in the C library's accept, but for at most one from before
//     it got there;
//   - the thread that reads a slow socket has wall samples, most of them in the C library's read
//     or recv (a native frame, class <native:libc...>), with its Java frames below;
//   - no sample is lost but for at most 1 % of walks AsyncGetCallTrace refuses (.info
//     samples_lost.walk, .state), .info counts the CPU samples written and states the intervals.
func TestSamples(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		t.Run("start", func(t *testing.T) {
			e, prefix := recordExpect(t, j, "Sampled", "1500")
			checkSamples(t, e, prefix)
		})
		t.Run("attach", func(t *testing.T) {
			dir := newDir(t)
			a := startAttacheeCmd(t, testjvm.Command(t, dir, j.argv(dir, "-cp", classes(t), "Sampled", "1500", "wait")...), dir)
			pid := strconv.Itoa(a.cmd.Process.Pid)
			w := filepath.Join(dir, "w")
			o := startOrca(t, dir, "orca: recording pid "+pid+" (Sampled) to ", "record", "--pid", pid, "-o", w)
			// An attach's samples begin at the writer's first flush (200 ms: docs/agent.md, "The
			// sample path"), which makes the jmethodIDs: the burners start after it.
			time.Sleep(time.Second)
			if _, err := io.WriteString(a.stdin, "go\n"); err != nil {
				t.Fatal(err)
			}
			line := a.expectLine(t, "EXPECT ")
			if code := o.stop(t); code != 0 {
				t.Fatalf("orca record --pid: exit %d:\n%s", code, o.stderr)
			}
			io.WriteString(a.stdin, "exit\n")
			checkSamples(t, parseExpect(t, &result{stdout: line}), w)
		})
	})
}

// isNative: a native or VM frame's pseudo-class (format.NativeClassPrefix).
func isNative(f frame) bool { return format.IsNativeClass(f.Class) }

func checkSamples(t *testing.T, e expect, prefix string) {
	t.Helper()
	r := load(t, prefix)
	if len(r.parseErrs) > 0 {
		t.Errorf("%d lines not read, the first: %v", len(r.parseErrs), r.parseErrs[0])
	}
	if r.info[format.InfoSampleCPU] != "10000000" || r.info[format.InfoSampleWall] != "50000000" || r.info[format.InfoSampleWallThreads] != "8" {
		t.Errorf(".info: %s=%q %s=%q %s=%q, want the defaults 10000000, 50000000, 8", format.InfoSampleCPU, r.info[format.InfoSampleCPU],
			format.InfoSampleWall, r.info[format.InfoSampleWall], format.InfoSampleWallThreads, r.info[format.InfoSampleWallThreads])
	}
	// The wall sampler's own CPU (its scans and signals), told when it stopped.
	if v, err := strconv.ParseInt(r.info[format.InfoSampleWallSamplerCPU], 10, 64); err != nil || v <= 0 {
		t.Errorf(".info %s=%q, want the wall sampler's CPU in ns", format.InfoSampleWallSamplerCPU, r.info[format.InfoSampleWallSamplerCPU])
	}
	// A walk AsyncGetCallTrace refuses (a thread between two frames it can read, at a
	// safepoint, in a collection) is lost, counted: a few; nothing else.
	walkLost := 0
	for k, v := range r.info {
		if why, ok := strings.CutPrefix(k, format.InfoSamplesLost); ok {
			if n, err := strconv.Atoi(v); err == nil && (why == "walk" || why == "state") {
				walkLost += n
				continue
			}
			t.Errorf(".info %s=%s: samples lost", k, v)
		}
	}
	// A sample is timed when it was taken: not before its thread's
	// ThreadStarted (a drain once put the samples taken while it ran at its
	// start: a carrier's samples of its virtual thread, before both began).
	// After its ThreadEnded it may still run, in the VM.
	started := map[format.ThreadID]format.Time{}
	early := 0
	for _, ev := range r.events {
		if ev.Kind == format.ThreadStarted {
			started[ev.Thread] = ev.Time
		}
	}
	for _, ev := range r.events {
		if ev.Kind == format.Sample && ev.Time < started[ev.Thread] {
			if early++; early <= 3 {
				t.Errorf("a sample of %v at %v, before its ThreadStarted at %v", ev.Thread, ev.Time, started[ev.Thread])
			}
		}
	}
	type tally struct {
		cpu, wall     int
		cpuNs         int64
		innermost     map[string]int // cpu samples by innermost frame
		innermostApp  map[string]int // ... by innermost frame of Sampled's own (a JDK method inlined in it is its time)
		wallNative    int            // wall samples whose innermost frame is native
		wallRead      int            // ... the C library's read or recv, with Java frames below
		wallAccept    int            // ... the C library's accept, with Java frames below
		wallInnermost map[string]int
		weights       map[int64]int // cpu samples by weight, in intervals rounded
	}
	by := map[format.ThreadID]*tally{}
	for i, ev := range r.events {
		if ev.Kind != format.Sample {
			continue
		}
		tl := by[ev.Thread]
		if tl == nil {
			tl = &tally{innermost: map[string]int{}, innermostApp: map[string]int{}, wallInnermost: map[string]int{}, weights: map[int64]int{}}
			by[ev.Thread] = tl
		}
		st := r.stacks[i]
		top := "<none>"
		if len(st) > 0 {
			top = st[0].String()
			if isNative(st[0]) {
				top = st[0].Method + " [" + st[0].Class + "]"
			}
		}
		switch ev.Sampled {
		case format.SampleCPU:
			tl.cpu++
			tl.cpuNs += ev.Weight
			tl.weights[(ev.Weight+5_000_000)/10_000_000]++
			tl.innermost[top]++
			for _, f := range st {
				if f.Class == "LSampled;" {
					tl.innermostApp[f.String()]++
					break
				}
			}
		case format.SampleWall:
			tl.wall++
			tl.wallInnermost[top]++
			if len(st) > 0 && isNative(st[0]) {
				tl.wallNative++
				java := false
				for _, f := range st {
					java = java || !isNative(f)
				}
				if strings.HasPrefix(st[0].Class, "<native:libc") && java &&
					(strings.Contains(st[0].Method, "read") || strings.Contains(st[0].Method, "recv")) {
					tl.wallRead++
				}
				if strings.HasPrefix(st[0].Class, "<native:libc") && java && strings.Contains(st[0].Method, "accept") {
					tl.wallAccept++
				}
			}
		default:
			t.Errorf("a Sample of kind %v (thread %08X)", ev.Sampled, ev.Thread)
		}
	}
	total := 0
	for _, tl := range by {
		total += tl.cpu
	}
	if got := r.info[format.InfoSamples+"cpu"]; got != strconv.Itoa(total) {
		t.Errorf(".info %scpu=%q, the recording has %d CPU samples", format.InfoSamples, got, total)
	}
	if walkLost*100 > total {
		t.Errorf("%d samples lost to walks that failed, of %d: more than 1 %%", walkLost, total)
	}
	const interval = 10_000_000
	clock := r.info[format.InfoSampleCPUClock]
	if clock == "" {
		t.Errorf(".info has no %s", format.InfoSampleCPUClock)
	}
	checkFolded(t, r, interval)
	for _, b := range []struct{ name, hot string }{{"A", "burnA"}, {"B", "burnB"}} {
		h, cpu := e.hash(t, "burn"+b.name), e.nanos(t, "cpu"+b.name)[0]
		tl := by[format.ThreadID(h)]
		if tl == nil {
			t.Errorf("burn%s (%08X, %.3f s of CPU): no sample", b.name, h, float64(cpu)/1e9)
			continue
		}
		if d := tl.cpuNs - cpu; d < -cpu/20 || d > cpu/20 {
			t.Errorf("burn%s: its CPU samples stand for %.3f s, the JVM measured %.3f s of CPU: more than 5 %% apart",
				b.name, float64(tl.cpuNs)/1e9, float64(cpu)/1e9)
		}
		// perf_events' task clock (sample_cpu_clock perf) signals every 10 ms of the thread's
		// CPU: issue 33's goal, within 5 %. A signal the kernel lost leaves its interval to the
		// next sample's weight (carried: two intervals or more, rounded), as a POSIX timer's
		// overrun does: CI, under make test's parallel load, had a burner at 92 % of CPU ÷ 10 ms
		// whose samples stood for its CPU (not seen here beside busy loops and pipes, 97-100 %).
		// So the count is 95 % at least, or 80 % with the rest carried; a slow or coarse clock
		// fails either (a 12 ms one: 83 %, each weight one interval rounded, none carried).
		// With the POSIX timer a signal still pending at the timer's next expiry stands for both
		// (its overrun, in its weight): the kernel checks CPU timers at its ticks (4 ms at
		// HZ=250), and a thread that ran between them on a loaded machine is seen late (66 %
		// seen at a load of 9 on 2 cores; 98-100 % when quiet): half at least, or the timer is
		// wrong; never more.
		carried := 0
		for k, n := range tl.weights {
			if k > 1 {
				carried += int(k-1) * n
			}
		}
		want := float64(cpu) / interval
		ok := float64(tl.cpu) >= want*0.5
		if clock == "perf" {
			ok = float64(tl.cpu) >= want*0.95 || (float64(tl.cpu) >= want*0.8 && float64(tl.cpu+carried) >= want*0.95)
		}
		if !ok || float64(tl.cpu) > want*1.02 {
			t.Errorf("burn%s: %d CPU samples (%d intervals carried) for %.3f s of CPU, want 102 %% of CPU ÷ 10 ms (%.0f; clock %s) at most and "+
				"at least 95 %% (perf: or 80 %% with the rest carried) or 50 %% (timer); weights in intervals %v, .info %s=%q %s=%q", b.name, tl.cpu, carried,
				float64(cpu)/1e9, want, clock, tl.weights, format.InfoSampleCPUTimerThreads, r.info[format.InfoSampleCPUTimerThreads],
				format.InfoSampleCPUFolded, r.info[format.InfoSampleCPUFolded])
		}
		t.Logf("burn%s: %d CPU samples for %.3f s of CPU (%.1f %% of CPU ÷ 10 ms), standing for %.3f s; weights in intervals %v", b.name, tl.cpu,
			float64(cpu)/1e9, 100*float64(tl.cpu)/(float64(cpu)/interval), float64(tl.cpuNs)/1e9, tl.weights)
		hot := 0
		for top, n := range tl.innermost {
			if strings.HasPrefix(top, "Sampled."+b.hot+"(") {
				hot += n
			}
		}
		if hot*10 < tl.cpu*9 {
			t.Errorf("burn%s: Sampled.%s is the innermost frame of %d of its %d CPU samples, want 90 %%: %v", b.name, b.hot, hot, tl.cpu, tl.innermost)
		}
	}
	if e.str(t, "burnV") != "none" && r.info[format.InfoHotSpotWalker] == "yes" {
		// The own walker reads a mounted virtual thread (JDK 25; not 19-24).
		v := format.ThreadID(e.hash(t, "burnV"))
		// Its loop calls Long.rotateLeft, inlined: with the JIT's records at
		// every instruction (.info hotspot.debug_non_safepoints) most samples
		// have it innermost, burnV below it.
		in := func(tl *tally) (n int) {
			for top, c := range tl.innermostApp {
				if strings.HasPrefix(top, "Sampled.burnV(") {
					n += c
				}
			}
			return n
		}
		if tl := by[v]; tl == nil || in(tl) < 3 || in(tl)*10 < tl.cpu*8 {
			t.Errorf("the virtual thread %v: want CPU samples, 80 %% of them in Sampled.burnV (its innermost frame of Sampled's): %+v", v, tl)
		}
		for id, tl := range by {
			if id != v && in(tl) > 0 {
				t.Errorf("thread %v (not the virtual thread) has %d samples in Sampled.burnV: %v", id, in(tl), tl.innermostApp)
			}
		}
	}
	// The sleeper sleeps all along (a recorded state: ~30 wall ticks): a
	// sample or two of its start or end in the VM at most.
	if tl := by[format.ThreadID(e.hash(t, "sleeper"))]; tl != nil && (tl.cpu > 2 || tl.wall > 2) {
		t.Errorf("the sleeper has %d CPU and %d wall samples, want at most 2 of each (a sleep is a recorded state): %v %v", tl.cpu, tl.wall, tl.innermost, tl.wallInnermost)
	}
	// A burner runs Java code: on a CPU or ready for one, never "other" — but
	// for a moment in the VM (an allocation's slow path) on a machine so
	// loaded that it got less than half a tick's CPU.
	for _, b := range []string{"burnA", "burnB"} {
		if tl := by[format.ThreadID(e.hash(t, b))]; tl != nil && tl.wall > 1+tl.cpu/50 {
			t.Errorf("%s has %d wall samples beside %d CPU samples, want at most 1 + 2 %%: %v", b, tl.wall, tl.cpu, tl.wallInnermost)
		}
	}
	// The acceptor never runs: after its first wall sample the sampler repeats it, with no
	// signal (.info sample_wall_repeated), the same stack: accept in the C library, Java below.
	acc := by[format.ThreadID(e.hash(t, "acceptor"))]
	repeated, _ := strconv.Atoi(r.info[format.InfoSampleWallRepeated])
	if acc == nil || acc.wall < 10 || acc.cpu > 2 {
		t.Errorf("the acceptor: want 10 wall samples and at most 2 CPU samples: %+v", acc)
	} else {
		// One may be from before it reached accept: at a loaded JVM's
		// start its first wall sample was once in the VM, loading a class
		// (__mmap under ClassLoader::load_class), 23 ms after it started.
		if acc.wallRead != 0 || acc.wall-acc.wallAccept > 1 {
			t.Errorf("the acceptor: %d of its %d wall samples in the C library's accept with Java frames below: %v", acc.wallAccept, acc.wall, acc.wallInnermost)
		}
		if repeated*10 < acc.wall*7 {
			t.Errorf(".info %s=%d, the acceptor alone has %d wall samples: want 70 %% of them repeated", format.InfoSampleWallRepeated, repeated, acc.wall)
		}
	}
	tl := by[format.ThreadID(e.hash(t, "reader"))]
	if tl == nil || tl.wall < 5 {
		t.Fatalf("the socket reader has too few wall samples: %+v", tl)
	}
	if tl.wallRead*10 < tl.wall*8 {
		t.Errorf("the socket reader: %d of its %d wall samples are in the C library's read or recv with Java frames below, want 80 %%: %v",
			tl.wallRead, tl.wall, tl.wallInnermost)
	}
}

// TestSamplesWallQuiet is the wall sampler's sleep over its ticks (docs/agent.md, "The sample
// path"): on WallQuiet (testdata/java/scenarios: an acceptor blocked in accept for 3 s, 5 threads
// parked, nothing else), every candidate of a tick is a repeat, so the sampler sleeps longer and
// longer, then up to 1 s while the writer runs the ticks due at its drains; the ticks run late are
// written for the threads that did not run. On each JDK:
//   - .info sample_wall_wakeups is at most half of sample_wall_ticks (every tick woke it before);
//   - the acceptor's wall samples still number its time in accept ÷ 50 ms: at least that less
//     300 ms (it may be seen first at a run of the ticks a flush period, 200 ms, after it entered,
//     and is sent a signal then, whose sample is its first) and at most 2 more; each stands for
//     50 ms; all in the C library's accept with Java frames below, 70 % of them repeats;
//   - the ticks slept over are timed at their ticks: no two of the acceptor's samples less than
//     1 ms apart, the median gap 40-60 ms.
func TestSamplesWallQuiet(t *testing.T) {
	const interval = 50_000_000
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "WallQuiet", "3000", "5")
		r := load(t, prefix)
		if len(r.parseErrs) > 0 {
			t.Errorf("%d lines not read, the first: %v", len(r.parseErrs), r.parseErrs[0])
		}
		ticks, err1 := strconv.Atoi(r.info[format.InfoSampleWallTicks])
		wakes, err2 := strconv.Atoi(r.info[format.InfoSampleWallWakeups])
		if err1 != nil || err2 != nil || ticks < 40 || wakes < 1 || wakes*2 > ticks {
			t.Errorf(".info %s=%q %s=%q: want ≥ 40 ticks (3 s at 50 ms) and at most half as many wake-ups", format.InfoSampleWallTicks,
				r.info[format.InfoSampleWallTicks], format.InfoSampleWallWakeups, r.info[format.InfoSampleWallWakeups])
		}
		t.Logf("wall sampler: %d ticks, %d wake-ups; .info %s=%s %s=%s %s=%s %s=%s %s=%s %s=%s", ticks, wakes, format.InfoSampleWallRepeated,
			r.info[format.InfoSampleWallRepeated], format.InfoSamples+"wall", r.info[format.InfoSamples+"wall"], format.InfoWrites, r.info[format.InfoWrites],
			format.InfoSampleWallRuns, r.info[format.InfoSampleWallRuns], format.InfoSampleWallQuietWakeups, r.info[format.InfoSampleWallQuietWakeups], format.InfoSampleDrainSlots, r.info[format.InfoSampleDrainSlots])
		// Quiet, the sampler sleeps until the writer, whose drains run the
		// ticks (every flush period), calls it back: it woke each second
		// before (a context switch a second, a quarter of the wall
		// sampling's cost at rest), and ran the ticks itself once a second
		// before that.
		if q, err := strconv.Atoi(r.info[format.InfoSampleWallQuietWakeups]); err != nil || q > 1 {
			t.Errorf(".info %s=%q: want 0 or 1 (a spurious wake-up)", format.InfoSampleWallQuietWakeups, r.info[format.InfoSampleWallQuietWakeups])
		}
		// A drain visits the slots with something to drain: the acceptor's
		// repeats, at rest (and a thread's first samples, its end), not the
		// ~15 slots of every thread with one (the 5 parked, main, the
		// JDK's own), each cold (its slot and its ring's header).
		drains, err1 := strconv.Atoi(r.info[format.InfoWrites])
		visits, err2 := strconv.Atoi(r.info[format.InfoSampleDrainSlots])
		if err1 != nil || err2 != nil || visits > 3*drains+10 {
			t.Errorf(".info %s=%q %s=%q: want at most 3 slots a drain, and 10 more (3 s with one thread in native code)", format.InfoSampleDrainSlots,
				r.info[format.InfoSampleDrainSlots], format.InfoWrites, r.info[format.InfoWrites])
		}
		// The writer: samples alone wait up to a second for a flush with an
		// event (docs/agent.md, "Buffers and the writer"): 18 writes in
		// 3 s at one a flush period before, 6-8 since.
		if w, err := strconv.Atoi(r.info[format.InfoWrites]); err != nil || w < 1 || w > 12 {
			t.Errorf(".info %s=%q: want 1-12 (3 s with wall samples, nearly no events)", format.InfoWrites, r.info[format.InfoWrites])
		}
		acc, in := format.ThreadID(e.hash(t, "acceptor")), e.nanos(t, "accept_ns")[0]
		var at []int64
		accept := 0
		for i, ev := range r.events {
			if ev.Kind != format.Sample || ev.Sampled != format.SampleWall || ev.Thread != acc {
				continue
			}
			at = append(at, int64(ev.Time))
			if ev.Weight != interval {
				t.Errorf("the acceptor's wall sample at %d stands for %d ns, want %d", ev.Time, ev.Weight, interval)
			}
			st := r.stacks[i]
			java := false
			for _, f := range st {
				java = java || !isNative(f)
			}
			if len(st) > 0 && strings.HasPrefix(st[0].Class, "<native:libc") && strings.Contains(st[0].Method, "accept") && java {
				accept++
			}
		}
		least, most := (in-300_000_000)/interval, in/interval+2
		if n := int64(len(at)); n < least || n > most {
			t.Errorf("the acceptor has %d wall samples for %.3f s in accept, want %d-%d", n, float64(in)/1e9, least, most)
		}
		if accept != len(at) {
			t.Errorf("the acceptor: %d of its %d wall samples in the C library's accept with Java frames below", accept, len(at))
		}
		if repeated, _ := strconv.Atoi(r.info[format.InfoSampleWallRepeated]); repeated*10 < len(at)*7 {
			t.Errorf(".info %s=%d, the acceptor alone has %d wall samples: want 70 %% of them repeated", format.InfoSampleWallRepeated, repeated, len(at))
		}
		slices.Sort(at)
		var gaps []int64
		for i := 1; i < len(at); i++ {
			gaps = append(gaps, at[i]-at[i-1])
			if at[i]-at[i-1] < 1_000_000 {
				t.Errorf("the acceptor's wall samples %d and %d are %d ns apart: a tick slept over not at its time", i-1, i, at[i]-at[i-1])
			}
		}
		if len(gaps) > 0 {
			slices.Sort(gaps)
			if g := gaps[len(gaps)/2]; g < 40_000_000 || g > 60_000_000 {
				t.Errorf("the median gap between the acceptor's wall samples is %.1f ms, want 40-60", float64(g)/1e6)
			}
		}
	})
}

// TestSamplesWallMarked is the wall sampler's skip of the threads its hooks have in a recorded
// state (docs/agent.md, "The sample path"): on WallQuiet with 20 parked workers (an acceptor in
// accept for 1.5 s, main asleep), a run of ticks reads the HotSpot state of the threads no park,
// sleep or wait has marked, not of every live thread. On each JDK:
//   - .info sample_wall_states_read is at most 10 a run (sample_wall_runs): the acceptor and the
//     JVM's own threads that wait in the VM (every live thread, 22 or more, before);
//   - the acceptor still has its wall samples (its time in accept ÷ 50 ms, less 300 ms at most),
//     and no worker has one (a park is a recorded state).
func TestSamplesWallMarked(t *testing.T) {
	const interval, parked = 50_000_000, 20
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "WallQuiet", "1500", strconv.Itoa(parked))
		r := load(t, prefix)
		runs, err1 := strconv.Atoi(r.info[format.InfoSampleWallRuns])
		read, err2 := strconv.Atoi(r.info[format.InfoSampleWallStatesRead])
		slots, err3 := strconv.Atoi(r.info[format.InfoSampleWallSlotsRead])
		t.Logf(".info %s=%s %s=%s %s=%s %s=%s", format.InfoSampleWallTicks, r.info[format.InfoSampleWallTicks],
			format.InfoSampleWallRuns, r.info[format.InfoSampleWallRuns], format.InfoSampleWallStatesRead, r.info[format.InfoSampleWallStatesRead],
			format.InfoSampleWallSlotsRead, r.info[format.InfoSampleWallSlotsRead])
		if err1 != nil || err2 != nil || runs < 5 || read > 10*runs {
			t.Errorf(".info %s=%q %s=%q: want ≥ 5 runs, at most 10 states read a run (%d threads parked)", format.InfoSampleWallRuns,
				r.info[format.InfoSampleWallRuns], format.InfoSampleWallStatesRead, r.info[format.InfoSampleWallStatesRead], parked)
		}
		// Nor are the marked threads' slots looked at again while no mark
		// is taken away: a run looks at the unmarked ones alone (the
		// acceptor, the JDK's own waits), not at the 20 parked workers'.
		if err3 != nil || slots > 12*runs {
			t.Errorf(".info %s=%q %s=%q: want at most 12 slots looked at a run (%d threads parked)", format.InfoSampleWallSlotsRead,
				r.info[format.InfoSampleWallSlotsRead], format.InfoSampleWallRuns, r.info[format.InfoSampleWallRuns], parked)
		}
		acc, in := format.ThreadID(e.hash(t, "acceptor")), e.nanos(t, "accept_ns")[0]
		wall := map[format.ThreadID]int{}
		for _, ev := range r.events {
			if ev.Kind == format.Sample && ev.Sampled == format.SampleWall {
				wall[ev.Thread]++
			}
		}
		if least := (in - 300_000_000) / interval; int64(wall[acc]) < least {
			t.Errorf("the acceptor has %d wall samples for %.3f s in accept, want at least %d", wall[acc], float64(in)/1e9, least)
		}
		// A worker parked in its queue's take is in a recorded state: no
		// wall sample of it while it parks. Outside its parks (started,
		// not yet in take; unparked by the pool's shutdown, on its way
		// out) it may be off a CPU in no recorded state, and a sample
		// then is the sampler's job (a fresh-clone run on 25 at load 4
		// had one: 1 of 20 workers).
		workers := map[format.ThreadID]string{}
		parkedFrom := map[format.ThreadID]format.Time{}
		outside := 0
		for _, ev := range r.events {
			switch {
			case ev.Kind == format.ThreadStarted && strings.HasPrefix(ev.Name, "pool-"):
				workers[ev.Thread] = ev.Name
			case workers[ev.Thread] == "":
			case ev.Kind == format.ThreadPark:
				parkedFrom[ev.Thread] = ev.Time
			case ev.Kind == format.ThreadUnparked:
				delete(parkedFrom, ev.Thread)
			case ev.Kind == format.Sample && ev.Sampled == format.SampleWall:
				if from, in := parkedFrom[ev.Thread]; in {
					t.Errorf("a wall sample of the parked worker %q at %v, in its park since %v: want none (a park is a recorded state)",
						workers[ev.Thread], ev.Time, from)
				} else {
					outside++
				}
			}
		}
		if len(workers) != parked {
			t.Errorf("%d workers started, want %d", len(workers), parked)
		}
		// Out of a park a worker runs a few ms of its life: a sample or
		// two of 20 workers, not one each.
		if outside > parked/4 {
			t.Errorf("%d wall samples of the workers outside their parks, want at most %d of %d workers", outside, parked/4, parked)
		}
		t.Logf("wall samples of the workers outside their parks: %d", outside)
	})
}

// TestSamplesContended is issue 33's goal "the sample count within 5 % of CPU ÷ interval" where
// threads wait for a CPU: Sampled under `taskset -c 0`, its two burners (on 25 its virtual thread
// too) on one CPU, each ready while another runs. On each JDK:
//   - with the default clock, perf_events' task clock (.info sample_cpu_clock perf: kernel and
//     user time; perf_user: user time alone, where perf_event_paranoid is 2), each burner's CPU
//     samples number 95-102 % of its CPU (ThreadMXBean) ÷ 10 ms (the POSIX timers took 86-93 %
//     here: the kernel checks them at its tick and folds the expiries it finds late), and stand
//     for that CPU within 5 %; a machine that refuses perf_event_open skips this, saying why;
//   - with cpu_clock=timer, .info says so, the weights still stand for the CPU within 5 % and
//     the count is 50-102 %;
//   - on both, .info sample_cpu_folded is the expiries the samples' weights carry beyond their
//     own interval (checkFolded).
func TestSamplesContended(t *testing.T) {
	if _, err := exec.LookPath("taskset"); err != nil {
		skipf(t, "no taskset: the burners cannot be put on one CPU")
	}
	const interval = 10_000_000
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, opt := range []string{"", "cpu_clock=timer"} {
			name := "default"
			if opt != "" {
				name = "timer"
			}
			t.Run(name, func(t *testing.T) {
				dir := newDir(t)
				prefix := filepath.Join(dir, "x")
				agent := "-agentpath:" + agentLib(t) + "=prefix=" + prefix
				if opt != "" {
					agent += "," + opt
				}
				r := run(t, dir, "taskset", append([]string{"-c", "0"}, j.argv(dir, agent, "-cp", classes(t), "Sampled", "1500")...)...)
				checkNoCrashLog(t, r)
				if r.code != 0 {
					t.Fatalf("Sampled failed:\n%s", r)
				}
				e := parseExpect(t, r)
				rec := load(t, prefix)
				clock := rec.info[format.InfoSampleCPUClock]
				if opt != "" && clock != "timer: cpu_clock=timer" {
					t.Errorf(".info %s=%q, want \"timer: cpu_clock=timer\"", format.InfoSampleCPUClock, clock)
				}
				if opt == "" && strings.HasPrefix(clock, "timer") {
					skipf(t, "no perf_events task clock here (%s): the POSIX timer folds expiries where threads wait for a CPU", clock)
				}
				checkFolded(t, rec, interval)
				count, weight := map[format.ThreadID]int{}, map[format.ThreadID]int64{}
				for _, ev := range rec.events {
					if ev.Kind == format.Sample && ev.Sampled == format.SampleCPU {
						count[ev.Thread]++
						weight[ev.Thread] += ev.Weight
					}
				}
				for _, b := range []string{"A", "B"} {
					id, cpu := format.ThreadID(e.hash(t, "burn"+b)), e.nanos(t, "cpu"+b)[0]
					want := float64(cpu) / interval
					least := 0.95
					if opt != "" {
						least = 0.5
					}
					t.Logf("burn%s: %d CPU samples for %.3f s of CPU (%.1f %% of CPU ÷ 10 ms), standing for %.3f s; clock %s, %s %s",
						b, count[id], float64(cpu)/1e9, 100*float64(count[id])/want, float64(weight[id])/1e9, clock,
						format.InfoSampleCPUFolded, rec.info[format.InfoSampleCPUFolded])
					if n := float64(count[id]); n < want*least || n > want*1.02 {
						t.Errorf("burn%s: %d CPU samples for %.3f s of CPU, want %.0f-102 %% of CPU ÷ 10 ms (%.0f; clock %q)", b, count[id],
							float64(cpu)/1e9, 100*least, want, clock)
					}
					if d := weight[id] - cpu; d < -cpu/20 || d > cpu/20 {
						t.Errorf("burn%s: its CPU samples stand for %.3f s, the JVM measured %.3f s of CPU: more than 5 %% apart",
							b, float64(weight[id])/1e9, float64(cpu)/1e9)
					}
				}
			})
		}
	})
}

// checkFolded: .info sample_cpu_folded (absent: 0) is the expiries of the CPU clock the
// samples' weights carry beyond their own interval, each weight rounded to intervals; the
// handler counts them before the walk, so a lost sample's count in it too (at least then).
func checkFolded(t *testing.T, r *recording, interval int64) {
	t.Helper()
	var carried int64
	for _, ev := range r.events {
		if ev.Kind == format.Sample && ev.Sampled == format.SampleCPU {
			if k := (ev.Weight + interval/2) / interval; k > 1 {
				carried += k - 1
			}
		}
	}
	folded, lost := int64(0), false
	if v, ok := r.info[format.InfoSampleCPUFolded]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			t.Errorf(".info %s=%q: want a count above 0, or no key", format.InfoSampleCPUFolded, v)
		}
		folded = n
	}
	for k := range r.info {
		lost = lost || strings.HasPrefix(k, format.InfoSamplesLost)
	}
	if folded < carried || (!lost && folded != carried) {
		t.Errorf(".info %s=%d, the CPU samples' weights carry %d expiries beyond their own (samples lost: %v)",
			format.InfoSampleCPUFolded, folded, carried, lost)
	}
}

// TestSamplesWalkHard is issue 33's test of the samples of a thread in Java code, whose stacks the
// own walker takes from the signal's context (docs/agent.md, "The sample path"): WalkHard's four
// threads spend their CPU in a compiled recursion of a small method that allocates, so a sample
// often lands in a compiled method's prolog or epilog (15-17 % of WalkHard's at 1 ms; before the
// own walker, AsyncGetCallTrace lost them or took them from the caller), or in its body between
// two debug records. At --cpu 1ms, on each JDK, compiled and with -Xint (where a sample at a
// method's entry finds its frame half built: AsyncGetCallTrace lost 4.4-4.9 % there before):
//   - at most 2 % of the CPU samples are lost to walks (.info samples_lost.walk, .state;
//     ~0.1 % measured), and at most 1 % are left to AsyncGetCallTrace (.info
//     hotspot.samples_asgct: a stub, code the walker does not decode; 2-3 of ~4 000 measured);
//   - every CPU sample with a WalkHard frame is a whole stack: the outermost Java frame
//     Thread.run, WalkHard.run in it, at most 65 WalkHard.step frames (the recursion's depth),
//     none when the innermost is WalkHard.run. (The innermost frame's line is the debug
//     record's, not checked: at a pc between two records it may be another branch's, e.g. step's
//     allocation, line 17, at any depth — docs/agent.md.) But for at most 1 % with
//     one step frame more (66), the innermost frame's two scopes both from the debug record after
//     the pc (the one pc where this comes, measured, is step's first instruction after its prolog
//     — the record after it is the inlined recursive call's —, or on 25 with
//     -XX:+DebugNonSafepoints a store C2 shares between the method and the copy of it inlined
//     into it): what the debug information says there (docs/agent.md). 0.3-0.5 % measured on
//     each JDK. Before the own walker, 25 had 1.5 % not whole, most of them a lone step under the
//     lambda (AsyncGetCallTrace's answer at a pc in compiled code), and this test failed there;
//   - 90 % of the whole ones have WalkHard.step innermost (its CPU).
func TestSamplesWalkHard(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, mode := range []string{"jit", "-Xint"} {
			t.Run(mode, func(t *testing.T) { walkHard(t, j, mode) })
		}
	})
}

// walkHard is one run of TestSamplesWalkHard on JDK j, mode "jit" or a JVM option (-Xint).
func walkHard(t *testing.T, j jdk, mode string) {
	dir := newDir(t)
	prefix := filepath.Join(dir, "x")
	jvm := []string{"-cp", classes(t), "WalkHard", "1000", "4"}
	if mode != "jit" {
		jvm = append([]string{mode}, jvm...)
	}
	argv := append([]string{"record", "--cpu", "1ms", "-o", prefix, "--"}, j.argv(dir, jvm...)...)
	res := run(t, dir, orcaBin(t), argv...)
	checkNoCrashLog(t, res)
	if res.code != 0 || !strings.Contains(res.stdout, "EXPECT threads=4") {
		t.Fatalf("orca record WalkHard:\n%s", res)
	}
	r := load(t, prefix)
	lost := 0
	for k, v := range r.info {
		if why, ok := strings.CutPrefix(k, format.InfoSamplesLost); ok {
			n, _ := strconv.Atoi(v)
			if why != "walk" && why != "state" {
				t.Errorf(".info %s=%s: samples lost", k, v)
			}
			lost += n
		}
	}
	cpu, worker, stepTop, broken, deep := 0, 0, 0, 0, 0
	otherTop := map[string]int{}        // the innermost WalkHard methods of whole samples not in step
	jdkTop := 0                         // whole samples innermost in the JDK's code run calls
	vmFrames, vmNamed, vmCxx := 0, 0, 0 // the VM's frames (libjvm.so), those with a name, a C++ one
	for i, ev := range r.events {
		if ev.Kind != format.Sample || ev.Sampled != format.SampleCPU {
			continue
		}
		cpu++
		var java []frame
		for _, f := range r.stacks[i] {
			if !isNative(f) {
				java = append(java, f)
			} else if f.Class == "<native:libjvm.so>" {
				vmFrames++
				if f.Method != "" {
					vmNamed++
				}
				if strings.Contains(f.Method, "::") {
					vmCxx++
				}
			}
		}
		run, steps := false, 0
		for _, f := range java {
			run = run || f.Class == "LWalkHard;" && f.Method == "run"
			if f.Class == "LWalkHard;" && f.Method == "step" {
				steps++
			}
		}
		if !run && steps == 0 {
			continue
		}
		worker++
		top, last := java[0], java[len(java)-1]
		whole := run && last.Class == "Ljava/lang/Thread;" && last.Method == "run"
		switch {
		case !whole || steps > 66:
		case top.Class == "LWalkHard;" && top.Method == "run":
			whole = steps == 0
		case steps == 66:
			// One scope more than the recursion's depth, from the debug record after the pc.
			if deep++; deep <= 2 {
				t.Logf("a WalkHard sample one step frame too deep: %v", java[:2])
			}
			continue
		}
		if !whole {
			if broken++; broken <= 5 {
				t.Logf("a WalkHard sample not a whole stack (%d step frames, %d native): %v", steps, len(r.stacks[i])-len(java), java)
			}
			continue
		}
		switch {
		case java[0].Class == "LWalkHard;" && java[0].Method == "step":
			stepTop++
		case java[0].Class != "LWalkHard;":
			// In the JDK's code run calls (ThreadMXBean's
			// getThreadTotalCpuTime0, its loop's test): a walk that found
			// its innermost frame, not one of step's taken for its caller's
			// (fc59 at load 15-18: 4.6 % of the samples, a system call).
			jdkTop++
		default:
			otherTop[java[0].Class+"."+java[0].Method]++
		}
	}
	byASGCT, _ := strconv.Atoi(r.info[format.InfoHotSpotSamplesASGCT])
	t.Logf("%d CPU samples (%d of WalkHard's threads, %d in step, %d in the JDK's code, %d not whole, %d one step too deep), %d lost to walks, %d by AsyncGetCallTrace, %s unwound, %s native only",
		cpu, worker, stepTop, jdkTop, broken, deep, lost, byASGCT, r.info[format.InfoHotSpotSamplesUnwound], r.info[format.InfoHotSpotSamplesNativeOnly])
	if broken > 0 {
		t.Errorf("%d of WalkHard's %d CPU samples not a whole stack", broken, worker)
	}
	if deep*100 > worker {
		t.Errorf("%d of WalkHard's %d CPU samples one step frame too deep: more than 1 %%", deep, worker)
	}
	// The JIT's debug records at every instruction it can (JVMTI's
	// CompiledMethodLoad on: HotSpot's DebugNonSafepoints): fewer samples
	// one frame too deep (17: 12-20 a run before, 0 after; 25: 8-16, 6).
	if v := r.info[format.InfoHotSpotDebugNonSafepoints]; v != "yes" {
		t.Errorf(".info %s=%q, want yes (the CPU sampler is on)", format.InfoHotSpotDebugNonSafepoints, v)
	}
	if worker < 100 {
		t.Fatalf("%d CPU samples of WalkHard's threads: too few to tell", worker)
	}
	if lost*50 > cpu+lost {
		t.Errorf("%d of %d CPU samples lost to walks: more than 2 %%", lost, cpu+lost)
	}
	if byASGCT*100 > cpu {
		t.Errorf(".info %s=%d of %d CPU samples: more than 1 %% left to AsyncGetCallTrace", format.InfoHotSpotSamplesASGCT, byASGCT, cpu)
	}
	if stepTop*10 < (worker-deep-jdkTop)*9 {
		// Which of its methods were innermost instead, the most first.
		tops := slices.SortedFunc(maps.Keys(otherTop), func(a, b string) int { return cmp.Or(otherTop[b]-otherTop[a], strings.Compare(a, b)) })
		if len(tops) > 5 {
			tops = tops[:5]
		}
		for i, m := range tops {
			tops[i] = fmt.Sprintf("%s %d", m, otherTop[m])
		}
		t.Errorf("%d of WalkHard's %d CPU samples in its own code have WalkHard.step innermost: fewer than 90 %% (innermost instead: %s)", stepTop, worker-deep-jdkTop, strings.Join(tops, ", "))
	}
	// The VM's frames (class loading at the start, allocations' slow paths) are named
	// from libjvm.so's .symtab (stacks/elfsym.c), demangled by the reader.
	t.Logf("%d libjvm.so frames, %d named, %d C++ names", vmFrames, vmNamed, vmCxx)
	if f, err := elf.Open(filepath.Join(j.home, "lib", "server", "libjvm.so")); err != nil || f.Section(".symtab") == nil {
		t.Logf("%s's libjvm.so has no .symtab (%v): its frames' names not checked", j.name, err)
	} else if f.Close(); vmFrames < 10 {
		t.Logf("%d libjvm.so frames: too few to check their names", vmFrames)
	} else if vmNamed*10 < vmFrames*9 || vmCxx*2 < vmFrames {
		t.Errorf("%d libjvm.so frames, %d named, %d with a C++ name (Class::method): want 90 %% named, half C++", vmFrames, vmNamed, vmCxx)
	}
}

// TestWallStarved: a thread ready for a CPU is not off one. WallStarved
// (testdata/java/scenarios) pins its JVM to one CPU, where "deflater" (nice 19)
// deflates in zlib, native code that never blocks, beside "spinner" (nice 0)
// burning Java code: the deflater waits on the run queue for stretches longer
// than a wall tick, its CPU clock standing still as a blocked thread's. The
// wall sampler took that clock for "blocked all along" once it had looked at
// the thread before: 11 wall samples in zlib in 3 s (TestSamples' burners had
// 4-11 in clock_gettime at load 17). It now trusts a still clock only after a
// look that found the thread off a CPU (docs/agent.md, "The wall sampler"):
// at most one, the sampler's race with the thread's own state. The reader,
// blocked in a socket read in native code all along but for a byte every
// 20 ms, is the control: it has its wall samples.
func TestWallStarved(t *testing.T) {
	for _, tool := range []string{"taskset", "renice"} {
		if _, err := exec.LookPath(tool); err != nil {
			skipf(t, "WallStarved needs %s (util-linux): %v", tool, err)
		}
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "WallStarved", "3000")
		r := load(t, prefix)
		type tally struct{ cpu, wall int }
		by := map[format.ThreadID]*tally{}
		// The deflater's first act is to renice itself: it starts renice and reads its output
		// (a blocking read in native code, in no recorded state) — off a CPU, rightly
		// wall-sampled (fc79 at load: 2 such samples, the deflater 46 ms on a CPU in 3.56 s).
		// Those are not the deflater's loop, which never blocks: counted apart.
		var inRenice int
		var deflaterWall []string
		for i, ev := range r.events {
			if ev.Kind != format.Sample {
				continue
			}
			if ev.Sampled == format.SampleWall && ev.Thread == format.ThreadID(e.hash(t, "deflater")) {
				if slices.ContainsFunc(r.stacks[i], func(f frame) bool { return f.Class == "LWallStarved;" && f.Method == "run" }) {
					inRenice++
					continue
				}
				deflaterWall = append(deflaterWall, strings.Join(r.text[i], "\n    "))
			}
			tl := by[ev.Thread]
			if tl == nil {
				tl = &tally{}
				by[ev.Thread] = tl
			}
			switch ev.Sampled {
			case format.SampleCPU:
				tl.cpu++
			case format.SampleWall:
				tl.wall++
			}
		}
		of := func(name string) tally {
			if tl := by[format.ThreadID(e.hash(t, name))]; tl != nil {
				return *tl
			}
			return tally{}
		}
		d, s, rd := of("deflater"), of("spinner"), of("reader")
		t.Logf("samples (cpu, wall): deflater %v (and %d wall samples while it ran renice), spinner %v, reader %v; .info samples.wall=%s", d, inRenice, s, rd, r.info[format.InfoSamples+"wall"])
		if d.wall > 1 {
			t.Errorf("the deflater (ready, in native code, never blocked) has %d wall samples out of its renice, want at most 1:\n  %s", d.wall, strings.Join(deflaterWall, "\n  "))
		}
		if rd.wall < 10 {
			t.Errorf("the reader (in a socket read all along) has %d wall samples, want ≥ 10 (3 s at 50 ms: ~60)", rd.wall)
		}
		if s.cpu < 10 {
			t.Errorf("the spinner has %d CPU samples, want ≥ 10: the deflater had no rival for its CPU", s.cpu)
		}
		// The model: the deflater's runnable time is running or ready, not
		// "other" (model.lagReady: the kernel tells a wait on a run queue
		// when it ends, a window or more after it began; 0.56 s of its 3 s
		// was "other" before).
		_, built := buildModel(t, prefix)
		th := built.Model.Thread(format.ThreadID(e.hash(t, "deflater")))
		if th == nil {
			t.Fatal("no thread deflater in the model")
		}
		run := th.Run
		t.Logf("deflater's runnable %v: %+v", th.Time[model.Runnable], run)
		if run.Ready < th.Time[model.Runnable]/2 || run.Other*10 > th.Time[model.Runnable] {
			t.Errorf("the deflater's runnable time %v split %+v: want ready at least half, other at most a tenth", th.Time[model.Runnable], run)
		}
	})
}

// TestSamplesWallLate: a thread the wall sampler's look found off a CPU in no recorded state, in
// a park by the time its signal came, is not sampled there (docs/agent.md, "The sample path"):
// WallLate's four hoppers each block ~70 ms in a pipe's read, then park 60 ms, in turn, and the
// sampler waits 40 ms between its look and its signals (ORCA_TEST_WALL_SIGNAL_MS, as a sampler
// preempted there: a CI run at load had a pool worker's wall sample 570 µs into its park). On
// each JDK: no wall sample of a hopper inside one of its parks, and .info sample_wall_late counts
// the signals that found one there (before: no such count, and the samples inside the parks).
func TestSamplesWallLate(t *testing.T) {
	t.Setenv("ORCA_TEST_WALL_SIGNAL_MS", "40")
	forEachJDK(t, func(t *testing.T, j jdk) {
		// A look in a read's last 40 ms is late: about half of the reads the sampler looks at
		// (a CI run of the earlier scenario, one hopper in 10 ms reads of 40 ms, had none in
		// three runs). A run with none is tried again, twice at most, and says what the
		// sampler did.
		for try := 1; ; try++ {
			e, prefix := recordExpect(t, j, "WallLate", "3000", "4")
			r := load(t, prefix)
			hoppers := map[format.ThreadID]bool{}
			for _, h := range e.hashes(t, "hoppers") {
				hoppers[format.ThreadID(h)] = true
			}
			parkedFrom := map[format.ThreadID]format.Time{}
			inPark, outside := 0, 0
			for _, ev := range r.events {
				if !hoppers[ev.Thread] {
					continue
				}
				from, parked := parkedFrom[ev.Thread]
				switch {
				case ev.Kind == format.ThreadPark:
					parkedFrom[ev.Thread] = ev.Time
				case ev.Kind == format.ThreadUnparked:
					delete(parkedFrom, ev.Thread)
				case ev.Kind == format.Sample && ev.Sampled == format.SampleWall && parked:
					inPark++
					t.Errorf("a wall sample of hopper %08X at %v, in its park since %v: want none (a park is a recorded state)", uint32(ev.Thread), ev.Time, from)
				case ev.Kind == format.Sample && ev.Sampled == format.SampleWall:
					outside++
				}
			}
			late, err := strconv.Atoi(r.info[format.InfoSampleWallLate])
			t.Logf("run %d: .info %s=%s; the hoppers' wall samples: %d outside their parks, %d inside; %s", try, format.InfoSampleWallLate, r.info[format.InfoSampleWallLate], outside, inPark, e.line)
			if err == nil && late >= 1 {
				return
			}
			var did []string
			for _, k := range []string{format.InfoSampleWallTicks, format.InfoSampleWallWakeups, format.InfoSampleWallQuietWakeups, format.InfoSampleWallRuns, format.InfoSampleWallStatesRead, format.InfoSampleWallRepeated, format.InfoSampleWall} {
				did = append(did, k+"="+r.info[k])
			}
			t.Logf("run %d: the sampler: %s", try, strings.Join(did, " "))
			if try == 3 {
				t.Errorf(".info %s=%q in %d runs: want at least 1 (signals that found a hopper parked)", format.InfoSampleWallLate, r.info[format.InfoSampleWallLate], try)
				return
			}
		}
	})
}
