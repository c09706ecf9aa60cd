package export

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"

	"orca/internal/format"
	"orca/internal/model"
)

// checkPProf parses a pprof export and checks it against the model: the
// sample types, the totals (delay = time in the states, contentions =
// states), and that every sample's labels name a thread and a state of
// the chosen kinds and every location a function.
func checkPProf(t *testing.T, data []byte, m *model.Model, k Kinds) *profile.Profile {
	t.Helper()
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("pprof: parsing: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		t.Fatalf("pprof: %v", err)
	}
	if got := p.SampleType; len(got) != 2 || got[0].Type != "contentions" || got[0].Unit != "count" ||
		got[1].Type != "delay" || got[1].Unit != "nanoseconds" {
		t.Fatalf("pprof: sample types %v, want contentions/count, delay/nanoseconds", got)
	}
	var count, delay int64
	for _, s := range p.Sample {
		count += s.Value[0]
		delay += s.Value[1]
		if len(s.Label["thread"]) != 1 || len(s.Label["thread_id"]) != 1 || len(s.Label["state"]) != 1 {
			t.Errorf("pprof: sample labels %v: want one thread, thread_id and state", s.Label)
			continue
		}
		var th *model.Thread
		for _, x := range m.AllThreads() {
			if x.ID.String() == s.Label["thread_id"][0] {
				th = x
			}
		}
		if th == nil {
			t.Errorf("pprof: thread_id %q is no thread of the model", s.Label["thread_id"][0])
		} else if name := th.Name; name != s.Label["thread"][0] {
			t.Errorf("pprof: thread %q, want %q", s.Label["thread"][0], name)
		}
		if !kindsHaveState(k, s.Label["state"][0]) {
			t.Errorf("pprof: a sample in state %q, not of kinds %v", s.Label["state"][0], k)
		}
		if len(s.Location) == 0 {
			t.Errorf("pprof: a sample without locations")
		}
		for _, l := range s.Location {
			if len(l.Line) != 1 || l.Line[0].Function.Name == "" {
				t.Errorf("pprof: location %d: lines %v, want one with a function", l.ID, l.Line)
			}
		}
	}
	states, total := PProfTotals(m, k)
	if count != int64(states) || delay != int64(total) {
		t.Errorf("pprof: %d contentions, %d ns delay; the model has %d states, %d ns", count, delay, states, total)
	}
	if k == Monitor {
		// The contentions and blocked time of orca report's CONTENTION
		// (finished and open, of monitors and java.util.concurrent
		// locks): a juc acquire parked several times is one contention.
		var n int64
		var blocked format.Time
		for _, l := range m.Locks {
			if l.Kind == model.Monitor || l.Kind == model.JUCLock {
				n += int64(l.Contentions + l.Open)
				blocked += l.Blocked + l.OpenTime
			}
		}
		if count != n || delay != int64(blocked) {
			t.Errorf("pprof: %d contentions, %d ns delay; the report's locks have %d, %d ns", count, delay, n, blocked)
		}
	}
	return p
}

func kindsHaveState(k Kinds, name string) bool {
	for s := model.Blocked; s < model.NumStates; s++ {
		if s.String() == name {
			return k.Has(s)
		}
	}
	return false
}

// stackOf returns a sample's frames, innermost first, as "function file:line".
func stackOf(s *profile.Sample) []string {
	var out []string
	for _, l := range s.Location {
		ln := l.Line[0]
		out = append(out, ln.Function.Name+" "+ln.Function.Filename+":"+strconv.FormatInt(ln.Line, 10))
	}
	return out
}

func TestPProf(t *testing.T) {
	rec, m := loadAll(t)
	for _, k := range []Kinds{0, Monitor, Wait, Sleep, Join, Semaphore, Monitor | Semaphore, All} {
		want := k
		if k == 0 {
			want = Monitor // the default
		}
		checkPProf(t, export(t, "pprof", rec, m, k), m, want)
	}

	p := checkPProf(t, export(t, "pprof", rec, m, Monitor), m, Monitor)
	// The contentions the model counts (closed ones), plus the open one.
	var blocked format.Time
	contentions := 0
	for _, l := range m.Locks {
		if l.Kind == model.Monitor {
			blocked += l.Blocked
			contentions += l.Contentions
		}
	}
	var openCount, openDelay int64
	type key struct{ thread, owner, lock, open string }
	got := map[key][2]int64{}
	for _, s := range p.Sample {
		k := key{s.Label["thread"][0], strings.Join(s.Label["owner"], ","), strings.Join(s.Label["lock"], ","), strings.Join(s.Label["open"], ",")}
		v := got[k]
		got[k] = [2]int64{v[0] + s.Value[0], v[1] + s.Value[1]}
		if len(s.Label["open"]) > 0 {
			openCount += s.Value[0]
			openDelay += s.Value[1]
		}
	}
	if int64(contentions)+openCount != 3 || int64(blocked)+openDelay != int64(sec(1.1)) {
		t.Errorf("model locks %d contentions %d ns + open %d, %d ns; want 3 and 1.1 s in all", contentions, blocked, openCount, openDelay)
	}
	want := map[key][2]int64{
		{"worker-b", "worker-a (0000000A)", "0000F1A6", ""}: {1, int64(sec(0.3))},
		// worker-c waited 0.2 s behind worker-a, then 0.1 s behind
		// worker-b, which let it in: its time split as the report's blame
		// splits it (issue 31: pprof's owner totals were the last owner's
		// whole contention, 4.20 s against the report's 4.46 s), its count
		// on the last owner.
		{"worker-c", "worker-a (0000000A)", "0000F1A6", ""}: {0, int64(sec(0.2))},
		{"worker-c", "worker-b (0000000B)", "0000F1A6", ""}: {1, int64(sec(0.1))},
		{"worker-b", "main (00000001)", "0000F1A6", "true"}: {1, int64(sec(0.5))},
	}
	if len(got) != len(want) {
		t.Errorf("samples by label: got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("samples %+v: got %v, want %v", k, got[k], v)
		}
	}

	// Stacks resolve to functions, source paths and lines.
	for _, s := range p.Sample {
		st := strings.Join(stackOf(s), " < ")
		switch s.Label["thread"][0] {
		case "worker-b":
			if st != "com.example.Work.transfer com/example/Work.java:21 < com.example.Work.run com/example/Work.java:10" {
				t.Errorf("worker-b's stack: %s", st)
			}
		case "worker-c":
			if st != "com.example.Work.transfer com/example/Work.java:21 < <unknown method 0000002A> :0" {
				t.Errorf("worker-c's stack: %s", st)
			}
		}
	}
	if p.TimeNanos != 1700000000000000000 || p.DurationNanos != int64(sec(5)) {
		t.Errorf("time %d, duration %d; want the origin's wall clock and 5 s", p.TimeNanos, p.DurationNanos)
	}

	// A native frame has its file and no line; a stack-less event gets a
	// placeholder frame.
	p = checkPProf(t, export(t, "pprof", rec, m, Sleep), m, Sleep)
	var stacks []string
	for _, s := range p.Sample {
		stacks = append(stacks, s.Label["thread"][0]+": "+strings.Join(stackOf(s), " < "))
	}
	wantStacks := []string{
		"main: java.lang.Thread.sleep java/lang/Thread.java:0 < com.example.Work.main com/example/Work.java:5",
		"worker-b: (no stack) :0",
	}
	if strings.Join(stacks, "\n") != strings.Join(wantStacks, "\n") {
		t.Errorf("sleep stacks:\n%s\nwant:\n%s", strings.Join(stacks, "\n"), strings.Join(wantStacks, "\n"))
	}
}

// TestPProfTool opens exports with go tool pprof, as a user would.
func TestPProfTool(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH")
	}
	rec, m := loadAll(t)
	dir := t.TempDir()
	write := func(name string, k Kinds) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, export(t, "pprof", rec, m, k), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	pprof := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(gobin, append([]string{"tool", "pprof"}, args...)...)
		cmd.Env = append(os.Environ(), "PPROF_TMPDIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}

	monitor := write("monitor.pb.gz", Monitor)
	out := pprof("-top", monitor)
	if top := topFunction(out); top != "com.example.Work.transfer" {
		t.Errorf("top function %q, want com.example.Work.transfer:\n%s", top, out)
	}
	if !strings.Contains(out, "Type: delay") || !strings.Contains(out, "1100ms total") {
		t.Errorf("want type delay and 1100ms total:\n%s", out)
	}
	if strings.Contains(out, "[java]") || !strings.Contains(out, "<unknown method 0000002A>") {
		t.Errorf("the unknown method lost its name:\n%s", out)
	}
	out = pprof("-top", "-sample_index=contentions", monitor)
	if !strings.Contains(out, "3 total") {
		t.Errorf("want 3 contentions in all:\n%s", out)
	}
	out = pprof("-tags", monitor)
	for _, w := range []string{"thread: ", "worker-b", "worker-c", "lock: ", "0000F1A6", "owner: ", "main (00000001)", "state: ", "blocked"} {
		if !strings.Contains(out, w) {
			t.Errorf("-tags: no %q:\n%s", w, out)
		}
	}
	// Source lines reach pprof: -lines shows them.
	out = pprof("-top", "-lines", monitor)
	if !strings.Contains(out, "com.example.Work.transfer com/example/Work.java:21") {
		t.Errorf("-lines: no com.example.Work.transfer com/example/Work.java:21:\n%s", out)
	}

	all := write("all.pb.gz", All)
	out = pprof("-top", all)
	if !strings.Contains(out, "3700.10ms total") || !regexp.MustCompile(`(?m)^ +900ms .* java\.lang\.Thread\.join$`).MatchString(out) {
		t.Errorf("all kinds: want 3700.10ms in all, 900ms in java.lang.Thread.join:\n%s", out)
	}
	out = pprof("-top", "-tagfocus=thread=worker-a", all)
	if top := topFunction(out); top != "java.lang.Object.wait" || !strings.Contains(out, "accounting for 600ms") {
		t.Errorf("worker-a: top function %q, want java.lang.Object.wait, 600ms:\n%s", top, out)
	}
}

// topFunction returns the function of the first row of go tool pprof -top.
func topFunction(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "flat%") && i+1 < len(lines) {
			f := strings.Fields(lines[i+1])
			if len(f) >= 6 {
				return strings.Join(f[5:], " ")
			}
		}
	}
	return ""
}
