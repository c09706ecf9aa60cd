package export

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	collpb "go.opentelemetry.io/proto/slim/otlp/collector/profiles/v1development"
	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"
	"google.golang.org/protobuf/proto"

	"orca/internal/model"
	"orca/internal/otlptest"
)

var update = flag.Bool("update", false, "rewrite testdata/otlp.*.txt")

// TestOTLPGolden: the OTLP requests of every model and report test case,
// decoded as a receiver reads them (each sample's profile, type, stack,
// attributes, values and timestamps, in the request's order), are those of
// testdata/otlp.every-case.txt: a push built more cheaply (the attribute
// caches, the sample keys) must push what it pushed before, sample for
// sample, the whole recording and a range of it as a push of the series
// after the first sees it (From, Partial).
func TestOTLPGolden(t *testing.T) {
	var paths []string
	for _, g := range []string{"testdata/*.txtar", "../model/testdata/cases/*.txtar", "../report/testdata/*.txtar"} {
		p, _ := filepath.Glob(g)
		paths = append(paths, p...)
	}
	var got strings.Builder
	for _, path := range paths {
		rec, m := load(t, path)
		lean, err := model.Build(rec, model.Options{NoEdges: true, NoLockFigures: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range []OTLPOptions{{Samples: true}, {Samples: true, From: m.Start + (m.End-m.Start)/3, Partial: true}} {
			fmt.Fprintf(&got, "== %s/%s from=%d partial=%v\n", filepath.Base(filepath.Dir(path)), filepath.Base(path), o.From, o.Partial)
			req := &collpb.ExportProfilesServiceRequest{}
			if err := proto.Unmarshal(otlpBytes(t, rec, lean.Model, o), req); err != nil {
				t.Fatal(err)
			}
			pd := &profpb.ProfilesData{ResourceProfiles: req.ResourceProfiles, Dictionary: req.Dictionary}
			for _, s := range otlptest.Samples([]*profpb.ProfilesData{pd}) {
				got.WriteString(goldenSample(s))
			}
		}
	}
	const golden = "testdata/otlp.every-case.txt"
	if *update {
		if err := os.WriteFile(golden, []byte(got.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestOTLPGolden -update writes it)", err)
	}
	if got.String() != string(want) {
		g, w := strings.Split(got.String(), "\n"), strings.Split(string(want), "\n")
		for i := range max(len(g), len(w)) {
			gl, wl := "", ""
			if i < len(g) {
				gl = g[i]
			}
			if i < len(w) {
				wl = w[i]
			}
			if gl != wl {
				t.Fatalf("%s: line %d differs:\ngot  %s\nwant %s", golden, i+1, gl, wl)
			}
		}
	}
}

// goldenSample is one line of s: the resource (the recording's path, the
// pid) left out.
func goldenSample(s otlptest.Sample) string {
	var attrs []string
	for k, v := range s.Attrs {
		attrs = append(attrs, k+"="+v)
	}
	slices.Sort(attrs)
	var vals []string
	for i, v := range s.Values {
		if i < len(s.Timestamps) {
			vals = append(vals, fmt.Sprintf("%d@%d", v, s.Timestamps[i]))
		} else {
			vals = append(vals, fmt.Sprint(v))
		}
	}
	frames := make([]string, len(s.Frames))
	for i, f := range s.Frames {
		frames[i] = f
		if i < len(s.Lines) {
			frames[i] += fmt.Sprintf(":%d", s.Lines[i])
		}
	}
	return fmt.Sprintf("%s %s/%s [%s] {%s} %s\n", s.Kind, s.Type, s.Unit, strings.Join(frames, ";"), strings.Join(attrs, " "), strings.Join(vals, " "))
}
