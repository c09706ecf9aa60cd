package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/reader"
)

// TestRecordJavaCommandLine (issue 31, item 10): every JVM orca record ran printed "Picked up
// JAVA_TOOL_OPTIONS: -agentpath:…" on the program's stderr. A java COMMAND now gets the agent first
// on its own command line and prints nothing of it; the JVM it starts (Spawn's child) still
// records, as PREFIX-2, getting JAVA_TOOL_OPTIONS from the agent (and printing the line, the
// one place the JVM allows no other way). A script that starts java gets JAVA_TOOL_OPTIONS as
// before, and its JVM prints the line.
func TestRecordJavaCommandLine(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		const picked = "Picked up JAVA_TOOL_OPTIONS: -agentpath:"
		dir := newDir(t)

		// java alone: not a line of orca's on the program's stderr.
		prefix := filepath.Join(dir, "alone")
		r := run(t, dir, bin, append([]string{"record", "--quiet", "-o", prefix, "--"}, j.argv(dir, "-cp", cls, "Spawn", "child")...)...)
		if r.code != 0 || r.stdout != "child done\n" || strings.Contains(r.stderr, "Picked up") {
			t.Errorf("orca record -- java ... Spawn child: want exit 0, child done, and no 'Picked up' line:\n%s", r)
		}
		checkRecorded(t, prefix, "Spawn child", 1)

		// java starting java: the child records as PREFIX-2, and only the child prints the line.
		prefix = filepath.Join(dir, "spawn")
		r = run(t, dir, bin, append([]string{"record", "--quiet", "-o", prefix, "--"}, j.argv(dir, "-cp", cls, "Spawn")...)...)
		if r.code != 0 || !strings.Contains(r.stdout, "EXPECT children=1 child_exit=0") || strings.Count(r.stderr, picked) != 1 ||
			!strings.Contains(r.stderr, "prefix="+prefix+",") {
			t.Errorf("orca record -- java ... Spawn: want exit 0, the child's exit 0, and the child's one 'Picked up' line:\n%s", r)
		}
		checkRecorded(t, prefix, "Spawn", 0)
		checkRecorded(t, prefix+"-2", "Spawn child", 1)

		// A script: JAVA_TOOL_OPTIONS, as before.
		prefix = filepath.Join(dir, "script")
		r = run(t, dir, bin, "record", "--quiet", "-o", prefix, "--", "sh", "-c", `exec "$0" -cp "$1" Spawn child`, j.java(), cls)
		if r.code != 0 || strings.Count(r.stderr, picked) != 1 {
			t.Errorf("orca record -- sh -c 'exec java ...': want exit 0 and one 'Picked up' line:\n%s", r)
		}
		checkRecorded(t, prefix, "Spawn child", 1)
	})
}

// checkRecorded fails t unless prefix is a whole recording of command (.info's command) with
// sleeps ThreadSleep events (Spawn's child sleeps once, its parent never).
func checkRecorded(t *testing.T, prefix, command string, sleeps int64) {
	t.Helper()
	in, err := reader.LoadInfo(prefix + ".info")
	if err != nil {
		t.Errorf("%s: %v", prefix, err)
		return
	}
	if c, _ := in.Complete(); in.Command() != command || !c || in.Count("events.ThreadSleep") != sleeps {
		t.Errorf("%s.info: command %q, complete %v, %d ThreadSleep; want %q, true, %d", prefix, in.Command(), c, in.Count("events.ThreadSleep"), command, sleeps)
	}
	if _, err := os.Stat(prefix + ".orca"); err != nil {
		t.Error(err)
	}
}
