package reader

import (
	"fmt"
	"io"

	"orca/internal/format"
)

// ReadMethods reads a .methods file: timestamp,methodID,name,signature,
// classID,lineTable. Malformed lines are skipped and returned as
// *ParseError; a method whose line table alone is bad is kept without one,
// since its name still resolves. A later line for the same id replaces an
// earlier one. A read error ends the list.
func ReadMethods(r io.Reader, name string) (map[format.MethodID]*Method, []error) {
	ms := make(map[format.MethodID]*Method)
	errs := readTable(r, name, func(f [][]byte, n int) (msg, warn string) {
		if n != 6 {
			return fmt.Sprintf("want 6 fields, got %d", n), ""
		}
		if _, ok := parseTime(f[0]); !ok {
			return fmt.Sprintf("timestamp %s: want seconds like 12.3456789010", show(f[0])), ""
		}
		id, ok := parseHex(f[1])
		if !ok {
			return fmt.Sprintf("method id %s: want 1-8 hex digits", show(f[1])), ""
		}
		cls, ok := parseHex(f[4])
		if !ok {
			return fmt.Sprintf("class id %s: want 1-8 hex digits", show(f[4])), ""
		}
		m := &Method{ID: format.MethodID(id), Name: string(f[2]), Signature: string(f[3]), Class: format.ClassID(cls)}
		if m.Lines, msg = parseLineTable(f[5]); msg != "" {
			warn = msg + "; method kept without line numbers"
		}
		ms[m.ID] = m
		return "", warn
	})
	return ms, errs
}
