package reader

import (
	"errors"
	"os"
	"strings"
	"testing"

	"orca/internal/format"
)

// TestNotRecording (issue 31, item 6): a file that is not a recording (/etc/passwd renamed
// x.orca, random bytes) was read as one with every line malformed, and orca report printed an
// empty report (on random bytes: "the JVM was killed while writing") and exited 0. Open refuses
// it now, naming the file and the line. A recording cut short by a kill (its only line not
// ended, an empty file, a compact one cut in its magic) and a compact file with a damaged record
// (its magic says what it is) are still recordings.
func TestNotRecording(t *testing.T) {
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(i*7919 + i*i*31 + 17) // fixed bytes (no newline): the message is exact
	}
	for _, c := range []struct {
		name, orca string
		want       string // "" when a recording
	}{
		{"passwd", "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
			`run.orca is not an Orca recording: line 1, "root:x:0:0:root:/root:/bin/bash", is not an event (want timestamp,EventName,…; got 1 field)`},
		{"random", string(random), `run.orca is not an Orca recording: its only line, "\x11\x1fk\xf5\xbd\xc3\a\x89IG`},
		{"elf", "\x7fELF\x02\x01\x01\x00\n\x00\x00", `run.orca is not an Orca recording: line 1, "\x7fELF\x02\x01\x01\x00", is not an event (want timestamp,EventName,…; got 1 field)`},
		{"unended", "hello, world", `run.orca is not an Orca recording: its only line, "hello, world", not ended, is not the start of an event`},
		{"late", "\n\nThreadStarted,1\n", `run.orca is not an Orca recording: line 3, "ThreadStarted,1", is not an event (unknown event "1")`},
		{"event then garbage", "1.0,ThreadEnded,00000001\nroot:x:0:0\n", ""},
		{"empty", "", ""},
		{"killed in the first line", "0.0000001230,ThreadSta", ""},
		{"killed after the kind", "0.0000001230,ThreadStarted,0000", ""},
		{"killed in the timestamp", "0.00000", ""},
		{"compact cut in the magic", "orca-comp", ""},
		{"compact, a bad record", format.CompactHeader + "ORCACHNK\x01\x01\x00\x7F", ""},
	} {
		prefix := writeRecording(t, map[string]string{"run.orca": c.orca})
		_, err := Open(prefix)
		var nr *NotRecordingError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: Open: %v, want a recording", c.name, err)
		case c.want != "" && (!errors.As(err, &nr) || !strings.HasPrefix(err.Error(), prefix+".orca") ||
			!strings.HasPrefix(strings.TrimPrefix(err.Error(), strings.TrimSuffix(prefix, "run")), c.want) || strings.Contains(err.Error(), "\n")):
			t.Errorf("%s: Open: %v\nwant one line beginning %s%s", c.name, err, strings.TrimSuffix(prefix, "run"), c.want)
		}
	}
	if _, err := Open("/nonexistent/run"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Open of a missing file: %v", err)
	}
}
