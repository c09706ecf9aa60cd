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
