package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/testjvm"
)

// TestKill9 kills a JVM mid-recording: what the agent flushed before must still read, with at
// most a truncated last line, and .info must say the recording is incomplete.
func TestKill9(t *testing.T) {
	lib := agentLib(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		prefix := filepath.Join(dir, "x")
		ctx, cancel := context.WithTimeout(context.Background(), javaTimeout)
		defer cancel()
		// java directly (not through orca record) so the kill reaches the JVM itself.
		cmd := testjvm.CommandContext(ctx, t, dir, j.argv(dir, "-agentpath:"+lib+"=prefix="+prefix, "-cp", classes(t), "Hang")...)
		// The listing of the threads alive at VMInit takes 600 ms: the writer's first flushes
		// (every 200 ms), which attach it to the JVM as "orca writer", come meanwhile, and
		// the listing must not take it for the application's (CI, 25, once).
		cmd.Env = append(os.Environ(), "ORCA_TEST_SLOW_LISTING_MS=600")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		never := startUntilReady(t, cmd, &stderr)
		// Long enough for several flushes (every 200 ms) and an .info rewrite (every second).
		time.Sleep(1500 * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL
			t.Fatal(err)
		}
		cmd.Wait()
		crash.Check(t, dir) // a crash before the kill

		r := load(t, prefix)
		lastLine := countLines(t, prefix+".orca")
		// The reader skips a cut-off last line (and says so); count it as allowed also if it comes
		// back as an error.
		for _, err := range r.parseErrs {
			var pe *reader.ParseError
			if !errors.As(err, &pe) || pe.Line != lastLine || len(r.parseErrs) > 1 {
				t.Errorf("parsing %s after kill -9 (only a truncated last line, %d, is allowed): %v", prefix, lastLine, err)
			}
		}
		for _, w := range r.warnings {
			if !strings.Contains(w, "cut short") {
				t.Errorf("reading %s after kill -9 (only cut-off last lines are allowed): %s", prefix, w)
			}
		}
		r.checkInfo(t, false, false)
		r.checkInvariants(t)
		if len(r.sel(format.ThreadSleep, nil)) == 0 {
			t.Errorf("no ThreadSleep in the flushed events; found: %s", r.kindCounts())
		}
		// The waiter never returns from wait(): its ObjectWait is written by the agent's walker
		// thread, with the waiter's stack, and the walker itself is not in the recording.
		names := map[format.ThreadID]string{}
		for _, i := range r.sel(format.ThreadStarted, nil) {
			names[r.events[i].Thread] = r.events[i].Name
			if strings.HasPrefix(r.events[i].Name, "orca ") {
				t.Errorf("the agent's own thread is in the recording:\n%s", r.describe(i))
			}
		}
		c := counter{t, r}
		waiter := func(_ int, ev reader.Event) bool { return names[ev.Thread] == "orca-hang-waiter" }
		waits := r.sel(format.ObjectWait, waiter)
		c.want("ObjectWait of the hung waiter", waits, 1)
		c.wantLine("ObjectWait of the hung waiter", waits, "Hang.java", 28)
		// Its object is named by the walker (JDK 19+: through ThreadInfo.getLockInfo).
		for _, i := range waits {
			if got := fmt.Sprintf("%08X", uint32(r.events[i].Object)); got != never {
				t.Errorf("ObjectWait of the hung waiter on %s, want %s (Hang's NEVER)", got, never)
			}
		}
		c.want("ObjectWaited of the hung waiter", r.sel(format.ObjectWaited, waiter), 0)
		if t.Failed() {
			t.Logf("stderr:\n%s\nrecording: %s", stderr.String(), prefix)
		}
	})
}

// countLines returns the number of the last line of a file (a final line without \n counts).
func countLines(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// startUntilReady starts cmd (Hang, or orca record of it) and waits for the program's READY line,
// killing it and failing the test when it ends or takes half of javaTimeout without one. It
// returns the hex hash Hang prints on its NEVER line ("" when none came).
func startUntilReady(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer) string {
	t.Helper()
	return startUntilLine(t, cmd, stderr, "READY")
}

// startUntilLine is startUntilReady waiting for the line want.
func startUntilLine(t *testing.T, cmd *exec.Cmd, stderr *bytes.Buffer, want string) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	var never string // the hung waiter's object, printed before READY
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if h, found := strings.CutPrefix(sc.Text(), "NEVER "); found && !ok {
				never = h
			}
			if sc.Text() == want && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatalf("the program ended without printing %s; stderr:\n%s", want, stderr.String())
		}
	case <-time.After(javaTimeout / 2):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no %s from the program within %v; stderr:\n%s", want, javaTimeout/2, stderr.String())
	}
	return never
}
