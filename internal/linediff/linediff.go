// Package linediff is the line diff of the tests' failure messages: what a
// golden file, a case's expectation or the fold oracle's old output has
// that the new one has not, and the reverse.
package linediff

import (
	"fmt"
	"strings"
)

// maxCells bounds the table of the longest common subsequence (its lines
// multiplied): beyond it, a report of many thousand lines, the lines are
// compared place by place.
const maxCells = 4 << 20

// Lines returns the lines that differ between want and got, each "- "
// (want's alone) or "+ " (got's alone) and the line: by the longest common
// subsequence of their lines, so that a line added or taken away shows as
// itself, not as every line after it; "" when they are the same.
func Lines(want, got string) string {
	if want == got {
		return ""
	}
	a, b := strings.Split(want, "\n"), strings.Split(got, "\n")
	n, k := len(a), len(b)
	var out strings.Builder
	if (n+1)*(k+1) > maxCells {
		for i := 0; i < max(n, k); i++ {
			var wl, gl string
			if i < n {
				wl = a[i]
			}
			if i < k {
				gl = b[i]
			}
			if wl != gl {
				fmt.Fprintf(&out, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
			}
		}
		return out.String()
	}
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, k+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := k - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < k {
		switch {
		case i < n && j < k && a[i] == b[j]:
			i, j = i+1, j+1
		case j < k && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			fmt.Fprintf(&out, "+ %s\n", b[j])
			j++
		default:
			fmt.Fprintf(&out, "- %s\n", a[i])
			i++
		}
	}
	return out.String()
}
