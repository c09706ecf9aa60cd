package report

import (
	"fmt"
	"slices"
	"strings"

	"orca/internal/model"
)

// LockHold is how long a lock's holders held it while others waited
// (model.Lock.Hold): from a contended acquisition with others still
// waiting to the next contended acquisition, by a thread its release let
// in. Percentiles are exact for at most model.ExactHolds holds, within
// 1 % above.
type LockHold struct {
	HoldFigures
	// Sites: per call site where the holders took the lock (the stack of
	// their contended enter or acquire), most total hold time first.
	Sites []HoldSite `json:"sites"`
}

// HoldFigures summarise hold times, in seconds.
type HoldFigures struct {
	Count int     `json:"count"`
	MeanS float64 `json:"mean_s"`
	P50S  float64 `json:"p50_s"`
	P99S  float64 `json:"p99_s"`
	MaxS  float64 `json:"max_s"`
}

// HoldSite is the hold times of the holders that took a lock at one site.
type HoldSite struct {
	Frames []string `json:"frames"`
	HoldFigures
}

func holdFigures(f model.HoldFigures) HoldFigures {
	return HoldFigures{Count: f.Count, MeanS: sec(f.Mean()), P50S: sec(f.P50), P99S: sec(f.P99), MaxS: sec(f.Max)}
}

// hold returns the hold times of l, nil when none was measured.
func (b *builder) hold(l *model.Lock) *LockHold {
	if l.Hold == nil {
		return nil
	}
	h := &LockHold{HoldFigures: holdFigures(l.Hold.HoldFigures), Sites: []HoldSite{}}
	for _, s := range l.Hold.Sites {
		h.Sites = append(h.Sites, HoldSite{Frames: b.stack(s.Stack), HoldFigures: holdFigures(s.HoldFigures)})
	}
	return h
}

// holdText prints a lock's hold times: the whole, then the three sites
// that held it longest, each named by its first frame of the program's
// code and that frame's caller (more callers where two sites would read
// alike); one site is said on the same line.
func holdText(t *textWriter, l *Lock) {
	h := l.Hold
	if h == nil {
		return
	}
	line := "     held while others waited: " + holdSummary(h.HoldFigures, true)
	if len(h.Sites) == 1 {
		t.printf("%s, taken at %s\n", line, holdSite(h.Sites[0].Frames, 1))
		return
	}
	t.printf("%s; taken at:\n", line)
	shown := h.Sites[:min(len(h.Sites), 3)]
	names := holdSites(shown)
	for i, s := range shown {
		t.printf("       %s: %s\n", holdSummary(s.HoldFigures, false), names[i])
	}
	if len(h.Sites) > len(shown) {
		t.printf("       ... %s\n", count(len(h.Sites)-len(shown), "more site", "more sites"))
	}
}

// holdSummary says hold times: "1 hold, 50.1 ms", "4 holds, mean 50.3 ms,
// p50 50.2 ms, max 51.0 ms", with the p99 before the max when p99.
func holdSummary(f HoldFigures, p99 bool) string {
	if f.Count == 1 {
		return "1 hold, " + dur(f.MaxS)
	}
	s := fmt.Sprintf("%d holds, mean %s, p50 %s", f.Count, dur(f.MeanS), dur(f.P50S))
	if p99 {
		s += ", p99 " + dur(f.P99S)
	}
	return s + ", max " + dur(f.MaxS)
}

// holdSites names each site with holdSite and one caller; where two
// sites read alike, each also shows the frames where it differs from the
// others that read as it does, outermost first, with "…" for the frames
// passed over: HSQLDB's synchronized ValuePool.getInt, called from two
// places, read as the same "… → ValuePool.getInt" with one caller; H2's
// Sequence.getNext, taken under the same eleven callers from two lines of
// H2Bench$Worker.run, reads "H2Bench$Worker.run(H2Bench.java:154) → … →
// SessionLocal.getNextValueFor(…) → Sequence.getNext(…)", not all twelve.
func holdSites(sites []HoldSite) []string {
	names := make([]string, len(sites))
	next := make([]int, len(sites))
	for i, s := range sites {
		names[i], next[i] = holdSiteNext(s.Frames, 1)
	}
	out := slices.Clone(names)
	for i, s := range sites {
		var alike [][]string
		for j, o := range sites {
			if j != i && names[j] == names[i] {
				alike = append(alike, o.Frames)
			}
		}
		from := next[i]
		for _, d := range differAt(s.Frames, alike, from) {
			if d > from {
				out[i] = "… → " + out[i]
			}
			out[i] = s.Frames[d] + " → " + out[i]
			from = d + 1
		}
	}
	return out
}

// holdSite names a holding site by its first frame of the program's code
// (the top frame when all are the JDK's), after up to callers of that
// frame's callers, outermost first: "App.run(App.java:12) →
// App.update(App.java:40)". A lambda's generated frame says nothing to the
// user and is passed over; a frame of code compiled without line numbers
// ("(Unknown Source)") is a caller like any other.
func holdSite(frames []string, callers int) string {
	name, _ := holdSiteNext(frames, callers)
	return name
}

// holdSiteNext is holdSite, with the index of the first frame after those
// it names.
func holdSiteNext(frames []string, callers int) (string, int) {
	if len(frames) == 0 {
		return "(no stack)", 0
	}
	i := 0
	for j, f := range frames {
		if !isJDK(f) {
			i = j
			break
		}
	}
	name := frames[i]
	k := i + 1
	for ; k < len(frames) && callers > 0; k++ {
		if strings.Contains(frames[k], "$$Lambda") {
			continue
		}
		name = frames[k] + " → " + name
		callers--
	}
	return name, k
}
