package testjvm

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartOutput: Start's copy of a command's output goes on after the
// line it waits for was printed more than once (sent on a channel of one
// slot, a third one blocked the copy, then the command on its pipe), and
// Wait returns once every line is in Stdout.
func TestStartOutput(t *testing.T) {
	dir := t.TempDir()
	const n = 2000
	cmd := Command(t, dir, "sh", "-c", `echo ready; echo ready; echo ready; i=0; while [ $i -lt `+
		strconv.Itoa(n)+` ]; do echo line $i; i=$((i+1)); done; echo last`)
	p := Start(t, cmd, "ready")
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the command: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("the command did not end within 30 s; stdout so far:\n%.2000s", p.Stdout)
	}
	out := p.Stdout.String()
	if got := strings.Count(out, "\nline "); got != n {
		t.Errorf("stdout has %d of the %d lines", got, n)
	}
	if !strings.HasSuffix(out, "line "+strconv.Itoa(n-1)+"\nlast\n") {
		t.Errorf("stdout does not end with the command's last lines:\n%s", out[max(0, len(out)-200):])
	}
}
