package analysis

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"

	"golang.org/x/tools/txtar"
)

// TestChainsConserve follows the wait chains of every golden case of the
// report and of the model and checks that each instant of each wait
// reaches exactly one root: the roots' times add up to the time the
// threads waited for another thread, and each root's links into it carry
// at least the time of the threads waiting for it directly. The exact
// figures of a case made for them are in internal/report's golden
// report.chains.json.
func TestChainsConserve(t *testing.T) {
	paths := chainCases(t)
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		ar := testrec.Parse(t, path)
		_, res := testrec.Build(t, ar, name)
		m := res.Model
		w := &chainWalk{m: m}
		var waited format.Time
		for _, th := range m.Threads {
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				if !iv.Acquire && iv.State != model.Blocked {
					continue
				}
				w.links(th, iv, max(iv.Start, th.Start), min(iv.End, th.End), func(a, b format.Time, h hop) { waited += b - a })
			}
		}
		var sum format.Time
		chains, _ := Chains(m.Filter(nil), nil, 0)
		for _, c := range chains {
			sum += c.Time
			var direct format.Time
			for _, l := range c.Links {
				if l.To == c.Root {
					direct += l.Time
				}
				if l.Time <= 0 || l.Time > c.Time {
					t.Errorf("%s: root %v: link %v -> %v carries %v of %v", name, c.Root, l.From, l.To, l.Time, c.Time)
				}
			}
			if c.RootState != "cycle" && direct == 0 {
				t.Errorf("%s: root %v (%s): no thread waits for it directly", name, c.Root, c.RootState)
			}
			if len(c.Threads) == 0 || c.Depth < 1 {
				t.Errorf("%s: root %v: %d threads, depth %d", name, c.Root, len(c.Threads), c.Depth)
			}
		}
		if sum != waited {
			t.Errorf("%s: the roots hold %v of the %v the threads waited for another", name, sum, waited)
		}
	}
}

// TestChainsAlone checks the sweep (Chains) and the walk per union span
// of a lock against the walk of every waiter for itself (the chain of
// each stretch of each wait followed on its own, as the walk was first
// written): the same roots, times, states, depths, threads and links in
// every golden case, all of them (n 0) and the first 2 (the second pass
// keeps the threads and links of those only), of all the threads and of
// every other one (orca report --thread's View).
func TestChainsAlone(t *testing.T) {
	paths := chainCases(t)
	some := 0
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		ar := testrec.Parse(t, path)
		_, res := testrec.Build(t, ar, name)
		odd := 0
		for _, v := range []*model.View{res.Model.Filter(nil), res.Model.Filter(func(*model.Thread) bool { odd++; return odd%2 == 1 })} {
			for _, n := range []int{0, 2} {
				want, wantTotal := chains(v, nil, n, true)
				got, gotTotal := chains(v, nil, n, false)
				if gotTotal != wantTotal || !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %d threads, n %d: per union span %d roots:\n%+v\nper waiter %d:\n%+v", name, len(v.Threads), n, gotTotal, got, wantTotal, want)
				}
				got, gotTotal = Chains(v, nil, n)
				if gotTotal != wantTotal || !reflect.DeepEqual(got, want) {
					t.Errorf("%s, %d threads, n %d: by the sweep %d roots:\n%+v\nper waiter %d:\n%+v", name, len(v.Threads), n, gotTotal, got, wantTotal, want)
				}
				some += len(got)
			}
		}
	}
	if some < 20 {
		t.Errorf("only %d roots in all the cases", some)
	}
}

// TestChainsFind checks the search of a thread's intervals by their
// blocks' ends against a search of all: for every instant around every
// interval's end, of threads of 0 to 3 blocks and some.
func TestChainsFind(t *testing.T) {
	for n := range 3*findBlock + 2 {
		ivs := make([]model.Interval, n)
		for i := range ivs {
			ivs[i] = model.Interval{Start: format.Time(10*i + 2), End: format.Time(10*i + 7)}
		}
		w := &chainWalk{ends: make([][]format.Time, 1)}
		for a := format.Time(-1); a <= format.Time(10*n+1); a++ {
			want := sort.Search(n, func(i int) bool { return ivs[i].End > a })
			if got := w.find(0, ivs, a); got != want {
				t.Fatalf("%d intervals, at %d: %d, want %d", n, a, got, want)
			}
		}
	}
}

// chainCases returns the golden cases of the report and of the model.
func chainCases(t *testing.T) []string {
	var paths []string
	for _, g := range []string{"../report/testdata/*.txtar", "../model/testdata/cases/*.txtar"} {
		p, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p...)
	}
	if len(paths) < 20 {
		t.Fatalf("only %d cases", len(paths))
	}
	return paths
}

// TestChainsSweepSynth checks the sweep against the walk per waiter on
// synthetic recordings (internal/synth) of a few seeds and shapes: chains
// several steps deep, cycles, owners that end, which the golden cases
// have few of. The 128 MB synthetic of docs/perf/2026-11-29-issue-36-chains.md
// gave the same too.
func TestChainsSweepSynth(t *testing.T) {
	for _, o := range []synth.Options{
		{Seed: 7, Threads: 40, Monitors: 12, Semaphores: 4, Size: 2 << 20},
		{Seed: 11, Threads: 12, Monitors: 3, Semaphores: 2, Size: 1 << 20},
		{Seed: 5, Threads: 200, Monitors: 30, Semaphores: 8, Size: 3 << 20},
		{Seed: 9, Threads: 60, Monitors: 10, Semaphores: 4, Size: 3 << 20, Conditions: true},
	} {
		prefix := filepath.Join(t.TempDir(), "synth")
		if _, err := synth.WriteRecording(prefix, o); err != nil {
			t.Fatal(err)
		}
		rec, err := reader.Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.Build(rec, model.Options{NoEdges: true})
		if err != nil {
			t.Fatal(err)
		}
		v := res.Model.Filter(nil)
		for _, n := range []int{0, 10, -10} {
			// -10: 10, the links by linkKey (chainSweep.wide).
			if n < 0 {
				n, linkWordBits = -n, 0
			}
			got, gotTotal := Chains(v, nil, n)
			linkWordBits = 64
			want, wantTotal := chains(v, nil, n, true)
			if gotTotal != wantTotal || len(got) != len(want) {
				t.Fatalf("seed %d, n %d: by the sweep %d roots (%d kept), per waiter %d (%d)", o.Seed, n, gotTotal, len(got), wantTotal, len(want))
			}
			deep, cycles, released := 0, 0, 0
			for i := range got {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("seed %d, n %d, root %d: by the sweep\n%+v\nper waiter\n%+v", o.Seed, n, i, got[i], want[i])
				}
				deep = max(deep, got[i].Depth)
				switch got[i].RootState {
				case "cycle":
					cycles++
				case "released":
					released++
				}
			}
			t.Logf("seed %d, n %d: %d roots, depth up to %d, %d cycles, %d released", o.Seed, n, gotTotal, deep, cycles, released)
		}
	}
}

// TestChainAt follows the chains of report's case chains at instants of
// known answers (the case's text gives them), and of its case deadlock (a
// cycle, and a join behind it).
func TestChainAt(t *testing.T) {
	for _, c := range []struct {
		name string
		at   float64 // seconds since the first event
		th   format.ThreadID
		want string
	}{
		// leaf behind mid on B1, mid behind sleeper on A1, sleeper sleeping.
		{"chains", 1.5, 0xC, "0000000C monitor 000000B1 0000000B, 0000000B monitor 000000A1 0000000A: 0000000A sleeping"},
		{"chains", 1.5, 0xB, "0000000B monitor 000000A1 0000000A: 0000000A sleeping"},
		// sleeper runs from 1.8.
		{"chains", 1.9, 0xC, "0000000C monitor 000000B1 0000000B, 0000000B monitor 000000A1 0000000A: 0000000A runnable"},
		// mid got A1 at 2.0 and runs.
		{"chains", 2.05, 0xC, "0000000C monitor 000000B1 0000000B: 0000000B runnable"},
		// leaf got B1 at 2.1.
		{"chains", 2.2, 0xC, ": 0000000C runnable"},
		// joiner behind behind-waiter (a join), behind-waiter behind waiter
		// on E1; waiter's wait ended by no notify: its own root.
		{"chains", 3.2, 0xF, "0000000F join 00000000 0000000E, 0000000E monitor 000000E1 0000000D: 0000000D waiting"},
		// The cycle: left behind right on B00B, right behind left on A00A.
		{"deadlock", 2, 0xA, "0000000A monitor 0000B00B 0000000B, 0000000B monitor 0000A00A 0000000A: 0000000A cycle"},
		{"deadlock", 2, 0xB, "0000000B monitor 0000A00A 0000000A, 0000000A monitor 0000B00B 0000000B: 0000000A cycle"},
		// main joins left, in the cycle.
		{"deadlock", 2, 0x1, "00000001 join 00000000 0000000A, 0000000A monitor 0000B00B 0000000B, 0000000B monitor 0000A00A 0000000A: 0000000A cycle"},
		// Before right blocked, right is left's root.
		{"deadlock", 0.5005, 0xA, "0000000A monitor 0000B00B 0000000B: 0000000B runnable"},
	} {
		ar := testrec.Parse(t, "../report/testdata/"+c.name+".txtar")
		_, res := testrec.Build(t, ar, c.name)
		m := res.Model
		p := ChainAt(m, c.th, m.Start+format.Time(c.at*1e9))
		var links []string
		for _, l := range p.Links {
			links = append(links, fmt.Sprintf("%v %s %v %v", l.From, l.How, l.Object, l.To))
		}
		if got := strings.Join(links, ", ") + ": " + p.Root.String() + " " + p.RootState; got != c.want {
			t.Errorf("%s at %v, thread %v: %q, want %q", c.name, c.at, c.th, got, c.want)
		}
	}
}

// TestChainAtLinks follows the chain at the middle of every blocked
// interval of every golden case: its first step is to the holder the
// contention blames then (none: the thread is its own root, blocked), the
// steps follow one another, and the root is the last step's thread, or,
// in a cycle, the smallest id of the cycle's threads.
func TestChainAtLinks(t *testing.T) {
	some := 0
	for _, path := range chainCases(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		ar := testrec.Parse(t, path)
		_, res := testrec.Build(t, ar, name)
		m := res.Model
		for _, th := range m.Threads {
			for i := range th.Intervals {
				iv := &th.Intervals[i]
				if !iv.Acquire && iv.State != model.Blocked || iv.End <= iv.Start {
					continue
				}
				at := iv.Start + (iv.End-iv.Start)/2
				if at < th.Start || at >= th.End {
					continue
				}
				var owner format.ThreadID
				for sp := range m.BlameSpans(th.ID, iv) {
					if sp.Start <= at && at < sp.End && sp.Owner != th.ID {
						owner = sp.Owner
					}
				}
				p := ChainAt(m, th.ID, at)
				where := fmt.Sprintf("%s: thread %v at %v: %+v", name, th.ID, at-m.Start, p)
				if owner == 0 {
					if len(p.Links) != 0 || p.Root != th.ID || p.RootState != "blocked" {
						t.Errorf("%s: want its own root, blocked", where)
					}
					continue
				}
				some++
				if len(p.Links) == 0 || p.Links[0].From != th.ID || p.Links[0].To != owner || p.Links[0].Object != iv.Object {
					t.Errorf("%s: want a first step to %v on %v", where, owner, iv.Object)
					continue
				}
				for k := 1; k < len(p.Links); k++ {
					if p.Links[k].From != p.Links[k-1].To {
						t.Errorf("%s: step %d does not follow", where, k)
					}
				}
				last := p.Links[len(p.Links)-1].To
				if p.RootState != "cycle" {
					if p.Root != last {
						t.Errorf("%s: root is not the last step's thread", where)
					}
					continue
				}
				k := slices.IndexFunc(p.Links, func(l Link) bool { return l.From == last })
				if k < 0 {
					t.Errorf("%s: a cycle that does not close", where)
					continue
				}
				root := last
				for _, l := range p.Links[k:] {
					root = min(root, l.From)
				}
				if p.Root != root {
					t.Errorf("%s: cycle root %v, want %v", where, p.Root, root)
				}
			}
		}
	}
	if some < 20 {
		t.Errorf("only %d chains in all the cases", some)
	}
}

// TestChainsFuzzCorpus checks the sweep against the walk per waiter on the
// model's fuzz corpus of arbitrary .orca text (FuzzModelText's): broken
// recordings, events out of order, owners that are not threads.
func TestChainsFuzzCorpus(t *testing.T) {
	paths, err := filepath.Glob("../model/testdata/fuzz/FuzzModelText/*")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no corpus: %v", err)
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		_, lit, _ := strings.Cut(string(b), "[]byte(")
		data, err := strconv.Unquote(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(lit), ")")))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// The fuzzer's fold skips the lines that are no event; a recording
		// must begin with one (reader.Open: thread-started-twice's first
		// line is cut), so those before the first event are left out.
		for data != "" {
			line, rest, _ := strings.Cut(data, "\n")
			if _, err := reader.NewEvents(strings.NewReader(line+"\n"), "fuzz.orca").Next(); err == nil {
				break
			}
			data = rest
		}
		_, res := testrec.Build(t, &txtar.Archive{Files: []txtar.File{{Name: "orca", Data: []byte(data)}}}, "fuzz")
		v := res.Model.Filter(nil)
		for _, n := range []int{0, 2} {
			got, gotTotal := Chains(v, nil, n)
			want, wantTotal := chains(v, nil, n, true)
			if gotTotal != wantTotal || !reflect.DeepEqual(got, want) {
				t.Errorf("%s, n %d: by the sweep %d roots:\n%+v\nper waiter %d:\n%+v", filepath.Base(p), n, gotTotal, got, wantTotal, want)
			}
		}
	}
}

// TestHoldersAndChainsRead builds every golden case and synthetic
// recordings as orca report does (the intervals in the spill alone) and
// checks HoldersAndChains against HoldersDoing and the walk per waiter:
// the same holders (but their Spans) and chains, while it reads no thread's intervals back
// but the holders' fold's and the roots kept's (Model.IntervalsRead): the
// sweep takes its edges as the holders' fold reads the intervals.
// Reading every thread's again, as Chains after HoldersDoing did, reads
// about twice the holders' fold's.
func TestHoldersAndChainsRead(t *testing.T) {
	prefixes := chainPrefixes(t, []synth.Options{
		{Seed: 7, Threads: 40, Monitors: 12, Semaphores: 4, Size: 2 << 20},
		{Seed: 5, Threads: 200, Monitors: 30, Semaphores: 8, Size: 3 << 20},
		{Seed: 9, Threads: 60, Monitors: 10, Semaphores: 4, Size: 3 << 20, Conditions: true},
	})
	some, big := 0, 0
	// The holders' releases read back a piece at a time as by default, and
	// in pieces of one release at most (each cut between two).
	// And the threads behind each root kept made unique as they come,
	// the ordered buckets cut into flat ones of 1 µs at most, the roots
	// kept's stretches written to the spill one at a time, and their
	// links' times merged at each add.
	defer func(p, c int, f format.Time, g, ls, lm int) {
		relPiece, threadsCompact, flatSpan, segBlock, linkLogShare, linkLogMin = p, c, f, g, ls, lm
	}(relPiece, threadsCompact, flatSpan, segBlock, linkLogShare, linkLogMin)
	for i, prefix := range append(prefixes, prefixes...) {
		relPiece, threadsCompact, flatSpan, segBlock, linkLogShare, linkLogMin = 256, 1024, math.MaxUint32, 4<<10, 8, 256
		restore := func() {}
		if i >= len(prefixes) {
			relPiece, threadsCompact, flatSpan, segBlock, linkLogShare, linkLogMin = relMaxSize, 1, 1000, 1, 1, 1
			// And the threads of more than two intervals read by pieces
			// (the holders' passes, the roots' states: Model.WindowOf).
			restore = model.SetIvPiece(2)
		}
		name := filepath.Base(prefix)
		_, res := testrec.OpenWith(t, prefix, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true})
		m := res.Model
		if !m.IntervalsDropped() {
			t.Fatalf("%s: the intervals are not in the spill alone", name)
		}
		v := m.Filter(nil)
		for _, n := range []int{0, 2, 10} {
			r0 := m.IntervalsRead
			wantDoing := v.HoldersDoing()
			r1 := m.IntervalsRead
			doing, got, gotTotal := HoldersAndChains(v, n)
			r2 := m.IntervalsRead
			want, wantTotal := chains(v, nil, n, true)
			for _, d := range wantDoing {
				d.Spans = nil // HoldersDoingWith keeps none (the report reads none)
			}
			if !reflect.DeepEqual(doing, wantDoing) {
				t.Errorf("%s, n %d: what the holders did differs from HoldersDoing's", name, n)
			}
			if gotTotal != wantTotal || !reflect.DeepEqual(got, want) {
				t.Errorf("%s, n %d: %d roots:\n%+v\nper waiter %d:\n%+v", name, n, gotTotal, got, wantTotal, want)
			}
			// The roots kept's intervals, read to split their time by
			// what they did.
			kept := 0
			var buf []model.Interval
			for _, c := range got {
				if th := m.Thread(c.Root); th != nil {
					kept += len(m.IntervalsOf(th, &buf))
				}
			}
			m.IntervalsRead -= kept
			if read, fold := r2-r1, r1-r0; read > fold+kept {
				t.Errorf("%s, n %d: read %d intervals back, the holders' fold alone %d, the %d roots kept %d", name, n, read, fold, len(got), kept)
			}
			if r1-r0 > 1000 {
				big++
			}
			some += len(got)
		}
		restore()
	}
	if some < 20 || big < 2 {
		t.Errorf("only %d roots in all the cases, %d with more than 1000 intervals", some, big)
	}
}

// TestEdgeLog: a bucket's edges packed (edgeLog) decode to the same, in
// order: starts before the bucket's and far after it, from going down,
// to at its largest with and without srcBit, long edges.
func TestEdgeLog(t *testing.T) {
	base := format.Time(1_000_000)
	var want []sweepEdge
	r := uint64(1)
	next := func() uint64 { r = r*6364136223846793005 + 1442695040888963407; return r >> 11 }
	for i := 0; i < 5000; i++ {
		e := sweepEdge{
			a:    base + format.Time(next()%4_000_000_000) - 2_000_000,
			from: int32(next() % (1 << 31)),
			to:   uint32(next() % (1 << 31)),
			lk:   uint32(next()),
		}
		e.b = e.a + 1 + format.Time(next()%(1<<40))
		if next()%2 == 0 {
			e.to |= srcBit
		}
		if i%7 != 0 && i > 0 { // a thread's run: the same from
			e.from = want[i-1].from
		}
		want = append(want, e)
	}
	want[0].to = srcBit - 1
	want[1].to = srcBit | (srcBit - 1)
	want[2].from = 1<<31 - 1
	for _, sp := range []*model.Model{nil, spilledModel(t)} {
		var l edgeLog
		for i := range want {
			l.add(&want[i], base, sp)
		}
		if sp != nil && (len(l.spilt) == 0 || len(l.full) != 0) {
			t.Fatalf("edgeLog with a spill: %d blocks spilt, %d kept full", len(l.spilt), len(l.full))
		}
		if sp == nil && len(l.full) == 0 {
			t.Fatalf("edgeLog without a spill: no full block")
		}
		var room []byte
		got := l.decode(nil, base, sp, &room)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("edgeLog (spill %v) decodes %d edges, not as added", sp != nil, len(got))
		}
		if int(l.n) != len(want) {
			t.Fatalf("edgeLog.n %d, want %d", l.n, len(want))
		}
	}
}

// TestSegLog: a root kept's stretches, packed, some written to the spill
// (segBlock), read back in order as added, those that go on from the
// one before with as many waiters joined.
func TestSegLog(t *testing.T) {
	r := uint64(3)
	next := func() uint64 { r = r*6364136223846793005 + 1442695040888963407; return r >> 11 }
	var want []rootSeg
	at := format.Time(1_000_000)
	for range 20000 {
		a := at + format.Time(next()%3)*format.Time(next()%1_000_000)
		g := rootSeg{a: a, b: a + 1 + format.Time(next()%(1<<33)), n: 1 + format.Time(next()%4)}
		if l := len(want) - 1; l >= 0 && want[l].b == g.a && want[l].n == g.n {
			want[l].b = g.b
		} else {
			want = append(want, g)
		}
		at = g.b
	}
	for _, sp := range []*model.Model{nil, spilledModel(t)} {
		var l segLog
		for _, g := range want {
			// Each cut in two that join again.
			m := g.a + (g.b-g.a)/2
			l.add(g.a, m, g.n, sp)
			l.add(m, g.b, g.n, sp)
		}
		if (sp != nil) != (len(l.spilt) > 0) || sp != nil && len(l.b) >= segBlock+3*binary.MaxVarintLen64 {
			t.Fatalf("segLog (spill %v): %d blocks spilt, %d bytes held", sp != nil, len(l.spilt), len(l.b))
		}
		var room []byte
		var got []rootSeg
		for g := range l.all(sp, &room) {
			got = append(got, g)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("segLog (spill %v): %d stretches read back, not as added (%d)", sp != nil, len(got), len(want))
		}
	}
}

// TestLinkSums: a root kept's links' times summed by sort and packed
// (linkSums) are a map's sums, for keys of every width of their fields
// and merges at every add, at a few, or at the end alone.
func TestLinkSums(t *testing.T) {
	defer func(ls, lm int) { linkLogShare, linkLogMin = ls, lm }(linkLogShare, linkLogMin)
	r := uint64(5)
	next := func() uint64 { r = r*6364136223846793005 + 1442695040888963407; return r >> 11 }
	for _, c := range []struct {
		nodeBits, lkBits uint8
		share, min, keys int
	}{
		{21, 14, 8, 256, 3000}, {21, 14, 1, 1, 500}, {3, 2, 2, 4, 100}, {31, 2, 8, 16, 5000},
		{1, 1, 1, 1, 8}, {21, 14, 8, 1 << 30, 20000},
	} {
		linkLogShare, linkLogMin = c.share, c.min
		want := map[uint64]format.Time{}
		var l linkSums
		keys := make([]uint64, c.keys)
		for i := range keys {
			x, to, lk := int32(next()&(1<<c.nodeBits-1)), int32(next()&(1<<c.nodeBits-1)), uint32(next()&(1<<c.lkBits-1))
			if i%3 == 1 { // neighbours: the same x, or x and to
				k := linkOf(keys[i-1], c.nodeBits, c.lkBits)
				x = k.x
				if i%2 == 0 {
					to = k.to
				}
			}
			keys[i] = linkWord(x, to, lk, c.nodeBits, c.lkBits)
		}
		keys[0] = 0
		keys[len(keys)-1] = linkWord(1<<c.nodeBits-1, 1<<c.nodeBits-1, 1<<c.lkBits-1, c.nodeBits, c.lkBits)
		for i := range 3 * c.keys {
			w := keys[next()%uint64(len(keys))]
			if i < len(keys) {
				w = keys[i]
			}
			d := format.Time(1 + next()%(1<<(next()%50)))
			want[w] += d
			l.add(w, d, c.nodeBits, c.lkBits)
		}
		got := map[uint64]format.Time{}
		prev, first := uint64(0), true
		for w, d := range l.all(c.nodeBits, c.lkBits) {
			if _, dup := got[w]; dup || !first && w <= prev {
				t.Fatalf("%+v: key %x out of order or again", c, w)
			}
			got[w], prev, first = d, w, false
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%+v: %d sums, not a map's (%d)", c, len(got), len(want))
		}
		if l.n != len(want) || len(l.log) != 0 {
			t.Fatalf("%+v: %d keys packed, %d in the log, want %d and 0", c, l.n, len(l.log), len(want))
		}
		for _, b := range l.chunks[:max(len(l.chunks)-1, 0)] {
			if len(b) > linkChunk || len(b)+linkMaxSize <= linkChunk {
				t.Fatalf("%+v: a chunk of %d bytes (chunks of %d)", c, len(b), linkChunk)
			}
		}
	}
	// A merge makes its chunk once, the size the links take, not grown
	// by appends: 2 000 links of ~5 bytes, one chunk and the list of it.
	var l linkSums
	allocs := testing.AllocsPerRun(20, func() {
		l.chunks, l.n = nil, 0
		for i := range 2000 {
			l.log = append(l.log, linkAdd{uint64(i) << 8, format.Time(i)})
		}
		l.merge(16, 8)
	})
	if allocs > 2 || l.n != 2000 || len(l.chunks) != 1 {
		t.Errorf("a merge of 2 000 links into %d chunks (%d links) made %.0f allocations, want one chunk and at most 2", len(l.chunks), l.n, allocs)
	}
}

// TestReleasesInWindow: a holder's window holds the releases an edge
// asks for alone, not the first that begins after its end nor the rest
// of the piece read (releasesIn), with a spill or without; it tells that
// next one's start; the next edges read on from there; a window that
// holds none is let go, and what an edge of a later bucket reads leaves
// out those ended before the bucket.
func TestReleasesInWindow(t *testing.T) {
	for _, sp := range []*model.Model{nil, spilledModel(t)} {
		s := &chainSweep{sp: sp, relOf: make([]relGate, 1), relLockOf: map[model.LockRef]uint32{}, width: 1 << 40}
		for i := range 200 {
			a := format.Time(100 * i)
			s.addRelease(a, a+10, model.LockRef{Object: format.ObjectID(1 + i%3)})
		}
		s.endReleases()
		if win, next, more := s.releasesIn(0, 0, 0); len(win) != 0 || next != 0 || !more || len(s.relWins)-len(s.relFree) != 0 {
			t.Fatalf("spill %v, an edge ending at 0: a window of %d releases (next %d, more %v, %d windows), want none, 0, true, none", sp != nil, len(win), next, more, len(s.relWins)-len(s.relFree))
		}
		for _, b := range []format.Time{550, 551, 5_000, 19_950, 30_000} {
			win, next, more := s.releasesIn(0, 0, b)
			want := min(int(b+99)/100, 200) // those that begin before b
			if len(win) != want || win[len(win)-1].a != format.Time(100*(want-1)) {
				t.Fatalf("spill %v, an edge ending at %d: a window of %d releases, want %d", sp != nil, b, len(win), want)
			}
			if wantMore := want < 200; more != wantMore || more && next != format.Time(100*want) {
				t.Fatalf("spill %v, an edge ending at %d: next %d (more %v), want %d (%v)", sp != nil, b, next, more, 100*want, wantMore)
			}
			for i, r := range win {
				if r.a != format.Time(100*i) || r.b != r.a+10 || s.relLocks[r.lock].Object != format.ObjectID(1+i%3) {
					t.Fatalf("spill %v: release %d read back as %+v", sp != nil, i, r)
				}
			}
		}
	}
	// A later bucket: the releases ended before its base are not held,
	// and the window, empty, is let go.
	for _, sp := range []*model.Model{nil, spilledModel(t)} {
		s := &chainSweep{sp: sp, relOf: make([]relGate, 1), relLockOf: map[model.LockRef]uint32{}, width: 1000}
		for i := range 50 {
			a := format.Time(100 * i)
			s.addRelease(a, a+10, model.LockRef{Object: 1})
		}
		s.endReleases()
		win, next, more := s.releasesIn(0, 2, 2_050) // base 2 000
		if len(win) != 1 || win[0].a != 2_000 || next != 2_100 || !more {
			t.Fatalf("spill %v, bucket 2: a window of %+v, next %d (more %v), want the release at 2 000 alone, 2 100", sp != nil, win, next, more)
		}
		win, next, more = s.releasesIn(0, 3, 3_005) // base 3 000
		if len(win) != 1 || win[0].a != 3_000 || next != 3_100 || !more {
			t.Fatalf("spill %v, bucket 3: a window of %+v, next %d (more %v), want the release at 3 000 alone, 3 100", sp != nil, win, next, more)
		}
		if win, _, _ = s.releasesIn(0, 4, 4_000); len(win) != 0 || len(s.relWins)-len(s.relFree) != 0 {
			t.Fatalf("spill %v, bucket 4, an edge ending at its base: a window of %+v, %d windows, want none", sp != nil, win, len(s.relWins)-len(s.relFree))
		}
		if win, _, more = s.releasesIn(0, 5, 1<<40); len(win) != 0 || more || len(s.relWins)-len(s.relFree) != 0 {
			// Bucket 5's base (5 000) is after the last release's end.
			t.Fatalf("spill %v, bucket 5: a window of %d releases (more %v), want none left", sp != nil, len(win), more)
		}
	}
}

// TestReleasesExpire: a window no edge asks of again is let go at the
// start of the first bucket after its last release ended (expire), not
// held to the end of order; one an edge asked further of is looked at
// again later.
func TestReleasesExpire(t *testing.T) {
	s := &chainSweep{relOf: make([]relGate, 2), relLockOf: map[model.LockRef]uint32{}, width: 1000}
	for y := range int32(2) {
		s.lastXi = y
		for i := range 50 {
			a := format.Time(100*i + int(y))
			s.addRelease(a, a+10, model.LockRef{Object: 1})
		}
	}
	s.endReleases()
	s.relOf[0].run, s.relOf[1].run = 1, 2
	// Both asked of in bucket 1 (base 1 000), to 1 250: the releases at
	// 1 000, 1 100 and 1 200 held, the last ending at 1 210 (bucket 2's
	// start to look at them again); node 1 then to 2 550 too (its last
	// ends at 2 511).
	for y := range int32(2) {
		if win, _, _ := s.releasesIn(y, 1, 1_250); len(win) != 3 {
			t.Fatalf("node %d: a window of %d releases, want 3", y, len(win))
		}
	}
	if win, _, _ := s.releasesIn(1, 1, 2_550); len(win) != 16 {
		t.Fatalf("node 1, to 2 550: a window of %d releases, want 16 (1 001 to 2 501)", len(win))
	}
	s.expire(2)
	if s.rels[1].win == 0 || len(s.relWins)-len(s.relFree) != 1 {
		t.Fatalf("at bucket 2: windows of runs 0, 1 %d, %d, want node 1's alone", s.rels[0].win, s.rels[1].win)
	}
	s.expire(3)
	if len(s.relWins)-len(s.relFree) != 0 || len(s.relFree) != 2 {
		t.Fatalf("at bucket 3: %d windows (%d free), want none (2)", len(s.relWins)-len(s.relFree), len(s.relFree))
	}
	// Read on from where they were: node 0 from 1 300.
	if win, next, _ := s.releasesIn(0, 4, 4_150); len(win) != 2 || win[0].a != 4_000 || next != 4_200 {
		t.Fatalf("node 0, bucket 4: a window of %+v, next %d, want 4 000 and 4 100, next 4 200", win, next)
	}
}

// spilledModel is a Model built with a spill, for its ScratchWrite.
func spilledModel(t *testing.T) *model.Model {
	t.Helper()
	prefix := filepath.Join(t.TempDir(), "synth")
	if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 7, Threads: 4, Monitors: 2, Size: 64 << 10}); err != nil {
		t.Fatal(err)
	}
	_, res := testrec.OpenWith(t, prefix, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true})
	m := res.Model
	if !m.Spilled() {
		t.Fatal("the model has no spill")
	}
	return m
}

// TestChainsReleased: a contention whose blamed holder had released that
// very lock (Object.wait on the monitor, Condition.await on a condition of
// the j.u.c. lock: Model.Releases) ends its chain at that holder, state
// released, and never goes on through the holder's wait or park to its
// notifier or unparker; a park on another lock's condition is no release.
// The model's cases chain-released-monitor and chain-released-juc say why
// each figure is what it is; ChainAt (the viewer's) agrees. Before the
// rule the chains went on to the notifier (C) and the unparker (S).
func TestChainsReleased(t *testing.T) {
	for _, c := range []struct {
		name   string
		roots  string
		at     float64
		th     format.ThreadID
		atWant string
	}{
		{"chain-released-monitor",
			"00000001 released 1.5 depth 2 [0000000B 0000000D]; 0000000B runnable 0.1 depth 1 [0000000D]",
			0.5, 0xD, "0000000D monitor 0000DDDD 0000000B, 0000000B monitor 0000AAAA 00000001: 00000001 released"},
		{"chain-released-juc",
			"00000001 released 0.8 depth 1 [0000000A]; 00000005 runnable 0.2 depth 2 [0000000A]",
			0.5, 0xA, "0000000A lock 0000BEEF 00000001: 00000001 released"},
		{"chain-released-juc", "", 0.2, 0xA, "0000000A lock 0000BEEF 00000001, 00000001 park 0000F0F0 00000005: 00000005 runnable"},
		// A wait notified by a thread not started yet (NestedWait.java):
		// its root is that thread, not_started until its start (the
		// report said "not recorded"), then runnable.
		{"chain-not-started", "0000000C not_started 0.31 depth 2 [0000000B]; 00000001 runnable 0.01 depth 1 [0000000B]", 0.3, 0xB, "0000000B monitor 0000CAFE 00000001, 00000001 wait 0000BEEF 0000000C: 0000000C not_started"},
		{"chain-not-started", "", 0.505, 0xB, "0000000B monitor 0000CAFE 00000001, 00000001 wait 0000BEEF 0000000C: 0000000C runnable"},
	} {
		ar := testrec.Parse(t, "../model/testdata/cases/"+c.name+".txtar")
		_, res := testrec.Build(t, ar, c.name)
		m := res.Model
		if c.roots != "" {
			for _, v := range []*model.View{m.Filter(nil)} {
				got, _ := Chains(v, nil, 0)
				var roots []string
				for _, r := range got {
					roots = append(roots, fmt.Sprintf("%v %s %v depth %d %v", r.Root, r.RootState, r.Time.Seconds(), r.Depth, r.Threads))
				}
				if s := strings.Join(roots, "; "); s != c.roots {
					t.Errorf("%s: roots\n%s\nwant\n%s", c.name, s, c.roots)
				}
				_, hc, _ := HoldersAndChains(v, 0)
				if !reflect.DeepEqual(hc, got) {
					t.Errorf("%s: HoldersAndChains %+v, Chains %+v", c.name, hc, got)
				}
			}
		}
		p := ChainAt(m, c.th, m.Start+format.Time(c.at*1e9))
		var links []string
		for _, l := range p.Links {
			links = append(links, fmt.Sprintf("%v %s %v %v", l.From, l.How, l.Object, l.To))
		}
		if got := strings.Join(links, ", ") + ": " + p.Root.String() + " " + p.RootState; got != c.atWant {
			t.Errorf("%s at %v, thread %v: %q, want %q", c.name, c.at, c.th, got, c.atWant)
		}
	}
}

// TestChainListCut: a ChainList whose links are cut (HoldersAndChainList,
// ChainListOf with links > 0, as orca report asks: pass 2 run for
// chainBatches runs of the roots, each root's Chain made once its run is
// done) lists the chains of HoldersAndChains, each with its first links
// Links alone and LinksTotal all of them, in one run, two, three and one
// per root (about), on the golden cases and synthetic recordings built as
// orca report builds them. Fails with a batch that gives a root another's time or
// links, or leaves the forest of the one before.
func TestChainListCut(t *testing.T) {
	prefixes := chainPrefixes(t, []synth.Options{
		{Seed: 7, Threads: 40, Monitors: 12, Semaphores: 4, Size: 2 << 20},
		{Seed: 9, Threads: 60, Monitors: 10, Semaphores: 4, Size: 3 << 20, Conditions: true},
	})
	defer func(b, m int) { chainBatches, chainBatchMin = b, m }(chainBatches, chainBatchMin)
	chainBatchMin = 1
	batched, cut := 0, 0
	for _, prefix := range prefixes {
		name := filepath.Base(prefix)
		_, res := testrec.OpenWith(t, prefix, model.Options{NoEdges: true, Spill: true, SpillDir: t.TempDir(), DropIntervals: true})
		v := res.Model.Filter(nil)
		for _, n := range []int{0, 2} {
			_, full, fullTotal := HoldersAndChains(v, n)
			for _, links := range []int{1, 3} {
				want := make([]Chain, len(full))
				for i, c := range full {
					c.Links = c.Links[:min(links, len(c.Links))]
					want[i] = c
					if c.LinksTotal != len(full[i].Links) {
						t.Fatalf("%s: LinksTotal %d of %d links", name, c.LinksTotal, len(full[i].Links))
					}
					if c.LinksTotal > links {
						cut++
					}
				}
				for _, batches := range []int{1, 2, 3, 1 << 20} {
					chainBatches = batches
					if batches > 1 && len(full) > 1 {
						batched++
					}
					for _, of := range []string{"HoldersAndChainList", "ChainListOf"} {
						var l *ChainList
						var total int
						if of == "ChainListOf" {
							l, total = ChainListOf(v, n, links)
						} else {
							_, l, total = HoldersAndChainList(v, n, links)
						}
						if got := l.All(); total != fullTotal || !reflect.DeepEqual(got, want) {
							t.Errorf("%s: %s(n %d, links %d), %d batches: %d roots\n%+v\nwant %d\n%+v", name, of, n, links, batches, total, got, fullTotal, want)
						}
					}
				}
			}
		}
	}
	if batched < 10 || cut < 10 {
		t.Errorf("%d lists in more than one batch, %d chains cut: the test checks little", batched, cut)
	}
}

// chainPrefixes writes every chain case and a synthetic recording for each
// of opts, and returns their prefixes.
func chainPrefixes(t *testing.T, opts []synth.Options) []string {
	var prefixes []string
	for _, path := range chainCases(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		prefix := filepath.Join(t.TempDir(), name)
		testrec.Write(t, testrec.Parse(t, path), prefix)
		prefixes = append(prefixes, prefix)
	}
	for _, o := range opts {
		prefix := filepath.Join(t.TempDir(), "synth")
		if _, err := synth.WriteRecording(prefix, o); err != nil {
			t.Fatal(err)
		}
		prefixes = append(prefixes, prefix)
	}
	return prefixes
}

// TestChainsJoinExit: a thread's exit blocks on its own Thread object
// while its joiner holds it inside Thread.join (the model's case
// chain-join-exit says why each figure is what it is): the joiner is not
// in its wait then but running, and the exiting thread is behind it, no
// cycle; ChainAt (the viewer's) agrees. Before, the chains called main
// "in a deadlock" for those 200 µs (a cycle of main joining A and A
// blocked on main), W behind it at depth 2 (TestChainRelease met it on
// 25: 220 µs).
func TestChainsJoinExit(t *testing.T) {
	ar := testrec.Parse(t, "../model/testdata/cases/chain-join-exit.txtar")
	_, res := testrec.Build(t, ar, "chain-join-exit")
	m := res.Model
	for _, c := range []struct {
		v    *model.View
		want string
	}{
		{m.Filter(nil), "0000000A runnable 0.1002 depth 2 [0000000B]; 00000001 runnable 0.1 depth 1 [0000000A 0000000B]"},
		// A's time alone, as orca report --thread a: before, main was
		// "cycle" for all of it, "in a deadlock".
		{m.Filter(func(th *model.Thread) bool { return th.ID == 0xA }), "00000001 runnable 0.0002 depth 1 [0000000A]"},
	} {
		v, want := c.v, c.want
		got, _ := Chains(v, nil, 0)
		var roots []string
		for _, r := range got {
			roots = append(roots, fmt.Sprintf("%v %s %v depth %d %v", r.Root, r.RootState, r.Time.Seconds(), r.Depth, r.Threads))
			for _, l := range r.Links {
				if l.How == "join" && l.Time != 100.2e6 {
					t.Errorf("root %v: a join link of %v, want 100.2 ms (W through main's join, 1.4..1.5001 and 1.5003..1.5004)", r.Root, l.Time)
				}
			}
		}
		if s := strings.Join(roots, "; "); s != want {
			t.Errorf("roots\n%s\nwant\n%s", s, want)
		}
		_, hc, _ := HoldersAndChains(v, 0)
		if !reflect.DeepEqual(hc, got) {
			t.Errorf("HoldersAndChains %+v, Chains %+v", hc, got)
		}
		if w, _ := chains(v, nil, 0, true); !reflect.DeepEqual(w, got) {
			t.Errorf("the walk per waiter %+v, the sweep %+v", w, got)
		}
	}
	for _, c := range []struct {
		at   float64
		th   format.ThreadID
		want string
	}{
		{1.5002, 0xA, "0000000A monitor 0000000A 00000001: 00000001 runnable"},
		{1.5002, 0xB, "0000000B monitor 0000BEEF 00000001: 00000001 runnable"},
		{1.45, 0xB, "0000000B monitor 0000BEEF 00000001, 00000001 join 00000000 0000000A: 0000000A runnable"},
		{1.50035, 0xB, "0000000B monitor 0000BEEF 00000001, 00000001 join 00000000 0000000A: 0000000A ended"},
	} {
		p := ChainAt(m, c.th, m.Start+format.Time(c.at*1e9))
		var links []string
		for _, l := range p.Links {
			links = append(links, fmt.Sprintf("%v %s %v %v", l.From, l.How, l.Object, l.To))
		}
		if got := strings.Join(links, ", ") + ": " + p.Root.String() + " " + p.RootState; got != c.want {
			t.Errorf("at %v, thread %v: %q, want %q", c.at, c.th, got, c.want)
		}
	}
}

// TestReleasesInReads: the edges that ask a holder's open window for
// releases, each a little further, read the run from the spill once
// (a piece at a time), not the piece of the release that stops each
// again (100 times the releases' bytes at c1G).
func TestReleasesInReads(t *testing.T) {
	sp := spilledModel(t)
	s := &chainSweep{sp: sp, relOf: make([]relGate, 1), relLockOf: map[model.LockRef]uint32{}, width: 1 << 40}
	for i := range 400 {
		a := format.Time(100 * i)
		s.addRelease(a, a+90, model.LockRef{Object: format.ObjectID(1 + i%3)})
	}
	s.endReleases()
	n := s.rels[0].ref.Len()
	calls := 0
	for b := format.Time(1); b <= 40_000; b += 7 {
		win, _, _ := s.releasesIn(0, 0, b)
		if want := min(int(b+99)/100, 400); len(win) != want {
			t.Fatalf("an edge ending at %d: a window of %d releases, want %d", b, len(win), want)
		}
		calls++
	}
	if most := n/(relPiece-relMaxSize) + 2; s.relReads > most {
		t.Fatalf("%d calls read %d pieces of the spill for a run of %d bytes, want at most %d", calls, s.relReads, n, most)
	}
}

// TestReleasesChunked: the holders' runs of releases go to the spill
// together (writeReleases), not a block each between the other blocks
// written meanwhile (the edges'), so that reading them all back takes a
// few pieces of the spill's cache, not one or two a run.
func TestReleasesChunked(t *testing.T) {
	sp := spilledModel(t)
	const runs = 200
	s := &chainSweep{sp: sp, relOf: make([]relGate, runs), relLockOf: map[model.LockRef]uint32{}, width: 1 << 40}
	other := make([]byte, 5000)
	for y := range int32(runs) {
		s.lastXi = y
		for i := range 10 {
			a := format.Time(100*i + int(y))
			s.addRelease(a, a+10, model.LockRef{Object: 1})
		}
		if _, ok := sp.ScratchWrite(other); !ok {
			t.Fatal("no spill")
		}
	}
	s.endReleases()
	n := 0
	for x := range s.rels {
		n += s.rels[x].ref.Len()
	}
	model.EnableSpillStats()
	for y := range int32(runs) {
		if win, _, more := s.releasesIn(y, 0, 1<<40); len(win) != 10 || more {
			t.Fatalf("node %d: a window of %d releases (more %v), want 10", y, len(win), more)
		}
	}
	if reads, most := model.SpillStatsReads(), int64(n/4096+2); reads > most {
		t.Fatalf("%d runs of %d bytes in all read back in %d reads of the spill, want at most %d", runs, n, reads, most)
	}
}

// TestChainsSlots checks the sweep against the walk per waiter where its
// slots are given again (chainSweep.slots): "p" blocks on A1, held by
// "h", from 1.0 to 2.0, "w" behind it on A2 from 1.5 to 2.0, and "q"
// starts to wait 1 ns before their ends (1.999999999, on A3 held by "r"):
// no slot of theirs is free then. Then six workers, one after another,
// each blocks 50 ms on A4 held by "h", and another on A5 held by the
// worker: each worker's slot and its waiter's are the ones before's, at
// an instant after their last end (or at it: the workers from 3.2 on
// begin as the one before ends).
func TestChainsSlots(t *testing.T) {
	ev := func(at float64, rest string) string { return fmt.Sprintf("%.10f,%s\n", at, rest) }
	st := "2;00000003;00000010;00000002;00000000"
	var b strings.Builder
	b.WriteString(ev(0, "ThreadStarted,00000001,main"))
	for _, th := range []string{"00000010,p", "00000011,h", "00000012,w", "00000013,q", "00000014,r"} {
		b.WriteString(ev(0.01, "ThreadStarted,"+th))
	}
	b.WriteString(ev(1.0, "MonitorContendedEnter,00000010,000000A1,00000011,"+st))
	b.WriteString(ev(1.5, "MonitorContendedEnter,00000012,000000A2,00000010,"+st))
	b.WriteString(ev(1.999999999, "MonitorContendedEnter,00000013,000000A3,00000014,"+st))
	b.WriteString(ev(2.0, "MonitorContendedEntered,00000010,000000A1,"+st))
	b.WriteString(ev(2.0, "MonitorContendedEntered,00000012,000000A2,"+st))
	b.WriteString(ev(2.0, "ThreadEnded,00000010"))
	b.WriteString(ev(2.0, "ThreadEnded,00000012"))
	b.WriteString(ev(2.5, "MonitorContendedEntered,00000013,000000A3,"+st))
	for i := range 6 {
		at := 3.0 + 0.1*float64(i)
		if i >= 2 {
			at = 3.2 + 0.05*float64(i-2) // as the one before ends
		}
		wk, wt := fmt.Sprintf("%08X", 0x20+2*i), fmt.Sprintf("%08X", 0x21+2*i)
		b.WriteString(ev(at-0.001, "ThreadStarted,"+wk+",worker"))
		b.WriteString(ev(at-0.001, "ThreadStarted,"+wt+",behind"))
		b.WriteString(ev(at, "MonitorContendedEnter,"+wk+",000000A4,00000011,"+st))
		b.WriteString(ev(at+0.01, "MonitorContendedEnter,"+wt+",000000A5,"+wk+","+st))
		b.WriteString(ev(at+0.05, "MonitorContendedEntered,"+wk+",000000A4,"+st))
		b.WriteString(ev(at+0.05, "MonitorContendedEntered,"+wt+",000000A5,"+st))
		b.WriteString(ev(at+0.05, "ThreadEnded,"+wk))
		b.WriteString(ev(at+0.05, "ThreadEnded,"+wt))
	}
	for _, th := range []string{"00000011", "00000013", "00000014", "00000001"} {
		b.WriteString(ev(4, "ThreadEnded,"+th))
	}
	ar := testrec.Parse(t, "../report/testdata/chains.txtar")
	for i := range ar.Files {
		if ar.Files[i].Name == "orca" {
			ar.Files[i].Data = []byte(b.String())
		}
	}
	_, res := testrec.Build(t, ar, "slots")
	var nodes, slots int
	slotsMade = func(n, s int) { nodes, slots = n, s }
	defer func() { slotsMade = nil }()
	v := res.Model.Filter(nil)
	for _, n := range []int{0, 2} {
		want, wantTotal := chains(v, nil, n, true)
		got, gotTotal := Chains(v, nil, n)
		if gotTotal != wantTotal || !reflect.DeepEqual(got, want) {
			t.Errorf("n %d: by the sweep %d roots:\n%+v\nper waiter %d:\n%+v", n, gotTotal, got, wantTotal, want)
		}
		if wantTotal != 2 {
			t.Errorf("n %d: %d roots, want h and r", n, wantTotal)
		}
	}
	// p, h, w, q, r: five at 1.999999999; the workers and their waiters
	// in p's, w's, q's and r's (a worker that begins as the one before
	// ends in the two others).
	if nodes < 17 || slots != 5 {
		t.Errorf("%d nodes in %d slots, want 17 or more in 5", nodes, slots)
	}
}
