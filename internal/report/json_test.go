package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/testrec"
)

// TestJSONStreamed: WriteJSON, which writes the long lists element by
// element, writes the bytes of the whole Report encoded at once
// (encodeWhole: a json.Encoder with the report's indentation), on every
// golden case, with each case's option sets and with every list whole
// (--top=0) and the wait chains on, so that every streamed list is met
// empty, nil and full.
func TestJSONStreamed(t *testing.T) {
	paths, err := filepath.Glob("testdata/*.txtar")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".txtar")
		ar := testrec.Parse(t, path)
		argSets := []string{"", "--top=0", "--top=0 --chains", "--top=1 --virtual"}
		for _, f := range ar.Files {
			if f.Name == "args" {
				argSets = append(argSets, strings.Split(strings.TrimSuffix(string(f.Data), "\n"), "\n")...)
			}
		}
		rec, res := load(t, name, ar)
		for _, args := range argSets {
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
	}
}
