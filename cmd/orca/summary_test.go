package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fabricatedInfo = `format=orca-1
agent_version=0.1.0
pid=4242
command=Demo arg
start_s=10.0000000000
end_s=12.0450000000
complete=false
events.ObjectWait=20
events.ObjectWaited=20
events.MonitorContendedEnter=7
events.ThreadSleep=0
events.FutureKind=3
dropped.MonitorContendedEnter=2
dropped_total=2
owner_unknown=1
warning=Semaphore capture disabled
warning=second warning
`

func TestSummary(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "run-2")
	os.WriteFile(pre+".orca", bytes.Repeat([]byte("x"), 1500), 0o644)
	os.WriteFile(pre+".info", []byte(fabricatedInfo), 0o644)
	recs, err := findRecordings(filepath.Join(dir, "run"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("findRecordings: %v, %v", recs, err)
	}
	var b bytes.Buffer
	printSummary(&b, recs[0])
	got := b.String()
	for _, want := range []string{
		"orca: recording " + pre + " from JVM pid 4242 (Demo arg), 2.04 s\n",
		pre + ".orca  1.5 kB\n",
		pre + ".info  ", // size varies with nothing, but keep the check loose
		"  events: 50\n",
		// Aligned, in event-table order, zero counts left out, unknown kinds last.
		"    ObjectWait             20\n    ObjectWaited           20\n    MonitorContendedEnter   7\n    FutureKind              3\n",
		"  DROPPED: 2 events were lost",
		"    MonitorContendedEnter  2\n",
		"  owner unknown: 1 of 7 MonitorContendedEnter lines",
		"INCOMPLETE (complete=false): the JVM did not exit normally; the recording holds events up to the last flush",
		"  agent warning: Semaphore capture disabled\n  agent warning: second warning\n",
		"  next: orca report " + pre + "\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "ThreadSleep") {
		t.Errorf("zero count listed:\n%s", got)
	}
}

func TestSummaryClean(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "ok")
	os.WriteFile(pre+".orca", nil, 0o644)
	os.WriteFile(pre+".info", []byte("pid=1\ncomplete=true\nevents.ThreadStarted=2\ndropped_total=0\nowner_unknown=0\n"), 0o644)
	recs, _ := findRecordings(pre)
	var b bytes.Buffer
	printSummary(&b, recs[0])
	got := b.String()
	for _, bad := range []string{"DROPPED", "INCOMPLETE", "owner unknown", "warning"} {
		if strings.Contains(got, bad) {
			t.Errorf("clean recording reports %q:\n%s", bad, got)
		}
	}
	if !strings.Contains(got, "  dropped: 0\n") {
		t.Errorf("summary lacks dropped: 0:\n%s", got)
	}
}

func TestSummaryNoInfo(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "killed")
	os.WriteFile(pre+".orca", []byte("x\n"), 0o644)
	recs, _ := findRecordings(pre)
	var b bytes.Buffer
	printSummary(&b, recs[0])
	if !strings.Contains(b.String(), "killed.info is missing") || !strings.Contains(b.String(), "next: orca report") {
		t.Errorf("summary:\n%s", b.String())
	}
}

func TestHumanSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1.0 kB", 1234567: "1.2 MB", 3e9: "3.0 GB"} {
		if got := humanSize(n); got != want {
			t.Errorf("humanSize(%d) = %s, want %s", n, got, want)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"build/run-2": "build/run-2", "my run": "'my run'", "it's": `'it'\''s'`} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
