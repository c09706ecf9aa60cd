package report

import (
	"bytes"
	"testing"

	"golang.org/x/tools/txtar"
)

// TestJSONStreamed: WriteJSON, which writes the long lists element by
// element, writes the bytes of the whole Report encoded at once
// (encodeWhole: a json.Encoder with the report's indentation), on every
// golden case, with each case's option sets and with every list whole
// (--top=0) and the wait chains on, so that every streamed list is met
// empty, nil and full.
func TestJSONStreamed(t *testing.T) {
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		rec, res := load(t, name, ar)
		for _, args := range append([]string{"", "--top=0", "--top=0 --chains", "--top=1 --virtual"}, argSets...) {
			t.Run(name+"/"+args, func(t *testing.T) {
				r := New(rec, res, parseArgs(t, args))
				var streamed, whole bytes.Buffer
				if err := r.WriteJSON(&streamed); err != nil {
					t.Fatal(err)
				}
				if err := r.encodeWhole(&whole); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(streamed.Bytes(), whole.Bytes()) {
					t.Errorf("the streamed JSON differs from the whole Report encoded at once:\n%s", lineDiff(whole.String(), streamed.String()))
				}
			})
		}
	})
}

// TestJSONOnly: with Options.JSONOnly the listed locks' waiters and owners
// are written from the Model as WriteJSON goes, and the JSON is the bytes
// of the Report with them as rows, on every golden case with each case's
// option sets, every list whole (--top=0) and the wait chains on; the
// Report's rows are not made. Fails with a row of either list made
// otherwise, or a list's brackets where an empty one is "[]".
func TestJSONOnly(t *testing.T) {
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		rec, res := load(t, name, ar)
		for _, args := range append([]string{"", "--top=0", "--top=0 --chains", "--top=1 --virtual"}, argSets...) {
			t.Run(name+"/"+args, func(t *testing.T) {
				opt := parseArgs(t, args)
				var rows, streamed bytes.Buffer
				if err := New(rec, res, opt).WriteJSON(&rows); err != nil {
					t.Fatal(err)
				}
				opt.JSONOnly = true
				r := New(rec, res, opt)
				for _, l := range r.Locks {
					if l.Owners != nil || l.Waiters != nil {
						t.Errorf("lock %s: %d owners' and %d waiters' rows made", l.Object, len(l.Owners), len(l.Waiters))
					}
				}
				if err := r.WriteJSON(&streamed); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(streamed.Bytes(), rows.Bytes()) {
					t.Errorf("the JSON written from the Model differs from the rows':\n%s", lineDiff(rows.String(), streamed.String()))
				}
			})
		}
	})
}
