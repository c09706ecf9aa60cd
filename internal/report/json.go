package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report as indented JSON (docs/report-json.md).
// Field order is the struct's and every list is ranked, so equal
// recordings give equal bytes.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	// Frames such as "<unknown method 0000002A>" stay readable.
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
