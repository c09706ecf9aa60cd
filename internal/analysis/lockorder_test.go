package analysis

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// nesting is a contended enter of thread th at second at, on wanted,
// owned by thread 0E (a holder outside every cycle), while th held the
// monitors held ("OBJ@DEPTH"), with the stack frames (method ids, the
// innermost first): its lines, the Entered 0.1 s later.
func nesting(at float64, th, wanted string, frames []int, held ...string) string {
	st := fmt.Sprint(len(frames))
	for _, f := range frames {
		st += fmt.Sprintf(";%08X;%08X", f, f)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%g,MonitorContendedEnter,%s,%s,E,%s\n", at, th, wanted, st)
	heldLines(&b, at, th, held)
	fmt.Fprintf(&b, "%g,MonitorContendedEntered,%s,%s,%s\n", at+0.1, th, wanted, st)
	return b.String()
}

// heldLines writes a MonitorHeld line for each "OBJ@DEPTH" of held, a
// LockHeld line for each "OBJ@DEPTH:x" (exclusive) or ":s" (shared): a
// java.util.concurrent lock.
func heldLines(b *strings.Builder, at float64, th string, held []string) {
	for _, h := range held {
		o, d, _ := strings.Cut(h, "@")
		d, mode, juc := strings.Cut(d, ":")
		if !juc {
			fmt.Fprintf(b, "%g,MonitorHeld,%s,%s,%s\n", at, th, o, d)
			continue
		}
		fmt.Fprintf(b, "%g,LockHeld,%s,%s,%s,%s\n", at, th, o, d, map[string]string{"x": "exclusive", "s": "shared"}[mode])
	}
}

// parking is nesting's park in a j.u.c. lock's acquire: on wanted, in
// mode ("exclusive", "shared"), owned by thread 0E.
func parking(at float64, th, wanted, mode string, frames []int, held ...string) string {
	st := fmt.Sprint(len(frames))
	for _, f := range frames {
		st += fmt.Sprintf(";%08X;%08X", f, f)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%g,ThreadPark,%s,%s,E,,%s,%s\n", at, th, wanted, mode, st)
	heldLines(&b, at, th, held)
	fmt.Fprintf(&b, "%g,ThreadUnparked,%s,%s,unparked,0\n", at+0.1, th, wanted)
	return b.String()
}

func TestPotentialDeadlocks(t *testing.T) {
	const threads = "0,ThreadStarted,A,a\n0,ThreadStarted,B,b\n0,ThreadStarted,C,c\n0,ThreadStarted,E,holder\n"
	for _, c := range []struct {
		name, lines string
		want        []string // per cycle: its edges "thread:held->wanted"
	}{
		// A takes 1111 then 2222; later B takes 2222 then 1111.
		{"inversion", nesting(1, "A", "2222", []int{2, 1}, "1111@1") + nesting(2, "B", "1111", []int{4, 3}, "2222@1"),
			[]string{"A:1111->2222 B:2222->1111"}},
		// A's nesting twice, the same way: one edge, made twice.
		{"repeated", nesting(1, "A", "2222", []int{2, 1}, "1111@1") + nesting(1.5, "A", "2222", []int{2, 1}, "1111@1") +
			nesting(2, "B", "1111", []int{4, 3}, "2222@1"),
			[]string{"A:1111->2222x2 B:2222->1111"}},
		// The same inside a gate lock 3333 that both held: none.
		{"gated", nesting(1, "A", "2222", []int{2, 1}, "3333@2", "1111@1") + nesting(2, "B", "1111", []int{4, 3}, "3333@2", "2222@1"),
			nil},
		// A gate held by one of them only guards nothing.
		{"half-gated", nesting(1, "A", "2222", []int{2, 1}, "3333@2", "1111@1") + nesting(2, "B", "1111", []int{4, 3}, "2222@1"),
			[]string{"A:1111->2222 B:2222->1111"}},
		// One thread in both orders: it never waits for itself.
		{"alone", nesting(1, "A", "2222", []int{2, 1}, "1111@1") + nesting(2, "A", "1111", []int{4, 3}, "2222@1"), nil},
		// Both threads in one order.
		{"fixed", nesting(1, "A", "2222", []int{2, 1}, "1111@1") + nesting(2, "B", "2222", []int{2, 1}, "1111@1"), nil},
		// Three threads round three locks.
		{"three", nesting(1, "A", "2222", []int{1}, "1111@0") + nesting(2, "B", "3333", []int{2}, "2222@0") +
			nesting(3, "C", "1111", []int{3}, "3333@0"),
			[]string{"A:1111->2222 B:2222->3333 C:3333->1111"}},
		// Short-lived objects (each seen once) nested in one method in one
		// order by two threads: (class, site) nodes, its first monitor and
		// its second, no self-loop.
		{"fresh", nesting(1, "A", "2001", []int{5}, "1001@0") + nesting(2, "B", "2002", []int{5}, "1002@0"), nil},
		// Short-lived objects in both orders from two methods (5 takes
		// one and calls 6, which wants another; later the other way
		// round): the sites' nodes make the cycle.
		{"fresh-inverted", nesting(1, "A", "2001", []int{6, 5}, "1001@1") + nesting(2, "B", "1002", []int{5, 6}, "2002@1"),
			[]string{"A:1001->2001 B:2002->1002"}},
		// java.util.concurrent locks: A holds 1111 and parks for 2222,
		// B the other way round.
		{"juc", parking(1, "A", "2222", "exclusive", []int{2, 1}, "1111@1:x") + parking(2, "B", "1111", "exclusive", []int{4, 3}, "2222@1:x"),
			[]string{"A:1111->2222 B:2222->1111"}},
		// A holds the monitor 1111 and parks for the lock 2222; B holds
		// 2222 and blocks on 1111.
		{"mixed", parking(1, "A", "2222", "exclusive", []int{2, 1}, "1111@1") + nesting(2, "B", "1111", []int{4, 3}, "2222@1:x"),
			[]string{"A:1111->2222 B:2222->1111"}},
		// A holds 1111's read lock and blocks on 2222; B holds 2222 and
		// parks for 1111's read lock: B would get it, none.
		{"read-read", nesting(1, "A", "2222", []int{2, 1}, "1111@1:s") + parking(2, "B", "1111", "shared", []int{4, 3}, "2222@1"),
			nil},
		// The same with B wanting the write lock: it waits for A's read.
		{"read-write", nesting(1, "A", "2222", []int{2, 1}, "1111@1:s") + parking(2, "B", "1111", "exclusive", []int{4, 3}, "2222@1"),
			[]string{"A:1111->2222 B:2222->1111"}},
		// A gate both held as a read lock: both are inside it at once.
		{"gate-shared", nesting(1, "A", "2222", []int{2, 1}, "3333@2:s", "1111@1") + nesting(2, "B", "1111", []int{4, 3}, "3333@2:s", "2222@1"),
			[]string{"A:1111->2222 B:2222->1111"}},
		// A gate one held as the write lock, the other as the read lock:
		// never inside at once, none.
		{"gate-write", nesting(1, "A", "2222", []int{2, 1}, "3333@2:x", "1111@1") + nesting(2, "B", "1111", []int{4, 3}, "3333@2:s", "2222@1"),
			nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := build(t, threads+c.lines+"5,ThreadEnded,A\n5,ThreadEnded,B\n5,ThreadEnded,C\n5,ThreadEnded,E\n")
			var got []string
			for _, d := range PotentialDeadlocks(m) {
				var es []string
				for _, e := range d.Edges {
					es = append(es, fmt.Sprintf("%X:%X->%X", uint32(e.Thread), uint32(e.Held), uint32(e.Wanted)))
					if e.Count > 1 {
						es[len(es)-1] += fmt.Sprintf("x%d", e.Count)
					}
					if len(e.HeldStack) == 0 || e.HeldStack[0] != m.Stacks[e.WantedStack][len(m.Stacks[e.WantedStack])-len(e.HeldStack)] {
						t.Errorf("edge %+v: want the held stack a suffix of the wanted one", e)
					}
				}
				got = append(got, strings.Join(es, " "))
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("potential deadlocks %q, want %q", got, c.want)
			}
		})
	}
}
