package report

import (
	"fmt"

	"orca/internal/analysis"
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
// "where in my code"; then the frames after it, up to maxFrames frames
// shown in all, and "... N more frames" for the rest. A stack of JDK
// frames only is shown from the top. JSON always has every frame.
func compact(frames []string) []string {
	if len(frames) == 0 {
		return []string{"(no stack)"}
	}
	out := []string{frames[0]}
	i := 1
	if isJDK(frames[0]) {
		app := -1
		for j := 1; j < len(frames); j++ {
			if !isJDK(frames[j]) {
				app = j
				break
			}
		}
		if app > 1 {
			out = append(out, fmt.Sprintf("... %d JDK %s", app-1, plural(app-1, "frame", "frames")))
			i = app
		}
	}
	shown := 1
	for ; i < len(frames) && shown < maxFrames; i++ {
		out = append(out, frames[i])
		shown++
	}
	if rest := len(frames) - i; rest > 0 {
		out = append(out, fmt.Sprintf("... %d more %s", rest, plural(rest, "frame", "frames")))
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
