package reader

import (
	"fmt"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"orca/internal/format"
)

// TestReopen: a recording reopened as its agent appends to .methods and
// .classtable (Reopen: the pusher's, every push) has the tables, the
// class names and the warnings (their lines in the file) that Open
// gives of the same files: a last line cut short read whole the next
// time, a native method demangled once its class arrives, a quoted
// field (a record that may span lines), a malformed line, a file
// replaced by a shorter one. It fails with Reopen parsing from the end
// of what was read (the cut line lost) or not adding to the tables.
func TestReopen(t *testing.T) {
	var methods, classes strings.Builder
	for i := 1; i <= 300; i++ {
		fmt.Fprintf(&classes, "1.%010d,C%07x,Lpkg/Class%d;,Class%d.java\n", i, i, i, i)
		fmt.Fprintf(&methods, "1.%010d,%08x,run%d,()V,C%07x,0:%d\n", i, i, i, i, i)
		if i%50 == 0 {
			fmt.Fprintf(&methods, "1.%010d,zz,bad\n", i) // malformed
		}
		if i == 250 {
			fmt.Fprintf(&methods, "1.%010d,%08x,\"quoted, %d\",()V,C%07x,-1\n", i, 0x10000+i, i, i)
		}
	}
	// Native methods before their class (demangled once it arrives).
	fmt.Fprintf(&methods, "2.0000000000,%08x,_ZN13ObjectMonitor5enterEP10JavaThread,,C7000001,-1\n", 0x20000)
	fmt.Fprintf(&classes, "2.0000000000,C7000001,<native:libjvm.so>,\n")
	m, c := methods.String(), classes.String()

	prefix := t.TempDir() + "/rec"
	if err := os.WriteFile(prefix+format.SuffixEvents, []byte(format.CompactHeader), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(suffix, s string) {
		f, err := os.OpenFile(prefix+suffix, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	var rec *Recording
	steps := []struct{ m, c int }{{len(m) / 3, len(c) / 4}, {len(m)/3 + 7, len(c) / 2}, {len(m) * 2 / 3, len(c) / 2},
		{len(m) - 40, len(c) - 10}, {len(m), len(c)}, {len(m), len(c)}}
	for i, st := range steps {
		// Appended, as the agent does (the same file).
		write(format.SuffixMethods, m[:st.m])
		write(format.SuffixClasses, c[:st.c])
		want, err := Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		if rec == nil {
			rec = want
			want, _ = Open(prefix)
		} else if rec, err = Reopen(rec); err != nil {
			t.Fatal(err)
		}
		sameRecording(t, fmt.Sprintf("step %d", i+1), rec, want)
	}
	// Replaced by a shorter file: read whole.
	os.Remove(prefix + format.SuffixMethods)
	write(format.SuffixMethods, m[:len(m)/5])
	want, err := Open(prefix)
	if err != nil {
		t.Fatal(err)
	}
	if rec, err = Reopen(rec); err != nil {
		t.Fatal(err)
	}
	sameRecording(t, "replaced", rec, want)
	if len(rec.Methods) >= 100 {
		t.Errorf("replaced by a fifth: %d methods", len(rec.Methods))
	}
}

func sameRecording(t *testing.T, what string, got, want *Recording) {
	t.Helper()
	if len(got.Methods) != len(want.Methods) || len(got.Classes) != len(want.Classes) {
		t.Fatalf("%s: %d methods, %d classes; Open: %d, %d", what, len(got.Methods), len(got.Classes), len(want.Methods), len(want.Classes))
	}
	for id, wm := range want.Methods {
		if gm := got.Methods[id]; gm == nil || !reflect.DeepEqual(*gm, *wm) {
			t.Errorf("%s: method %x: %+v; Open: %+v", what, id, gm, wm)
		} else if g, w := got.ClassName(id), want.ClassName(id); g != w {
			t.Errorf("%s: method %x's class %q; Open: %q", what, id, g, w)
		}
	}
	for id, wc := range want.Classes {
		if gc := got.Classes[id]; gc == nil || *gc != *wc {
			t.Errorf("%s: class %x: %+v; Open: %+v", what, id, gc, wc)
		}
	}
	g, w := slices.Sorted(slices.Values(got.Warnings)), slices.Sorted(slices.Values(want.Warnings))
	if !slices.Equal(g, w) {
		t.Errorf("%s: warnings\n%s\nOpen's:\n%s", what, strings.Join(g, "\n"), strings.Join(w, "\n"))
	}
}
