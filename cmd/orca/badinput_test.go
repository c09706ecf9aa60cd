package main

import (
	"bytes"
	"net"
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

// TestCutFile (issue 31, item 6): a recording whose .info says the JVM ended normally
// (complete=true) and wrote 5 events, its .orca holding 3 and a cut fourth, was reported with
// "the JVM was killed while writing", exit 0. Now: exit 1, "read 3 of 5 events: the file is cut".
// The same file with complete=false (a kill -9: .info's counts lag the file) is a recording,
// its last line cut by the kill.
func TestCutFile(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "x")
	os.WriteFile(pre+".orca", []byte("0.0000000010,ThreadStarted,00000001,main\n"+
		"0.0000000020,ThreadStarted,00000002,worker\n0.0000000030,ThreadEnded,00000002\n0.0000000040,ThreadEnd"), 0o644)
	info := "format=orca-1\nevents.ThreadStarted=2\nevents.ThreadEnded=3\ndropped_total=0\n"
	os.WriteFile(pre+".info", []byte(info+"complete=true\n"), 0o644)
	want := "orca: " + pre + ".orca: read 3 of 5 events: the file is cut (" + pre + ".info counts 5 written by a JVM that ended normally)\n"
	for _, args := range [][]string{{"report", pre}, {"dump", pre}, {"export", "--format", "collapsed", "-o", "-", pre}} {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, args); code != 1 || errb.String() != want {
			t.Errorf("orca %s: exit %d, stderr:\n%s\nwant exit 1 and:\n%s", strings.Join(args, " "), code, errb.String(), want)
		}
	}
	os.WriteFile(pre+".info", []byte(info+"complete=false\n"), 0o644)
	var out, errb bytes.Buffer
	code := run(ui{nil, &out, &errb}, []string{"report", pre})
	if w := "!! the last record of " + pre + ".orca is cut short (the JVM was killed or crashed while writing it) and was skipped"; code != 0 || !strings.Contains(out.String(), w) {
		t.Errorf("complete=false: exit %d, stderr %s, want %q in:\n%s", code, errb.String(), w, out.String())
	}
}

// TestOutputDirChecked: report -o, export -o and import -o into a directory that does not exist
// (or under a file) built the whole model first and then failed with the name of a temporary
// file ("exporting r: open /x/.r.pb.gz.tmp2432766943: no such file or directory", exit 1).
// Now, before anything is read: one line naming the directory, what to do, and that nothing
// was done, exit 2, as orca record -o does.
func TestOutputDirChecked(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "x")
	os.WriteFile(pre+".orca", []byte("0.0000000010,ThreadStarted,00000001,main\n0.0000000020,ThreadEnded,00000001\n"), 0o644)
	jfr := filepath.Join(dir, "app.jfr")
	os.WriteFile(jfr, []byte("FLR\x00"), 0o644)
	file := filepath.Join(dir, "afile")
	os.WriteFile(file, nil, 0o644)
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "-o", filepath.Join(missing, "r.txt"), pre}, "report: -o " + filepath.Join(missing, "r.txt") + ": the directory " + missing + " does not exist: create it (mkdir -p " + missing + ") or choose another -o; nothing was read"},
		{[]string{"report", "--json", "-o", filepath.Join(file, "r.json"), pre}, file + " is not a directory"},
		{[]string{"export", "--format", "pprof", "-o", filepath.Join(missing, "x.pb.gz"), pre}, "export: -o " + filepath.Join(missing, "x.pb.gz") + ": the directory " + missing + " does not exist: create it"},
		{[]string{"export", "--format", "chrome", "-o", filepath.Join(file, "x.json"), pre}, file + " is not a directory"},
		{[]string{"export", "--format", "seed", "-o", filepath.Join(missing, "s"), pre}, "does not exist: create it (mkdir -p " + missing + ") or choose another -o; nothing was written"},
		{[]string{"import", "-o", filepath.Join(missing, "app"), jfr}, "does not exist: create it (mkdir -p " + missing + ") or choose another -o; nothing was imported"},
		// -o a directory: "open /tmp: is a directory" and "rename /.tmp.tmp1759507553 /tmp:
		// file exists", after the work
		{[]string{"report", "-o", dir, pre}, "report: -o " + dir + " is a directory: want a file name (e.g. " + filepath.Join(dir, "out") + "); nothing was read"},
		{[]string{"export", "--format", "pprof", "-o", dir, pre}, "export: -o " + dir + " is a directory: want a file name"},
	} {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, c.args)
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), ".tmp") || out.Len() != 0 {
			t.Errorf("orca %s: exit %d, stdout %q, stderr:\n%s\nwant exit 2 and %q", strings.Join(c.args, " "), code, out.String(), errb.String(), c.want)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("%d files in %s, want the 3 the test wrote: %v", len(ents), dir, ents)
	}
}

// TestImportDirectory: orca import DIR said `-o "DIR" is a directory: want a file name prefix`,
// about an -o the user did not give (its default, the input's name). It says the input is a
// directory, with or without -o.
func TestImportDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{{"import", dir}, {"import", "-o", filepath.Join(dir, "x"), dir}} {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, args)
		want := "orca: import: " + dir + " is a directory: want a .jfr file"
		if code != 2 || !strings.HasPrefix(errb.String(), want) {
			t.Errorf("orca %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, errb.String(), want)
		}
	}
}

// TestViewPortInUse: orca view --addr on a port in use read the whole recording first and
// then said "listen tcp …: bind: address already in use" (minutes on a large one). It listens
// first: here, on a recording that fails once read, the port is what it says.
func TestViewPortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	pre := filepath.Join(dir, "x")
	// TestCutFile's: opens, and fails once read ("read 3 of 5 events: the file is cut")
	os.WriteFile(pre+".orca", []byte("0.0000000010,ThreadStarted,00000001,main\n"+
		"0.0000000020,ThreadStarted,00000002,worker\n0.0000000030,ThreadEnded,00000002\n0.0000000040,ThreadEnd"), 0o644)
	os.WriteFile(pre+".info", []byte("format=orca-1\nevents.ThreadStarted=2\nevents.ThreadEnded=3\ndropped_total=0\ncomplete=true\n"), 0o644)
	var out, errb bytes.Buffer
	code := run(ui{nil, &out, &errb}, []string{"view", "--no-browser", "--addr", ln.Addr().String(), pre})
	if code != 1 || !strings.Contains(errb.String(), "address already in use") {
		t.Errorf("orca view --addr %s (in use) on a recording that fails once read: exit %d, stderr %q; want the port said before the read", ln.Addr(), code, errb.String())
	}
}
