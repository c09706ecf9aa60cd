package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// TestThreadsJSON: writeJSON writes what encoding/json's Encoder does, on
// a view with every field set and names that need escaping (quotes, HTML,
// control characters, non-ASCII, invalid UTF-8), nil and empty lists; but
// C1 control characters, which encoding/json writes raw, escaped (termjson).
func TestThreadsJSON(t *testing.T) {
	obj := &nowObject{Object: "00AD538E", Class: "java.util.concurrent.locks.ReentrantLock$NonfairSync", Kind: "juc_lock"}
	names := []string{"plain", `q"uote\back`, "<html>&amp;", "a<b", "a>b", "tab\tnl\n\x01", "ünïcødé ✓", "bad\xff\xfeutf8", "line\u2028sep", "csi\u009b1m", ""}
	var refs []nowRef
	for i, n := range names {
		refs = append(refs, nowRef{ID: "0000000" + string(rune('A'+i)), Name: n})
	}
	th := &nowThread{ID: "00000001", Name: "<t>", State: "parked", WaitsOn: obj, WaitsFor: &refs[1], Holds: []nowObject{*obj}, Stack: []string{"a.B.c(B.java:1)"}}
	for _, v := range []*threadsView{
		{PID: 42, Command: "Main <&>", Java: "25.0.3", Threads: 3, Platform: 1, Virtual: 2, TookS: 0.125, AgentMS: "12.5",
			Deadlocks: []nowDeadlock{{Kind: "juc", Threads: []*nowThread{th}, Behind: refs}},
			Chains: []nowChain{{Root: "00000002", RootName: "r\"oot", RootState: "sleeping", Threads: refs,
				Links: []nowLink{{On: *obj, For: refs[0], Threads: 8}}}, {Root: "3", Threads: nil, Links: []nowLink{}}, {Root: "4", Threads: []nowRef{}}},
			List:    []*nowThread{th, {ID: "00000005", Name: "second", State: "runnable", Stack: []string{}}},
			Groups:  []*nowGroup{{Count: 8, State: "parked", WaitsOn: obj, WaitsFor: &refs[2], Stack: []string{"x"}, Threads: refs}, {Count: 0, State: "runnable", Stack: []string{}, Threads: nil}},
			Skipped: 3, Dropped: 4, Unseen: "why <not>"},
		{PID: 1, Deadlocks: []nowDeadlock{}, Chains: []nowChain{}, List: []*nowThread{}, Groups: []*nowGroup{}},
		{PID: 1},
	} {
		var want, got bytes.Buffer
		if err := json.NewEncoder(&want).Encode(v); err != nil {
			t.Fatal(err)
		}
		wantS := strings.ReplaceAll(want.String(), "\u009b", `\u009b`)
		bw := bufio.NewWriter(&got)
		if err := v.writeJSON(bw); err != nil {
			t.Fatal(err)
		}
		bw.Flush()
		if got.String() != wantS {
			t.Errorf("writeJSON:\n%s\nencoding/json:\n%s", got.String(), wantS)
		}
		got.Reset()
		if err := v.writeJSON(&got); err != nil { // not a bufio.Writer
			t.Fatal(err)
		}
		if got.String() != wantS {
			t.Errorf("writeJSON to a bytes.Buffer:\n%s\nencoding/json:\n%s", got.String(), wantS)
		}
	}
}

// TestThreadsJSONDocumented: orca threads --json's fields (took_s, agent_ms, waits_on,
// waits_for, holds, links, monitor_unread, ...) were named nowhere but in help threads' list of
// four. docs/attach.md's "orca threads --json" names every json tag of threadsView and what
// it holds.
func TestThreadsJSONDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/attach.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "### `orca threads --json`")
	if i < 0 {
		t.Fatal("docs/attach.md: no section \"### `orca threads --json`\"")
	}
	doc = doc[i:]
	if j := strings.Index(doc[4:], "\n#"); j >= 0 {
		doc = doc[:j+4]
	}
	seen := map[reflect.Type]bool{}
	var walk func(ty reflect.Type)
	walk = func(ty reflect.Type) {
		for ty.Kind() == reflect.Pointer || ty.Kind() == reflect.Slice {
			ty = ty.Elem()
		}
		if ty.Kind() != reflect.Struct || seen[ty] {
			return
		}
		seen[ty] = true
		for k := range ty.NumField() {
			f := ty.Field(k)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
				continue
			}
			if !strings.Contains(doc, "`"+name+"`") {
				t.Errorf("docs/attach.md, orca threads --json: the field %s (%s.%s) is not named", name, ty.Name(), f.Name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeOf(threadsView{}))
}
