package model_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/testrec"
)

// snapshotEvents is a snapshot like orca threads' (every event at one
// instant): A holds ReentrantLock sync BEEF, virtual threads 101-105 park
// on it at one stack, 106 at another, 107 runs on carrier A; extra lines
// follow.
func snapshotEvents(extra ...string) string {
	const at = "5.0000000000"
	lines := []string{
		at + ",ThreadStarted,0000000A,a",
		at + ",ObjectClass,0000000A,0000BEEF,Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;",
		at + ",Sample,0000000A,cpu,1,1;00000003;00000040",
	}
	for v := 0x101; v <= 0x107; v++ {
		id := fmt.Sprintf("%08X", v)
		lines = append(lines, at+",ThreadStarted,"+id+",virtual-"+fmt.Sprint(v))
		switch {
		case v <= 0x105:
			lines = append(lines, at+",ThreadPark,"+id+",0000BEEF,0000000A,,3;00000001;FFFFFFFF;00000002;00000010;00000003;00000020",
				at+",VirtualThreadMounted,"+id+",00000000")
		case v == 0x106:
			lines = append(lines, at+",ThreadPark,"+id+",0000BEEF,0000000A,,3;00000001;FFFFFFFF;00000002;00000010;00000003;00000030",
				at+",VirtualThreadMounted,"+id+",00000000")
		default:
			lines = append(lines, at+",Sample,"+id+",cpu,1,1;00000003;00000050",
				at+",VirtualThreadMounted,"+id+",0000000A")
		}
	}
	return strings.Join(append(lines, extra...), "\n") + "\n"
}

func buildSnapshot(t *testing.T, events string, collapse bool) *model.Result {
	t.Helper()
	ar := testrec.Parse(t, "testdata/cases/juc-lock.txtar") // its methods and classes
	for i, f := range ar.Files {
		if f.Name == "orca" {
			ar.Files[i].Data = []byte(events)
		}
	}
	ar.Files = slices.DeleteFunc(ar.Files, func(f txtar.File) bool { return f.Name == "expect" })
	prefix := filepath.Join(t.TempDir(), "snap")
	testrec.Write(t, ar, prefix)
	_, res := testrec.OpenWith(t, prefix, model.Options{NoEdges: true, NoLockFigures: true, Collapse: collapse})
	return res
}

// TestCollapse: Options.Collapse folds 101 and 106 and leaves 102-105 out
// (each repeats 101's run), and the Model says of every thread it has
// what the Model of all of them says, and of each left out what it says
// of 101; the wait-for graph at the end is the same but for the threads
// left out.
func TestCollapse(t *testing.T) {
	events := snapshotEvents()
	all, col := buildSnapshot(t, events, false), buildSnapshot(t, events, true)
	if len(all.Collapsed) != 0 {
		t.Fatalf("without Collapse: %d left out", len(all.Collapsed))
	}
	var left []string
	for _, c := range col.Collapsed {
		left = append(left, fmt.Sprintf("%v=%s<%v", c.ID, c.Name, c.Rep))
	}
	want := "[00000102=virtual-258<00000101 00000103=virtual-259<00000101 00000104=virtual-260<00000101 00000105=virtual-261<00000101]"
	if fmt.Sprint(left) != want {
		t.Fatalf("left out %v, want %s", left, want)
	}
	ma, mc := all.Model, col.Model
	if len(mc.Threads) != len(ma.Threads)-4 || ma.End != mc.End {
		t.Fatalf("%d threads to %v with Collapse, %d to %v without", len(mc.Threads), mc.End, len(ma.Threads), ma.End)
	}
	rep := map[format.ThreadID]format.ThreadID{}
	for _, c := range col.Collapsed {
		rep[c.ID] = c.Rep
	}
	describe := func(m *model.Model, t *model.Thread, id format.ThreadID) string {
		s := fmt.Sprintf("%v virtual=%v ended=%v %v..%v samples=%d", id, t.Virtual, t.Ended, t.Start, t.End, len(t.Samples))
		for _, iv := range t.Intervals {
			iv.Start -= m.Start
			iv.End -= m.Start
			iv.Since -= m.Start
			s += fmt.Sprintf(" %+v", iv)
		}
		return s
	}
	for _, t0 := range ma.Threads {
		src := t0.ID
		if r, ok := rep[src]; ok {
			src = r
		}
		t1 := mc.Thread(src)
		if t1 == nil {
			t.Fatalf("%v: not in the Model with Collapse", src)
		}
		if a, c := describe(ma, t0, t0.ID), describe(mc, t1, t0.ID); a != c {
			t.Errorf("thread %v:\n  all:      %s\n  collapse: %s", t0.ID, a, c)
		}
	}
	ga, gc := ma.WaitGraphAt(ma.End), mc.WaitGraphAt(mc.End)
	var waits []model.Wait
	for _, w := range ga.Waits {
		if _, ok := rep[w.Thread]; !ok {
			waits = append(waits, w)
		}
	}
	if fmt.Sprint(waits) != fmt.Sprint(gc.Waits) || len(gc.Waits) != 2 || fmt.Sprint(ga.Cycles) != fmt.Sprint(gc.Cycles) {
		t.Errorf("the graph at the end: %+v %v with Collapse, %+v %v without (those left out taken out)", gc.Waits, gc.Cycles, waits, ga.Cycles)
	}
}

// TestCollapseGivesUp: a thread left out that an event names (the owner
// of a lock another parks on), or a thread whose events are not one run,
// makes Build fold every thread.
func TestCollapseGivesUp(t *testing.T) {
	for name, extra := range map[string]string{
		"named":  "5.0000000000,ThreadPark,0000000A,0000F00D,00000103,,3;00000001;FFFFFFFF;00000002;00000010;00000003;00000020",
		"runs":   "5.0000000000,Sample,00000104,cpu,1,1;00000003;00000050",
		"repeat": "5.0000000000,Sample,00000101,cpu,1,1;00000003;00000050",
	} {
		res := buildSnapshot(t, snapshotEvents(extra), true)
		if len(res.Collapsed) != 0 || len(res.Model.Threads) != 8 {
			t.Errorf("%s: %d left out, %d threads in the Model; want 0 and 8", name, len(res.Collapsed), len(res.Model.Threads))
		}
	}
}
