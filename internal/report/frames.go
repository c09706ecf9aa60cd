package report

import (
	"fmt"
	"slices"
	"strings"

	"orca/internal/analysis"
	"orca/internal/model"
)

// maxFrames is how many frames the text report shows per stack.
const maxFrames = 5

// isJDK reports whether a resolved frame is in a JDK class (the text
// report may elide those).
func isJDK(frame string) bool { return analysis.IsJDK(frame) }

// compact picks the frames the text report shows, innermost first:
// the top frame always (it says what the thread is doing: wait, sleep,
// acquire); then, when JDK frames follow it, they are folded into one
// "... N JDK frames" line up to the first application frame, which answers
// "where in my code", except the call of a java.util.concurrent class that
// blocked the thread (model.CallIndex: ArrayBlockingQueue.put), shown
// between; then the frames after it, up to maxFrames frames shown in all,
// and "... N more frames" for the rest. A stack of JDK frames only is
// shown from the top (from its call, when it has one). JSON always has
// every frame.
func compact(frames []string) []string {
	out, _ := compactTail(frames)
	return out
}

// compactTail is compact, with the index of the first frame of the
// "... N more frames" line at its end (len(frames) when none).
func compactTail(frames []string) ([]string, int) {
	if len(frames) == 0 {
		return []string{"(no stack)"}, 0
	}
	out := []string{frames[0]}
	fold := func(n int) {
		if n > 0 {
			out = append(out, fmt.Sprintf("... %d JDK %s", n, plural(n, "frame", "frames")))
		}
	}
	i, shown := 1, 1
	if isJDK(frames[0]) {
		app := -1
		for j := 1; j < len(frames); j++ {
			if !isJDK(frames[j]) {
				app = j
				break
			}
		}
		if c := callIndex(frames); c > 0 && (app < 0 || c < app) {
			fold(c - i)
			out = append(out, frames[c])
			i, shown = c+1, shown+1
		}
		if app > i {
			fold(app - i)
			i = app
		}
	}
	for ; i < len(frames) && shown < maxFrames; i++ {
		out = append(out, frames[i])
		shown++
	}
	if rest := len(frames) - i; rest > 0 {
		out = append(out, fmt.Sprintf("... %d more %s", rest, plural(rest, "frame", "frames")))
	}
	return out, i
}

// compactAmong is compact(frames) made to differ from the lines of the
// siblings it is listed with (the other sites of one lock, wait or park
// list): where a sibling's lines are the same — the stacks differ only
// below the frames shown, as H2's two INSERTs at H2Bench.java:154 and :167
// under eight identical frames — the frame where they first differ is
// shown too, with the frames skipped before it counted ("... 7 more
// frames"). JSON has every frame either way.
func compactAmong(frames []string, siblings [][]string) []string {
	out, from := compactTail(frames)
	if from >= len(frames) {
		return out
	}
	var alike [][]string
	for _, sib := range siblings {
		if slices.Equal(compact(sib), out) {
			alike = append(alike, sib)
		}
	}
	at := differAt(frames, alike, from)
	if len(at) == 0 {
		return out
	}
	out = out[:len(out)-1]
	skip := func(n int) {
		if n > 0 {
			out = append(out, fmt.Sprintf("... %d more %s", n, plural(n, "frame", "frames")))
		}
	}
	next := from
	for _, d := range at {
		skip(d - next)
		out = append(out, frames[d])
		next = d + 1
	}
	skip(len(frames) - next)
	return out
}

// differAt returns, in order, the indexes from from on where frames first
// differs from each of others (frames itself among them is passed over): the
// frames that tell it apart from them.
func differAt(frames []string, others [][]string, from int) []int {
	var at []int
	for _, o := range others {
		d := from
		for d < len(frames) && d < len(o) && frames[d] == o[d] {
			d++
		}
		if d < len(frames) && !slices.Contains(at, d) {
			at = append(at, d)
		}
	}
	slices.Sort(at)
	return at
}

// frameName splits a resolved frame ("java.util.concurrent.ArrayBlockingQueue.put(ArrayBlockingQueue.java:370)")
// into its class and method, "" when it has none.
func frameName(frame string) (class, method string) {
	if p := strings.IndexByte(frame, '('); p >= 0 {
		frame = frame[:p]
	}
	d := strings.LastIndexByte(frame, '.')
	if d <= 0 || strings.HasPrefix(frame, "<") {
		return "", ""
	}
	return frame[:d], frame[d+1:]
}

// callIndex is model.CallIndex of resolved frames.
func callIndex(frames []string) int {
	return model.CallIndex(len(frames), func(i int) (string, string) { return frameName(frames[i]) })
}

// callOf is model.Call of resolved frames: "java.util.concurrent.ArrayBlockingQueue.put", "".
func callOf(frames []string) string {
	if i := callIndex(frames); i >= 0 {
		c, m := frameName(frames[i])
		return c + "." + m
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
