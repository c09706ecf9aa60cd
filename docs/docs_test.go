// Package docs holds the project's documents; its tests keep them in shape: PERFORMANCE.md short
// enough to show the present, and every link between the repository's Markdown files working.
package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// maxPerformanceLines bounds docs/PERFORMANCE.md (issue 22): it holds the current numbers and
// how to reproduce them; earlier measurements move to docs/perf/.
const maxPerformanceLines = 500

func TestPerformanceLength(t *testing.T) {
	b, err := os.ReadFile("PERFORMANCE.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n > maxPerformanceLines {
		t.Errorf("docs/PERFORMANCE.md: %d lines, want at most %d: move what is no longer current, unchanged, to a dated file under docs/perf/ (docs/perf/README.md lists them) and link to it",
			n, maxPerformanceLines)
	}
	// A line bounded too: the history had been piled onto the lines of
	// the current numbers (one line of issue 34's was 32 kB) to keep under
	// the count.
	for i, line := range strings.Split(string(b), "\n") {
		if len(line) > maxPerformanceLine {
			t.Errorf("docs/PERFORMANCE.md:%d: %d bytes, want at most %d: keep the current numbers on the line, move the history, unchanged, to docs/perf/ and link to it",
				i+1, len(line), maxPerformanceLine)
		}
	}
}

// maxPerformanceLine bounds a line of docs/PERFORMANCE.md: about a screen
// of text.
const maxPerformanceLine = 2000

// markdownFiles are the documents whose links are checked, relative to docs/.
func markdownFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"../README.md"}
	for _, g := range []string{"*.md", "perf/*.md"} {
		m, err := filepath.Glob(g)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	return files
}

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	headingRE = regexp.MustCompile(`^#{1,6} (.*)`)
	mdLinkRE  = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	schemeRE  = regexp.MustCompile(`^[a-z]+:`)
)

// slug is a heading's anchor as GitHub makes it: lower case, letters, digits, '-' and '_' kept,
// spaces made '-', everything else dropped.
func slug(h string) string {
	h = strings.ToLower(strings.TrimSpace(mdLinkRE.ReplaceAllString(h, "$1")))
	var b strings.Builder
	for _, r := range h {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// lines returns a Markdown file's lines outside fenced code blocks.
func lines(text string) []string {
	var out []string
	fenced := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, l)
		}
	}
	return out
}

// anchors returns the anchors of a Markdown file's headings (a repeated heading gets -1, -2, …).
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range lines(text) {
		m := headingRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := slug(m[1])
		if n := seen[a]; n > 0 {
			out[a+"-"+strconv.Itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

// TestLinks checks every relative link of README.md, docs/*.md and docs/perf/*.md: the file it
// names exists, and a #fragment into a Markdown file names one of its headings. A section moved
// to docs/perf/ without fixing the links to it fails here.
func TestLinks(t *testing.T) {
	texts := map[string]string{}
	read := func(p string) (string, bool) {
		if s, ok := texts[p]; ok {
			return s, true
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return "", false
		}
		texts[p] = string(b)
		return texts[p], true
	}
	for _, f := range markdownFiles(t) {
		text, ok := read(f)
		if !ok {
			t.Fatalf("reading %s", f)
		}
		fenced := false
		for i, l := range strings.Split(text, "\n") {
			if strings.HasPrefix(l, "```") {
				fenced = !fenced
			}
			if fenced {
				continue
			}
			for _, m := range linkRE.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if schemeRE.MatchString(target) {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := f
				if path != "" {
					file = filepath.Join(filepath.Dir(f), path)
				}
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: link %s: no file %s", f, i+1, target, file)
					continue
				}
				if frag == "" || !strings.HasSuffix(file, ".md") {
					continue
				}
				s, _ := read(file)
				if !anchors(s)[frag] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", f, i+1, target, file, frag)
				}
			}
		}
	}
}
