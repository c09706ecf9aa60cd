package jfrimport

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
)

// TestImportCompact imports the same JFR recordings in the seed's text and
// in the compact encoding (orca import's default) and checks that the two
// say the same: every event and .ext line through the reader, .methods,
// .classtable and .ext byte for byte, .info but for its encoding key, and
// the report, text and JSON.
func TestImportCompact(t *testing.T) {
	syn := synthetic()
	inputs := []struct {
		name string
		data func(t *testing.T) []byte
	}{
		{"synthetic", func(*testing.T) []byte { return syn }},
		{"two-chunks", func(*testing.T) []byte { return append(append([]byte(nil), syn...), syn...) }},
		{"deadlock-default", func(*testing.T) []byte { return deadlockDefault() }},
	}
	for _, home := range jdkHomes {
		inputs = append(inputs, struct {
			name string
			data func(t *testing.T) []byte
		}{"JfrDemo-" + filepath.Base(home), func(t *testing.T) []byte {
			b, err := os.ReadFile(demo(t, home).jfr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}})
	}
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			data := in.data(t)
			dir := t.TempDir()
			seed, compact := filepath.Join(dir, "seed", "run"), filepath.Join(dir, "compact", "run")
			os.Mkdir(filepath.Dir(seed), 0o755)
			os.Mkdir(filepath.Dir(compact), 0o755)
			rs, err := Import(bytes.NewReader(data), int64(len(data)), seed, Options{Source: "run.jfr"})
			if err != nil {
				t.Fatal(err)
			}
			rc, err := Import(bytes.NewReader(data), int64(len(data)), compact, Options{Source: "run.jfr", Encoding: format.EncodingCompact})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rs, rc) {
				t.Errorf("results differ:\nseed    %+v\ncompact %+v", rs, rc)
			}
			sameImports(t, seed, compact)
		})
	}
}

// sameImports checks that the seed-encoded import at seed and the compact
// one at compact hold the same recording.
func sameImports(t *testing.T, seed, compact string) {
	t.Helper()
	ev, err := os.ReadFile(compact + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(ev, []byte(format.CompactHeader)) {
		t.Errorf("%s.orca does not begin with %q: %.40q", compact, format.CompactHeader, ev)
	}
	if ev, _ := os.ReadFile(seed + format.SuffixEvents); bytes.HasPrefix(ev, []byte(format.CompactHeader)) || len(ev) == 0 {
		t.Errorf("%s.orca: want the text, got %.40q", seed, ev)
	}
	for _, ext := range []string{format.SuffixMethods, format.SuffixClasses, format.SuffixExt, format.SuffixInfo} {
		a, err1 := os.ReadFile(seed + ext)
		b, err2 := os.ReadFile(compact + ext)
		if err1 != nil || err2 != nil {
			t.Fatalf("%v %v", err1, err2)
		}
		if ext == format.SuffixInfo {
			enc := []byte(format.InfoEncoding + "=compact\n")
			if bytes.Contains(a, []byte(format.InfoEncoding+"=")) || !bytes.Contains(b, enc) {
				t.Errorf(".info: the seed import's has an encoding key or the compact one's lacks %q:\n%s\n%s", enc, a, b)
			}
			b = bytes.Replace(b, enc, nil, 1)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs:\nseed:\n%s\ncompact:\n%s", ext, a, b)
		}
	}

	s, c := readBack(t, seed), readBack(t, compact)
	if len(s.events) == 0 || len(s.events) != len(c.events) {
		t.Errorf("%d events in the seed import, %d in the compact one", len(s.events), len(c.events))
	}
	for i := range min(len(s.events), len(c.events)) {
		if !reflect.DeepEqual(s.events[i], c.events[i]) {
			t.Fatalf("event %d differs:\nseed    %+v\ncompact %+v", i+1, s.events[i], c.events[i])
		}
	}
	if !reflect.DeepEqual(s.ext, c.ext) {
		t.Errorf(".ext events differ")
	}
	// EachEvent, orca report's reader, numbers stacks: the same events, the
	// same stack numbers.
	se, ce := eachEvents(t, s.rec), eachEvents(t, c.rec)
	if !reflect.DeepEqual(se, ce) {
		t.Errorf("EachEvent: %d events from the seed import, %d from the compact one, or they differ", len(se), len(ce))
	}

	st, sj := reportOf(t, s.rec)
	ct, cj := reportOf(t, c.rec)
	// The report names its recording: the same name in other directories.
	ct, cj = strings.ReplaceAll(ct, compact, seed), strings.ReplaceAll(cj, compact, seed)
	if st != ct {
		t.Errorf("the reports differ:\nseed:\n%s\ncompact:\n%s", st, ct)
	}
	if sj != cj {
		t.Errorf("the JSON reports differ:\nseed:\n%s\ncompact:\n%s", sj, cj)
	}
}

// reportOf returns orca report's text and JSON of rec.
func reportOf(t *testing.T, rec *reader.Recording) (txt, js string) {
	t.Helper()
	res, err := model.Build(rec, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := report.New(rec, res, report.Options{})
	var tb, jb bytes.Buffer
	if err := r.WriteText(&tb); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&jb); err != nil {
		t.Fatal(err)
	}
	return tb.String(), jb.String()
}

// eachEvents returns the events EachEvent delivers, in order, with stack
// numbers.
func eachEvents(t *testing.T, rec *reader.Recording) []reader.Event {
	t.Helper()
	var evs []reader.Event
	stacks := reader.NewStackTable()
	if _, err := rec.EachEvent(reader.EachOptions{Stacks: stacks}, func(ev *reader.Event) error {
		evs = append(evs, *ev)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return evs
}
