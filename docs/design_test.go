package docs

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// maxDesignLines bounds docs/design.md (issue 32): a newcomer reads it in one sitting.
const maxDesignLines = 200

// mapRow is one row of design.md's module maps: a folder and its second column (an agent
// module's layer, a Go package's uses).
type mapRow struct {
	folder, second string
	line           int
}

var mapRowRE = regexp.MustCompile("^\\| `((?:agent|internal|cmd)/[a-z0-9-]+/)` \\| ([^|]*) \\|")

func designRows(t *testing.T) ([]mapRow, int) {
	t.Helper()
	b, err := os.ReadFile("design.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []mapRow
	seen := map[string]bool{}
	for i, l := range strings.Split(string(b), "\n") {
		m := mapRowRE.FindStringSubmatch(l)
		if m == nil || seen[m[1]] {
			continue // the "where each concern lives" table names folders again
		}
		seen[m[1]] = true
		rows = append(rows, mapRow{m[1], strings.TrimSpace(m[2]), i + 1})
	}
	return rows, strings.Count(string(b), "\n")
}

// folders are the repository's folders the maps must name: each directory of agent/, and the
// top-level directories of internal/ and cmd/.
func folders(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, parent := range []string{"agent", "internal", "cmd"} {
		ents, err := os.ReadDir(filepath.Join("..", parent))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if e.IsDir() {
				out = append(out, parent+"/"+e.Name()+"/")
			}
		}
	}
	return out
}

// TestDesignMap keeps design.md's module map true: every folder of agent/, internal/ and cmd/ has
// a row and every row a folder; an agent module's layer is its place in check-includes.sh's
// LAYERS; a Go folder's "uses" is exactly the repository's packages its code imports.
func TestDesignMap(t *testing.T) {
	rows, n := designRows(t)
	if n > maxDesignLines {
		t.Errorf("docs/design.md: %d lines, want at most %d: the details belong in agent.md and the other documents", n, maxDesignLines)
	}
	byFolder := map[string]mapRow{}
	for _, r := range rows {
		byFolder[r.folder] = r
		if !exists(r.folder) {
			t.Errorf("docs/design.md:%d: %s is not a folder of the repository: remove its row", r.line, r.folder)
		}
	}
	for _, f := range folders(t) {
		if _, ok := byFolder[f]; !ok {
			t.Errorf("docs/design.md: %s has no row in the module map: add it, saying what it holds", f)
		}
	}
	layers := checkIncludesLayers(t)
	for _, r := range rows {
		switch {
		case strings.HasPrefix(r.folder, "agent/"):
			name := strings.TrimSuffix(strings.TrimPrefix(r.folder, "agent/"), "/")
			want := "—"
			if i := indexOf(layers, name); i >= 0 {
				want = strconv.Itoa(i + 1)
			}
			if r.second != want {
				t.Errorf("docs/design.md:%d: %s's layer is %q, check-includes.sh's LAYERS (%s) make it %q",
					r.line, r.folder, r.second, strings.Join(layers, " "), want)
			}
		case r.second == "all":
		case !exists(r.folder):
		default:
			got := strings.Join(goUses(t, r.folder), ", ")
			if got == "" {
				got = "—"
			}
			if r.second != got {
				t.Errorf("docs/design.md:%d: %s uses %q, its code imports %q", r.line, r.folder, r.second, got)
			}
		}
	}
}

func exists(folder string) bool {
	_, err := os.Stat(filepath.Join("..", folder))
	return err == nil
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// checkIncludesLayers reads the agent's layers, bottom first, from agent/check-includes.sh.
func checkIncludesLayers(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("../agent/check-includes.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^LAYERS="([^"]*)"`).FindSubmatch(b)
	if m == nil {
		t.Fatal("agent/check-includes.sh: no LAYERS=\"...\" line")
	}
	return strings.Fields(string(m[1]))
}

// goUses lists the repository's packages (by their folder under internal/ or cmd/, the last
// element) that the non-test Go files under folder import, the folder's own packages aside.
func goUses(t *testing.T, folder string) []string {
	t.Helper()
	self := strings.TrimSuffix(folder, "/")
	set := map[string]bool{}
	root := filepath.Join("..", folder)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			i := strings.Index(p, "internal/")
			if !strings.HasPrefix(p, "orca/") || i < 0 {
				continue
			}
			pkg := p[i:]
			if pkg == self || strings.HasPrefix(pkg, self+"/") {
				continue
			}
			set[strings.SplitN(strings.TrimPrefix(pkg, "internal/"), "/", 2)[0]] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestReadmeLayout keeps README's Layout table whole: every folder of internal/ is in it.
func TestReadmeLayout(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "\n## Layout")
	if i < 0 {
		t.Fatal("README.md: no \"## Layout\" section")
	}
	layout := s[i:]
	if j := strings.Index(layout[1:], "\n## "); j >= 0 {
		layout = layout[:j+1]
	}
	for _, f := range folders(t) {
		if strings.HasPrefix(f, "internal/") && !strings.Contains(layout, "`"+f+"`") {
			t.Errorf("README.md, Layout: %s is missing: add a row saying what it holds", f)
		}
	}
}

// TestAgentSize keeps agent.md's first line about the agent's size true: the files exactly,
// the lines within 10 % (the agent's .c and .h files, its unit tests aside).
func TestAgentSize(t *testing.T) {
	b, err := os.ReadFile("agent.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`~([0-9][0-9 ]*) lines in ([0-9]+) files`).FindSubmatch(b)
	if m == nil {
		t.Fatal("docs/agent.md: no \"~N lines in M files\" statement of the agent's size")
	}
	saidLines, _ := strconv.Atoi(strings.ReplaceAll(string(m[1]), " ", ""))
	saidFiles, _ := strconv.Atoi(string(m[2]))
	files, lines := 0, 0
	agentSources(t, func(_ string, src []byte) {
		files++
		lines += strings.Count(string(src), "\n")
	})
	if files != saidFiles || lines*10 < saidLines*9 || lines*10 > saidLines*11 {
		t.Errorf("docs/agent.md says the agent is ~%d lines in %d files; it is %d lines in %d files (its unit tests aside)",
			saidLines, saidFiles, lines, files)
	}
}
