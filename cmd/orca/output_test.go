package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestReportOutputPlanted: report -o never writes through a name someone else
// may have planted. Run as root in /tmp, the old O_TRUNC open followed another
// user's symlink and overwrote the file it named (docs/perf/2026-12-02-root-audit.md).
func TestReportOutputPlanted(t *testing.T) {
	pre := reportRecording(t)
	dir := t.TempDir()
	victim := filepath.Join(dir, "precious")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "report.txt")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.txt")
	if err := os.Link(victim, hard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, msg, hint string }{
		{link, "is a symbolic link, which orca does not follow", "remove it or give another name"},
		{hard, "has 2 hard links", "remove it or give another name"},
		{dir, "is a directory", "want a file name"},
	} {
		var out, errb bytes.Buffer
		code := run(ui{nil, &out, &errb}, []string{"report", "-o", c.out, pre})
		if code == 0 || !strings.Contains(errb.String(), c.msg) || !strings.Contains(errb.String(), c.hint) {
			t.Errorf("report -o %s: exit %d, stderr %q; want a failure saying %q", c.out, code, errb.String(), c.msg)
		}
		if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
			t.Fatalf("report -o %s wrote the file it names: %.40q...", c.out, b)
		}
	}

	// Another user's file is refused (only root can make one here).
	if os.Geteuid() == 0 {
		other := filepath.Join(dir, "other.txt")
		if err := os.WriteFile(other, []byte("theirs\n"), 0o666); err != nil {
			t.Fatal(err)
		}
		os.Chown(other, 65534, 65534)
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, []string{"report", "-o", other, pre}); code == 0 || !strings.Contains(errb.String(), "not of orca's user") {
			t.Errorf("report -o another user's file: exit %d, stderr %q", code, errb.String())
		}
		if b, _ := os.ReadFile(other); string(b) != "theirs\n" {
			t.Errorf("report -o wrote another user's file: %q", b)
		}
	}

	// What a shell's > takes still works: a new file (0600), an own file
	// (truncated), a device.
	own := filepath.Join(dir, "own.txt")
	if err := os.WriteFile(own, bytes.Repeat([]byte("x"), 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, o := range []string{filepath.Join(dir, "new.txt"), own, os.DevNull} {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, []string{"report", "-o", o, pre}); code != 0 {
			t.Fatalf("report -o %s: exit %d: %s", o, code, errb.String())
		}
		if o == os.DevNull {
			continue
		}
		b, _ := os.ReadFile(o)
		if !bytes.HasPrefix(b, []byte("orca report: ")) || bytes.Contains(b, []byte("xxx")) {
			t.Errorf("report -o %s: %.60q..., want the report alone", o, b)
		}
		if fi, _ := os.Stat(o); fi.Mode().Perm() != 0o600 {
			t.Errorf("report -o %s: mode %v", o, fi.Mode())
		}
	}
}

// TestExportOutputDevice: export -o of a device writes into it; the old
// temporary renamed over it replaced it by a regular file (as root, -o
// /dev/null would have left /dev/null a file of root's, mode 0600).
func TestExportOutputDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a device node (mknod): run as root")
	}
	pre := reportRecording(t)
	dev := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil { // /dev/null's 1:3
		t.Skipf("mknod: %v", err)
	}
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"export", "--format", "pprof", "-o", dev, pre}); code != 0 {
		t.Fatalf("export -o %s: exit %d: %s", dev, code, errb.String())
	}
	fi, err := os.Lstat(dev)
	if err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("export -o %s replaced the device: %v %v", dev, fi.Mode(), err)
	}
}

// TestTermSafe: names the JVM gave reach the terminal with their control
// characters escaped: a thread name (report's text) and a command line
// (record's summary) holding escape sequences printed them raw before, and
// they act on the terminal of whoever reads, root's.
func TestTermSafe(t *testing.T) {
	const evil = "\x1b]0;PWNED\x07\x1b[2J\u009b1m\xff"
	const shown = `\x1b]0;PWNED\x07\x1b[2J\u009b1m\xff`
	if got := termSafe("plain é\ttab" + evil + "\nx"); got != "plain é\ttab"+shown+`\x0ax` {
		t.Errorf("termSafe: %q", got)
	}
	// Cut anywhere between writes, the writer gives the same text.
	text := "a é line\n" + evil + "\nend é"
	want := "a é line\n" + shown + "\nend é"
	for cut := 0; cut <= len(text); cut++ {
		var b bytes.Buffer
		w := newTermSafeWriter(&b)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		w.Flush()
		if b.String() != want {
			t.Fatalf("cut at %d: %q, want %q", cut, b.String(), want)
		}
	}

	pre := reportRecording(t)
	// A method's name (thread names were quoted already).
	m, err := os.ReadFile(pre + ".methods")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pre+".methods", bytes.ReplaceAll(m, []byte(",transfer,"), []byte(",transfer"+evil+",")), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"report", pre}); code != 0 {
		t.Fatalf("report: exit %d: %s", code, errb.String())
	}
	if strings.ContainsAny(out.String(), "\x1b\x07\u009b") || !strings.Contains(out.String(), "Scenario.transfer"+shown) {
		t.Errorf("report shows the method as %q", between(out.String(), "Scenario.transfer", 60))
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "r.info"), []byte(strings.Replace(fabricatedInfo, "command=Demo arg", "command=Demo "+evil, 1)), 0o600)
	recs, err := findRecordings(filepath.Join(dir, "r"))
	if err != nil || len(recs) != 1 {
		t.Fatalf("findRecordings: %v, %v", recs, err)
	}
	var b bytes.Buffer
	printSummary(&b, recs[0])
	if strings.ContainsAny(b.String(), "\x1b\x07\u009b") || !strings.Contains(b.String(), "(Demo "+shown+")") {
		t.Errorf("summary shows the command as %q", between(b.String(), "Demo", 60))
	}
}

// between is n bytes of s from where sub starts.
func between(s, sub string, n int) string {
	i := max(strings.Index(s, sub), 0)
	return s[i:min(i+n, len(s))]
}

// TestExportSeedFIFO: export --format seed copies the recording's files; a
// FIFO at .info (another user's directory may hold anything) hung it in its
// open forever.
func TestExportSeedFIFO(t *testing.T) {
	pre := reportRecording(t)
	os.Remove(pre + ".info")
	if err := syscall.Mkfifo(pre+".info", 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan int, 1)
	go func() {
		var out, errb bytes.Buffer
		done <- run(ui{nil, &out, &errb}, []string{"export", "--format", "seed", "-o", filepath.Join(t.TempDir(), "seed"), pre})
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(pre+".info", os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatal("export --format seed of a recording whose .info is a FIFO hung")
	}
}

// TestJSONEscapesC1: report --json and export --format chrome escaped C0
// control characters of the JVM's names (encoding/json does) but wrote C1
// ones (U+0080-U+009F) raw, which a terminal takes as controls (U+009B is
// CSI) when the JSON is printed: a thread and a method named with them
// reached root's terminal. Now \u0080-\u009f (termjson): the output has no
// bytes C2 80 to C2 9F, is valid JSON and decodes to the names.
func TestJSONEscapesC1(t *testing.T) {
	const thread, method = "worker\u009b2J\u0085a", "transfer\u009b1m\u009f"
	pre := reportRecording(t)
	for suffix, edit := range map[string][2]string{".orca": {",worker-a\n", "," + thread + "\n"}, ".methods": {",transfer,", "," + method + ","}} {
		b, err := os.ReadFile(pre + suffix)
		if err != nil || !bytes.Contains(b, []byte(edit[0])) {
			t.Fatalf("%s%s: %v, or no %q", pre, suffix, err, edit[0])
		}
		os.WriteFile(pre+suffix, bytes.ReplaceAll(b, []byte(edit[0]), []byte(edit[1])), 0o600)
	}
	for _, args := range [][]string{{"report", "--json", pre}, {"export", "--format", "chrome", "-o", "-", pre}} {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		b := out.Bytes()
		for i := 0; i+1 < len(b); i++ {
			if b[i] == 0xc2 && b[i+1] >= 0x80 && b[i+1] < 0xa0 {
				t.Fatalf("%v: a C1 control character raw at byte %d: %q", args, i, between(out.String()[i:], "", 40))
			}
		}
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%v: not JSON: %v", args, err)
		}
		names := map[string]bool{}
		var walk func(v any)
		walk = func(v any) {
			switch v := v.(type) {
			case string:
				names[v] = true
				for _, n := range []string{thread, method} {
					if strings.Contains(v, n) {
						names[n] = true
					}
				}
			case []any:
				for _, e := range v {
					walk(e)
				}
			case map[string]any:
				for _, e := range v {
					walk(e)
				}
			}
		}
		walk(doc)
		if !names[thread] || !names[method] || !bytes.Contains(b, []byte(`worker\u009b2J\u0085a`)) {
			t.Errorf("%v: the decoded JSON lacks the thread %q or the method %q:\n%.2000s", args, thread, method, b)
		}
	}
}

// TestErrorsTermSafe: every error main prints shows control characters
// escaped, its own newlines kept (termSafeLines); names in a directory's
// listing, which another user chose, have their newlines escaped too: a
// prefix named with escape sequences and a newline beside the one asked
// for reached the terminal raw in report's "recordings in DIR" list.
func TestErrorsTermSafe(t *testing.T) {
	dir := t.TempDir()
	planted := "a\x1b]0;PWNED\x07\nforged"
	os.WriteFile(filepath.Join(dir, planted+".orca"), nil, 0o600)
	var errb bytes.Buffer
	code := run(ui{nil, io.Discard, &errb}, []string{"report", filepath.Join(dir, "b\x1b[2J")})
	got := errb.String()
	want := "orca: report: no recording " + dir + `/b\x1b[2J: ` + dir + `/b\x1b[2J.orca does not exist; recordings in ` + dir +
		":\n  " + dir + `/a\x1b]0;PWNED\x07\x0aforged` + "\nfor example: orca report " + dir + `/a\x1b]0;PWNED\x07\x0aforged` + "\n"
	if code != 2 || got != want {
		t.Errorf("exit %d:\n%q\nwant\n%q", code, got, want)
	}
}

// TestNewlineNames: a class, method or source file name holding a line break and nothing else
// to escape (NlMain.java's class "Q1\nQ2", defined from renamed bytes; the JVM takes any
// character but . ; [ /), started lines of their own in orca
// report's text and orca dump: termSafe passed a string whose only control character was a
// newline unchanged, and the report's text wrote the names as they are. Both now show it
// escaped (\n in the report, as the JSON and the quoted thread names; \x0a in the dump), and no
// line of either begins with the name's second half.
func TestNewlineNames(t *testing.T) {
	pre := reportRecording(t)
	edit := func(suffix, old, new string) {
		t.Helper()
		b, err := os.ReadFile(pre + suffix)
		if err != nil || !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s%s: %v, or no %q", pre, suffix, err, old)
		}
		os.WriteFile(pre+suffix, bytes.ReplaceAll(b, []byte(old), []byte(new)), 0o600)
	}
	edit(".methods", ",transfer,", ",\"trans\nFORGED1\",")
	edit(".classtable", ",LScenario;,Scenario.java", ",\"LScen\nFORGED2ario;\",\"Scen\nFORGED3.java\"")
	for _, args := range [][]string{{"report", pre}, {"report", "--top", "0", pre}, {"dump", pre}} {
		var out, errb bytes.Buffer
		if code := run(ui{nil, &out, &errb}, args); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errb.String())
		}
		got := out.String() + errb.String()
		for _, l := range strings.Split(got, "\n") {
			if strings.HasPrefix(l, "FORGED") {
				t.Errorf("%v: a name's line break began the line %q", args, l)
			}
		}
		want := []string{`Scen\nFORGED2ario.trans\nFORGED1(Scen\nFORGED3.java:`}
		if args[0] == "dump" {
			want = []string{`Scen\x0aFORGED2ario.trans\x0aFORGED1(Scen\x0aFORGED3.java:`}
		}
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("%v: no %q in\n%s", args, w, got)
			}
		}
	}
}

// TestNewlineNamesThreads: orca threads' text shows a line break in a frame or a class name as
// \n (TestNewlineNames), not as a line of its own.
func TestNewlineNamesThreads(t *testing.T) {
	on := &nowObject{Object: "0000F1A6", Class: "Lock\nFORGED1", Kind: "monitor"}
	v := &threadsView{PID: 7, Command: "Demo", List: []*nowThread{{ID: "0000000A", Name: "worker", State: "blocked", WaitsOn: on,
		Holds: []nowObject{{Object: "0000F1A7", Class: "Held\nFORGED2", Kind: "monitor"}}, Stack: []string{"Q1\nFORGED3.m(Q1\nFORGED4.java:4)"}}}}
	var b bytes.Buffer
	if err := v.writeText(&b); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "FORGED") {
			t.Errorf("a name's line break began the line %q in\n%s", l, b.String())
		}
	}
	for _, want := range []string{`monitor Lock\nFORGED1@0000F1A6`, `- holds monitor Held\nFORGED2@0000F1A7`, `at Q1\nFORGED3.m(Q1\nFORGED4.java:4)`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in\n%s", want, b.String())
		}
	}
}
