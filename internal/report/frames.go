package report

import (
	"fmt"
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
	if len(frames) == 0 {
		return []string{"(no stack)"}
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
	return out
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
