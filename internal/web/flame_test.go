package web

import (
	"bytes"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"orca/internal/export"
	"orca/internal/synth"
)

// TestFlameIsTheModelsFold checks that the flame graph renders the model's
// fold of time by stack (View.StackTime), the one the collapsed export
// writes too: over the whole recording, with the JDK's threads, the graph's
// total and the export's sum of blocked and waiting time are equal, and so
// is each state's, for the scenario and a hand-made deadlock (whose
// contentions never end).
func TestFlameIsTheModelsFold(t *testing.T) {
	recs := map[string]*recording{
		"scenario":           scenario(t),
		"hand-made deadlock": handMade(t, "dl", deadlockEvents, deadlockMethods, deadlockClasses),
	}
	for name, r := range recs {
		t.Run(name, func(t *testing.T) {
			ts := serve(t, r)
			for _, c := range []struct {
				states string
				kinds  export.Kinds
			}{{"blocked,waiting", export.Monitor | export.Wait}, {"blocked", export.Monitor}, {"waiting", export.Wait}} {
				var fl flameJSON
				getJSON(t, ts, "/api/flame?jdk=1&states="+c.states, &fl)
				var buf bytes.Buffer
				if err := export.Collapsed(&buf, r.rec, r.res.Model, export.Options{Kinds: c.kinds}); err != nil {
					t.Fatal(err)
				}
				var sum int64
				for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
					if l == "" {
						continue
					}
					n, err := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
					if err != nil {
						t.Fatalf("collapsed line %q: %v", l, err)
					}
					sum += n
				}
				if fl.Total != sum || sum == 0 && c.states == "blocked,waiting" {
					t.Errorf("states %s: flame graph total %d ns, collapsed export %d ns", c.states, fl.Total, sum)
				}
			}
		})
	}
}

// TestFlameSameBytes: the same flame graph request gives the same bytes,
// asked of one server again and of a second built from the same
// recording: the frames' names are indexed in the order the tree is
// built, by stack, not in a map's order (the equal children's order
// follows it). Fails with the sums per stack read in a map's order.
func TestFlameSameBytes(t *testing.T) {
	r := synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20})
	a := httptest.NewServer(New(r.rec, r.res, Options{}))
	defer a.Close()
	rec2, res2 := viewerBuild(t, r.prefix)
	b := httptest.NewServer(New(rec2, res2, Options{}))
	defer b.Close()
	for _, u := range []string{"/api/flame", "/api/flame?jdk=1", "/api/flame?states=blocked,waiting,parked,sleeping,joining,acquiring,idle",
		"/api/flame/samples", "/api/flame/samples?kind=all"} {
		first := getBody(t, a.URL+u)
		if !strings.HasPrefix(first, "200 ") || !strings.Contains(first, `"names":["all","`) {
			t.Fatalf("%s: %.200s", u, first)
		}
		for i, s := range []*httptest.Server{a, b, a, b} {
			if got := getBody(t, s.URL+u); got != first {
				t.Fatalf("%s: answer %d of %d bytes differs from the first, of %d", u, i+2, len(got), len(first))
			}
		}
	}
}
