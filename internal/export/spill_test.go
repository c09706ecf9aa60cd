package export

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/proto"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestSpilledSameBytes: the profile formats (pprof, collapsed, OTLP) and
// the totals orca export prints are the same, byte for byte, from a Model
// built with SpilledOptions (each thread's intervals and samples read
// back from the spill a thread at a time, as orca export builds it) and
// from one that holds every interval (as the tests load it), over the
// model's, the report's and this package's cases and a synthetic
// recording of every kind. It fails with any of the readers left on
// Thread.Intervals or Thread.Samples, which such a Model leaves empty,
// and when such a Model keeps an ended thread's Thread whole, not packed
// (Options.PackThreads: the readers on Model.Threads would find a nil).
func TestSpilledSameBytes(t *testing.T) {
	type rec struct {
		name string
		rec  *reader.Recording
		mem  *model.Model
	}
	var recs []rec
	for _, path := range casePaths(t) {
		r, m := load(t, path)
		recs = append(recs, rec{path, r, m})
	}
	prefix := filepath.Join(t.TempDir(), "synthetic")
	if _, err := synth.WriteRecording(prefix, synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}); err != nil {
		t.Fatal(err)
	}
	r, res := testrec.Open(t, prefix)
	recs = append(recs, rec{"synthetic", r, res.Model})
	// Sealed after every event, as the model's tests build: what the
	// fold gives up to the spill as it goes (owner changes, hand-offs,
	// the threads' intervals) is read back by these answers too, not
	// only what one seal at the end wrote.
	defer model.SetSealEveryEvent()()
	droppedSome, packed := false, 0
	// Each recording three times: its threads' intervals read back whole,
	// then by pieces of about 1 and 2 (Model.WindowOf), from blocks of 2:
	// the exports read a piece at a time (eachPiece), a
	// java.util.concurrent acquire's parks given again whole with the
	// next piece.
	for _, piece := range []int{1 << 30, 1, 2} {
		for _, c := range recs {
			cn := c.name
			if piece < 1<<30 {
				cn += fmt.Sprintf(" (by pieces of %d)", piece)
			}
			rp, rb := model.SetIvPiece(piece), model.SetIvBlockMax(2)
			restore := func() { rb(); rp() }
			sp, err := model.Build(c.rec, SpilledOptions())
			if err != nil {
				t.Fatalf("%s: %v", cn, err)
			}
			push, err := model.Build(c.rec, PushOptions())
			if err != nil {
				t.Fatalf("%s: %v", cn, err)
			}
			m := sp.Model
			packed += packedAll(t, cn+" SpilledOptions", m)
			packed += packedAll(t, cn+" PushOptions", push.Model)
			for _, th := range m.AllThreads() {
				droppedSome = droppedSome || len(th.Intervals) == 0 && len(c.mem.Thread(th.ID).Intervals) > 0
			}
			for _, name := range []string{"pprof", "collapsed"} {
				f, _ := Lookup(name)
				for _, o := range []Options{{}, {Kinds: All}, {Profile: ProfileCPU}, {Profile: ProfileWall}} {
					var want, got bytes.Buffer
					errW := f.Write(&want, c.rec, c.mem, o)
					errG := f.Write(&got, c.rec, m, o)
					if fmt.Sprint(errW) != fmt.Sprint(errG) || !bytes.Equal(want.Bytes(), got.Bytes()) {
						t.Errorf("%s: %s %+v: %d bytes (%v) from the spilled model, %d (%v) from the model in memory", cn, name, o, got.Len(), errG, want.Len(), errW)
					}
				}
			}
			for _, o := range []OTLPOptions{{Samples: true, Host: "h", Version: "v"}, {Samples: true, From: c.mem.Start + (c.mem.End-c.mem.Start)/3, Partial: true}} {
				want, errW := OTLP(c.rec, c.mem, o)
				if errW != nil {
					t.Fatalf("%s: OTLP: %v", cn, errW)
				}
				wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
				for _, b := range []struct {
					name string
					m    *model.Model
				}{{"SpilledOptions", m}, {"PushOptions", push.Model}} {
					got, err := OTLP(c.rec, b.m, o)
					if err != nil {
						t.Fatalf("%s: OTLP: %v", cn, err)
					}
					gb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(got)
					if !bytes.Equal(wb, gb) {
						t.Errorf("%s: OTLP from=%d: %d bytes from the model built with %s, %d from the model in memory", cn, o.From, len(gb), b.name, len(wb))
					}
				}
			}
			for _, k := range []Kinds{Monitor, All} {
				ws, wt := Totals(c.mem, k)
				gs, gt := Totals(m, k)
				if ws != gs || wt != gt {
					t.Errorf("%s: Totals(%v): %d states %v from the spilled model, %d %v in memory", cn, k, gs, gt, ws, wt)
				}
				ws, wt = PProfTotals(c.mem, k)
				gs, gt = PProfTotals(m, k)
				if ws != gs || wt != gt {
					t.Errorf("%s: PProfTotals(%v): %d states %v from the spilled model, %d %v in memory", cn, k, gs, gt, ws, wt)
				}
			}
			for _, p := range []Profile{ProfileCPU, ProfileWall} {
				ws, wt := SampleTotals(c.mem, p)
				gs, gt := SampleTotals(m, p)
				if ws != gs || wt != gt {
					t.Errorf("%s: SampleTotals(%v): %d %v from the spilled model, %d %v in memory", cn, p, gs, gt, ws, wt)
				}
			}
			restore()
		}
	}
	if !droppedSome {
		t.Error("no thread's intervals were left in the spill: the test compares nothing spilled")
	}
	if packed < 20 {
		t.Errorf("%d threads packed: the test compares few", packed)
	}
}

// packedAll checks that m keeps every ended thread packed
// (Options.PackThreads) and returns how many.
func packedAll(t *testing.T, name string, m *model.Model) int {
	t.Helper()
	ended := 0
	for _, th := range m.AllThreads() {
		if th.Ended {
			ended++
		}
	}
	if p := m.PackedThreads(); p != ended {
		t.Errorf("%s: %d of %d threads packed, %d ended: an ended thread's Thread kept whole", name, p, m.NumThreads(), ended)
	}
	return ended
}

// TestTimelineSpilledSameBytes: the timelines (Perfetto, Chrome JSON) are
// the same, byte for byte, from a Model built with TimelineOptions, their
// events sorted in runs written to its spill and merged (runs of a few
// events), and from one that holds every interval with every event sorted
// in memory; and from that one with every event kept in memory (no spill
// to write runs to).
func TestTimelineSpilledSameBytes(t *testing.T) {
	paths := casePaths(t)
	prefix := filepath.Join(t.TempDir(), "synthetic")
	if _, err := synth.WriteRecording(prefix, synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, prefix)
	defer func(r int) { tlRunBytes = r }(tlRunBytes)
	runs, packed := 0, 0
	for _, path := range paths {
		var rec *reader.Recording
		var mem *model.Model
		if path == prefix {
			var res *model.Result
			rec, res = testrec.Open(t, prefix)
			mem = res.Model
		} else {
			rec, mem = load(t, path)
		}
		restore := model.SetEdgeSpillSizes(5, 3) // many runs and marks
		unseal := model.SetSealEveryEvent()      // what the fold gives up as it goes, read back
		sp, err := model.Build(rec, TimelineOptions())
		unseal()
		restore()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if mem.NumEdges() > 0 && !sp.Model.EdgesSpilled() {
			t.Errorf("%s: the edges are not in the spill", path)
		}
		packed += packedAll(t, path+" TimelineOptions", sp.Model)
		for _, name := range []string{"perfetto", "chrome"} {
			f, _ := Lookup(name)
			for _, o := range []Options{{}, {Kinds: Monitor}} {
				tlRunBytes = 256 << 10
				var want bytes.Buffer
				errW := f.Write(&want, rec, mem, o)
				tlRunBytes = 300
				for _, m := range []*model.Model{sp.Model, mem} {
					var got bytes.Buffer
					// The spilled model's threads read by pieces of
					// about 2 (eachPiece).
					pieces := model.SetIvPiece(2)
					errG := f.Write(&got, rec, m, o)
					pieces()
					if fmt.Sprint(errW) != fmt.Sprint(errG) || !bytes.Equal(want.Bytes(), got.Bytes()) {
						t.Errorf("%s: %s %+v: %d bytes (%v) in runs (spilled model: %v), %d (%v) sorted in memory", path, name, o, got.Len(), errG, m == sp.Model, want.Len(), errW)
					}
				}
				if want.Len() > 4000 {
					runs++
				}
			}
		}
	}
	if runs == 0 {
		t.Error("no timeline long enough for runs")
	}
	if packed < 20 {
		t.Errorf("%d threads packed: the test compares few", packed)
	}
}
