package reader

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// TestVersion2Recording: a recording of the compact encoding's version 2
// (testdata/v2/parking.*: the agent of fd7b0d3 on testdata/java/scenarios
// Parking.java, JDK 17, format=compact) reads as that version's reader read
// it: every event, field for field (testdata/v2/parking.events, written by
// the reader of fd7b0d3 with -update), with no warning. Files outlive code.
func TestVersion2Recording(t *testing.T) {
	rec, err := Open("testdata/v2/parking")
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Warnings) > 0 {
		t.Errorf("warnings: %q", rec.Warnings)
	}
	var b bytes.Buffer
	truncated, err := rec.EachEvent(EachOptions{Malformed: func(pe *ParseError) { fmt.Fprintf(&b, "malformed: %v\n", pe) }}, func(e *Event) error {
		fmt.Fprintf(&b, "%d %d %s thread=%v object=%08X target=%v owner=%v name=%q timeout=%d how=%d class=%q mode=%d carried=%v stack=%v\n",
			e.Line, e.Time, e.Kind, e.Thread, uint32(e.Object), e.Target, e.Owner, e.Name, e.Timeout, e.How, e.Class, e.Mode, e.Carried, e.Stack)
		return nil
	})
	if err != nil || truncated {
		t.Fatalf("truncated %v, %v", truncated, err)
	}
	if *update {
		if err := os.WriteFile("testdata/v2/parking.events", b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile("testdata/v2/parking.events")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		got, want := bytes.Split(b.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(got), len(want)) {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d:\ngot  %s\nwant %s", i+1, got[i], want[i])
			}
		}
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
}
