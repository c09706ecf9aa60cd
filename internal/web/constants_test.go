package web

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"orca/internal/model"
)

// TestViewerConstants: the lists the viewer's JavaScript copies from the
// model (states, their colours, edge kinds, wake kinds, lock kinds) are the
// model's, so a state or kind added in Go cannot be missing from the viewer.
func TestViewerConstants(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("static/js/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// list returns the quoted strings (or the keys of an object literal)
	// of the declaration that starts with decl.
	list := func(src, decl string, keys bool) []string {
		t.Helper()
		i := strings.Index(src, decl)
		if i < 0 {
			t.Fatalf("%q not found", decl)
		}
		body := src[i+len(decl):]
		end := strings.IndexAny(body, "]}")
		if end < 0 {
			t.Fatalf("%q: no end", decl)
		}
		body = body[:end]
		re := regexp.MustCompile(`'([^']*)'`)
		if keys {
			re = regexp.MustCompile(`(?m)(?:^|[{,])\s*([A-Za-z]+):`)
		}
		var out []string
		for _, m := range re.FindAllStringSubmatch(body, -1) {
			out = append(out, m[1])
		}
		return out
	}
	same := func(what string, got, want []string, ordered bool) {
		t.Helper()
		if !ordered {
			got, want = slices.Clone(got), slices.Clone(want)
			sort.Strings(got)
			sort.Strings(want)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: the viewer has %q, the model %q", what, got, want)
		}
	}

	var states []string
	for s := model.State(0); s < model.NumStates; s++ {
		states = append(states, s.String())
	}
	var edges []string
	for k := model.EdgeKind(0); k.String() != "unknown"; k++ {
		edges = append(edges, k.String())
	}
	var wakes []string
	for w := model.WakeNone + 1; w.String() != "unknown"; w++ {
		wakes = append(wakes, w.String())
	}
	var lockKinds []string
	for k := model.Monitor; k <= model.JUCLock; k++ {
		lockKinds = append(lockKinds, k.String())
	}

	format := read("format.js")
	same("format.js STATES", list(format, "export const STATES = [", false), states, true)
	if n := len(regexp.MustCompile(`'#[0-9a-f]{6}'`).FindAllString(format[strings.Index(format, "export const STATE_COLORS"):strings.Index(format, "export const EDGE_COLORS")], -1)); n != len(states) {
		t.Errorf("format.js STATE_COLORS: %d colours, want one per state (%d)", n, len(states))
	}
	same("format.js EDGE_COLORS", list(format, "export const EDGE_COLORS = {", true), edges, false)
	same("timeline.js edge toggles", list(read("timeline.js"), "const edgeToggles = [", false), edges, false)
	same("flame.js PICKABLE", list(read("flame.js"), "const PICKABLE = [", false), states[1:], true)
	panel := read("panel.js")
	same("panel.js WAKES", list(panel, "const WAKES = {", true), wakes, false)
	line := regexp.MustCompile(`const kind = (.*);`).FindStringSubmatch(panel)
	if line == nil {
		t.Fatal("panel.js: the lock kind of an interval not found")
	}
	for _, m := range regexp.MustCompile(`[?:]\s*'([^']*)'`).FindAllStringSubmatch(line[1], -1) { // the values, not the states compared
		k := m[1]
		if !slices.Contains(lockKinds, k) {
			t.Errorf("panel.js: lock kind %q is not the model's (%q)", k, lockKinds)
		}
	}
	// The wait-for graph's edges: a thread's state, then owner.
	graphEdges := []string{"owner"}
	for s := model.State(0); s < model.NumStates; s++ {
		if s.Waits() {
			graphEdges = append(graphEdges, s.String())
		}
	}
	same("deadlocks.js EDGE_STROKE", list(read("deadlocks.js"), "const EDGE_STROKE = {", true), graphEdges, false)
	var apiEdges []string
	for k := range edgeKinds {
		apiEdges = append(apiEdges, k)
	}
	same("api.go edgeKinds", apiEdges, edges, false)
	// The parts of runnable time (issue 33): in the order the tiles and
	// /api/threads' run send them (runJSON, the model's RunSplit), one
	// colour each; the flame graph's kinds of samples, the API's.
	var parts []string
	rt := reflect.TypeFor[runJSON]()
	for i := range rt.NumField() {
		parts = append(parts, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	same("format.js RUN_PARTS", list(format, "export const RUN_PARTS = [", false), parts, true)
	if n := len(regexp.MustCompile(`'(#[0-9a-f]{6}|rgba\([^)]*\))'`).FindAllString(format[strings.Index(format, "export const RUN_COLORS"):strings.Index(format, "export const RUN_TITLES")], -1)); n != len(parts) {
		t.Errorf("format.js RUN_COLORS: %d colours, want one per part (%d)", n, len(parts))
	}
	same("format.js RUN_TITLES", list(format, "export const RUN_TITLES = {", true), parts, false)
	if rt.NumField() != reflect.TypeFor[model.RunSplit]().NumField() {
		t.Errorf("runJSON has %d fields, model.RunSplit %d", rt.NumField(), reflect.TypeFor[model.RunSplit]().NumField())
	}
	var kinds []string
	for k := range sampleKinds {
		kinds = append(kinds, k)
	}
	flameKinds := regexp.MustCompile(`\['(\w*)',`).FindAllStringSubmatch(read("flame.js")[strings.Index(read("flame.js"), "const KINDS = ["):], 4)
	var got []string
	for _, m := range flameKinds {
		if m[1] != "" {
			got = append(got, m[1])
		}
	}
	same("flame.js KINDS", got, kinds, false)
}
