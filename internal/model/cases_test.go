package model_test

import (
	"bytes"
	"flag"
	"fmt"
	"orca/internal/linediff"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	. "orca/internal/model"
	"orca/internal/model/modeltest"
	"orca/internal/testrec"
)

var update = flag.Bool("update", false, "rewrite the expect sections of testdata/cases/*.txtar")

// The cases are testdata/cases/*.txtar: a comment saying what the case
// shows and why the expected values are what they are, then sections orca
// (the events), optionally methods, classtable and info (the recording's
// other files; a last line "<EOF>" means the file ends without a newline),
// and expect. The case is built through reader.Open and Build from a
// temporary directory, like a real recording (internal/testrec).
//
// expect is the model's dump (see dumpModel). Without a first line
// FAILURE "regexp", the model must pass Validate and have no Problems;
// with it, every violation and problem must match regexp, and there must
// be at least one. -update rewrites the dump, keeping the FAILURE line.
// Write the dump by reasoning from the events, then compare: -update is
// for reformatting, not for deciding what is right.

func TestCases(t *testing.T) {
	paths, err := filepath.Glob("testdata/cases/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	kinds := map[format.Kind]bool{}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar := testrec.Parse(t, path)
			if len(bytes.TrimSpace(ar.Comment)) == 0 {
				t.Error("the case has no comment saying what it shows")
			}
			for _, k := range caseKinds(ar) {
				kinds[k] = true
			}
			res := buildCase(t, ar)
			got := dumpResult(res)
			fails := failures(res.Model)

			i := slices.IndexFunc(ar.Files, func(f txtar.File) bool { return f.Name == "expect" })
			var want string
			if i >= 0 {
				want = string(ar.Files[i].Data)
			}
			failLine, wantDump, _ := strings.Cut(want, "\n")
			var re *regexp.Regexp
			if q, ok := strings.CutPrefix(failLine, "FAILURE "); ok {
				s, err := strconv.Unquote(q)
				if err != nil {
					t.Fatalf("expect: %s: %v", failLine, err)
				}
				if re, err = regexp.Compile(s); err != nil {
					t.Fatalf("expect: %s: %v", failLine, err)
				}
			} else {
				failLine, wantDump = "", want
			}
			if re == nil {
				for _, f := range fails {
					t.Errorf("unexpected: %s", f)
				}
			} else {
				if len(fails) == 0 {
					t.Errorf("no violation or problem; want one matching %q", re)
				}
				for _, f := range fails {
					if !re.MatchString(f) {
						t.Errorf("%s: does not match %q", f, re)
					}
				}
			}

			if *update {
				data := got
				if failLine != "" {
					data = failLine + "\n" + got
				}
				if i < 0 {
					ar.Files = append(ar.Files, txtar.File{Name: "expect"})
					i = len(ar.Files) - 1
				}
				ar.Files[i].Data = []byte(data)
				if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if i < 0 {
				t.Fatal("no expect section; write it by hand (or run go test -update and check every line)")
			}
			if got != wantDump {
				t.Errorf("got:\n%s\ndiff (- want, + got):\n%s", got, linediff.Lines(wantDump, got))
			}
		})
	}
	if f := flag.Lookup("test.run"); !*update && (f == nil || f.Value.String() == "") {
		for k := format.Kind(1); k < format.NumKinds; k++ {
			if !kinds[k] {
				t.Errorf("no case has a %s event", k)
			}
		}
	}
}

// failures returns the model's Validate violations and its Problems.
func failures(m *Model) []string {
	var out []string
	for _, e := range modeltest.Validate(m) {
		out = append(out, "violation: "+e.Error())
	}
	for _, p := range m.Problems {
		out = append(out, "problem: "+p)
	}
	return out
}

// caseKinds lists the event kinds named in the orca section.
func caseKinds(ar *txtar.Archive) []format.Kind {
	var out []format.Kind
	for _, f := range ar.Files {
		if f.Name != "orca" {
			continue
		}
		for _, line := range strings.Split(string(f.Data), "\n") {
			fs := strings.Split(line, ",")
			if len(fs) > 1 {
				if k, ok := format.KindByName[fs[1]]; ok {
					out = append(out, k)
				}
			}
		}
	}
	return out
}

// buildCase builds the case's recording (testrec.Build).
func buildCase(t testing.TB, ar *txtar.Archive) *Result {
	t.Helper()
	rec, res := testrec.Build(t, ar, "case")
	dir := filepath.Dir(rec.Prefix)
	for i, e := range res.ParseErrors {
		// The temporary directory is not part of the expectation.
		res.ParseErrors[i] = fmt.Errorf("%s", strings.ReplaceAll(e.Error(), dir+string(filepath.Separator), ""))
	}
	return res
}

// rel formats t relative to the recording's start, in seconds, as short
// as exact.
func rel(m *Model, t format.Time) string { return secs(t - m.Start) }

func secs(d format.Time) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	s := fmt.Sprintf("%d.%09d", d/1e9, d%1e9)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return sign + s
}

func tid(id format.ThreadID) string {
	if id == 0 {
		return "-"
	}
	return id.String()
}

// dumpResult renders a built model compactly: the recording, each thread
// with its intervals, each lock, the edges, deadlocks, stacks, problems.
// Times are seconds from the recording's start.
func dumpResult(res *Result) string {
	var b strings.Builder
	m := res.Model
	fmt.Fprintf(&b, "recording %s events=%d", secs(m.End-m.Start), m.Events)
	if res.Truncated {
		b.WriteString(" truncated")
	}
	if res.Malformed > 0 {
		fmt.Fprintf(&b, " malformed=%d", res.Malformed)
	}
	if m.Shutdown != 0 {
		fmt.Fprintf(&b, " shutdown=%s", rel(m, m.Shutdown))
	}
	if m.Unfinished {
		b.WriteString(" unfinished")
	}
	b.WriteString("\n")
	for _, e := range res.ParseErrors {
		fmt.Fprintf(&b, "parse-error %v\n", e)
	}
	dumpModel(&b, m)
	return b.String()
}

func dumpModel(b *strings.Builder, m *Model) {
	for _, t := range m.Threads {
		fmt.Fprintf(b, "thread %v %q %s..%s", t.ID, t.Name, rel(m, t.Start), rel(m, t.End))
		if t.Ended {
			b.WriteString(" ended")
		}
		if t.Parent != 0 {
			fmt.Fprintf(b, " parent=%v", t.Parent)
			if t.StartedAt != 0 {
				fmt.Fprintf(b, " s%d", t.StartedAt)
			}
		}
		fmt.Fprintf(b, " events=%d", t.Events)
		if t.Virtual {
			fmt.Fprintf(b, " virtual carrier=%v carriers=%d pinned=%d", t.Carrier, t.Carriers, t.Pinned)
		}
		for s := State(0); s < NumStates; s++ {
			if t.Time[s] != 0 {
				fmt.Fprintf(b, " %s=%s", s, secs(t.Time[s]))
			}
		}
		b.WriteString("\n")
		if r := t.Run; r.Unsplit != t.Time[Runnable] {
			fmt.Fprintf(b, "  run running=%s ready=%s other=%s virtual=%s unsplit=%s\n", secs(r.Running), secs(r.Ready), secs(r.Other), secs(r.Virtual), secs(r.Unsplit))
		}
		for _, st := range t.Sched {
			fmt.Fprintf(b, "  sched %s cpu=%s ready=%s\n", rel(m, st.At), secs(st.CPU), secs(st.Ready))
		}
		for _, s := range t.Samples {
			fmt.Fprintf(b, "  sample %s %s weight=%s s%d\n", s.Kind, rel(m, s.At), secs(s.Weight), s.Stack)
		}
		// Contentions as segments per owner: the golden files were written
		// when the model stored them so, and must not change.
		for iv := range m.Segments(t) {
			fmt.Fprintf(b, "  %s %s..%s", iv.State, rel(m, iv.Start), rel(m, iv.End))
			if iv.Cont {
				fmt.Fprintf(b, " since=%s", rel(m, iv.Since))
			}
			if iv.Object != 0 {
				fmt.Fprintf(b, " obj=%v", iv.Object)
			}
			if iv.Other != 0 {
				fmt.Fprintf(b, " other=%v", iv.Other)
			}
			if (iv.State == Parked || iv.State == Idle) && iv.First != 0 {
				fmt.Fprintf(b, " owner=%v", iv.First)
			}
			if iv.Wake != WakeNone {
				fmt.Fprintf(b, " wake=%s", iv.Wake)
			}
			if from, ok := iv.HandOff(); ok && from < iv.End {
				// Handed off from the unpark to its end (released).
				fmt.Fprintf(b, " handoff=%s", rel(m, from))
			}
			if iv.Open {
				b.WriteString(" open")
			}
			if iv.Pinned {
				b.WriteString(" pinned")
			}
			// What differs from the state's usual timeout: a timed park,
			// a wait's (unknown in recordings without wait_timeouts).
			if (iv.State == Parked || iv.State == Idle) && iv.Timeout == TimeoutSet {
				b.WriteString(" timed")
			}
			if iv.State == Waiting && iv.Timeout == TimeoutNone {
				b.WriteString(" untimed")
			}
			if iv.State == Waiting && iv.Timeout == TimeoutSet {
				b.WriteString(" timed")
			}
			if iv.Stack != 0 {
				fmt.Fprintf(b, " s%d", iv.Stack)
			}
			b.WriteString("\n")
		}
	}
	for _, l := range m.Locks {
		fmt.Fprintf(b, "%s %v contentions=%d blocked=%s max=%s", l.Kind, l.Object, l.Contentions, secs(l.Blocked), secs(l.MaxBlocked))
		if l.Open != 0 {
			fmt.Fprintf(b, " open=%d opentime=%s", l.Open, secs(l.OpenTime))
		}
		if l.OwnerUnknown != 0 {
			fmt.Fprintf(b, " unknown=%d", l.OwnerUnknown)
		}
		if l.OwnerUnknownTime != 0 {
			fmt.Fprintf(b, " unknowntime=%s", secs(l.OwnerUnknownTime))
		}
		if l.Class != "" && l.Kind != Semaphore {
			fmt.Fprintf(b, " class=%s", l.Class)
		}
		if len(l.Waiters) > 0 {
			ws := make([]string, len(l.Waiters))
			for i, w := range l.Waiters {
				ws[i] = w.String()
			}
			fmt.Fprintf(b, " waiters=%s", strings.Join(ws, ","))
		}
		b.WriteString("\n")
		for _, o := range l.Owners {
			fmt.Fprintf(b, "  owner %v contentions=%d blamed=%s\n", o.Thread, o.Contentions, secs(o.Blamed))
		}
		for _, s := range l.Sites {
			fmt.Fprintf(b, "  site s%d contentions=%d blocked=%s", s.Stack, s.Contentions, secs(s.Blocked))
			if s.Open != 0 {
				fmt.Fprintf(b, " open=%d opentime=%s", s.Open, secs(s.OpenTime))
			}
			b.WriteString("\n")
		}
		if h := l.Hold; h != nil {
			fmt.Fprintf(b, "  hold %s\n", holdDump(h.HoldFigures))
			for _, s := range h.Sites {
				fmt.Fprintf(b, "  hold site s%d %s\n", s.Stack, holdDump(s.HoldFigures))
			}
		}
		if len(l.HeldAt) > 0 {
			hs := make([]string, len(l.HeldAt))
			for i, h := range l.HeldAt {
				hs[i] = fmt.Sprintf("s%d", h)
			}
			fmt.Fprintf(b, "  held %s\n", strings.Join(hs, ","))
		}
		if l.Kind == Blocker {
			fmt.Fprintf(b, "  parks=%d parktime=%s unparked=%d timedout=%d still=%d idle=%d",
				l.Waits, secs(l.WaitTime), l.Notified, l.TimedOut, l.StillWaiting, l.IdleWaits)
			if l.Interrupted > 0 {
				fmt.Fprintf(b, " interrupted=%d", l.Interrupted)
			}
			if l.Spurious > 0 {
				fmt.Fprintf(b, " spurious=%d", l.Spurious)
			}
			b.WriteString("\n")
		} else if l.Waits+l.Notifies+l.NotifyAlls+l.NotifiesWokeNobody > 0 {
			fmt.Fprintf(b, "  waits=%d waittime=%s notifies=%d notifyAlls=%d wokeNobody=%d burst=%d\n",
				l.Waits, secs(l.WaitTime), l.Notifies, l.NotifyAlls, l.NotifiesWokeNobody, l.MaxNotifyAllBurst)
		}
		if l.Acquires+l.Releases > 0 {
			fmt.Fprintf(b, "  acquires=%d releases=%d\n", l.Acquires, l.Releases)
		}
	}
	for _, e := range m.Edges {
		fmt.Fprintf(b, "edge %s %v@%s -> %v@%s", e.Kind, e.From, rel(m, e.FromTime), e.To, rel(m, e.ToTime))
		if e.Object != 0 {
			fmt.Fprintf(b, " obj=%v", e.Object)
		}
		if e.Ambiguous {
			b.WriteString(" ambiguous")
		}
		b.WriteString("\n")
	}
	for _, ci := range m.ClassInits {
		fmt.Fprintf(b, "classinit %v class=%q waits=%d waiters=%v sites=%v\n", ci.Object, ci.Class, ci.Waits, ci.Waiters, ci.Sites)
	}
	for _, d := range m.Deadlocks {
		ts := make([]string, len(d.Threads))
		for i, th := range d.Threads {
			ts[i] = th.String()
			if d.Objects[i] != 0 {
				ts[i] += "/" + d.Objects[i].String()
			}
		}
		fmt.Fprintf(b, "deadlock at=%s %s", rel(m, d.At), strings.Join(ts, " -> "))
		if d.AtEnd {
			b.WriteString(" at_end")
		} else {
			fmt.Fprintf(b, " resolved=%s", rel(m, d.Resolved))
		}
		b.WriteString("\n")
	}
	for _, o := range m.LockOrders {
		hs := make([]string, len(o.Held))
		for i, h := range o.Held {
			hs[i] = fmt.Sprintf("%v@%d", h.Object, h.Depth)
			if h.Class != "" {
				hs[i] += "(" + h.Class + ")"
			}
			if h.Mode != format.ModeNone {
				hs[i] += ":" + h.Mode.String()
			}
		}
		mode := ""
		if o.Mode != format.ModeNone {
			mode = ":" + o.Mode.String()
		}
		fmt.Fprintf(b, "lockorder at=%s %v count=%d wanted=%v(%s)%s s%d held=%s\n", rel(m, o.At), o.Thread, o.Count, o.Wanted, o.Class, mode, o.Stack, strings.Join(hs, ","))
	}
	for i, st := range m.Stacks {
		if i == 0 {
			continue
		}
		fs := make([]string, len(st))
		for j, f := range st {
			fs[j] = fmt.Sprintf("%v@%X", f.Method, f.Location)
		}
		fmt.Fprintf(b, "stack s%d %s\n", i, strings.Join(fs, " "))
	}
	for _, p := range m.Problems {
		fmt.Fprintf(b, "problem %s\n", p)
	}
}

// holdDump is a line of hold figures (Lock.Hold) in the dump.
func holdDump(f HoldFigures) string {
	return fmt.Sprintf("count=%d total=%s p50=%s p99=%s max=%s", f.Count, secs(f.Total), secs(f.P50), secs(f.P99), secs(f.Max))
}
