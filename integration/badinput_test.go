package integration

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"orca/internal/reader"
)

// TestCutRecording (issue 31, item 6): a recording of Scenario (a JVM that ended normally,
// complete=true), its .orca cut in half as a copy stopped halfway would leave it, in both
// encodings. Before, orca report exited 0 saying "the JVM was killed while writing" and "the JVM
// exited with these threads still stuck", and never compared the events read with .info's count.
// Now report, dump and export exit 1 with one line: "read N of M events: the file is cut", M the
// sum of .info's events.* and N the events whole in the first half (in the seed's text, its
// whole event lines).
func TestCutRecording(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin := orcaBin(t)
		for _, enc := range []string{"compact", "seed"} {
			t.Run(enc, func(t *testing.T) {
				dir := newDir(t)
				prefix := filepath.Join(dir, "x")
				r := run(t, dir, bin, append([]string{"record", "--quiet", "--format", enc, "-o", prefix, "--"}, j.argv(dir, "-cp", classes(t), "Scenario")...)...)
				if r.code != 0 {
					t.Fatalf("orca record:\n%s", r)
				}
				info, err := reader.LoadInfo(prefix + ".info")
				if err != nil {
					t.Fatal(err)
				}
				written, ok := info.Written()
				if !ok || written < 100 {
					t.Fatalf(".info: complete %q, events %d: want complete=true and counts", info["complete"], written)
				}
				if r := run(t, dir, bin, "report", prefix); r.code != 0 || r.stderr != "" {
					t.Fatalf("orca report of the whole recording:\n%s", r)
				}

				cut := filepath.Join(dir, "cut")
				for _, s := range []string{".methods", ".classtable", ".info"} {
					copyTo(t, prefix+s, cut+s)
				}
				whole, err := os.ReadFile(prefix + ".orca")
				if err != nil {
					t.Fatal(err)
				}
				half := whole[:len(whole)/2]
				if err := os.WriteFile(cut+".orca", half, 0o600); err != nil {
					t.Fatal(err)
				}
				re := regexp.MustCompile(`^orca: (exporting \S+: )?` + regexp.QuoteMeta(cut) + `\.orca: read (\d+) of (\d+) events: the file is cut \(` +
					regexp.QuoteMeta(cut) + `\.info counts (\d+) written by a JVM that ended normally\)\n$`)
				for _, args := range [][]string{
					{"report", cut},
					{"report", "--json", cut},
					{"dump", cut},
					{"export", "--format", "pprof", "-o", filepath.Join(dir, "cut.pb"), cut},
					{"view", "--no-browser", cut},
				} {
					r := run(t, dir, bin, args...)
					m := re.FindStringSubmatch(r.stderr)
					if r.code != 1 || m == nil || strings.Contains(r.stdout+r.stderr, "killed") || strings.Contains(r.stdout, "still stuck") {
						t.Errorf("orca %s: want exit 1 and one line 'read N of %d events: the file is cut':\n%s", strings.Join(args, " "), written, r)
						continue
					}
					read, _ := strconv.ParseInt(m[2], 10, 64)
					if m[3] != fmt.Sprint(written) || m[4] != m[3] || read <= 0 || read >= written {
						t.Errorf("orca %s: %q: want 0 < read < %d", args[0], strings.TrimSpace(r.stderr), written)
					}
					if lines := eventLines(half); enc == "seed" && read != lines {
						t.Errorf("orca %s: read %d, want the %d whole event lines of the half", args[0], read, lines)
					}
				}
			})
		}
	})
}

// eventLines counts the whole lines of a seed .orca that begin an event ("digits.digits,Kind"),
// not those inside a quoted name that holds a line break, nor a last line cut short.
func eventLines(b []byte) int64 {
	b = b[:bytes.LastIndexByte(b, '\n')+1]
	return int64(len(regexp.MustCompile(`(?m)^[0-9]+\.[0-9]+,[A-Z]`).FindAll(b, -1)))
}

// copyTo copies the file from to the file to.
func copyTo(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
