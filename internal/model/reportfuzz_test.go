package model_test

import (
	"bytes"
	"testing"

	"orca/internal/format"
	"orca/internal/linediff"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/testrec"
)

// FuzzReportStreamed: whatever .orca text it reads, orca report's way of
// building — its model options (report.BuildOptions: with the spill, and
// without --thread the intervals dropped, the owners and blame spans from
// their logs, the threads packed; the graph at the end alone), the report
// streamed and letting go of what it is done with (cmd/orca's report.go)
// — gives the same report, text and JSON, as the model built in memory
// and reported whole. The model's tests seal after every event
// (export_test.go), so each input also has its fold sealed at every step.
// The golden cases check this on theirs; the fuzzer on lines out of
// order, lost ends and owners named late, where the model's rules for
// them (the wait-for graph's, the owners') meet the streamed readers.
// Seeded with the model cases and FuzzModelText's corpus. The input's
// length picks --top 0 (every row listed), 1 (the lists cut) or 10 by its
// remainder by 3, --chains by the quotient's parity; a hash of it the
// rest (reportFlags): --thread, --virtual, a time range, the spill off.
func FuzzReportStreamed(f *testing.F) {
	testrec.FuzzText(f, ".", func(t *testing.T, data []byte, dir, prefix string) bool {
		rec, err := reader.Open(prefix)
		if err != nil {
			t.Skip(err)
		}
		c := reportCase{dir: dir, prefix: prefix, opt: report.Options{Width: 100, Top: []int{0, 1, 10}[len(data)%3], Chains: len(data)/3%2 == 1}}
		c.opt.Thread, c.opt.Virtual, c.spill, c.from, c.to, c.ranged = reportFlags(t, rec, data)
		return c.differs(t)
	})
}

// reportCase is a recording (dir, prefix) and the flags of orca report
// it is tried with: opt's, the spill (off: ORCA_REPORT_SPILL=0) and a
// time range.
type reportCase struct {
	dir, prefix string
	opt         report.Options
	spill       bool
	from, to    format.Time
	ranged      bool
}

// differs builds c's recording as orca report builds it and as the model
// in memory, and fails t, returning true, where the text or JSON reports
// differ; it skips t when the recording cannot be read.
func (c *reportCase) differs(t *testing.T) bool {
	t.Helper()
	span := func(rec *reader.Recording) *reader.Span {
		if !c.ranged {
			return nil
		}
		sp, err := rec.Span(c.from, c.to)
		if err != nil {
			t.Fatal(err)
		}
		return sp
	}
	whole := func() (txt, js string) {
		rec, err := reader.Open(c.prefix)
		if err != nil {
			t.Skip(err)
		}
		wopt := c.opt
		wopt.Span = span(rec)
		res, err := model.Build(rec, model.Options{Workers: 1, Span: wopt.Span})
		if err != nil {
			t.Skip(err)
		}
		r := report.New(rec, res, wopt)
		var tb, jb bytes.Buffer
		if err := r.WriteText(&tb); err != nil {
			t.Fatal(err)
		}
		if err := r.WriteJSON(&jb); err != nil {
			t.Fatal(err)
		}
		return tb.String(), jb.String()
	}
	streamed := func(jsonOnly bool) string {
		rec, err := reader.Open(c.prefix)
		if err != nil {
			t.Fatal(err)
		}
		mopt := report.BuildOptions(rec, c.opt.Thread, c.spill)
		mopt.Workers, mopt.SpillDir, mopt.Span = 1, c.dir, span(rec)
		res, err := model.Build(rec, mopt)
		if err != nil {
			t.Fatal(err)
		}
		ropt := c.opt
		ropt.Span, ropt.JSONOnly, ropt.Streamed, ropt.LetGoTails = mopt.Span, jsonOnly, true, true
		r := report.New(rec, res, ropt)
		var b bytes.Buffer
		if jsonOnly {
			err = r.WriteJSON(&b)
		} else {
			err = r.WriteText(&b)
		}
		if err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	txt, js := whole()
	if got := streamed(false); got != txt {
		t.Errorf("the text report built as orca report builds it differs (- whole, + streamed):\n%s", linediff.Lines(txt, got))
	}
	if got := streamed(true); got != js {
		t.Errorf("the JSON report built as orca report builds it differs (- whole, + streamed):\n%s", linediff.Lines(js, got))
	}
	if t.Failed() {
		t.Logf("options %+v, spill %v, range %v %d..%d", c.opt, c.spill, c.ranged, c.from, c.to)
	}
	return t.Failed()
}

// reportFlags picks, by a hash of data, the rest of orca report's flags
// FuzzReportStreamed tries: --thread in a third of the inputs (a thread's
// id, its name, or a letter of its name: the filter's three ways),
// --virtual in half, the spill off (ORCA_REPORT_SPILL=0) in a quarter,
// a time range in a third (testrec.FuzzRange).
func reportFlags(t *testing.T, rec *reader.Recording, data []byte) (thread string, virtual, spill bool, from, to format.Time, ranged bool) {
	p := testrec.NewFuzzPick(data)
	if p.Int(3) == 0 {
		var threads []string
		seen := map[string]bool{}
		add := func(s string) {
			if s != "" && !seen[s] {
				seen[s] = true
				threads = append(threads, s)
			}
		}
		if _, err := rec.EachEvent(reader.EachOptions{Workers: 1}, func(ev *reader.Event) error {
			add(ev.Thread.String())
			if ev.Name != "" {
				add(ev.Name)
				add(ev.Name[:1])
			}
			return nil
		}); err != nil {
			t.Skip(err)
		}
		if len(threads) > 0 {
			thread = threads[p.Int(len(threads))]
		}
	}
	virtual = p.Int(2) == 0
	spill = p.Int(4) != 0
	from, to, ranged = testrec.FuzzRange(t, rec, p)
	return
}

// FuzzReportSynth is FuzzReportStreamed on recordings orca-gen writes
// (internal/synth): the agent's mix of events — monitors, semaphores,
// j.u.c. locks and conditions, waits, samples and scheduler times, lock
// order lines, threads that start and end — in the compact encoding the
// agent writes (the text in an eighth), small enough for a seal after
// every event. The fuzzer picks the generator's seed and shape (threads,
// monitors, semaphores, stacks, size, slowness; a lock convoy in an
// eighth) and orca report's flags as FuzzReportStreamed does.
func FuzzReportSynth(f *testing.F) {
	testrec.FuzzSynth(f, func(t *testing.T, s testrec.SynthShape, dir, prefix string) bool {
		rec, err := reader.Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		c := reportCase{dir: dir, prefix: prefix, opt: report.Options{Width: 100, Top: []int{0, 1, 10}[s.Flags>>9&3%3], Chains: s.Flags>>11&1 == 1}}
		c.opt.Thread, c.opt.Virtual, c.spill, c.from, c.to, c.ranged = reportFlags(t, rec, s.Key())
		return c.differs(t)
	})
}
