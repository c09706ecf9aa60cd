package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"google.golang.org/protobuf/encoding/protowire"

	"orca/internal/export"
	"orca/internal/format"
	"orca/internal/model"
)

// TestExportScenario exports a Scenario recording in every format with
// bin/orca export, as a user would, and reads the files back: the pprof
// profile has the program's contentions on lock at the contender's source
// line (also as go tool pprof shows them), the folded stacks and the
// Chrome trace add up to the model, the Perfetto trace is a sequence of
// packets.
func TestExportScenario(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Scenario")
		_, built := buildModel(t, prefix)
		m := built.Model
		dir := filepath.Dir(prefix)
		exp := func(args ...string) string {
			t.Helper()
			out := filepath.Join(dir, strings.Join(args, "_"))
			r := run(t, dir, orcaBin(t), append(append([]string{"export"}, args...), "-o", out, prefix)...)
			if r.code != 0 {
				t.Fatalf("orca export failed:\n%s", r)
			}
			return out
		}
		lock := format.Hex(e.hash(t, "lock"))
		contender := format.Hex(e.hash(t, "contender"))
		line := e.int(t, "line.contend")

		// pprof: the contentions on lock, all by the contender, at its line.
		path := exp("--format", "pprof")
		p := readProfile(t, path)
		var count, delay int64
		for _, s := range p.Sample {
			if strings.Join(s.Label["lock"], ",") != lock {
				continue
			}
			count += s.Value[0]
			delay += s.Value[1]
			if strings.Join(s.Label["thread_id"], ",") != contender {
				t.Errorf("pprof: a contention on lock by %v, want the contender %s", s.Label["thread_id"], contender)
			}
			if c := strings.Join(s.Label["class"], ","); c != "Scenario$Lock" {
				t.Errorf("pprof: a contention on lock of class %q, want Scenario$Lock", c)
			}
			leaf := s.Location[0].Line[0]
			if !strings.HasSuffix(leaf.Function.Filename, "Scenario.java") || leaf.Line != int64(line) {
				t.Errorf("pprof: contention at %s:%d (%s), want Scenario.java:%d", leaf.Function.Filename, leaf.Line, leaf.Function.Name, line)
			}
		}
		if want := int64(e.int(t, "contentions")); count != want || delay <= 0 {
			t.Errorf("pprof: %d contentions on lock (%d ns), want %d", count, delay, want)
		}
		if l := m.Lock(format.ObjectID(e.hash(t, "lock")), model.Monitor); l == nil || int64(l.Blocked) != delay {
			t.Errorf("pprof: %d ns blocked on lock, the model says %v", delay, l)
		}
		if gobin, err := exec.LookPath("go"); err == nil {
			// Anchored: a hash of decimal digits alone would be read as a numeric range.
			out, err := exec.Command(gobin, "tool", "pprof", "-top", "-lines", "-tagfocus=lock=^"+lock+"$", path).CombinedOutput()
			want := "Scenario.java:" + strconv.Itoa(line)
			if err != nil || !strings.Contains(topRow(string(out)), want) {
				t.Errorf("go tool pprof -top: want %s first (%v):\n%s", want, err, out)
			}
		} else {
			t.Log("go is not on PATH: go tool pprof not tried")
		}
		p = readProfile(t, exp("--format", "pprof", "--kind", "all"))
		var all int64
		for _, s := range p.Sample {
			all += s.Value[1]
		}
		if _, total := export.PProfTotals(m, export.All); all != int64(total) {
			t.Errorf("pprof --kind all: %d ns, the model's states last %d ns", all, total)
		}

		// Folded stacks add up to the blocked time.
		b, err := os.ReadFile(exp("--format", "collapsed"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), ";Scenario$Lock_[i] ") || !strings.Contains(string(b), ";int[]_[i] ") {
			t.Errorf("collapsed: no stack ends with the class of lock or warmLock:\n%s", b)
		}
		var folded int64
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			v, err := strconv.ParseInt(l[strings.LastIndexByte(l, ' ')+1:], 10, 64)
			if err != nil {
				t.Fatalf("collapsed: %q: %v", l, err)
			}
			folded += v
		}
		if _, total := export.Totals(m, export.Monitor); folded != int64(total) {
			t.Errorf("collapsed: %d ns, the model's contentions last %d ns", folded, total)
		}

		// Chrome: every thread named (the contender's name is full of
		// quotes and commas), the three contentions on the contender's track.
		b, err = os.ReadFile(exp("--format", "chrome"))
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TraceEvents []struct {
				Name, Ph string
				TID      uint32
				Args     map[string]any
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("chrome: %v", err)
		}
		named := map[uint32]string{}
		blocked := 0
		for _, ev := range doc.TraceEvents {
			switch {
			case ev.Ph == "M" && ev.Name == "thread_name":
				named[ev.TID], _ = ev.Args["name"].(string)
			case ev.Ph == "X" && ev.Name == "blocked" && ev.Args["object"] == lock:
				blocked++
			}
		}
		for _, th := range m.Threads {
			if named[uint32(th.ID)] != th.Name {
				t.Errorf("chrome: thread %v named %q, want %q", th.ID, named[uint32(th.ID)], th.Name)
			}
		}
		if want := e.int(t, "contentions"); blocked < want {
			t.Errorf("chrome: %d blocked slices on lock, want at least %d (one per contention, more if one changed owner)", blocked, want)
		}

		// Perfetto: a sequence of length-delimited packets, at least a
		// track per thread and a begin and an end per interval.
		b, err = os.ReadFile(exp("--format", "perfetto"))
		if err != nil {
			t.Fatal(err)
		}
		packets := 0
		for len(b) > 0 {
			num, typ, n := protowire.ConsumeTag(b)
			if n < 0 || num != 1 || typ != protowire.BytesType {
				t.Fatalf("perfetto: packet %d: field %d type %d (%d), want packets (1, bytes)", packets, num, typ, n)
			}
			_, size := protowire.ConsumeBytes(b[n:])
			if size < 0 {
				t.Fatalf("perfetto: packet %d cut short", packets)
			}
			b = b[n+size:]
			packets++
		}
		if states, _ := export.Totals(m, export.All); packets < len(m.Threads)+2*states {
			t.Errorf("perfetto: %d packets for %d threads and %d states", packets, len(m.Threads), states)
		}
	})
}

func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return p
}

// topRow returns the first row of go tool pprof -top.
func topRow(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if strings.Contains(l, "flat%") && i+1 < len(lines) {
			return lines[i+1]
		}
	}
	return ""
}
