package report

import (
	"bytes"
	"strings"
	"testing"

	"orca/internal/testrec"
)

// TestAttached: a recording made by orca record --pid says so in its
// headline, with the threads alive at the attach and how it ended; one
// that began with the JVM says nothing of the kind.
func TestAttached(t *testing.T) {
	for _, c := range []struct {
		name, info string
		want       *Attached
		text       string
	}{
		{"started", "", nil, ""},
		{"stopped", "attached=true\nalive_at_attach=7\nstopped=true\n", &Attached{AliveAtAttach: 7, Stopped: true},
			"attached to the running JVM (orca record --pid): 7 threads alive at the attach begin there\n  (what happened before it is not recorded); stopped while the JVM went on\n"},
		// Issue 30: stopped by the agent when its orca was gone (kill -9).
		{"lease", "attached=true\nalive_at_attach=7\nstopped=true\nstopped_by=lease\n", &Attached{AliveAtAttach: 7, Stopped: true, StoppedBy: "lease"},
			"(what happened before it is not recorded); stopped while the JVM went on (by its lease: the orca record --pid that started it was gone)\n"},
		{"ended", "attached=true\nalive_at_attach=1\n", &Attached{AliveAtAttach: 1},
			"1 thread alive at the attach begin there\n  (what happened before it is not recorded); it ended with the JVM\n"},
		// A thread on a monitor the attach could not read (agent/jvm/snapshot.c).
		{"unread", "attached=true\nalive_at_attach=9\nmonitor_unread_at_attach=2\n", &Attached{AliveAtAttach: 9, Unread: 2},
			"it ended with the JVM\n  2 threads blocked on a monitor or waiting at the attach whose monitor could not be read: their state then is not recorded\n"},
	} {
		ar := testrec.Parse(t, "testdata/cut.txtar")
		for i, f := range ar.Files {
			if f.Name == "info" {
				var keep []string
				for _, l := range strings.Split(string(f.Data), "\n") {
					if !strings.HasPrefix(l, "cut_s=") && !strings.HasPrefix(l, "write_error") && !strings.HasPrefix(l, "complete=") && l != "" {
						keep = append(keep, l)
					}
				}
				ar.Files[i].Data = []byte(strings.Join(keep, "\n") + "\ncomplete=true\n" + c.info)
			}
		}
		rec, res := load(t, c.name, ar)
		r := New(rec, res, Options{})
		if (r.Attached == nil) != (c.want == nil) || r.Attached != nil && *r.Attached != *c.want {
			t.Errorf("%s: Attached = %+v, want %+v", c.name, r.Attached, c.want)
		}
		var b bytes.Buffer
		if err := r.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		if got := b.String(); c.text == "" && strings.Contains(got, "attached") || !strings.Contains(got, c.text) {
			t.Errorf("%s: the text lacks %q or says attached:\n%s", c.name, c.text, got[:min(len(got), 600)])
		}
		// The recording's threads stuck at its end: a stop left the JVM running, so it did not
		// exit with them (the text said so of every attached recording).
		if got := b.String(); !strings.Contains(got, "HANGS:") ||
			strings.Contains(got, "the JVM exited with") == (c.want != nil && c.want.Stopped) ||
			strings.Contains(got, "stuck when the recording stopped; the JVM went on") != (c.want != nil && c.want.Stopped) {
			t.Errorf("%s: the hangs' note does not fit how the recording ended:\n%s", c.name, got[:min(len(got), 1200)])
		}
	}
}
