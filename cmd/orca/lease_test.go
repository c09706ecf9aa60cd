package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"orca/internal/attach"
)

// TestTakeLease: orca takes the lease through the JVM's descriptor of PREFIX.lease (this test
// process plays the JVM): a read lock of the open file description, which the agent's test for
// a write lock sees, and a line. What the descriptor names must be a regular file of the JVM's
// user: a FIFO (opened without blocking: never opened at all) or another user's file is refused
// and left unwritten.
func TestTakeLease(t *testing.T) {
	dir := t.TempDir()
	me := &attach.Proc{Dir: "/proc", PID: os.Getpid(), UID: os.Geteuid()}

	agent, err := os.OpenFile(filepath.Join(dir, "r.lease"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()
	lease, err := takeLease(me, filepath.Join(dir, "r"))
	if err != nil {
		t.Fatalf("takeLease: %v", err)
	}
	lk := unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(agent.Fd(), unix.F_OFD_GETLK, &lk); err != nil || lk.Type != unix.F_RDLCK {
		t.Errorf("the agent's test: lock type %d (%v), want F_RDLCK held by orca", lk.Type, err)
	}
	if b, _ := os.ReadFile(agent.Name()); !strings.HasPrefix(string(b), "held by orca pid ") {
		t.Errorf("the lease file holds %q, want orca's line", b)
	}
	lease.Close()
	lk = unix.Flock_t{Type: unix.F_WRLCK}
	if err := unix.FcntlFlock(agent.Fd(), unix.F_OFD_GETLK, &lk); err != nil || lk.Type != unix.F_UNLCK {
		t.Errorf("after orca's close: lock type %d (%v), want F_UNLCK", lk.Type, err)
	}

	// Not an agent's lease: a FIFO (its open would wait for a writer) and another user's file.
	fifo := filepath.Join(dir, "f.lease")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	ff, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer ff.Close()
	if _, err := takeLease(me, filepath.Join(dir, "f")); err == nil || !strings.Contains(err.Error(), "is not the agent's lease file") {
		t.Errorf("takeLease of a FIFO: %v, want refused", err)
	}
	if os.Geteuid() != 0 {
		return
	}
	other, err := os.OpenFile(filepath.Join(dir, "o.lease"), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := other.Chown(65531, 65531); err != nil {
		t.Fatal(err)
	}
	if _, err := takeLease(me, filepath.Join(dir, "o")); err == nil || !strings.Contains(err.Error(), "owner 65531") {
		t.Errorf("takeLease of another user's file: %v, want refused", err)
	}
	if fi, _ := other.Stat(); fi.Size() != 0 {
		t.Errorf("another user's file was written: %d bytes", fi.Size())
	}
}
