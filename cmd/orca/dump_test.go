package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/format"
)

func TestDump(t *testing.T) {
	dir := t.TempDir()
	pre := filepath.Join(dir, "rec")
	os.WriteFile(pre+".classtable", []byte("0.0000000010,0000ABCD,LDemo;,Demo.java\n"), 0o644)
	os.WriteFile(pre+".methods", []byte("0.0000000010,00000001,critical,()V,0000ABCD,2;00000000;0000002A;00000005;0000002B\n"), 0o644)
	os.WriteFile(pre+".orca", []byte(`1.0000000000,ThreadStarted,00000011,main
1.5000000000,ThreadStarted,00000022,"contender,1"
2.0000000000,ObjectClass,00000022,000000AA,[Ljava/lang/String;
2.0000000000,MonitorContendedEnter,00000022,000000AA,00000011,1;00000001;00000006
2.1000000000,MonitorContendedEntered,00000022,000000AA,1;00000001;00000006
2.2000000000,ThreadEn`), 0o644)

	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"dump", pre}); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	got := out.String()
	for _, want := range []string{
		"1.000000000 ThreadStarted 00000011 name=\"main\"\n",
		"2.000000000 MonitorContendedEnter 00000022 \"contender,1\" object=000000AA (java.lang.String[]) owner=00000011 \"main\"\n    Demo.critical(Demo.java:43)\n",
		"2.000000000 ObjectClass 00000022 \"contender,1\" object=000000AA class=[Ljava/lang/String;\n",
		"# 5 events; the last record of " + pre + ".orca is cut short (no " + pre + ".info says whether the JVM was killed while writing it or the file was cut)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dump lacks %q:\n%s", want, got)
		}
	}

	out.Reset()
	run(ui{nil, &out, io.Discard}, []string{"dump", "--resolve=false", pre})
	if !strings.Contains(out.String(), "    method=00000001 location=00000006\n") {
		t.Errorf("raw dump:\n%s", out.String())
	}
}

func TestSeconds(t *testing.T) {
	for in, want := range map[format.Time]string{0: "0.000000000", 12345678901234: "12345.678901234", -5: "-0.000000005"} {
		if got := seconds(in); got != want {
			t.Errorf("seconds(%d) = %s, want %s", in, got, want)
		}
	}
}

// TestUnclosedChunk: a compact .orca whose last chunk has no trailer (a kill -9 between two
// flushes, at a record's end) was read without a word in the report and the dump; both now say
// so, and the JSON has "unclosed": true. The same file with its trailer says nothing of it.
func TestUnclosedChunk(t *testing.T) {
	dir := t.TempDir()
	for _, closed := range []bool{false, true} {
		pre := filepath.Join(dir, "open")
		if closed {
			pre = filepath.Join(dir, "closed")
		}
		var b bytes.Buffer
		w := format.NewWriterOptions(format.Files{Events: &b}, format.Options{Encoding: format.EncodingCompact})
		for i, e := range []format.Event{{Kind: format.ThreadStarted, Thread: 0x11, Name: "main"},
			{Kind: format.ThreadSleep, Thread: 0x11, Timeout: -1}, {Kind: format.ThreadSlept, Thread: 0x11}} {
			e.Time = format.Time(i+1) * 1000
			if err := w.Event(&e); err != nil {
				t.Fatal(err)
			}
		}
		if closed {
			w.Close()
		}
		os.WriteFile(pre+".orca", b.Bytes(), 0o644)
		os.WriteFile(pre+".info", []byte("format=orca-1\nencoding=compact\ncomplete=false\n"), 0o644)
		say := "the last chunk of " + pre + ".orca has no trailer"
		for _, args := range [][]string{{"report", pre}, {"dump", pre}, {"report", "--json", pre}} {
			var out, errb bytes.Buffer
			code := run(ui{nil, &out, &errb}, args)
			want := say
			if args[1] == "--json" {
				want = `"unclosed": true`
			}
			if code != 0 || strings.Contains(out.String(), want) == closed {
				t.Errorf("orca %s: exit %d; want %q in its output only when the chunk is unclosed (closed: %v):\n%s%s",
					strings.Join(args, " "), code, want, closed, out.String(), errb.String())
			}
		}
	}
}

// TestDumpTermSafe: orca dump showed the names the JVM's user chose raw but
// the threads' (%q-quoted): a class name (ObjectClass's class=, the class
// after an object), a method, a class or a source file name in a frame with
// escape sequences acted on the terminal of whoever read the dump, root's.
// They are escaped now (termSafe), newlines too (a newline forged an event
// line); the warnings at the end as well.
func TestDumpTermSafe(t *testing.T) {
	const evil = "\x1b]0;PWNED\x07\x1b[2J\r\u009b1m"
	const shown = `\x1b]0;PWNED\x07\x1b[2J\x0d\u009b1m`
	pre := reportRecording(t)
	edit := func(suffix, old, new string) {
		t.Helper()
		b, err := os.ReadFile(pre + suffix)
		if err != nil || !bytes.Contains(b, []byte(old)) {
			t.Fatalf("%s%s: %v, or no %q", pre, suffix, err, old)
		}
		os.WriteFile(pre+suffix, bytes.Replace(b, []byte(old), []byte(new), 1), 0o600)
	}
	edit(".methods", ",transfer,", ",transfer"+evil+",")
	edit(".classtable", ",LScenario;,Scenario.java", ",LScen"+evil+"ario;,Scen"+evil+".java")
	// An object's class, quoted to hold a newline: it must not start a line.
	edit(".orca", "0.0100000000,ThreadStarted,0000000A,worker-a\n",
		"0.0100000000,ThreadStarted,0000000A,worker-a\n0.0200000000,ObjectClass,0000000A,0000F1A6,\"LLock"+evil+"\n1.0 Forged;\"\n")
	// A line the reader cannot parse, whose text it may repeat in its message.
	edit(".orca", "3.6000000000,ThreadEnded,0000000A\n", "3.6000000000,ThreadEnded,0000000A\n3.7,Bogus"+evil+",0000000A\n")

	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"dump", pre}); code != 0 {
		t.Fatalf("dump: exit %d: %s", code, errb.String())
	}
	got := out.String() + errb.String()
	if strings.ContainsAny(got, "\x1b\x07\r\u009b") || strings.Contains(got, "\n1.0 Forged") {
		t.Errorf("dump shows a name raw:\n%q", got)
	}
	for _, want := range []string{
		"Scen" + shown + "ario.transfer" + shown + "(Scen" + shown + ".java:21)\n",
		"class=LLock" + shown + `\x0a1.0 Forged;` + "\n",
		"object=0000F1A6 (Lock" + shown + `\x0a1/0 Forged)`, // (JavaName: / for .)
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dump lacks %q:\n%s", want, got)
		}
	}
}
