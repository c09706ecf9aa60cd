package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orca/internal/reader"
	"orca/internal/testjvm"
)

// TestReportWhileRecording is issue 23's "they also work on a recording that is still being
// written": Hang (a waiter that never wakes, a worker looping) is recorded with orca record's
// default, the compact encoding; while it runs, orca report reads what the agent has flushed —
// whole records up to the last flush, a record being written ignored — and says the recording is
// not complete and that the waiter hangs. SIGTERM then stops it as its users would.
func TestReportWhileRecording(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin := orcaBin(t)
		dir := newDir(t)
		prefix := filepath.Join(dir, "x")
		ctx, cancel := context.WithTimeout(context.Background(), javaTimeout)
		defer cancel()
		cmd := testjvm.CommandContext(ctx, t, dir, append([]string{bin, "record", "--quiet", "-o", prefix, "--"}, j.argv(dir, "-cp", classes(t), "Hang")...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		defer func() {
			if cmd.Process != nil {
				cmd.Process.Signal(syscall.SIGTERM)
				cmd.Wait()
			}
		}()
		startUntilReady(t, cmd, &stderr)
		// The waiter must have waited a second (a hang) and the agent flushed (every 200 ms).
		time.Sleep(1500 * time.Millisecond)
		r := run(t, dir, bin, "report", "--json", prefix)
		if r.code != 0 {
			t.Fatalf("orca report on a running recording:\n%s", r)
		}
		var rep struct {
			Events   int  `json:"events"`
			Complete bool `json:"complete"`
			// The waiter waits alone (the worker runs on): issue 31, item 3.
			Alone []struct {
				Name *string `json:"name"`
			} `json:"waiting_alone"`
			ParseErrors int  `json:"parse_errors"`
			Live        bool `json:"live"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("the report's JSON: %v", err)
		}
		waiter := false
		for _, h := range rep.Alone {
			waiter = waiter || h.Name != nil && *h.Name == "orca-hang-waiter"
		}
		if rep.Events == 0 || rep.Complete || rep.ParseErrors != 0 || !waiter {
			t.Errorf("report of the running recording: %d events, complete %v, %d parse errors, waiter waiting alone %v; want events, not complete, none, true:\n%s",
				rep.Events, rep.Complete, rep.ParseErrors, waiter, strings.TrimSpace(r.stdout[:min(len(r.stdout), 2000)]))
		}
		// Issue 31, item 6: the JVM holds the lock on x.orca, so the recording is live, not
		// "killed" nor "cut".
		if !rep.Live {
			t.Errorf("report --json of the running recording: live false, want true")
		}
		r = run(t, dir, bin, "report", prefix)
		if want := "  live: the JVM is still recording (it holds the lock on " + prefix + ".orca): the events up to now\n"; r.code != 0 ||
			!strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "killed") || strings.Contains(r.stdout, "complete=false") {
			t.Errorf("report of the running recording: want %q, and no kill:\n%s", want, r)
		}
		// Killed, it is no longer live: a kill, not a run.
		in, err := reader.LoadInfo(prefix + ".info")
		pid, perr := strconv.Atoi(in.PID())
		if err != nil || perr != nil {
			t.Fatalf("the JVM's pid from %s.info: %v %v", prefix, err, perr)
		}
		syscall.Kill(pid, syscall.SIGKILL)
		cmd.Wait()
		cmd.Process = nil
		r = run(t, dir, bin, "report", "--json", prefix)
		rep.Live = true
		if err := json.Unmarshal([]byte(r.stdout), &rep); r.code != 0 || err != nil || rep.Live {
			t.Errorf("report --json after the JVM's kill -9: live %v (%v), want false:\n%s", rep.Live, err, r)
		}
		r = run(t, dir, bin, "report", prefix)
		if want := "  !! incomplete recording (complete=false): the JVM did not exit normally (killed or crashed)\n"; r.code != 0 || !strings.Contains(r.stdout, want) || strings.Contains(r.stdout, "live:") {
			t.Errorf("report after the JVM's kill -9: want %q:\n%s", want, r)
		}
	})
}
