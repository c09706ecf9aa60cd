package report

import (
	"fmt"
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
// code and that frame's caller; one site is said on the same line.
func holdText(t *textWriter, l *Lock) {
	h := l.Hold
	if h == nil {
		return
	}
	line := "     held while others waited: " + holdSummary(h.HoldFigures, true)
	if len(h.Sites) == 1 {
		t.printf("%s, taken at %s\n", line, holdSite(h.Sites[0].Frames))
		return
	}
	t.printf("%s; taken at:\n", line)
	for i, s := range h.Sites {
		if i == 3 {
			t.printf("       ... %s\n", count(len(h.Sites)-i, "more site", "more sites"))
			break
		}
		t.printf("       %s: %s\n", holdSummary(s.HoldFigures, false), holdSite(s.Frames))
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

// holdSite names a holding site by its first frame of the program's code
// (the top frame when all are the JDK's), after that frame's caller:
// "App.run(App.java:12) → App.update(App.java:40)".
func holdSite(frames []string) string {
	if len(frames) == 0 {
		return "(no stack)"
	}
	i := 0
	for j, f := range frames {
		if !isJDK(f) {
			i = j
			break
		}
	}
	// The caller: the next frame with a source (a lambda's generated
	// class has none, and says nothing to the user).
	for _, f := range frames[i+1:] {
		if !strings.HasSuffix(f, "(Unknown Source)") {
			return f + " → " + frames[i]
		}
	}
	return frames[i]
}
