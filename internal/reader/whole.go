package reader

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"orca/internal/format"
)

// Whether a recording is whole: the events read against .info's count, and
// a last record cut short told apart — still being written (live), cut by
// a kill, or cut from a finished file (a copy stopped halfway).

// CutError is a recording whose .orca holds fewer events than its .info
// says the JVM wrote, though the JVM ended normally (complete=true): the
// file was cut after it was written (a copy stopped halfway, a disk full
// while copying). A report of it would claim what the missing half may
// contradict ("the JVM exited with these threads still stuck").
type CutError struct {
	File          string // PREFIX.orca
	Read, Written int64
	Info          string // PREFIX.info
}

func (e *CutError) Error() string {
	return fmt.Sprintf("%s: read %d of %d events: the file is cut (%s counts %d written by a JVM that ended normally)",
		e.File, e.Read, e.Written, e.Info, e.Written)
}

// Written returns the events .info says were written (the sum of its
// events.KIND), with ok true only when that is a bound the .orca file must
// reach: complete=true (after a kill -9 the counts are of the agent's last
// rewrite of .info and lag the file), not bounded (its oldest chunks are
// deleted), not cut by a failed write (cut_s, write_error), and counts
// given.
func (in Info) Written() (n int64, ok bool) {
	if c, known := in.Complete(); !known || !c || in.Bounds() != nil || in.Cut() != nil {
		return 0, false
	}
	for _, v := range in.Counters(format.InfoEvents) {
		n += v
		ok = true
	}
	return n, ok
}

// CheckRead returns a *CutError when the events read from the recording
// (read, the malformed records not among them) are fewer than .info's
// Written. A recording with malformed records is damaged, not cut: what
// they hid is not known to be missing from the end, and the report says
// they were skipped.
func (r *Recording) CheckRead(read int64, malformed int) error {
	written, ok := r.Info.Written()
	if !ok || malformed > 0 || read >= written {
		return nil
	}
	return &CutError{File: r.Prefix + format.SuffixEvents, Read: read, Written: written, Info: r.Prefix + format.SuffixInfo}
}

// Live reports whether a JVM still writes the recording: the agent holds an
// exclusive flock on PREFIX.orca for the JVM's life (agent/record/writer.c,
// open_locked), and /proc/locks lists it. It is read there, not tested by
// taking a lock: a JVM starting to record to this prefix at that instant
// would find the file locked and not record.
func (r *Recording) Live() bool {
	st, err := os.Stat(r.Prefix + format.SuffixEvents)
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	f, err := os.Open("/proc/locks")
	if err != nil {
		return false
	}
	defer f.Close()
	dev := uint64(sys.Dev)
	// "1: FLOCK  ADVISORY  WRITE 4242 08:01:1311 0 EOF": the device's major
	// and minor in hex, the inode in decimal; a waiter's line has "->".
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), sys.Ino)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 6 && fs[1] == "FLOCK" && fs[3] == "WRITE" && fs[5] == want {
			return true
		}
	}
	return false
}

// TruncatedWhy says why the last record of the recording is cut short
// (Events.Truncated), from what is known: the JVM is still writing it, the
// JVM was killed (or crashed) while writing it, or the file was cut after
// a JVM that ended normally wrote it whole.
func (r *Recording) TruncatedWhy() string {
	switch c, known := r.Info.Complete(); {
	case r.Live():
		return "the JVM is still writing it"
	case known && c:
		return fmt.Sprintf("the file was cut: %s says the JVM ended normally", r.Prefix+format.SuffixInfo)
	case known:
		return "the JVM was killed or crashed while writing it"
	case r.Info == nil:
		return fmt.Sprintf("no %s says whether the JVM was killed while writing it or the file was cut", r.Prefix+format.SuffixInfo)
	default:
		return fmt.Sprintf("%s does not say whether the JVM was killed while writing it or the file was cut", r.Prefix+format.SuffixInfo)
	}
}
