package reader

import (
	"fmt"
	"io"

	"orca/internal/format"
)

// ReadClasses reads a .classtable file: timestamp,classID,signature,
// sourceFile. Malformed lines are skipped and returned as *ParseError. A
// later line for the same id replaces an earlier one (the manual expects
// repeats when a class is reloaded). A read error ends the list.
func ReadClasses(r io.Reader, name string) (map[format.ClassID]*Class, []error) {
	cs := make(map[format.ClassID]*Class)
	errs := readTable(r, name, func(f [][]byte, n int) (msg, warn string) {
		if n != 4 {
			return fmt.Sprintf("want 4 fields, got %d", n), ""
		}
		if _, ok := parseTime(f[0]); !ok {
			return fmt.Sprintf("timestamp %s: want seconds like 12.3456789010", show(f[0])), ""
		}
		id, ok := parseHex(f[1])
		if !ok {
			return fmt.Sprintf("class id %s: want 1-8 hex digits", show(f[1])), ""
		}
		cs[format.ClassID(id)] = &Class{ID: format.ClassID(id), Signature: string(f[2]), Source: string(f[3])}
		return "", ""
	})
	return cs, errs
}
