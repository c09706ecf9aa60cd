package reader

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"orca/internal/format"
)

// ReadInfo reads a .info file of key=value lines. A repeated key (such as
// "warning") keeps every value, joined with "\n". Lines without '=' are
// ignored; Open reports them.
func ReadInfo(r io.Reader) map[string]string {
	m, _ := readInfo(r, "")
	return m
}

// readInfo is ReadInfo that also returns the malformed lines. .info is not
// CSV: the agent writes values (options, paths, commands) verbatim up to
// the newline.
func readInfo(r io.Reader, name string) (map[string]string, []error) {
	m := make(map[string]string)
	var errs []error
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return m, append(errs, fmt.Errorf("reading %s: %w", name, err))
		}
		line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
		if line != "" {
			k, v, ok := strings.Cut(line, "=")
			if !ok || k == "" {
				errs = append(errs, &ParseError{File: name, Line: n, Msg: "want key=value"})
			} else if old, seen := m[k]; seen {
				m[k] = old + "\n" + v
			} else {
				m[k] = v
			}
		}
		if err == io.EOF {
			return m, errs
		}
	}
}

// Cut is what PREFIX.info says of a recording the agent could not write
// whole (a full disk): the events after At are lost.
type Cut struct {
	// At is cut_s, the last event written completely before the first
	// failed write; 0 when .info names a write error but no cut_s.
	At          format.Time
	Reason      string // write_error ("PREFIX.orca: No space left on device"), or why it is cut
	WriteErrors int64  // write_errors, failed writes
}

// Cut returns the cut of the recording, or nil when .info has neither
// cut_s nor write_error (a recording of a killed JVM is not cut: it is
// incomplete, and what it says up to its end holds).
func (r *Recording) Cut() *Cut {
	at, hasAt := r.Info[format.InfoCut]
	reason, hasErr := r.Info[format.InfoWriteError]
	if !hasAt && !hasErr {
		return nil
	}
	c := &Cut{Reason: reason}
	if hasAt {
		// A cut_s that is not a time cuts at the last event, as none.
		c.At, _ = parseTime([]byte(strings.TrimSpace(at)))
	}
	if c.Reason == "" {
		c.Reason = "a write failed"
	}
	if n, err := strconv.ParseInt(r.Info[format.InfoWriteErrors], 10, 64); err == nil {
		c.WriteErrors = n
	}
	return c
}
