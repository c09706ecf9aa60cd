package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotRecording (issue 31, item 6): report, dump, export and view on a file that is not a
// recording (/etc/passwd renamed x.orca) printed an empty report ("0 events", "No deadlocks")
// and exited 0. Now: exit 1, one line naming the file and the line, nothing on stdout.
func TestNotRecording(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "x")
	os.WriteFile(pre+".orca", []byte("root:x:0:0:root:/root:/bin/bash\nbin:x:2:2:bin:/bin:/usr/sbin/nologin\n"), 0o644)
	want := "orca: " + pre + `.orca is not an Orca recording: line 1, "root:x:0:0:root:/root:/bin/bash", is not an event (want timestamp,EventName,…; got 1 field)` + "\n"
	for _, args := range [][]string{
		{"report", pre},
		{"report", "--json", pre + ".orca"},
		{"dump", pre},
		{"export", "--format", "pprof", "-o", filepath.Join(dir, "x.pb"), pre},
		{"export", "--format", "seed", "-o", filepath.Join(dir, "seed"), pre},
		{"view", "--no-browser", pre},
	} {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, args)
		if code != 1 || errb.String() != want || out.Len() != 0 {
			t.Errorf("orca %s: exit %d, stdout %q, stderr:\n%s\nwant exit 1 and:\n%s", strings.Join(args, " "), code, out.String(), errb.String(), want)
		}
	}
}
