package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	jt "orca/internal/jfr/jfrtest"
)

// sleepJFR is a one-chunk recording: main sleeps once.
func sleepJFR() []byte {
	c := &jt.Chunk{Classes: jt.JDKClasses()}
	c.Thread(1, "main", 1, 100)
	c.Symbol(2, "Demo")
	c.Symbol(3, "main")
	c.Symbol(4, "()V")
	c.Class(5, 2)
	c.Method(6, 5, 3, 4, 9)
	c.FrameType(7, "Interpreted")
	c.Stack(8, false, jt.StackFrame{Method: 6, Line: 42, BCI: 3, Type: 7})
	c.Event(jt.TThreadSleep, jt.Varint(1e9), jt.Varint(5e6), jt.Varint(1), jt.Varint(8), jt.Varint(5))
	return c.Bytes()
}

func TestImport(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "run.jfr")
	if err := os.WriteFile(src, sleepJFR(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	// Flags may follow the recording; without -o the prefix is the file's.
	if code := run(ui{nil, &out, &errb}, []string{"import", src}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"orca: imported " + src + " (1 JFR chunk", "ThreadSleep", "SleepTime", "next: orca report " + filepath.Join(dir, "run")} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, errb.String())
		}
	}
	out.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"dump", filepath.Join(dir, "run")}); code != 0 {
		t.Fatalf("dump: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "1.000000000 ThreadSleep") || !strings.Contains(out.String(), "Demo.main(Unknown Source:42)") {
		t.Errorf("dump:\n%s", out.String())
	}

	// An existing recording is kept unless --force.
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", src}); code != 2 || !strings.Contains(errb.String(), "--force") {
		t.Errorf("second import: exit %d: %s", code, errb.String())
	}
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", src, "-o", filepath.Join(dir, "run"), "--force", "--quiet"}); code != 0 || errb.Len() != 0 {
		t.Errorf("--force --quiet: exit %d: %s", code, errb.String())
	}

	// stdin needs -o.
	errb.Reset()
	if code := run(ui{bytes.NewReader(sleepJFR()), &out, &errb}, []string{"import", "-"}); code != 2 {
		t.Errorf("stdin without -o: exit %d: %s", code, errb.String())
	}
	if code := run(ui{bytes.NewReader(sleepJFR()), &out, &errb}, []string{"import", "-o", filepath.Join(dir, "in"), "-"}); code != 0 {
		t.Errorf("stdin: exit %d: %s", code, errb.String())
	}

	// A cut-short recording: exit 1, nothing written, a hint.
	cut := filepath.Join(dir, "cut.jfr")
	os.WriteFile(cut, sleepJFR()[:100], 0o644)
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", cut}); code != 1 || !strings.Contains(errb.String(), "cut short") || !strings.Contains(errb.String(), "JFR.dump") {
		t.Errorf("cut: exit %d: %s", code, errb.String())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "cut.*")); len(m) != 1 {
		t.Errorf("cut: files %v", m)
	}

	// Usage errors.
	for _, args := range [][]string{{"import"}, {"import", "a.jfr", "b.jfr"}, {"import", "--bogus", "a.jfr"}, {"import", src, "-o", dir + "/"}} {
		errb.Reset()
		if code := run(ui{nil, &out, &errb}, args); code != 2 {
			t.Errorf("%q: exit %d: %s", args, code, errb.String())
		}
	}
	errb.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", filepath.Join(dir, "missing.jfr")}); code != 1 || !strings.Contains(errb.String(), "no such file") {
		t.Errorf("missing file: exit %d: %s", code, errb.String())
	}
	out.Reset()
	if code := run(ui{nil, &out, &errb}, []string{"import", "--help"}); code != 0 || !strings.Contains(out.String(), "Examples:") {
		t.Errorf("--help: exit %d:\n%s", code, out.String())
	}
}
