package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/analysis"
	"orca/internal/format"
	"orca/internal/reader"
)

// TestSharedHash is issue 30's item 4b on a real JVM: threads were told apart by their identity
// hash (31 bits), and two threads of one hash were one thread (100 000 virtual threads gave two
// such pairs: a thread fewer, a hang fewer, "1 event could not be placed"). SharedHash makes the
// collision deterministic: it hashes unstarted threads until two share a hash, starts those two
// and has each wait forever on an object of its own. The recording keeps them apart — two
// threads, each with its start, name and wait, both hangs — and names the second "HASH#2" in the
// report; the seed export writes the hash of both, as the manual says. Platform threads on every
// JDK, virtual threads on 21+.
func TestSharedHash(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		for _, kind := range []string{"platform", "virtual"} {
			t.Run(kind, func(t *testing.T) {
				var args []string
				if kind == "virtual" {
					args = append(args, "virtual")
				}
				e, prefix := recordExpect(t, j, "SharedHash", args...)
				if e.str(t, "virtual") == "no" {
					skipf(t, "%s has no virtual threads", j.name)
				}
				checkSharedHash(t, e, prefix)
			})
		}
	})
}

func checkSharedHash(t *testing.T, e expect, prefix string) {
	t.Helper()
	h := e.hash(t, "hash")
	t.Logf("made %d threads before two shared the hash %08X", e.int(t, "made"), h)
	r := load(t, prefix)
	r.logOnFailure(t)
	r.checkParse(t)
	r.checkInvariants(t)
	ids := map[string]format.ThreadID{}
	for _, i := range r.sel(format.ThreadStarted, func(_ int, ev reader.Event) bool { return strings.HasPrefix(ev.Name, "shared-") }) {
		ev := r.events[i]
		if _, twice := ids[ev.Name]; twice {
			t.Errorf("%s started twice:\n%s", ev.Name, r.describe(i))
		}
		ids[ev.Name] = ev.Thread
	}
	first, second := ids["shared-1"], ids["shared-2"]
	if first.Hash() != h || second.Hash() != h || first == second || first.Rank()+second.Rank() != 1 {
		t.Fatalf("shared-1 is %v, shared-2 %v: want two threads of the hash %08X, ranks 0 and 1", first, second, h)
	}
	c := counter{t, r}
	for _, w := range []struct {
		name string
		th   format.ThreadID
		obj  string
	}{{"shared-1", first, "obj1"}, {"shared-2", second, "obj2"}} {
		o := format.ObjectID(e.hash(t, w.obj))
		c.want("ObjectWait of "+w.name+" on "+w.obj, r.sel(format.ObjectWait, func(_ int, ev reader.Event) bool { return ev.Thread == w.th && ev.Object == o }), 1)
		c.want("ThreadStart of "+w.name, r.sel(format.ThreadStart, func(_ int, ev reader.Event) bool { return ev.Target == w.th }), 1)
	}
	// The model: both threads, both stuck, nothing unplaced.
	_, built := buildModel(t, prefix)
	m := built.Model
	for _, p := range m.Problems {
		t.Errorf("an event could not be placed: %s", p)
	}
	// Each waits for no thread, none behind it, while main ran on: both wait alone (issue 31).
	alone := map[format.ThreadID]bool{}
	for _, hg := range analysis.OpenAtEnd(m) {
		alone[hg.Thread] = hg.Why == analysis.Alone
	}
	if !alone[first] || !alone[second] {
		t.Errorf("waiting alone: %v, want both %v and %v", alone, first, second)
	}
	// The report names the second with its number among the threads of the hash.
	dir := filepath.Dir(prefix)
	rep := run(t, dir, orcaBin(t), "report", prefix)
	if want := fmt.Sprintf(`"shared-2" (%08X#2)`, h); rep.code != 0 || !strings.Contains(rep.stdout, want) {
		t.Errorf("orca report: exit %d, want %q in:\n%s", rep.code, want, rep.stdout)
	}
	// The seed export writes the hash, as the manual says: two ThreadStarted of one id.
	seed := filepath.Join(dir, "seed")
	if x := run(t, dir, orcaBin(t), "export", "--format", "seed", "-o", seed, prefix); x.code != 0 {
		t.Fatalf("orca export --format seed:\n%s", x)
	}
	b, err := os.ReadFile(seed + format.SuffixEvents)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"shared-1", "shared-2"} {
		if want := fmt.Sprintf(",ThreadStarted,%08X,%s\n", h, name); !strings.Contains(string(b), want) {
			t.Errorf("the seed export has no line ending %q", want)
		}
	}
}
