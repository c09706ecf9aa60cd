package linediff

import (
	"strings"
	"testing"
)

func TestLines(t *testing.T) {
	for _, c := range []struct{ want, got, diff string }{
		{"a\nb\nc", "a\nb\nc", ""},
		// A line added shows as itself, not as every line after it.
		{"a\nb\nc", "a\nx\nb\nc", "+ x\n"},
		{"a\nb\nc", "a\nc", "- b\n"},
		{"a\nb\nc", "a\nB\nc", "+ B\n- b\n"},
	} {
		if d := Lines(c.want, c.got); d != c.diff {
			t.Errorf("Lines(%q, %q) = %q, want %q", c.want, c.got, d, c.diff)
		}
	}
	// Too many lines for the table: place by place.
	many := strings.Repeat("x\n", 3000)
	if d := Lines(many+"a", many+"b"); d != "line 3001:\n- a\n+ b\n" {
		t.Errorf("Lines of 3001 lines = %q", d)
	}
}
