package format

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite agent/core/events.h")

// TestCHeaderUpToDate fails when agent/core/events.h drifts from the Go table.
func TestCHeaderUpToDate(t *testing.T) {
	const path = "../../agent/core/events.h"
	want := CHeader()
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `make gen`", path)
	}
}

func TestKindNames(t *testing.T) {
	if len(KindByName) != int(NumKinds)-1 {
		t.Fatalf("KindByName has %d names, want %d", len(KindByName), NumKinds-1)
	}
	for name, k := range KindByName {
		if k.String() != name {
			t.Errorf("%s: String() = %s", name, k.String())
		}
		if !k.Has(FThread) {
			t.Errorf("%s has no thread field", name)
		}
	}
	if upperSnake("MonitorContendedEnter") != "MONITOR_CONTENDED_ENTER" {
		t.Error(upperSnake("MonitorContendedEnter"))
	}
}

// TestTextFields checks what the agent's writer assumes of the fields it
// takes from a record's text bytes (ORCA_F_TEXT): one a kind at most, after
// the thread, object, target and owner, before the mode and the stack.
func TestTextFields(t *testing.T) {
	for k := Kind(1); k < NumKinds; k++ {
		n, pos := 0, -1
		for i, f := range Specs[k].Fields {
			for _, tf := range TextFields {
				if f == tf {
					n, pos = n+1, i
				}
			}
		}
		if n > 1 {
			t.Errorf("%s has %d text fields, the agent writes one", k, n)
		}
		for i, f := range Specs[k].Fields {
			if pos >= 0 && (i > pos && f != FStack && f != FMode || i < pos && (f == FStack || f == FMode)) {
				t.Errorf("%s: field %d is out of the agent's order (thread, object, owner, text, mode, stack)", k, f)
			}
		}
	}
	if !ThreadEnded.Seed() || ThreadPark.Seed() || Kind(0).Seed() {
		t.Error("Seed")
	}
	for p := ParkEnd(0); p < NumParkEnds; p++ {
		if q, ok := ParseParkEnd(p.String()); !ok || q != p {
			t.Errorf("ParseParkEnd(%q) = %v, %v", p.String(), q, ok)
		}
	}
}

// TestPairs checks the begin/end pairs of the event table: each end names
// its begin, and carries the begin's object or target.
func TestPairs(t *testing.T) {
	want := map[Kind]Kind{ObjectWait: ObjectWaited, MonitorContendedEnter: MonitorContendedEntered,
		ThreadSleep: ThreadSlept, ThreadJoin: ThreadJoined, SemaphoreAcquire: SemaphoreAcquired,
		ThreadPark: ThreadUnparked}
	for k := Kind(0); k <= NumKinds; k++ {
		if got := k.End(); got != want[k] {
			t.Errorf("%s.End() = %s, want %s", k, got, want[k])
		}
		if e := k.End(); e != KindNone {
			if e.Begin() != k {
				t.Errorf("%s.Begin() = %s, want %s", e, e.Begin(), k)
			}
			for _, f := range []Field{FObject, FTarget} {
				if k.Has(f) != e.Has(f) {
					t.Errorf("%s and %s differ in field %d", k, e, f)
				}
			}
		}
		if b := k.Begin(); b != KindNone && b.End() != k {
			t.Errorf("%s.Begin() = %s, whose End is %s", k, b, b.End())
		}
	}
}

// agentSources returns the agent modules' .c and .h files (agent/MODULE/)
// but the generated header.
func agentSources(t *testing.T) map[string]string {
	t.Helper()
	paths, err := filepath.Glob("../../agent/*/*.[ch]")
	if err != nil || len(paths) == 0 {
		t.Fatalf("agent sources: %v (%d files)", err, len(paths))
	}
	src := map[string]string{}
	for _, p := range paths {
		if filepath.Base(p) == "events.h" || filepath.Base(filepath.Dir(p)) == "test" {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		src[filepath.Base(p)] = string(b)
	}
	return src
}

// TestAgentUsesGeneratedVersions fails when the agent spells the format
// or its version itself instead of using ORCA_FORMAT and ORCA_VERSION.
func TestAgentUsesGeneratedVersions(t *testing.T) {
	lit := regexp.MustCompile(`"[^"\n]*(` + regexp.QuoteMeta(Version) + `|` + regexp.QuoteMeta(AgentVersion) + `)[^"\n]*"|#define\s+ORCA_(FORMAT|VERSION)\b`)
	for name, s := range agentSources(t) {
		for _, m := range lit.FindAllString(s, -1) {
			t.Errorf("agent/%s: %s: the format and agent versions live in internal/format (ORCA_FORMAT, ORCA_VERSION in events.h)", name, m)
		}
	}
}

// TestAgentInfoKeys fails when the agent spells a .info key itself: every
// key in C is an ORCA_INFO_* macro of the generated header (agent/core/events.h,
// from InfoKeys and InfoPrefixes), so a key added in C must be added to the
// table (and to docs/format.md). It looks for keys in string literals ("key=",
// also after a \n), for literals given to counters_prop or as a counter's
// key (agent/core/counters.c), and for ORCA_INFO_ macros the header lacks.
func TestAgentInfoKeys(t *testing.T) {
	header, err := os.ReadFile("../../agent/core/events.h")
	if err != nil {
		t.Fatal(err)
	}
	defined := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#define (ORCA_INFO_\w+) `).FindAllStringSubmatch(string(header), -1) {
		defined[m[1]] = true
	}
	literal := regexp.MustCompile(`"((?:[^"\\\n]|\\.)*)"`)
	keyInText := regexp.MustCompile(`(?:^|\\n)([a-z][a-z_.]*(?:%s)?)=`)
	propLiteral := regexp.MustCompile(`\b(?:counters_prop|writer_prop|prop|java_prop)\((?:env, )?"`)
	specLiteral := regexp.MustCompile(`\{\s*"[^"]*"\s*,\s*CNT_`)
	macro := regexp.MustCompile(`\bORCA_INFO_\w+`)
	used := 0
	for name, s := range agentSources(t) {
		if name == "options.c" { // the agent's options ("depth=16"), not .info keys
			continue
		}
		for i, line := range strings.Split(s, "\n") {
			code := line
			if c := strings.Index(code, "//"); c >= 0 && !strings.Contains(code[:c], `"`) {
				code = code[:c]
			}
			for _, m := range literal.FindAllStringSubmatch(code, -1) {
				for _, k := range keyInText.FindAllStringSubmatch(m[1], -1) {
					t.Errorf("agent/%s:%d: .info key %q spelled as a literal: use its ORCA_INFO_ macro (make gen)", name, i+1, k[1])
				}
			}
			if propLiteral.MatchString(code) || specLiteral.MatchString(code) {
				t.Errorf("agent/%s:%d: a .info key spelled as a literal: use its ORCA_INFO_ macro: %s", name, i+1, strings.TrimSpace(line))
			}
			for _, m := range macro.FindAllString(code, -1) {
				used++
				if !defined[m] {
					t.Errorf("agent/%s:%d: %s is not generated into agent/core/events.h (internal/format/info.go)", name, i+1, m)
				}
			}
		}
	}
	if used < 40 {
		t.Errorf("found %d uses of ORCA_INFO_ macros in the agent: the patterns no longer match its code", used)
	}
}

// TestInfoKeysDocumented fails when a key of the table is not described in
// docs/format.md (or docs/jfr.md, for the import's).
func TestInfoKeysDocumented(t *testing.T) {
	var docs string
	for _, p := range []string{"../../docs/format.md", "../../docs/jfr.md"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs += string(b)
	}
	for _, k := range InfoKeys {
		if !strings.Contains(docs, "`"+k+"`") {
			t.Errorf(".info key %q is not in docs/format.md or docs/jfr.md", k)
		}
	}
	for _, p := range InfoPrefixes {
		if !strings.Contains(docs, "`"+p) {
			t.Errorf(".info keys %q… are not in docs/format.md or docs/jfr.md", p)
		}
	}
}
