package report

import (
	"cmp"
	"fmt"
	"strings"

	"orca/internal/analysis"
	"orca/internal/format"
)

// PotentialDeadlock is a cycle of the lock-order graph
// (analysis.PotentialDeadlocks): no deadlock happened, but the threads of
// its edges, each holding one lock and wanting the next, would deadlock if
// their nestings ran at once. Edges[i] wants the lock Edges[i+1] holds
// (the last, the first's).
type PotentialDeadlock struct {
	Edges []OrderEdge `json:"edges"`
}

// OrderEdge is one thread's nesting in a potential deadlock: it held Held
// (taken in HeldStack's first frame) when it blocked on Wanted (at
// WantedStack).
type OrderEdge struct {
	Thread string  `json:"thread"`
	Name   *string `json:"name"`
	AtS    float64 `json:"at_s"`  // its first contended enter that made this nesting
	Count  int     `json:"count"` // how many of its contended enters made it
	Held   string  `json:"held"`
	// HeldClass, WantedClass: the locks' class signatures; null when unknown.
	HeldClass *string `json:"held_class"`
	Wanted    string  `json:"wanted"`
	// WantedClass: see HeldClass.
	WantedClass *string `json:"wanted_class"`
	// HeldBySite, WantedBySite: the graph's node is the lock's class and
	// site, not the instance (a lock seen in one contended nesting only:
	// Held or Wanted is the one instance seen there).
	HeldBySite   bool `json:"held_by_site,omitempty"`
	WantedBySite bool `json:"wanted_by_site,omitempty"`
	// HeldStack: where it held Held, from the frame that took it outwards
	// (that frame at the line it had reached); empty when not known.
	HeldStack []string `json:"held_stack"`
	// HeldStackNote: why HeldStack is empty (a monitor entered through
	// JNI, a frame deeper than the recorded stack, a j.u.c. lock whose
	// frame is not known); absent when it is not.
	HeldStackNote string   `json:"held_stack_note,omitempty"`
	WantedStack   []string `json:"wanted_stack"`
	// HeldMode, WantedMode: for a java.util.concurrent lock, how the thread
	// held or wanted it: "exclusive" (a ReentrantLock, a write lock) or
	// "shared" (a read lock); absent for a monitor.
	HeldMode   string `json:"held_mode,omitempty"`
	WantedMode string `json:"wanted_mode,omitempty"`
}

// potentialDeadlocks lists analysis.PotentialDeadlocks, those with a
// matching thread.
func (b *builder) potentialDeadlocks() []PotentialDeadlock {
	out := []PotentialDeadlock{}
	for _, d := range analysis.PotentialDeadlocks(b.m) {
		keep := false
		for _, e := range d.Edges {
			keep = keep || b.matches(e.Thread)
		}
		if !keep {
			continue
		}
		var r PotentialDeadlock
		for _, e := range d.Edges {
			held := []string{}
			for _, fr := range e.HeldStack {
				held = append(held, b.rec.Resolve(fr))
			}
			r.Edges = append(r.Edges, OrderEdge{Thread: e.Thread.String(), Name: b.name(e.Thread), AtS: b.rel(e.At), Count: e.Count,
				Held: e.Held.String(), HeldClass: nonEmptyClass(e.HeldClass), Wanted: e.Wanted.String(),
				WantedClass: nonEmptyClass(e.WantedClass), HeldBySite: e.HeldBySite, WantedBySite: e.WantedBySite,
				HeldStack: held, HeldStackNote: e.HeldNote, WantedStack: b.stack(e.WantedStack), HeldMode: e.HeldMode.String(), WantedMode: e.WantedMode.String()})
		}
		out = append(out, r)
	}
	return out
}

func nonEmptyClass(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

// PotentialNote is what the report says in place of a list of potential
// deadlocks when it has none: that none were found, or that they were
// not looked for and why (the recording does not say what threads held
// at their contended enters: .info held_monitors not "yes"); "" when it
// has some, or says nothing (a recording without .info held_monitors).
// orca view shows the same line.
func (r *Report) PotentialNote() string {
	switch {
	case len(r.PotentialDeadlocks) > 0:
		return ""
	case r.heldMonitors == "yes":
		return "No potential deadlocks: no two threads nested contended monitors in opposite orders."
	case strings.HasPrefix(r.heldMonitors, "no: off (orca record --lock-order=off"):
		// A recording of the orca whose default was lockorder=monitors,
		// made with --lock-order=off.
		return "Potential deadlocks: not looked for (recorded with orca record --lock-order=off)."
	case strings.HasPrefix(r.heldMonitors, "no: off"):
		// The default (off: the held monitors' call runs while the
		// thread holds them).
		return "Potential deadlocks: not looked for (orca record --lock-order looks for them)."
	case r.heldMonitors != "":
		return fmt.Sprintf("Potential deadlocks: not looked for (held_monitors: %s).", r.heldMonitors)
	}
	return ""
}

// potentialSection prints the potential deadlocks, when the recording
// lists what threads held at their contended enters (.info held_monitors):
// else nothing, or why they were not looked for (PotentialNote).
func (r *Report) potentialSection(t *textWriter) {
	if len(r.PotentialDeadlocks) == 0 {
		if note := r.PotentialNote(); note != "" {
			t.section("%s", note)
		}
		return
	}
	t.section("POTENTIAL DEADLOCKS: %d (lock-order inversions: none deadlocked, but these nestings would if they ran at once)",
		len(r.PotentialDeadlocks))
	for i, d := range r.PotentialDeadlocks {
		t.printf("  #%d\n", i+1)
		for _, e := range d.Edges {
			times := ""
			if e.Count > 1 {
				times = " (" + count(e.Count, "time", "times") + ")"
			}
			t.printf("    %s held %s%s and wanted %s%s at %s%s\n", t.label(e.Thread, e.Name), t.named(e.Held, e.HeldClass, ""),
				modeWord(e.HeldMode), t.named(e.Wanted, e.WantedClass, ""), modeWord(e.WantedMode), at(e.AtS), times)
			t.printf("      held it in:\n")
			if len(e.HeldStack) == 0 {
				t.printf("        (%s)\n", cmp.Or(e.HeldStackNote, "not known"))
			} else {
				t.frames("        ", e.HeldStack)
			}
			t.printf("      wanted at:\n")
			t.frames("        ", e.WantedStack)
		}
	}
}

// modeWord says how a j.u.c. lock was held or wanted, "" for a monitor.
func modeWord(mode string) string {
	switch mode {
	case "shared":
		return " (shared: a read lock)"
	case "exclusive":
		return " (exclusive)"
	}
	return ""
}

// heldMonitorsFact is .info held_monitors ("" when absent).
func heldMonitorsFact(info map[string]string) string { return info[format.InfoHeldMonitors] }
