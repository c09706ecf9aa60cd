package report

import (
	"strings"
	"testing"
)

// TestInitWaitWords: a thread blocked on the JVM's init lock of a class (a wait the agent found
// still open, or a contended enter of that lock) is told as waiting for the class's
// initialisation, run by its owner, in DEADLOCKS and HANGS (waitsFor) and in the chains
// (linkWord) — never as "blocked on monitor int[] … held by" (h153).
func TestInitWaitWords(t *testing.T) {
	tw := &textWriter{inits: map[string]string{"1DBF8634": "LFoo$B;", "0000BEEF": ""}}
	obj, other, name := "1DBF8634", "5679C6C6", "dlB"
	cls := "[I"
	got := tw.waitsFor("blocked", false, &obj, &cls, "", other, &name)
	want := `waiting for the initialisation of class Foo$B (the JVM's init lock, int[] 1DBF8634), run by "dlB" (5679C6C6)`
	if got != want {
		t.Errorf("waitsFor: %q, want %q", got, want)
	}
	none := "0000BEEF"
	if got := tw.waitsFor("blocked", false, &none, &cls, "", "", nil); !strings.Contains(got, "no frame named the class") || !strings.HasSuffix(got, "(initialiser unknown)") {
		t.Errorf("waitsFor, no class, no owner: %q", got)
	}
	plain := "00C0FFEE"
	if got := tw.waitsFor("blocked", false, &plain, &cls, "", other, &name); !strings.HasPrefix(got, "blocked on monitor int[] 00C0FFEE held by") {
		t.Errorf("waitsFor, an application's int[]: %q", got)
	}
	if got := tw.linkWord(ChainLink{How: "monitor", Object: &obj, Class: &cls}); got != `waiting for the initialisation of class Foo$B (the JVM's init lock, int[] 1DBF8634), run by` {
		t.Errorf("linkWord: %q", got)
	}
}
