package jfrimport

import (
	"encoding/xml"
	"testing"
)

// TestJFCEnablesWhatTheImportReads checks that orca.jfc (orca import --jfc) enables every
// event type of threads and their states the import converts, each state at 0 ms with stack
// traces. Without jdk.VirtualThreadEnd an import cannot tell when a virtual thread ended: on
// Tomcat with useVirtualThreads each one lived, runnable, to the end of the recording
// (docs/perf/2026-12-02-jfr-servers.md).
func TestJFCEnablesWhatTheImportReads(t *testing.T) {
	var cfg struct {
		Events []struct {
			Name     string `xml:"name,attr"`
			Settings []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:",chardata"`
			} `xml:"setting"`
		} `xml:"event"`
	}
	if err := xml.Unmarshal(JFC, &cfg); err != nil {
		t.Fatalf("orca.jfc: %v", err)
	}
	got := map[string]map[string]string{}
	for _, e := range cfg.Events {
		got[e.Name] = map[string]string{}
		for _, s := range e.Settings {
			got[e.Name][s.Name] = s.Value
		}
	}
	states := []string{evEnter, evWait, evPark, evSleep, evVPinned} // a state: its length
	for _, name := range append(states, evStart, evEnd, evVStart, evVEnd) {
		if got[name]["enabled"] != "true" {
			t.Errorf("orca.jfc: %s not enabled (%v)", name, got[name])
		}
	}
	for _, name := range append(states, evStart) {
		if got[name]["stackTrace"] != "true" {
			t.Errorf("orca.jfc: %s without stack traces (%v)", name, got[name])
		}
	}
	for _, name := range states {
		if got[name]["threshold"] != "0 ms" {
			t.Errorf("orca.jfc: %s threshold %q, want 0 ms", name, got[name]["threshold"])
		}
	}
}
