package export

import (
	"strconv"
	"strings"
	"testing"

	"orca/internal/model"
)

// checkCollapsed parses folded stacks ("a;b;c VALUE" lines) and checks the
// values add up to the model's time in the chosen kinds.
func checkCollapsed(t *testing.T, data []byte, m *model.Model, k Kinds) map[string]int64 {
	t.Helper()
	got := map[string]int64{}
	var sum int64
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		t.Errorf("collapsed: no final newline")
	}
	for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		if line == "" && text == "" {
			break
		}
		j := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseInt(line[j+1:], 10, 64)
		if j <= 0 || err != nil || v < 0 {
			t.Errorf("collapsed: line %d: %q is not STACK VALUE", i+1, line)
			continue
		}
		stack := line[:j]
		if _, dup := got[stack]; dup {
			t.Errorf("collapsed: line %d: stack repeated: %q", i+1, stack)
		}
		for _, f := range strings.Split(stack, ";") {
			if f == "" {
				t.Errorf("collapsed: line %d: an empty frame", i+1)
			}
		}
		got[stack] = v
		sum += v
	}
	if _, total := Totals(m, k); sum != int64(total) {
		t.Errorf("collapsed: values add up to %d ns, the model's time is %d ns", sum, total)
	}
	return got
}

func TestCollapsed(t *testing.T) {
	rec, m := loadAll(t)
	got := checkCollapsed(t, export(t, "collapsed", rec, m, 0), m, Monitor)
	want := map[string]int64{
		// worker-b, 0.3 s and the 0.5 s it is still blocked at the end.
		"com.example.Work.run;com.example.Work.transfer":      int64(sec(0.8)),
		"<unknown method 0000002A>;com.example.Work.transfer": int64(sec(0.3)),
	}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for s, v := range want {
		if got[s] != v {
			t.Errorf("%q: %d, want %d", s, got[s], v)
		}
	}
	got = checkCollapsed(t, export(t, "collapsed", rec, m, All), m, All)
	for s, v := range map[string]int64{
		"com.example.Work.main;java.lang.Thread.join":                          int64(sec(0.9)),
		"com.example.Work.run;com.example.Work.transfer;java.lang.Object.wait": int64(sec(0.6)),
		"(no stack)": int64(sec(0.5)),
	} {
		if got[s] != v {
			t.Errorf("all kinds: %q: %d, want %d", s, got[s], v)
		}
	}
}
