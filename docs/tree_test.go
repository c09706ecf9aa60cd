package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	fuzzFuncRE = regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	fuzzersRE  = regexp.MustCompile(`(?ms)^FUZZERS :=(.*?)\n\n`)
	heldRE     = regexp.MustCompile(`(?m)^FUZZERS_HELD :=(.*)$`)
)

// TestFuzzersListed checks that make test's fuzz smoke (the Makefile's
// FUZZERS) runs every Go fuzzer of the tree but those it holds
// (FUZZERS_HELD), and names none that is gone: a fuzzer that only runs
// when someone remembers it finds nothing.
func TestFuzzersListed(t *testing.T) {
	mk, err := os.ReadFile("../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := fuzzersRE.FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile: no FUZZERS := line")
	}
	listed := map[string]bool{}
	for _, f := range strings.Fields(strings.ReplaceAll(string(m[1]), "\\", " ")) {
		pkg, rest, _ := strings.Cut(f, ":")
		name, _, _ := strings.Cut(rest, ":")
		listed[pkg+":"+name] = true
	}
	// A held fuzzer (FUZZERS_HELD: it finds a known bug) counts as
	// listed; the Makefile says why beside it.
	if h := heldRE.FindSubmatch(mk); h != nil {
		for _, f := range strings.Fields(string(h[1])) {
			listed[f] = true
		}
	}
	found := map[string]bool{}
	goFiles(t, "", func(p string, b []byte) {
		if !strings.HasSuffix(p, "_test.go") {
			return
		}
		for _, f := range fuzzFuncRE.FindAllSubmatch(b, -1) {
			rel, _ := filepath.Rel("..", filepath.Dir(p))
			found[filepath.ToSlash(rel)+":"+string(f[1])] = true
		}
	})
	if len(found) == 0 {
		t.Fatal("no func Fuzz found in the tree")
	}
	for f := range found {
		if !listed[f] {
			t.Errorf("%s: a fuzzer make test does not run: add it to the Makefile's FUZZERS", f)
		}
	}
	for f := range listed {
		if !found[f] {
			t.Errorf("Makefile FUZZERS: %s: no such fuzzer", f)
		}
	}
}

var getenvRE = regexp.MustCompile(`getenv\("(ORCA_\w+)"\)`)

// TestAgentSwitches checks that the agent reads its environment in one
// place, core/options.c, and that docs/agent.md's table names every switch
// read there: a switch found only by reading the C is one nobody uses.
func TestAgentSwitches(t *testing.T) {
	doc, err := os.ReadFile("agent.md")
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	agentSources(t, func(f string, b []byte) {
		for _, m := range getenvRE.FindAllSubmatch(b, -1) {
			name := string(m[1])
			if f != "../agent/core/options.c" {
				t.Errorf("%s: getenv(%q): the agent's environment is read in core/options.c (options_switches) only", f, name)
				continue
			}
			read++
			if !strings.Contains(string(doc), "| `"+name+"` |") && !strings.Contains(string(doc), "`"+name+"` is no switch") {
				t.Errorf("docs/agent.md: %s, read by core/options.c, is not in the table of environment switches", name)
			}
		}
	})
	if read == 0 {
		t.Error("core/options.c reads no environment switch: the table of docs/agent.md describes nothing")
	}
}

var (
	// Spelt in two parts, so that this file does not match them.
	jdkPathRE     = regexp.MustCompile(`"/usr/lib/` + `jvm/`)
	requireJDKsRE = regexp.MustCompile(`Getenv\("ORCA_` + `REQUIRE_JDKS"\)`)
)

// TestOneJDKFinder checks that the tests find JDKs in one place,
// internal/testjvm: no other test names a JDK's home or reads
// ORCA_REQUIRE_JDKS (the JDKs were once found five ways, each skipping
// with its own message).
func TestOneJDKFinder(t *testing.T) {
	goFiles(t, "testjvm", func(p string, b []byte) {
		if jdkPathRE.Match(b) || requireJDKsRE.Match(b) {
			t.Errorf("%s: names a JDK's home or reads ORCA_REQUIRE_JDKS: find JDKs with internal/testjvm", p)
		}
	})
}

// errorFileRE matches a JVM's crash-file option written out rather than
// taken from internal/testjvm (spelt in two parts, so that this file does
// not match it).
var errorFileRE = regexp.MustCompile(`crash\.ErrorFile\(|-XX:` + `ErrorFile=`)

// TestOneJVMStarter checks that the tests start their JVMs in one way,
// internal/testjvm's (Argv, Command, Start): no other Go file puts a JVM's
// crash file somewhere itself (it was once written in each package's tests,
// with or without the working directory and the crash check beside it).
// internal/crash, which defines the option, is the other exception.
func TestOneJVMStarter(t *testing.T) {
	goFiles(t, "testjvm", func(p string, b []byte) {
		if strings.HasPrefix(filepath.ToSlash(p), "../internal/crash/") {
			return
		}
		if errorFileRE.Match(b) {
			t.Errorf("%s: writes the JVM's crash-file option itself: build the command with internal/testjvm (Argv, ToolArgv, Options, Command)", p)
		}
	})
}

// goFiles calls f with each Go file of the repository and its content,
// but those of build/, hidden folders and the folder named skip.
func goFiles(t *testing.T, skip string, f func(path string, b []byte)) {
	t.Helper()
	err := filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "build" || d.Name() == skip || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f(p, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// agentSources calls f with each .c and .h file of the agent and its content, its unit tests
// (agent/test) aside.
func agentSources(t *testing.T, f func(path string, b []byte)) {
	t.Helper()
	files, err := filepath.Glob("../agent/*/*.[ch]")
	if err != nil || len(files) == 0 {
		t.Fatalf("no agent sources: %v", err)
	}
	for _, p := range files {
		if strings.HasPrefix(p, "../agent/test/") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f(p, b)
	}
}
