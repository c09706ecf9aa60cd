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
complete=true
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
		"  DROPPED: 2 events were not written:\n",
		"    MonitorContendedEnter  2\n",
		// Issue 12, item 15: it said "default 16"; the agent's default is 32 (agent/core/options.c).
		"    2 because the agent's buffer was full: record again with a larger --buffer (MB, default 32) or a shorter --flush (ms, default 200)\n",
		// Issue 31, item 7: it said "1 of 9 MonitorContendedEnter events have owner 00000000".
		"  owner unknown: 1 of 9 monitor contentions (a thread blocked entering synchronized) have no known owner: the owner had left before the agent could name it\n",
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

// TestSummaryStale (issue 30, item 5): after kill -9 of the JVM the summary gave .info's counts,
// of the agent's last write of it (each second): 42 633 events where the file held 63 538. With
// .info not complete, the summary counts the files, says so and which .info count it replaces,
// and the span reaches the last event in the files.
func TestSummaryStale(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "run")
	os.WriteFile(pre+".orca", []byte(`10.0000000000,ThreadStarted,00000001,main
10.5000000000,ThreadSleep,00000001,1;00000001;00000000
11.0000000000,ThreadSlept,00000001,1;00000001;00000000
12.0000000000,ThreadSleep,00000001,1;00000001;00000000
13.0000000000,ThreadSlept,00000001,1;00000001;00000000
14.5000000000,ThreadSleep,00000001,1;00000001;00000000
`), 0o644)
	os.WriteFile(pre+".methods", []byte("0.0000000000,00000001,run,()V,0000CAFE,1;00000000;0000000A\n"), 0o644)
	os.WriteFile(pre+".classtable", []byte(""), 0o644)
	os.WriteFile(pre+".info", []byte("format=orca-1\npid=4242\nstart_s=10.0000000000\nend_s=11.0000000000\ncomplete=false\n"+
		"events.ThreadStarted=1\nevents.ThreadSleep=1\nevents.ThreadSlept=1\ndropped_total=0\n"), 0o644)
	recs, err := findRecordings(pre)
	if err != nil || len(recs) != 1 {
		t.Fatalf("findRecordings: %v, %v", recs, err)
	}
	var b bytes.Buffer
	printSummary(&b, recs[0])
	got := b.String()
	for _, want := range []string{
		"orca: recording " + pre + " from JVM pid 4242, 4.50 s\n",
		"  events: 6 (counted in the files: .info is not complete, its counts — 3 events — are of its last write, at ",
		"    ThreadSleep    3\n    ThreadSlept    2\n    ThreadStarted  1\n",
		"INCOMPLETE (complete=false): the JVM did not exit normally; the recording holds events up to the last flush",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
}

// TestSummaryCut (issue 12, item 4): a recording cut by a full disk was summarised as
// "INCOMPLETE: the JVM did not exit normally". The agent's .info now says what happened
// (write_error, cut_s, dropped_after_cut) and the summary says it; also the counters of
// dropped_at_exit (item 3), refused (item 7), and the virtual-thread counters of the agent.
func TestSummaryCut(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "full")
	os.WriteFile(pre+".orca", []byte("x\n"), 0o644)
	os.WriteFile(pre+".info", []byte(`pid=7
start_s=100.0000000000
end_s=101.5000000000
complete=true
events.ObjectNotify=1936
dropped.ObjectNotify=30010
dropped.ThreadEnded=1
dropped_total=30011
dropped_at_exit=12
dropped_after_cut=28999
write_errors=1
write_error=/mnt/full.orca: No space left on device
cut_s=101.5000000000
unattributed_total=5
unattributed.MonitorContendedEnter=5
virtual_threads=3
`), 0o644)
	recs, _ := findRecordings(pre)
	var b bytes.Buffer
	printSummary(&b, recs[0])
	got := b.String()
	for _, want := range []string{
		"  DROPPED: 30011 events were not written:\n",
		"    1000 because the agent's buffer was full",
		"    12 at JVM exit: not written within the agent's time limit for its final work (0.5 s)\n",
		"    28999 after the write error below\n",
		"  CUT SHORT, DISK FULL: the agent could not write /mnt/full.orca: No space left on device\n",
		"    the recording ends 1.50 s after its start (cut_s=101.5000000000); the 28999 events after that were dropped\n",
		"  unattributed: 5 events of virtual threads were not recorded",
		"    MonitorContendedEnter  5\n",
		"  virtual threads: 3\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("summary lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "INCOMPLETE") {
		t.Errorf("a cut recording of a JVM that exited normally is not INCOMPLETE:\n%s", got)
	}

	os.WriteFile(pre+".info", []byte("pid=8\nrefused=an Orca agent already records this JVM (to /a); this one (/b) does not record\ncomplete=true\n"), 0o644)
	b.Reset()
	printSummary(&b, recs[0])
	if want := "  REFUSED: an Orca agent already records this JVM (to /a); this one (/b) does not record\n"; !strings.Contains(b.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, b.String())
	}
}

func TestSummaryClean(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "ok")
	got := summaryOf(t, pre, "pid=1\ncomplete=true\nevents.ThreadStarted=2\ndropped_total=0\nowner_unknown=0\n")
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

// TestSummaryAttached: a recording of orca record --pid says it began at the attach and how it
// ended.
func TestSummaryAttached(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "att")
	for info, want := range map[string]string{
		"attached=true\nalive_at_attach=12\nstopped=true\ncomplete=true\n": "  attached: begins at the attach, with the 12 threads alive then; stopped while the JVM went on\n",
		"attached=true\nalive_at_attach=3\ncomplete=true\n":                "  attached: begins at the attach, with the 3 threads alive then; until the JVM ended\n",
		// The capabilities HotSpot keeps for start-up are a fact, said only when they mattered.
		"attached=true\nalive_at_attach=3\nattached_without=can_get_current_contended_monitor,can_get_owned_monitor_info\nattached_missed=2\ncomplete=true\n": "  attached: 2 objects left unnamed: an attached agent does not get can_get_current_contended_monitor or can_get_owned_monitor_info (start the JVM with the agent for them)\n",
		// Virtual threads the attach could not list, or whose state it could not write, are said.
		"attached=true\nalive_at_attach=3\nvirtual_unseen_at_attach=jdk.trackAllThreads=false: no list\ncomplete=true\n": "  attached: virtual threads at the attach not all seen: jdk.trackAllThreads=false: no list\n",
		"attached=true\nalive_at_attach=3\nmonitor_unread_at_attach=1\ncomplete=true\n":                                  "  attached: 1 thread blocked on a monitor or waiting at the attach whose monitor could not be read: its state then is not recorded\n",
		"attached=true\nalive_at_attach=3\nmonitor_unread_at_attach=2\ncomplete=true\n":                                  "  attached: 2 threads blocked on a monitor or waiting at the attach whose monitor could not be read: their state then is not recorded\n",
		"attached=true\nalive_at_attach=3\nvirtual_skipped_at_attach=4\ncomplete=true\n":                                 "  attached: 4 virtual threads blocked on a monitor or waiting at the attach: their state then is not recorded\n",
		"complete=true\n": "",
	} {
		b := summaryOf(t, pre, info)
		if want == "" && strings.Contains(b, "attached") || want != "" && !strings.Contains(b, want) {
			t.Errorf(".info %q: summary\n%s\nwant %q", info, b, want)
		}
		if strings.Contains(info, "attached_without") != strings.Contains(b, "not get") {
			t.Errorf(".info %q: summary\n%s\nwant the missing capabilities named only with attached_missed", info, b)
		}
	}
}

// TestSummaryBounded: a bounded recording that deleted nothing was summed up as "0 older chunk
// files deleted; the counts above are of the whole run, the chunk files kept (1-3) hold its
// end", as if part were gone. It says nothing was deleted; one that deleted chunks says so.
func TestSummaryBounded(t *testing.T) {
	pre := filepath.Join(t.TempDir(), "b")
	for info, want := range map[string]string{
		"max_age_s=30.000\nchunks_deleted=0\nchunks_kept=1-3\ncomplete=true\n":                   "  bounded (--max-age 30s): nothing deleted, chunk files 1-3 kept\n",
		"max_size=2097152\nmax_age_s=8.000\nchunks_deleted=7\nchunks_kept=8-15\ncomplete=true\n": "  bounded (--max-size 2 MiB, --max-age 8s): 7 older chunk files deleted; the counts above are of the whole run, the chunk files kept (8-15) hold its end\n",
	} {
		b := summaryOf(t, pre, info)
		if !strings.Contains(b, want) {
			t.Errorf(".info %q: summary\n%s\nwant %q", info, b, want)
		}
	}
}

// summaryOf writes an empty pre.orca and pre.info holding info, and
// returns the summary orca record prints of that recording.
func summaryOf(t *testing.T, pre, info string) string {
	t.Helper()
	if err := os.WriteFile(pre+".orca", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pre+".info", []byte(info), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, _ := findRecordings(pre)
	var b bytes.Buffer
	printSummary(&b, recs[0])
	return b.String()
}
