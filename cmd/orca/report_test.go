package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"orca/internal/testjvm"
	"orca/internal/testrec"
)

// reportRecording writes the contention case of internal/report's golden
// tests to a temporary directory and returns its prefix.
func reportRecording(t *testing.T) string {
	t.Helper()
	return testrec.Files(t, "../../internal/report/testdata/contention.txtar")
}

func TestReport(t *testing.T) {
	pre := reportRecording(t)
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"report", pre}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"orca report: " + pre + " (Scenario contention, pid 77)\n",
		"CONTENTION: 1 contended lock and 1 semaphore",
		`"worker-a" (0000000A)            2  550.0 ms  52.4%`,
		"Scenario.transfer(Scenario.java:21)\n",
		"No deadlocks.\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	if errb.Len() != 0 {
		t.Errorf("stderr: %s", errb.String())
	}

	// --json to a file, with --top and --thread.
	out.Reset()
	file := filepath.Join(t.TempDir(), "r.json")
	if code := run(ui{nil, &out, &errb}, []string{"report", "--json", "--top", "1", "--thread", "worker", "-o", file, pre}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if out.Len() != 0 {
		t.Errorf("-o still wrote to stdout: %s", out.String())
	}
	// Its user's alone, as the recording (issue 30).
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("%s: %v, %v; want mode 0600", file, fi.Mode(), err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		ThreadsCount int `json:"threads_count"`
		Filter       struct {
			Matched int `json:"threads_matched"`
		} `json:"filter"`
		Threads []struct {
			Name string `json:"name"`
		} `json:"threads"`
		ThreadsTotal int `json:"threads_total"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("decoding %s: %v", data, err)
	}
	if r.ThreadsCount != 6 || r.Filter.Matched != 3 || r.ThreadsTotal != 3 || len(r.Threads) != 1 || !strings.HasPrefix(r.Threads[0].Name, "worker-") {
		t.Errorf("--top 1 --thread worker: %+v", r)
	}
}

// TestReportChains: the wait chains by default, and with --chains, not
// with --chains=false (issue 36 item 1; the golden case chains has their
// figures): the text's WAIT CHAINS section and JSON chains, null with
// --chains=false.
func TestReportChains(t *testing.T) {
	pre := testrec.Files(t, "../../internal/report/testdata/chains.txtar")
	const section = "WAIT CHAINS"
	for _, c := range []struct {
		flag   string
		chains bool
	}{{"", true}, {"--chains", true}, {"--chains=false", false}} {
		chains := c.chains
		args := []string{"report"}
		if c.flag != "" {
			args = append(args, c.flag)
		}
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, append(args, pre)); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		if got := strings.Contains(out.String(), section+":"); got != chains {
			t.Errorf("%v: %s section %v, want %v:\n%s", args, section, got, chains, out.String())
		}
		if chains && !strings.Contains(out.String(), `#1 "sleeper" (0000000A), sleeping: 2 threads, 1.80 s behind it`) {
			t.Errorf("%v: no root sleeper:\n%s", args, out.String())
		}
		out.Reset()
		if code := run(ui{nil, &out, &errb}, append(append(args, "--json"), pre)); code != 0 {
			t.Fatalf("%v --json: exit %d: %s", args, code, errb.String())
		}
		var r struct {
			Chains []struct {
				Root      string  `json:"root"`
				RootState string  `json:"root_state"`
				S         float64 `json:"s"`
			} `json:"chains"`
			Total *int `json:"chains_total"`
		}
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if !chains {
			if r.Chains != nil || r.Total != nil {
				t.Errorf("%v: chains %+v, chains_total %v; want null", args, r.Chains, r.Total)
			}
			continue
		}
		if r.Total == nil || *r.Total != 3 || len(r.Chains) != 3 || r.Chains[0].Root != "0000000A" || r.Chains[0].RootState != "sleeping" || r.Chains[0].S != 1.8 {
			t.Errorf("%v: %+v, total %v", args, r.Chains, r.Total)
		}
	}
}

func TestReportErrors(t *testing.T) {
	pre := reportRecording(t)
	jfr := jfrFile(t)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"report"}, 2, "orca: report: want one PREFIX"},
		{[]string{"report", "--top", "-1", pre}, 2, "orca: report: --top -1: want 0 or more"},
		{[]string{"report", "--thread", "nosuch", pre}, 1, `orca: report: no thread named "nosuch"`},
		{[]string{"report", filepath.Join(t.TempDir(), "none")}, 2, "orca: report: no recording"},
		// A directory lists its recordings; a JFR file points to orca import (issue 21 item 3).
		{[]string{"report", filepath.Dir(pre)}, 2, "orca: report: " + filepath.Dir(pre) + " is a directory: want a recording's PREFIX; recordings in " +
			filepath.Dir(pre) + ":\n  " + pre},
		{[]string{"report", jfr}, 2, "orca: report: " + jfr + " is a JFR recording: import it first, then use the prefix:\n  orca import -o " + jfr + "-orca " + jfr},
		{[]string{"import", pre}, 2, "orca: import: " + pre + " is already an Orca recording"},
		{[]string{"import", pre + ".orca"}, 2, "orca: import: " + pre + ".orca is already an Orca recording"},
	} {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, c.args); code != c.code || !strings.HasPrefix(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", c.args, code, errb.String(), c.code, c.msg)
		}
	}
}

// TestProgress checks that progress is shown on a terminal only, as one
// line rewritten in place.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	if p := newProgress(&b, "big.orca", 1000); p != nil {
		t.Errorf("progress to a buffer (not a terminal)")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if p := newProgress(f, "big.orca", 1000); p != nil {
		t.Errorf("progress to a file (not a terminal)")
	}
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		defer null.Close()
		if p := newProgress(null, "big.orca", 1000); p != nil {
			t.Errorf("progress to %s (a character device, not a terminal)", os.DevNull)
		}
	}
	// On a terminal: a fake clock, a second a tenth of the file.
	var now time.Duration
	p := progressLine(&b, "big.orca", 200e6, func() time.Duration { return now })
	for i := 0; i <= 10; i++ {
		now = time.Duration(i) * time.Second
		p(i*3_000_000, int64(i*19e6))
		p(i*3_000_000, int64(i*19e6)) // the same percentage, at once: not shown again
	}
	p(-1, 0)
	s := b.String()
	if strings.Count(s, "\r") != 12 || strings.Contains(s, "\n") {
		t.Errorf("progress: want 11 lines rewritten in place and the last erased: %q", s)
	}
	for _, want := range []string{
		"\rreading big.orca: 0 B of 200.0 MB (0%), 0 events\033[K",
		"\rreading big.orca: 95.0 MB of 200.0 MB (47%), 15.0 M events, 3.0 M events/s\033[K",
		"\rreading big.orca: 190.0 MB of 200.0 MB (95%), 30.0 M events, 3.0 M events/s\033[K\r\033[K",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("progress %q lacks %q", s, want)
		}
	}
}

// TestStepLine: the analyses' line (orca report on a terminal once the
// recording is read): rewritten in place when the step changes, at most
// twice a second within one, counted when the step counts, by the ticker
// when nothing comes, erased at the end, nothing after.
func TestStepLine(t *testing.T) {
	var b testjvm.Buffer // written by the ticker too
	t0 := time.Unix(1000, 0)
	var mu sync.Mutex
	at := t0
	now := func() time.Time { mu.Lock(); defer mu.Unlock(); return at }
	set := func(d time.Duration) { mu.Lock(); at = t0.Add(d); mu.Unlock() }
	l := &stepLine{w: &b, verb: "analysing", name: "rec", now: now, start: t0, stop: make(chan struct{})}
	l.show("the deadlocks and hangs", 0, 0)
	set(100 * time.Millisecond)
	l.show("what the lock holders did: the threads' intervals", 0, 35000)
	set(300 * time.Millisecond)
	l.show("what the lock holders did: the threads' intervals", 16, 35000) // within half a second: not shown
	set(2 * time.Second)
	l.show("what the lock holders did: the threads' intervals", 27000, 35000)
	go l.tick(time.Millisecond) // a long step that says nothing: the ticker redraws it
	set(5 * time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(b.String(), "27 k of 35 k), 5 s") && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	l.end()
	l.show("the CPU profile", 0, 0) // after the end: nothing
	l.end()
	s := b.String()
	for _, want := range []string{
		"\ranalysing rec: the deadlocks and hangs, 0 s\033[K",
		"\ranalysing rec: what the lock holders did: the threads' intervals (0 of 35 k), 0 s\033[K",
		"\ranalysing rec: what the lock holders did: the threads' intervals (27 k of 35 k), 2 s\033[K",
		"\ranalysing rec: what the lock holders did: the threads' intervals (27 k of 35 k), 5 s\033[K",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("step line %q lacks %q", s, want)
		}
	}
	if strings.Contains(s, "(16 of") || strings.Contains(s, "CPU profile") || strings.Contains(s, "\n") {
		t.Errorf("step line %q: a line shown within half a second, after the end, or a new line", s)
	}
	if !strings.HasSuffix(s, "\r\033[K") {
		t.Errorf("step line %q: not erased at the end", s)
	}
	var none *stepLine
	none.end() // no line: nothing to end
	// A prefix another user chose reaches root's terminal escaped.
	var e testjvm.Buffer
	el := newStepLine(&e, "analysing", "rec\x1b[2J", now)
	el.show("the CPU profile", 0, 0)
	el.end()
	if s := e.String(); strings.Contains(s, "\x1b[2J") || !strings.Contains(s, "analysing rec") {
		t.Errorf("step line of a prefix with ESC: %q", s)
	}
}

// TestFlagsAfterOperands checks that every command takes its flags after
// its operands too (orca view rec --no-browser), and that "--" ends them.
func TestFlagsAfterOperands(t *testing.T) {
	pre := reportRecording(t)
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string // in stdout, or stderr when code != 0
	}{
		{[]string{"report", pre, "--json", "--top", "1"}, 0, `"locks_total": 2`},
		{[]string{"report", pre, "--thread", "worker-c"}, 0, `--thread "worker-c": 1 thread of 6 match`},
		{[]string{"dump", pre, "--resolve=false"}, 0, "MonitorContendedEnter"},
		{[]string{"export", pre, "--format", "collapsed", "-o", "-"}, 0, "Scenario.transfer"},
		{[]string{"export", pre, "--format", "collapsed", "-o", filepath.Join(dir, "out.folded")}, 0, ""},
		{[]string{"report", pre, "--", "--json"}, 2, "report: want one PREFIX"},
		{[]string{"report", pre, "--nonsense"}, 2, "flag provided but not defined: -nonsense"},
		{[]string{"version", "--", "x"}, 2, "version takes no arguments"},
	} {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, c.args)
		got := out.String()
		if c.code != 0 {
			got = errb.String()
		}
		if code != c.code || !strings.Contains(got, c.want) {
			t.Errorf("%q: exit %d, want %d; output lacks %q:\n%s%s", c.args, code, c.code, c.want, out.String(), errb.String())
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.folded")); err != nil {
		t.Errorf("export with -o after the prefix: %v", err)
	}
}

// jfrFile writes a file that begins as a JFR chunk does, named without .jfr.
func jfrFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "flight")
	if err := os.WriteFile(p, []byte("FLR\x00\x00\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
