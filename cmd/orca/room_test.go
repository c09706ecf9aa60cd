package main

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"orca/internal/format"
	"orca/internal/reader"
	"orca/internal/synth"
)

// TestDiskNeed checks the estimate of what a reader writes to disk: a
// compact recording's bytes weigh seedPerCompact times a text one's.
func TestDiskNeed(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		enc     format.Encoding
		compact bool
	}{{format.EncodingCompact, true}, {format.EncodingSeed, false}} {
		prefix := filepath.Join(dir, fmt.Sprint("rec", tc.compact))
		if _, err := synth.WriteRecording(prefix, synth.Options{Seed: 3, Threads: 8, Monitors: 4, Semaphores: 2, Size: 1 << 20, Encoding: tc.enc}); err != nil {
			t.Fatal(err)
		}
		rec, err := reader.Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if got := rec.CompactEvents(); got != tc.compact {
			t.Errorf("%s: CompactEvents() = %v, want %v", prefix, got, tc.compact)
		}
		want := int64(1000 * reportSpillPerByte)
		if !tc.compact {
			want /= seedPerCompact
		}
		if got := diskNeed(rec, 1000, reportSpillPerByte); got != want {
			t.Errorf("%s: diskNeed(1000 bytes) = %d, want %d", prefix, got, want)
		}
	}
}

// TestWarnRoom checks that a directory with less room than needed gets one
// warning line naming it, what is written, its room and the way out, and
// that one with room enough, or none that can be asked, gets none.
func TestWarnRoom(t *testing.T) {
	dir := t.TempDir()
	free, ok := freeRoom(dir)
	if !ok || free <= 0 {
		t.Fatalf("freeRoom(%s) = %d, %v", dir, free, ok)
	}
	// A directory not made yet: its nearest parent's file system.
	if f, ok := freeRoom(filepath.Join(dir, "a", "b")); !ok || f <= 0 {
		t.Errorf("freeRoom of a directory not made = %d, %v", f, ok)
	}
	var w bytes.Buffer
	warnRoom(&w, "report", "the report's temporary file", dir, free+1<<40, "set TMPDIR")
	line := w.String()
	if strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, "orca report: warning: the report's temporary file may grow to about ") ||
		!strings.Contains(line, dir+" has ") || !strings.HasSuffix(line, "free: set TMPDIR\n") {
		t.Errorf("warning: %q", line)
	}
	w.Reset()
	warnRoom(&w, "report", "the report's temporary file", dir, 1, "set TMPDIR")
	if w.Len() != 0 {
		t.Errorf("a directory with room: %q", w.String())
	}
}

// TestSpillAdviceFull checks that a full disk, whichever write it stopped,
// is said with where the room is wanted and how to do without it.
func TestSpillAdviceFull(t *testing.T) {
	err := spillAdvice(fmt.Errorf("writing the model's temporary file: %w", syscall.ENOSPC))
	if msg := err.Error(); !errors.Is(err, syscall.ENOSPC) || !strings.Contains(msg, "TMPDIR") || !strings.Contains(msg, "ORCA_REPORT_SPILL=0") {
		t.Errorf("spillAdvice(ENOSPC): %q", msg)
	}
}

// TestFullAdviceView checks the viewer's advice on a full disk, and that
// another error is left as it is.
func TestFullAdviceView(t *testing.T) {
	err := fullAdvice("view", viewSpillPerByte, "ORCA_VIEW_SPILL", fmt.Errorf("write: %w", syscall.ENOSPC))
	if msg := err.Error(); !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(msg, "view: ") || !strings.Contains(msg, "ORCA_VIEW_SPILL=0") {
		t.Errorf("fullAdvice(ENOSPC): %q", msg)
	}
	other := errors.New("read 10 of 12 events: the file is cut")
	if got := fullAdvice("view", viewSpillPerByte, "ORCA_VIEW_SPILL", other); got != other {
		t.Errorf("fullAdvice(%v) = %v", other, got)
	}
}
