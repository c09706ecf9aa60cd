package export

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/testrec"
)

// FuzzExportSpilled: whatever .orca text it reads, every export is the
// same, byte for byte, from the model orca export and orca push build
// (SpilledOptions for the profiles, TimelineOptions for the timelines,
// PushOptions for OTLP: each thread's intervals and samples in the spill,
// the owners' tables there, the threads packed, the timelines' events
// sorted in runs on it) as from the model built in memory: pprof and
// collapsed of the states, of every kind, of the CPU and wall samples;
// Perfetto and Chrome JSON of every kind and of the monitors; OTLP whole
// and from a third of the way; and the totals orca export prints.
// TestSpilledSameBytes and TestTimelineSpilledSameBytes check this on the
// cases; the fuzzer on lines out of order, lost ends, owners named late
// and threads that come back, where the fold's late rules meet the
// spill's readers. A hash of the input picks a time range in a third of
// the inputs (--from and --to: between two of its events' times, or from
// one to the end). Seeded with the model cases and FuzzModelText's corpus.
func FuzzExportSpilled(f *testing.F) {
	testrec.FuzzText(f, "../model", func(t *testing.T, data []byte, dir, prefix string) bool {
		return exportsDiffer(t, dir, prefix, data, false)
	})
}

// FuzzExportSynth is FuzzExportSpilled on recordings orca-gen writes
// (testrec.SynthShape: the agent's mix, compact in seven eighths, a lock
// convoy in an eighth), where the exports read what the text inputs
// seldom make: a j.u.c. lock's hand-offs given up to the spill and read
// back (Model.handOffsOver), many threads' samples and scheduler times.
func FuzzExportSynth(f *testing.F) {
	testrec.FuzzSynth(f, func(t *testing.T, s testrec.SynthShape, dir, prefix string) bool {
		return exportsDiffer(t, dir, prefix, s.Key(), true)
	})
}

// exportsDiffer compares every export of the recording prefix (its
// directory dir takes the spill) from the models orca export and push
// build with the model in memory's, a time range picked by key's hash,
// and fails t, returning true, where they differ. A recording that
// cannot be read or built skips t, or fails it when strict.
func exportsDiffer(t *testing.T, dir, prefix string, key []byte, strict bool) bool {
	t.Helper()
	// Both models sealed after every event, as the model's own tests
	// are: the spilled one gives up what it holds as the fold goes, and
	// the exports read it back.
	defer model.SetSealEveryEvent()()
	bad := t.Skip
	if strict {
		bad = t.Fatal
	}
	rec, err := reader.Open(prefix)
	if err != nil {
		bad(err)
	}
	var span *reader.Span
	if from, to, ok := testrec.FuzzRange(t, rec, testrec.NewFuzzPick(key)); ok {
		if span, err = rec.Span(from, to); err != nil {
			t.Fatal(err)
		}
	}
	res, err := model.Build(rec, model.Options{Workers: 1, Span: span})
	if err != nil {
		bad(err)
	}
	mem := res.Model
	build := func(o model.Options) *model.Model {
		o.Workers, o.SpillDir, o.Span = 1, dir, span
		r, err := model.Build(rec, o)
		if err != nil {
			t.Fatal(err)
		}
		return r.Model
	}
	same := func(what string, want, got []byte, errW, errG error) {
		if fmt.Sprint(errW) != fmt.Sprint(errG) || !bytes.Equal(want, got) {
			t.Errorf("%s: %d bytes (%v) from the spilled model, %d (%v) from the model in memory", what, len(got), errG, len(want), errW)
		}
	}
	sp := build(SpilledOptions())
	for _, name := range []string{"pprof", "collapsed"} {
		fm, _ := Lookup(name)
		for _, o := range []Options{{}, {Kinds: All}, {Profile: ProfileCPU}, {Profile: ProfileWall}} {
			var want, got bytes.Buffer
			errW := fm.Write(&want, rec, mem, o)
			errG := fm.Write(&got, rec, sp, o)
			same(fmt.Sprintf("%s %+v", name, o), want.Bytes(), got.Bytes(), errW, errG)
		}
	}
	for _, k := range []Kinds{Monitor, All} {
		ws, wt := Totals(mem, k)
		gs, gt := Totals(sp, k)
		same(fmt.Sprintf("Totals(%v)", k), fmt.Appendf(nil, "%d %d", ws, wt), fmt.Appendf(nil, "%d %d", gs, gt), nil, nil)
		ws, wt = PProfTotals(mem, k)
		gs, gt = PProfTotals(sp, k)
		same(fmt.Sprintf("PProfTotals(%v)", k), fmt.Appendf(nil, "%d %d", ws, wt), fmt.Appendf(nil, "%d %d", gs, gt), nil, nil)
	}
	for _, p := range []Profile{ProfileCPU, ProfileWall} {
		ws, wt := SampleTotals(mem, p)
		gs, gt := SampleTotals(sp, p)
		same(fmt.Sprintf("SampleTotals(%v)", p), fmt.Appendf(nil, "%d %d", ws, wt), fmt.Appendf(nil, "%d %d", gs, gt), nil, nil)
	}

	push := build(PushOptions())
	for _, o := range []OTLPOptions{{Samples: true, Host: "h", Version: "v"}, {Samples: true, From: mem.Start + (mem.End-mem.Start)/3, Partial: true}} {
		want, errW := OTLP(rec, mem, o)
		got, errG := OTLP(rec, push, o)
		wb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(want)
		gb, _ := proto.MarshalOptions{Deterministic: true}.Marshal(got)
		same(fmt.Sprintf("OTLP from=%d", o.From), wb, gb, errW, errG)
	}

	// The timelines' runs of a few events and the edges' spill in
	// many runs, as TestTimelineSpilledSameBytes has them.
	defer func(r int) { tlRunBytes = r }(tlRunBytes)
	restore := model.SetEdgeSpillSizes(5, 3)
	tl := build(TimelineOptions())
	restore()
	for _, name := range []string{"perfetto", "chrome"} {
		fm, _ := Lookup(name)
		for _, o := range []Options{{}, {Kinds: Monitor}} {
			tlRunBytes = 256 << 10
			var want, got bytes.Buffer
			errW := fm.Write(&want, rec, mem, o)
			tlRunBytes = 300
			errG := fm.Write(&got, rec, tl, o)
			same(fmt.Sprintf("%s %+v", name, o), want.Bytes(), got.Bytes(), errW, errG)
		}
	}
	if t.Failed() {
		t.Logf("range %+v", span)
	}
	return t.Failed()
}
