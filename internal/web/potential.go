package web

import (
	"strconv"

	"orca/internal/format"
)

// The potential deadlocks (issue 36, item 2): orca report's list
// (report.Report.PotentialDeadlocks, analysis.PotentialDeadlocks of a
// recording made without orca record --lock-order=off), or
// its line saying why there is none, in /api/deadlocks.

// potentialJSON is one cycle of the lock-order graph: Edges[i] wants the
// lock Edges[i+1] holds (the last, the first's).
type potentialJSON struct {
	Edges []orderEdgeJSON `json:"edges"`
}

// orderEdgeJSON is one thread's nesting: it held Held when it blocked on
// Wanted.
type orderEdgeJSON struct {
	threadRefJSON
	At    int64  `json:"at"`    // its first contended enter that made this nesting, ns
	Count int    `json:"count"` // how many of its contended enters made it
	Held  string `json:"held"`
	// HeldClass, WantedClass: the locks' classes as Java names them ("" when unknown).
	HeldClass string `json:"heldClass,omitempty"`
	Wanted    string `json:"wanted"`
	// WantedClass: see HeldClass.
	WantedClass string `json:"wantedClass,omitempty"`
	// HeldBySite, WantedBySite: the graph's node is the lock's class and
	// acquiring site, not the instance (a lock seen in one nesting only).
	HeldBySite   bool `json:"heldBySite,omitempty"`
	WantedBySite bool `json:"wantedBySite,omitempty"`
	// HeldMode, WantedMode: for a java.util.concurrent lock, how it was
	// held or wanted, "shared" (a read lock) or "exclusive", as the
	// report's held_mode and wanted_mode; "" for a monitor.
	HeldMode   string `json:"heldMode,omitempty"`
	WantedMode string `json:"wantedMode,omitempty"`
	// HeldStack: where it held Held, from the frame that took it
	// outwards (empty when not known); WantedStack: where it wanted Wanted.
	HeldStack []frameJSON `json:"heldStack"`
	// HeldStackNote: why HeldStack is empty, as the report's
	// held_stack_note; absent when it is not.
	HeldStackNote string      `json:"heldStackNote,omitempty"`
	WantedStack   []frameJSON `json:"wantedStack"`
}

// potential fills out's potential deadlocks from orca report's.
func (s *site) potential(out *deadlocksJSON) {
	d := s.d
	rep := d.report("")
	out.Potential = []potentialJSON{}
	out.PotentialNote = rep.potentialNote
	frames := func(st []string) []frameJSON {
		out := make([]frameJSON, 0, len(st))
		for _, f := range st {
			out = append(out, frameJSON{f, isJDK(f)})
		}
		return out
	}
	class := func(c *string) string {
		if c == nil {
			return ""
		}
		return format.JavaName(*c)
	}
	for _, p := range rep.potential {
		var j potentialJSON
		for _, e := range p.Edges {
			ref := threadRefJSON{Thread: -1, ID: e.Thread}
			if e.Name != nil {
				ref.Name = *e.Name
			}
			if id, err := strconv.ParseUint(e.Thread, 16, 64); err == nil {
				ref.Thread = d.threadIndex(format.ThreadID(id))
			}
			j.Edges = append(j.Edges, orderEdgeJSON{threadRefJSON: ref, At: int64(e.AtS*1e9 + 0.5), Count: e.Count,
				Held: e.Held, HeldClass: class(e.HeldClass), Wanted: e.Wanted, WantedClass: class(e.WantedClass),
				HeldBySite: e.HeldBySite, WantedBySite: e.WantedBySite, HeldMode: e.HeldMode, WantedMode: e.WantedMode,
				HeldStack: frames(e.HeldStack), HeldStackNote: e.HeldStackNote, WantedStack: frames(e.WantedStack)})
		}
		out.Potential = append(out.Potential, j)
	}
}
