// Package termjson makes the JSON orca prints safe for a terminal.
//
// encoding/json escapes the C0 control characters (U+0000–U+001F) and
// U+2028, U+2029, but writes the C1 ones (U+0080–U+009F) as they are: two
// bytes, C2 80 to C2 9F, which xterm and others take as controls (C2 9B is
// CSI, the start of an escape sequence) when the JSON is printed raw. The
// strings in orca's JSON are the JVM's (thread, class, method and file
// names, its command line), whose user is not always the one who reads:
// root's orca reading another user's JVM. Writer escapes each of them as
// \u00XX instead: the same JSON (it decodes to the same strings), with
// nothing a terminal acts on.
package termjson

import (
	"bytes"
	"io"
)

// Writer passes JSON to an io.Writer with every C1 control character
// escaped as \u0080 to \u009f. The JSON must be encoding/json's (valid
// UTF-8, where byte C2 occurs only inside strings); a character may be cut
// between two writes. Text without C1 passes unchanged, in the same writes.
type Writer struct {
	w       io.Writer
	pending bool   // the last write ended in byte C2
	buf     []byte // the escaped text of a write that holds C1
}

// NewWriter returns a Writer to w. Flush it after the last write.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// c1Lead is the first byte of U+0080–U+00BF in UTF-8; the second is the
// character's own code, 80 to BF (C1 when below A0).
const c1Lead = 0xc2

func isC1(second byte) bool { return second >= 0x80 && second < 0xa0 }

func (x *Writer) Write(p []byte) (int, error) {
	n := len(p)
	if !x.pending && bytes.IndexByte(p, c1Lead) < 0 {
		_, err := x.w.Write(p)
		return n, err
	}
	b := x.buf[:0]
	if x.pending {
		if len(p) == 0 {
			return 0, nil
		}
		x.pending = false
		if isC1(p[0]) {
			b = appendEscape(b, p[0])
			p = p[1:]
		} else {
			b = append(b, c1Lead)
		}
	}
	if len(p) > 0 && p[len(p)-1] == c1Lead {
		x.pending = true
		p = p[:len(p)-1]
	}
	b = Append(b, p)
	x.buf = b
	_, err := x.w.Write(b)
	return n, err
}

// Flush writes a C2 left at the end of the last write (none in whole JSON).
func (x *Writer) Flush() error {
	if !x.pending {
		return nil
	}
	x.pending = false
	_, err := x.w.Write([]byte{c1Lead})
	return err
}

// Escape returns p with its C1 control characters escaped: p itself when it
// holds none, else *scratch grown to hold the escaped copy. p holds whole
// characters (a value encoding/json wrote, or a part of one cut at ASCII).
func Escape(p []byte, scratch *[]byte) []byte {
	if bytes.IndexByte(p, c1Lead) < 0 {
		return p
	}
	*scratch = Append((*scratch)[:0], p)
	return *scratch
}

// Append appends p to dst with its C1 control characters escaped; p holds
// whole characters.
func Append(dst, p []byte) []byte {
	for {
		i := bytes.IndexByte(p, c1Lead)
		if i < 0 || i+1 == len(p) {
			return append(dst, p...)
		}
		if !isC1(p[i+1]) {
			dst = append(dst, p[:i+2]...)
		} else {
			dst = appendEscape(append(dst, p[:i]...), p[i+1])
		}
		p = p[i+2:]
	}
}

// appendEscape appends the JSON escape of U+0080–U+009F, given its second
// UTF-8 byte (its code): lower-case hex, as encoding/json writes \u001b.
func appendEscape(dst []byte, code byte) []byte {
	const hex = "0123456789abcdef"
	return append(dst, '\\', 'u', '0', '0', hex[code>>4], hex[code&0xf])
}
