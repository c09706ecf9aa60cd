package integration

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakeAarch64Why (issue 31, item 10): make test said "installing gcc-aarch64-linux-gnu" and
// then "no aarch64-linux-gnu-gcc ...: the aarch64 build check is skipped", apt-get's output
// thrown away: why it was missing was not said. With a compiler that no install provides and an
// apt-get that fails as one without the package lists does, the message now gives apt-get's
// error (as root), or that orca is not root.
func TestMakeAarch64Why(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		skipf(t, "no make")
	}
	fake := t.TempDir()
	aptGet := "#!/bin/sh\n" +
		"[ \"$1\" = update ] && { echo 'Err:1 http://deb.debian.org/debian bookworm InRelease'; echo \"  Temporary failure resolving 'deb.debian.org'\"; exit 0; }\n" +
		"echo 'Reading package lists...'; echo 'E: Unable to locate package gcc-aarch64-linux-gnu' >&2; exit 100\n"
	if err := os.WriteFile(filepath.Join(fake, "apt-get"), []byte(aptGet), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "--no-print-directory", "-s", "agent-aarch64", "AARCH64_CC=orca-test-no-such-cc", "AARCH64_LOG="+filepath.Join(fake, "apt.log"))
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "PATH="+fake+":"+os.Getenv("PATH"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make agent-aarch64: %v\n%s", err, out)
	}
	want := "orca: no orca-test-no-such-cc: apt-get failed (exit 100): E: Unable to locate package gcc-aarch64-linux-gnu (all of it in " + filepath.Join(fake, "apt.log") + "); the aarch64 build check is skipped\n"
	if os.Geteuid() != 0 {
		want = "orca: no orca-test-no-such-cc: not root, so not installed: apt-get install gcc-aarch64-linux-gnu libc6-dev-arm64-cross as root; the aarch64 build check is skipped\n"
	}
	if !strings.HasSuffix(string(out), want) {
		t.Errorf("make agent-aarch64 without the cross compiler:\n%s\nwant it to end with:\n%s", out, want)
	}
}

// skipCall matches a call of testing's own skips.
var skipCall = regexp.MustCompile(`\bt\.Skip(f|Now)?\(`)

// TestSkipsListed (issue 31, item 10): the JDK 17 run's summary said "9 skipped" and not why. A
// skip says why (skipf), and the summary lists each reason with its tests under its JDK. The
// test's own skips are taken out of the counts afterwards.
func TestSkipsListed(t *testing.T) {
	const why = "orca's own test of the summary"
	forEachJDK(t, func(t *testing.T, j jdk) { skipf(t, why) })
	// Every skip says why in the summary: none calls t.Skip itself.
	files, _ := filepath.Glob("*_test.go")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if skipCall.MatchString(line) { // (the pattern is not written out here: it would match itself)
				if f != "harness_test.go" || !strings.Contains(line, "(reason)") {
					t.Errorf("%s:%d: skips with t.Skip: use skipf(t, ...), so that the JDK summary says why", f, i+1)
				}
			}
		}
	}
	text := jdkSummary()
	for _, j := range jdks() {
		if j.home == "" {
			continue
		}
		if want := "integration:   1 skipped: " + why + ": TestSkipsListed\n"; !strings.Contains(text, want) {
			t.Errorf("the JDK summary does not list the skip of TestSkipsListed on %s:\n%s\nwant a line %q", j.name, text, want)
		}
	}
	jdkRunsMu.Lock()
	defer jdkRunsMu.Unlock()
	for _, j := range jdks() {
		if c := jdkRuns[j.name]; c != nil {
			c.skipped--
			for k, tests := range c.skips {
				if tests = slices.DeleteFunc(tests, func(s string) bool { return s == "TestSkipsListed" }); len(tests) == 0 {
					delete(c.skips, k)
				} else {
					c.skips[k] = tests
				}
			}
		}
	}
}
