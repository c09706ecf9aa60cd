package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"

	"orca/internal/reader"
)

// What orca report and orca view write to disk while they read a recording,
// for each byte of a compact .orca (measured 2026-12-01 on orca-gen's
// recordings, docs/streaming.md "Room on disk"): the report's temporary
// file peaks at 3.1-3.3 times the events read, the viewer's at 5.7 times,
// and the viewer's index is 0.95 times; a text (seed) .orca is about 20
// times less dense, so a twentieth of that. The figures are rounded up:
// they decide a warning, not a refusal.
const (
	reportSpillPerByte = 3.5
	viewSpillPerByte   = 6
	viewIndexPerByte   = 1
	seedPerCompact     = 20
)

// diskNeed is about the most a reader of size bytes of rec's events writes
// at perByte bytes for each compact one.
func diskNeed(rec *reader.Recording, size int64, perByte float64) int64 {
	need := float64(size) * perByte
	if !rec.CompactEvents() {
		need /= seedPerCompact
	}
	return int64(need)
}

// freeRoom is the room left to this user on the file system of dir, or of
// its nearest existing parent (the viewer's index directory may not exist
// yet); ok false when none could be asked. It asks by descriptor (statfs of
// the open directory).
func freeRoom(dir string) (free int64, ok bool) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fd, err := unix.Open(d, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err == nil {
			var st unix.Statfs_t
			err = unix.Fstatfs(fd, &st)
			unix.Close(fd)
			if err != nil {
				return 0, false
			}
			return int64(st.Bavail) * int64(st.Bsize), true
		}
		if d == filepath.Dir(d) {
			return 0, false
		}
	}
}

// warnRoom prints a warning on w when dir has less room than need: what
// will be written there (what), how to give it more (fix). The command goes
// on: the estimate is an upper bound, and a write that fails says so.
func warnRoom(w io.Writer, cmd, what, dir string, need int64, fix string) {
	free, ok := freeRoom(dir)
	if !ok || free >= need {
		return
	}
	fmt.Fprintf(w, "orca %s: warning: %s may grow to about %s, and %s has %s free: %s\n",
		cmd, what, gigabytes(need), dir, gigabytes(free), fix)
}

// gigabytes prints n bytes as GB with one decimal (MB below 1 GB).
func gigabytes(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.0f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
}

// fullAdvice says, of err, a full disk while orca cmd wrote the model's
// temporary file (perByte times the compact events read, in $TMPDIR), how
// to give it room or do without it (env=0); another error is left as it is.
func fullAdvice(cmd string, perByte float64, env string, err error) error {
	if !errors.Is(err, syscall.ENOSPC) {
		return err
	}
	return fmt.Errorf("%s: %w (the model's temporary file takes up to about %g times the compact events read, in $TMPDIR: set TMPDIR to a directory with more room, or %s=0 keeps the threads' states in memory instead)", cmd, err, perByte, env)
}
