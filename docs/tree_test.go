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
)

// TestFuzzersListed checks that make test's fuzz smoke (the Makefile's
// FUZZERS) runs every Go fuzzer of the tree, and names none that is gone:
// a fuzzer that only runs when someone remembers it finds nothing.
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
	found := map[string]bool{}
	err = filepath.WalkDir("..", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "build" || strings.HasPrefix(d.Name(), ".")) && p != ".." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, f := range fuzzFuncRE.FindAllSubmatch(b, -1) {
			rel, _ := filepath.Rel("..", filepath.Dir(p))
			found[filepath.ToSlash(rel)+":"+string(f[1])] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
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
