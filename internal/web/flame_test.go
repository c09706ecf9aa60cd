package web

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"orca/internal/export"
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
