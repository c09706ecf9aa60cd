package format

import (
	"bytes"
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite agent/events.h")

// TestCHeaderUpToDate fails when agent/events.h drifts from the Go table.
func TestCHeaderUpToDate(t *testing.T) {
	const path = "../../agent/events.h"
	want := CHeader()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `make gen`", path)
	}
}

func TestKindNames(t *testing.T) {
	if len(KindByName) != int(NumKinds)-1 {
		t.Fatalf("KindByName has %d names, want %d", len(KindByName), NumKinds-1)
	}
	for name, k := range KindByName {
		if k.String() != name {
			t.Errorf("%s: String() = %s", name, k.String())
		}
		if !k.Has(FThread) {
			t.Errorf("%s has no thread field", name)
		}
	}
	if upperSnake("MonitorContendedEnter") != "MONITOR_CONTENDED_ENTER" {
		t.Error(upperSnake("MonitorContendedEnter"))
	}
}
