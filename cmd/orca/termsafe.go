package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// What a recording says comes from the JVM, whose user controls it: its command
// line, thread names, class, method and file names (a class name may hold any
// character but . ; [ /). Printed as they are, an escape sequence among them
// acts on the terminal of whoever reads the text, root's when orca runs as root
// against another user's JVM: it can set the title, clear the screen, hide or
// rewrite lines, and on some terminals answer back input. So the text orca
// prints from a recording shows each control character as an escape (\x1b,
// \u009b) instead. Text without control characters passes unchanged: the same
// bytes.

// termSafe returns s with every control character but tab shown as an escape.
func termSafe(s string) string {
	// A newline too (writeRune escapes it): a name whose only control
	// character was one came back unchanged, its line break raw
	// (TestNewlineNames: orca dump's frames).
	if !strings.ContainsFunc(s, unsafeRune) && !strings.Contains(s, "\n") && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		writeRune(&b, r, s[i], n)
		i += n
	}
	return b.String()
}

// termSafeLines is termSafe keeping newlines: a message of several lines of
// orca's (an error listing recordings), whose names are escaped already or
// hold no newline. Every error main prints goes through it: an error's
// text often quotes the JVM's or a file's words.
func termSafeLines(s string) string {
	if !strings.ContainsFunc(s, unsafeRune) && utf8.ValidString(s) {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = termSafe(l)
	}
	return strings.Join(lines, "\n")
}

// unsafeRune reports whether r acts on a terminal: C0 (but tab and newline,
// which the caller decides on), DEL and C1.
func unsafeRune(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0
}

// writeRune writes r (decoded from n bytes starting with byte first) as it is
// or, when unsafe or not UTF-8, as an escape.
func writeRune(b *strings.Builder, r rune, first byte, n int) {
	switch {
	case r == utf8.RuneError && n <= 1:
		fmt.Fprintf(b, `\x%02x`, first)
	case unsafeRune(r) || r == '\n':
		if r < 0x80 {
			fmt.Fprintf(b, `\x%02x`, r)
		} else {
			fmt.Fprintf(b, `\u%04x`, r)
		}
	default:
		b.WriteRune(r)
	}
}

// termSafeWriter passes text to w with control characters escaped as termSafe
// does, keeping newlines: a report's or a snapshot's text, whose lines orca
// writes and whose names the JVM gave.
type termSafeWriter struct {
	w       io.Writer
	pending []byte // the start of a rune cut between two writes
	buf     strings.Builder
}

func newTermSafeWriter(w io.Writer) *termSafeWriter { return &termSafeWriter{w: w} }

func (t *termSafeWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(t.pending) > 0 {
		p = append(t.pending, p...)
		t.pending = nil
	}
	clean := true
	for _, c := range p {
		if c < 0x20 && c != '\t' && c != '\n' || c >= 0x7f {
			clean = false
			break
		}
	}
	if clean {
		_, err := t.w.Write(p)
		return n, err
	}
	t.buf.Reset()
	for i := 0; i < len(p); {
		if !utf8.FullRune(p[i:]) {
			t.pending = append([]byte(nil), p[i:]...)
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == '\n' {
			t.buf.WriteByte('\n')
		} else {
			writeRune(&t.buf, r, p[i], size)
		}
		i += size
	}
	_, err := io.WriteString(t.w, t.buf.String())
	return n, err
}

// Flush writes a rune cut short at the end, escaped.
func (t *termSafeWriter) Flush() error {
	if len(t.pending) == 0 {
		return nil
	}
	s := termSafe(string(t.pending))
	t.pending = nil
	_, err := io.WriteString(t.w, s)
	return err
}
