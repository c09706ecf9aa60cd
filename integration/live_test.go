package integration

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"orca/internal/crash"
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
		cmd := exec.CommandContext(ctx, bin, "record", "--quiet", "-o", prefix, "--", j.java(), crash.ErrorFile(dir), "-cp", classes(t), "Hang")
		cmd.Dir = dir
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
			ParseErrors int `json:"parse_errors"`
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
	})
}
