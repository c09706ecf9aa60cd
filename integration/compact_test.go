package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
)

// TestCompactRecording is issue 23's round trip on a real JVM: Scenario recorded with
// --format compact (a binary .orca: threads and stacks once per chunk) folds into the model with
// the program's known counts and owners (checkScenarioModel, as the text encoding's
// TestScenarioModel), and its seed export holds the same events, stacks and threads: orca dump
// prints both alike.
func TestCompactRecording(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		dir := newDir(t)
		prefix := filepath.Join(dir, "x")
		r := run(t, dir, bin, "record", "-o", prefix, "--format", "compact", "--", j.java(), "-cp", cls, "Scenario")
		checkNoCrashLog(t, r)
		if r.code != 0 {
			t.Fatalf("orca record failed:\n%s", r)
		}
		e := parseExpect(t, r)
		head, err := os.ReadFile(prefix + ".orca")
		if err != nil || !strings.HasPrefix(string(head), format.CompactHeader) {
			t.Fatalf("%s.orca does not begin with the compact header (%v)", prefix, err)
		}
		if info := load(t, prefix).info; info["encoding"] != "compact" {
			t.Errorf(".info encoding=%q, want compact", info["encoding"])
		}
		_, built := buildModel(t, prefix)
		if built.Malformed > 0 || built.Truncated {
			t.Errorf("%d malformed records (%v), truncated %v", built.Malformed, built.ParseErrors, built.Truncated)
		}
		checkScenarioModel(t, built.Model, e)

		seed := filepath.Join(dir, "seed")
		if x := run(t, dir, bin, "export", "--format", "seed", "-o", seed, prefix); x.code != 0 {
			t.Fatalf("orca export --format seed:\n%s", x)
		}
		if head, _ := os.ReadFile(seed + ".orca"); len(head) == 0 || head[0] < '0' || head[0] > '9' {
			t.Fatalf("the seed export does not begin with a text line")
		}
		a, b := run(t, dir, bin, "dump", prefix), run(t, dir, bin, "dump", seed)
		a.stdout = withoutSamples(a.stdout) // the seed's format has no kind for them: the export leaves them out
		if a.code != 0 || b.code != 0 || a.stdout != b.stdout || len(a.stdout) < 1000 {
			t.Errorf("orca dump of the compact recording (%d bytes, exit %d) and of its seed export (%d bytes, exit %d) differ",
				len(a.stdout), a.code, len(b.stdout), b.code)
		}
	})
}
