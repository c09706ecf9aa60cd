package integration

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordFailures is issue 21's item 3 with a real JVM on every JDK: the failures of orca record
// told as they are.
//   - The recording's directory goes away after orca's check and before the JVM starts (a script
//     removes it): the agent cannot write, the program runs without recording, and orca repeats
//     the agent's message at the end and exits 3 (before: exit 0 and "Is … a Java program?").
//   - A second agent with a bad option stops the JVM in its initialisation, after Orca's agent had
//     created its files: orca says the JVM stopped before it started and removes the empty files
//     (before: a summary "events: 0 … INCOMPLETE … next: orca report", and the corrected retry
//     failed with "already exists"); the retry then records.
func TestRecordFailures(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls, lib := orcaBin(t), classes(t), agentLib(t)
		dir := newDir(t)
		gone := filepath.Join(dir, "gone")
		if err := os.Mkdir(gone, 0o755); err != nil {
			t.Fatal(err)
		}
		r := run(t, dir, bin, "record", "-o", filepath.Join(gone, "x"), "--", "sh", "-c",
			`rmdir "$0" && exec "$1" -cp "$2" Scenario`, gone, j.java(), cls)
		if r.code != 125 || !strings.Contains(r.stderr, "orca: the agent could not record:\n  JVM pid ") ||
			!strings.Contains(r.stderr, "cannot write "+filepath.Join(gone, "x")+".orca") || strings.Contains(r.stderr, "Java program") {
			t.Errorf("directory gone: want exit 125 and the agent's message at the end:\n%s", r)
		}
		if !strings.Contains(r.stdout, "EXPECT") {
			t.Errorf("the program did not run to its end without recording:\n%s", r)
		}

		prefix := filepath.Join(dir, "bad")
		r = run(t, dir, bin, "record", "-o", prefix, "--", j.java(), "-agentpath:"+lib+"=bogus=1", "-version")
		if r.code != 1 || !strings.Contains(r.stderr, "orca: bad agent options: unknown option 'bogus'") ||
			!strings.Contains(r.stderr, "stopped before it started") || strings.Contains(r.stderr, "INCOMPLETE") {
			t.Errorf("bad agent option: want exit 1 and the JVM's stop told:\n%s", r)
		}
		if files, _ := filepath.Glob(prefix + "*"); len(files) != 0 {
			t.Errorf("bad agent option left %v", files)
		}
		r = run(t, dir, bin, "record", "-o", prefix, "--", j.java(), "-cp", cls, "Scenario")
		if r.code != 0 || !strings.Contains(r.stderr, "orca: recording "+prefix) {
			t.Errorf("the corrected retry:\n%s", r)
		}
	})
}
