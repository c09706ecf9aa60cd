package reader

import (
	"bytes"
	"fmt"
	"io"

	"orca/internal/format"
)

// NotRecordingError is a .orca file that is not an Orca recording (a file
// renamed, random bytes): neither the compact encoding's magic nor a first
// line that is an event. A recording
// with malformed lines after a good first one is read, with the lines
// skipped and counted; one whose first line is malformed has nothing to
// say that can be trusted, and an empty report would read as "nothing
// happened".
type NotRecordingError struct {
	File string
	Err  *ParseError // the first line's fault (its position, what is wrong); nil for a line cut short
	Head string      // the first line's start, quoted
}

func (e *NotRecordingError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s is not an Orca recording: line %d, %s, is not an event (%s)", e.File, e.Err.Line, e.Head, e.Err.Msg)
	}
	return fmt.Sprintf("%s is not an Orca recording: its only line, %s, not ended, is not the start of an event", e.File, e.Head)
}

// checkHead tells whether the file at path begins as a recording does: a
// compact encoding's magic, or a first line that decodes as an event. An
// empty file (a JVM killed before its first write) and a text file whose
// only line was cut short by a kill while it looks like the start of an
// event are recordings. Only the first maxLine+1 bytes are read.
func checkHead(path string) error {
	f, err := OpenFile(path)
	if err != nil {
		return fmt.Errorf("opening recording: %w", err)
	}
	defer f.Close()
	// A compact file names itself in its first bytes: the first line of a
	// text one (up to maxLine) is read only when they do not.
	magic := make([]byte, len(compactMagic))
	if n, err := io.ReadFull(f, magic); err == nil && isCompact(magic[:n]) {
		return nil
	}
	head := make([]byte, maxLine+1)
	n, err := f.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return checkHeadBytes(head[:n], path)
}

// checkHeadBytes is checkHead on the first bytes of the file name.
func checkHeadBytes(head []byte, path string) error {
	if isCompact(head) || len(head) < len(compactMagic) && bytes.HasPrefix([]byte(compactMagic), head) {
		// The compact encoding names itself: what follows its magic, if
		// malformed, is a damaged recording (its records counted as
		// malformed), not another file. Or the file is empty, or cut in
		// the magic.
		return nil
	}
	evs := NewEvents(bytes.NewReader(head), path)
	_, err := evs.Next()
	switch pe, ok := err.(*ParseError); {
	case err == nil:
		return nil
	case ok:
		lines := bytes.SplitN(head, []byte("\n"), pe.Line+1)
		return &NotRecordingError{File: path, Err: pe, Head: show(lines[min(pe.Line, len(lines))-1])}
	case err != io.EOF:
		return fmt.Errorf("reading %s: %w", path, err)
	case !evs.Truncated() || cutEventStart(head):
		// No event, or the start of the first one: a recording whose JVM
		// was killed early, or whose first line is longer than what was
		// read.
		return nil
	}
	return &NotRecordingError{File: path, Head: show(head)}
}

// cutEventStart reports whether b, a text .orca's first line cut short, can be
// the start of an event line: a timestamp, then a kind's name (a prefix of
// one when b ends in it), then anything.
func cutEventStart(b []byte) bool {
	ts, rest, more := bytes.Cut(b, []byte(","))
	dot := false
	for i, c := range ts {
		switch {
		case c == '.' && !dot && i > 0:
			dot = true
		case c < '0' || c > '9':
			return false
		}
	}
	if len(ts) == 0 || !more {
		return len(ts) > 0
	}
	name, _, whole := bytes.Cut(rest, []byte(","))
	if whole {
		_, ok := kindOf(name)
		return ok
	}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		if bytes.HasPrefix([]byte(format.Specs[k].Name), name) {
			return true
		}
	}
	return false
}
