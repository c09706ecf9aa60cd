package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"orca/internal/testjvm"
)

// TestAgentPathHelp (issue 31, item 10): help agent-path said "The agent's options are listed in
// 'orca help record'", which lists orca record's flags, not the agent's. It lists them itself
// now: every key the agent parses (agent/core/options.c) is named, as KEY=.
func TestAgentPathHelp(t *testing.T) {
	src, err := os.ReadFile("../../agent/core/options.c")
	if err != nil {
		t.Fatal(err)
	}
	keys := regexp.MustCompile(`!strcmp\(key, "(\w+)"\)`).FindAllSubmatch(src, -1)
	if len(keys) < 10 {
		t.Fatalf("found %d option keys in agent/core/options.c: the pattern no longer matches", len(keys))
	}
	var out bytes.Buffer
	if code := run(ui{nil, &out, io.Discard}, []string{"help", "agent-path"}); code != 0 {
		t.Fatalf("orca help agent-path: exit %d", code)
	}
	help := out.String()
	for _, k := range keys {
		if !strings.Contains(help, string(k[1])+"=") {
			t.Errorf("orca help agent-path does not name the agent's option %s=", k[1])
		}
	}
	if strings.Contains(help, "listed in 'orca help record'") {
		t.Errorf("orca help agent-path still sends to help record for the agent's options:\n%s", help)
	}
}

// TestImportJFC (issue 31, item 10): help import relied on orca.jfc, a file of the source tree
// (testdata/java/jfr/orca.jfc) that a user of the binary does not have. orca import --jfc prints
// it, built in: valid XML enabling, at 0 ms with stack traces, each event the import converts.
func TestImportJFC(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run(ui{nil, &out, &errb}, []string{"import", "--jfc"}); code != 0 || errb.Len() != 0 {
		t.Fatalf("orca import --jfc: exit %d, stderr %s", code, errb.String())
	}
	var conf struct {
		Events []struct {
			Name     string `xml:"name,attr"`
			Settings []struct {
				Name  string `xml:"name,attr"`
				Value string `xml:",chardata"`
			} `xml:"setting"`
		} `xml:"event"`
	}
	if err := xml.Unmarshal(out.Bytes(), &conf); err != nil {
		t.Fatalf("orca import --jfc: not XML: %v", err)
	}
	got := map[string]map[string]string{}
	for _, e := range conf.Events {
		got[e.Name] = map[string]string{}
		for _, s := range e.Settings {
			got[e.Name][s.Name] = s.Value
		}
	}
	for _, ev := range []string{"jdk.JavaMonitorEnter", "jdk.JavaMonitorWait", "jdk.ThreadPark", "jdk.ThreadSleep"} {
		if s := got[ev]; s["enabled"] != "true" || s["stackTrace"] != "true" || s["threshold"] != "0 ms" {
			t.Errorf("orca.jfc: %s: %v, want enabled, stack traces, threshold 0 ms", ev, s)
		}
	}
	// jdk.JVMInformation: the Java version, command and pid of the report's headline
	for _, ev := range []string{"jdk.ThreadStart", "jdk.ThreadEnd", "jdk.JVMInformation"} {
		if got[ev]["enabled"] != "true" {
			t.Errorf("orca.jfc: %s not enabled", ev)
		}
	}
	out.Reset()
	run(ui{nil, &out, io.Discard}, []string{"help", "import"})
	if !strings.Contains(out.String(), "orca import --jfc > orca.jfc") || strings.Contains(out.String(), "source tree does") {
		t.Errorf("help import does not say how to get orca.jfc:\n%s", out.String())
	}
	if code := run(ui{nil, io.Discard, io.Discard}, []string{"import", "--jfc", "run.jfr"}); code != 2 {
		t.Errorf("orca import --jfc run.jfr: exit %d, want 2", code)
	}
}

// TestAgentPathHelpDefaults: help agent-path said lockorder's default was "no" (and that its
// monitors were asked of JVMTI in the thread) after the agent's default became monitors, read
// from the thread's frames. Each default it states must be the one options_parse sets.
func TestAgentPathHelpDefaults(t *testing.T) {
	src, err := os.ReadFile("../../agent/core/options.c")
	if err != nil {
		t.Fatal(err)
	}
	body := string(src)
	if i := strings.Index(body, "const char *options_parse("); i >= 0 {
		body = body[i:]
	} else {
		t.Fatal("no options_parse in agent/core/options.c")
	}
	var out bytes.Buffer
	if code := run(ui{nil, &out, io.Discard}, []string{"help", "agent-path"}); code != 0 {
		t.Fatalf("orca help agent-path: exit %d", code)
	}
	// each key's block: from "  key=" at a line's start to the next such line
	blocks := map[string]string{}
	keyLine := regexp.MustCompile(`(?m)^  (\w+)=`)
	help := out.String()
	locs := keyLine.FindAllStringSubmatchIndex(help, -1)
	for i, l := range locs {
		end := len(help)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		blocks[help[l[2]:l[3]]] = strings.Join(strings.Fields(help[l[0]:end]), " ")
	}
	numeric := map[string]string{"depth": "depth", "flush": "flush_ms", "buffer": "buffer_mb",
		"thread_cpu": "thread_cpu_ms", "wall_threads": "wall_threads"}
	for key, field := range numeric {
		m := regexp.MustCompile(`o->` + field + ` = (\d+);`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("options_parse sets no default for o->%s", field)
		}
		if !strings.Contains(blocks[key], "(default "+m[1]+")") && !strings.Contains(blocks[key], "default "+m[1]+")") {
			t.Errorf("help agent-path's %s= does not say its default %s: %q", key, m[1], blocks[key])
		}
	}
	m := regexp.MustCompile(`o->lock_order = ORCA_LOCK_ORDER_(\w+);`).FindStringSubmatch(body)
	if m == nil {
		t.Fatal("options_parse sets no default lock_order")
	}
	def := strings.ToLower(m[1])
	lo := blocks["lockorder"]
	if !strings.Contains(lo, def+" (default)") {
		t.Errorf("help agent-path's lockorder= does not say its default is %s: %q", def, lo)
	}
	for _, v := range []string{"yes", "monitors", "no"} {
		if v != def && strings.Contains(lo, v+" (default)") {
			t.Errorf("help agent-path's lockorder= says %s is the default; the agent's is %s: %q", v, def, lo)
		}
	}
}

// TestImportHelpSamplesSettings: help import said "for samples add settings=profile" with
// settings=orca.jfc,settings=profile: JFR lets the later file win, so profile's 10 ms
// thresholds replaced orca.jfc's 0 ms and the import recorded only states of 10 ms or more.
// The command help import shows, run on each JDK, records at 0 ms with samples on.
func TestImportHelpSamplesSettings(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts JVMs")
	}
	var out bytes.Buffer
	run(ui{nil, &out, io.Discard}, []string{"help", "import"})
	m := regexp.MustCompile(`(?m)^\s*java (-XX:StartFlightRecording=\S*settings=profile\S*)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("help import shows no java command with settings=profile:\n%s", out.String())
	}
	testjvm.Each(t, func(t *testing.T, j testjvm.JDK) {
		dir := t.TempDir()
		var jfc bytes.Buffer
		if code := run(ui{nil, &jfc, io.Discard}, []string{"import", "--jfc"}); code != 0 {
			t.Fatal("orca import --jfc failed")
		}
		if err := os.WriteFile(filepath.Join(dir, "orca.jfc"), jfc.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		src := filepath.Join(dir, "Short.java")
		os.WriteFile(src, []byte("public class Short { public static void main(String[] a) throws Exception { Thread.sleep(200); } }\n"), 0o644)
		opt := strings.NewReplacer("filename=run.jfr", "filename="+filepath.Join(dir, "run.jfr"), "settings=orca.jfc", "settings="+filepath.Join(dir, "orca.jfc")).Replace(m[1])
		cmd := testjvm.Command(t, dir, testjvm.Argv(j.Java(), dir, opt, src)...)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", cmd.Args, err, b)
		}
		prefix := filepath.Join(dir, "run")
		if code := run(ui{nil, io.Discard, io.Discard}, []string{"import", "--quiet", prefix + ".jfr"}); code != 0 {
			t.Fatalf("orca import: exit %d", code)
		}
		info, err := os.ReadFile(prefix + ".info")
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"MonitorContendedEnter", "ObjectWait", "ThreadPark", "ThreadSleep"} {
			if v := regexp.MustCompile(`(?m)^threshold_ns\.` + k + `=(\d+)`).FindSubmatch(info); v != nil && string(v[1]) != "0" {
				t.Errorf("%s: the command of help import recorded %s at a threshold of %s ns, not 0", opt, k, v[1])
			}
		}
		if !bytes.Contains(info, []byte("jfr_settings.jdk.ExecutionSample=enabled=true")) {
			t.Errorf("%s: ExecutionSample not enabled:\n%s", opt, info)
		}
	})
}

// TestReadmeDetachBound: README said a --detach recording without --max-size or --max-age was
// "unbounded, with a warning"; orca applies --max-size detachMaxSize (record's help and
// docs/attach.md say so). The README's sentence on it names that bound.
func TestReadmeDetachBound(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := strings.Join(strings.Fields(string(b)), " ")
	i := strings.Index(readme, "except with `--detach`")
	if i < 0 {
		t.Fatal("README.md: no sentence on --detach (\"except with `--detach`\")")
	}
	s := readme[i:min(len(readme), i+400)]
	if strings.Contains(s, "unbounded") || !strings.Contains(s, "--max-size "+detachMaxSize) {
		t.Errorf("README.md on --detach without bounds: %q; orca applies --max-size %s", s, detachMaxSize)
	}
}

// TestHelpNoZeroDurationDefault: help record listed "--max-age DURATION … (default 0s)", a
// bound of no time at all to a reader; a zero duration is no default, as 0 and false are not.
func TestHelpNoZeroDurationDefault(t *testing.T) {
	for _, c := range []string{"record", "report", "dump", "export", "push", "import", "view", "threads", "stop", "agent-path"} {
		var out bytes.Buffer
		run(ui{nil, &out, io.Discard}, []string{"help", c})
		if strings.Contains(out.String(), "(default 0s)") {
			t.Errorf("help %s lists a default of 0s", c)
		}
	}
}

// TestExportHelpLabels: help export listed the pprof labels thread, thread_id, state, lock,
// owner and open; a profile has class and call too (go tool pprof -tags on Tomcat 25), which
// docs/export.md lists. Every label of docs/export.md's pprof table is named in the help.
func TestExportHelpLabels(t *testing.T) {
	b, err := os.ReadFile("../../docs/export.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "One sample per stack, thread, object, state and owner, with these labels:")
	if i < 0 {
		t.Fatal("docs/export.md: no pprof label table")
	}
	var out bytes.Buffer
	run(ui{nil, &out, io.Discard}, []string{"help", "export"})
	help := strings.Join(strings.Fields(out.String()), " ")
	labels := 0
	for _, l := range strings.Split(doc[i:], "\n")[1:] {
		if strings.HasPrefix(l, "| label") || strings.HasPrefix(l, "|---") || l == "" && labels == 0 {
			continue
		}
		m := regexp.MustCompile("^\\| `([a-z_]+)` \\|").FindStringSubmatch(l)
		if m == nil {
			break
		}
		labels++
		// in pprof's paragraph, as a label of its own (lock.class is OTLP's)
		para := help[strings.Index(help, "pprof a gzipped"):strings.Index(help, "perfetto a Perfetto")]
		if !regexp.MustCompile(`(^|[^.\w])` + m[1] + `([^.\w]|$)`).MatchString(para) {
			t.Errorf("help export's pprof does not name the label %s", m[1])
		}
	}
	if labels < 6 {
		t.Errorf("docs/export.md's pprof table: %d labels read, want the table", labels)
	}
}
