package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"

	"orca/internal/attach"
)

// The lease of an attached recording (docs/attach.md, "The lease"): the
// agent, loaded with lease=yes, creates PREFIX.lease and ends the recording
// once nobody holds a lock on it; orca record --pid holds one from the
// start until it has stopped the recording. The kernel drops the lock when
// orca ends, however it ends (kill -9), and so the JVM never records on
// without bound after its orca is gone.

// leaseFirst is the agent's LEASE_FIRST_S (agent/jvm/lease.h): the time of
// the JVM's running orca has to take the lock after the start.
const leaseFirst = 15

// takeLease takes the lease of the recording to prefix (as the JVM sees
// it): it opens the agent's PREFIX.lease through the JVM's own descriptor
// (/proc/PID/fd/N, the file the agent created, never a name in a directory
// another user may write), takes a read lock on the open file description
// and writes a line to it (the agent then knows the lock was taken). The
// returned file holds the lock until it is closed or orca ends.
//
// The JVM's user may swap what its descriptor N names between the readlink
// and the open (to a device, or a file of root's it was handed): the
// descriptor is first opened O_PATH, which opens nothing (no device's open,
// no FIFO's wait), checked — a regular file of the JVM's user, named
// PREFIX.lease — and only that file is opened for writing, through orca's
// own /proc/self/fd.
func takeLease(j *attach.Proc, prefix string) (*os.File, error) {
	want := prefix + ".lease"
	ents, err := os.ReadDir(j.Path("fd"))
	if err != nil {
		return nil, fmt.Errorf("listing the JVM's files: %w", err)
	}
	for _, e := range ents {
		fd := filepath.Join(j.Path("fd"), e.Name())
		if p, err := os.Readlink(fd); err != nil || p != want {
			continue
		}
		pfd, err := syscall.Open(fd, unix.O_PATH|syscall.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("opening %s (%s): %w", want, fd, err)
		}
		defer syscall.Close(pfd)
		self := "/proc/self/fd/" + strconv.Itoa(pfd)
		var st syscall.Stat_t
		p, _ := os.Readlink(self)
		if err := syscall.Fstat(pfd, &st); err != nil || filepath.Base(p) != filepath.Base(want) ||
			st.Mode&syscall.S_IFMT != syscall.S_IFREG || int(st.Uid) != j.UID {
			return nil, fmt.Errorf("%s is not the agent's lease file (%s, owner %d)", fd, p, st.Uid)
		}
		f, err := os.OpenFile(self, os.O_RDWR|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, fmt.Errorf("opening %s: %w", want, err)
		}
		var fst syscall.Stat_t
		if err := syscall.Fstat(int(f.Fd()), &fst); err != nil || fst.Dev != st.Dev || fst.Ino != st.Ino {
			f.Close()
			return nil, fmt.Errorf("opening %s: not the file checked", want)
		}
		// A lock of the open file description (Linux 3.15+), not of the
		// process, as the agent's F_OFD_GETLK tests it.
		lk := syscall.Flock_t{Type: syscall.F_RDLCK}
		if err := syscall.FcntlFlock(f.Fd(), unix.F_OFD_SETLK, &lk); err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", want, err)
		}
		// Says that the lock was taken: once it is gone, the agent knows
		// orca has ended (rather than not begun).
		if _, err := fmt.Fprintf(f, "held by orca pid %d\n", os.Getpid()); err != nil {
			f.Close()
			return nil, fmt.Errorf("writing %s: %w", want, err)
		}
		return f, nil
	}
	return nil, fmt.Errorf("the JVM holds no %s open", want)
}
