package integration

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orca/internal/crash"
	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/report"
	"orca/internal/testjvm"
)

// boundedMax is the --max-size of the bounded tests: the smallest the agent takes, 1 MiB
// (chunks of 256 kB: two or three kept).
const boundedMax = 1 << 20

// TestBoundedRecording is issue 23's bounded recording on a real JVM: Bounded blocks four threads
// (a monitor's contender and a lock's, a waiter, the holder parked on a latch), floods 400 000
// notifies — several times --max-size 1MB —, then a tail thread sleeps 300 times and everything
// is let go. The chunk files that saw the threads block are deleted; what is kept must stay within
// the bound, name every thread, place the contender's enter with its owner and the parker's park
// with its owner though both began in a deleted chunk, and count the tail's sleeps exactly. The
// report says the span kept; the seed export holds the same events.
func TestBoundedRecording(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		bin, cls := orcaBin(t), classes(t)
		dir := newDir(t)
		prefix := filepath.Join(dir, "b")
		r := run(t, dir, bin, "record", "-o", prefix, "--max-size", "1MB", "--", j.java(), "-cp", cls, "Bounded", "400000", "300")
		checkNoCrashLog(t, r)
		if r.code != 0 {
			t.Fatalf("orca record failed:\n%s", r)
		}
		e := parseExpect(t, r)

		// Within the bound (+10 %), chunk files deleted, .info says which are kept.
		files, _ := filepath.Glob(prefix + ".*")
		var total int64
		chunks := 0
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			total += st.Size()
			if strings.Contains(f, ".orca.") {
				chunks++
			}
		}
		if total > boundedMax*11/10 {
			t.Errorf("the recording's files take %d bytes, more than --max-size 1MB + 10 %%: %v", total, files)
		}
		rec, built := buildModel(t, prefix)
		b := rec.Info.Bounds()
		if b == nil || b.ChunksDeleted == 0 || b.MaxSize != boundedMax || len(rec.Chunks) != chunks || chunks < 2 {
			t.Fatalf("bounds %+v, %d chunk files read of %d: want chunks deleted, max_size %d, at least 2 kept", b, len(rec.Chunks), chunks, boundedMax)
		}
		if built.Malformed > 0 || built.Truncated {
			t.Errorf("%d malformed records (%v), truncated %v", built.Malformed, built.ParseErrors, built.Truncated)
		}
		m := built.Model
		if len(m.Problems) > 0 {
			t.Errorf("%d events could not be placed; the first: %v", len(m.Problems), m.Problems[:min(5, len(m.Problems))])
		}

		// Every thread named, though each started in a deleted chunk.
		names := map[format.ThreadID]string{}
		for _, th := range m.Threads {
			names[th.ID] = th.Name
		}
		for key, name := range map[string]string{"holder": "orca-bounded-holder", "blocked": "orca-bounded-blocked",
			"parker": "orca-bounded-parker", "waiter": "orca-bounded-waiter", "tail": "orca-bounded-tail"} {
			if got := names[format.ThreadID(e.hash(t, key))]; got != name {
				t.Errorf("thread %s %08X is named %q, want %q", key, e.hash(t, key), got, name)
			}
		}

		// The contender's enter and the parker's park began in a deleted chunk: placed, each with
		// its owner, the holder.
		rep := report.New(rec, built, report.Options{})
		holder := format.ThreadID(e.hash(t, "holder")).String()
		mon := format.ObjectID(e.hash(t, "mon")).String()
		var monitor, juc *report.Lock
		for i := range rep.Locks {
			l := &rep.Locks[i]
			switch {
			case l.Object == mon:
				monitor = l
			case l.Class != nil && strings.Contains(*l.Class, "ReentrantLock"):
				juc = l
			}
		}
		for what, l := range map[string]*report.Lock{"monitor mon": monitor, "the ReentrantLock": juc} {
			if l == nil {
				t.Errorf("%s: not among the report's locks", what)
				continue
			}
			if l.Contentions != 1 || l.Open != 0 || len(l.Owners) != 1 || l.Owners[0].Thread != holder {
				t.Errorf("%s: %d contentions (%d open), owners %+v: want 1 ended, held by the holder %s", what, l.Contentions, l.Open, l.Owners, holder)
			}
		}
		// The waiter's wait (begun in a deleted chunk) ends, woken by main.
		waiter := m.Thread(format.ThreadID(e.hash(t, "waiter")))
		waits := 0
		for _, iv := range waiter.Intervals {
			if iv.State == model.Waiting && iv.Object == format.ObjectID(e.hash(t, "w")) && !iv.Open {
				waits++
			}
		}
		if waits != 1 {
			t.Errorf("the waiter has %d ended waits on w, want 1: %+v", waits, waiter.Intervals)
		}

		// The tail's sleeps, all in the kept span, counted exactly; the flood only in part.
		counts := map[format.Kind]int{}
		notifies := 0
		tail := format.ThreadID(e.hash(t, "tail"))
		flag := format.ObjectID(e.hash(t, "flag"))
		if _, err := rec.EachEvent(reader.EachOptions{}, func(ev *reader.Event) error {
			if ev.Thread == tail {
				counts[ev.Kind]++
			}
			if ev.Kind == format.ObjectNotify && ev.Object == flag {
				notifies++
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if n := e.int(t, "sleeps"); counts[format.ThreadSleep] != n || counts[format.ThreadSlept] != n || counts[format.ThreadStarted] != 1 {
			t.Errorf("the tail thread: %v, want %d ThreadSleep and ThreadSlept, 1 ThreadStarted", counts, n)
		}
		if notifies == 0 || notifies >= e.int(t, "notifies") {
			t.Errorf("%d of the %d notifies kept: want some, not all", notifies, e.int(t, "notifies"))
		}

		// The report says what is kept.
		var txt bytes.Buffer
		if err := rep.WriteText(&txt); err != nil {
			t.Fatal(err)
		}
		if rep.Bounded == nil || rep.Bounded.ChunksDeleted != b.ChunksDeleted || rep.Bounded.DeletedS <= 0 ||
			!strings.Contains(txt.String(), "bounded recording (--max-size 1 MiB): kept the last") {
			t.Errorf("the report does not say the span kept (%+v):\n%s", rep.Bounded, txt.String()[:min(600, txt.Len())])
		}

		// Each chunk file copied alone into a directory of its own, without .methods and
		// .classtable, names every frame as it does beside them: the chunk defines the methods
		// its stacks name, and their classes (docs/format.md, "Chunks that name their frames").
		framed := 0
		for i, c := range rec.Chunks {
			b, err := os.ReadFile(c.Path)
			if err != nil {
				t.Fatal(err)
			}
			// Alone, it keeps its name (PREFIX.orca.000003) and is named so to orca.
			with := filepath.Join(dir, "with", strconv.Itoa(i), "c")
			alone := filepath.Join(dir, "alone", strconv.Itoa(i), filepath.Base(c.Path))
			for _, p := range []string{with + format.SuffixEvents, alone} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			for _, suffix := range []string{format.SuffixMethods, format.SuffixClasses} {
				m, err := os.ReadFile(prefix + suffix)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(with+suffix, m, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			w, a := run(t, dir, bin, "dump", with), run(t, dir, bin, "dump", alone)
			// Alone, the dump warns of the missing files, and says what names the frames.
			var kept []string
			for _, l := range strings.SplitAfter(a.stdout, "\n") {
				if !strings.Contains(l, ".methods: missing;") && !strings.Contains(l, ".classtable: missing;") {
					kept = append(kept, l)
				}
			}
			if w.code != 0 || a.code != 0 || strings.Join(kept, "") != w.stdout || strings.Contains(a.stdout, "<unknown") {
				wl, al := strings.Split(w.stdout, "\n"), strings.Split(strings.Join(kept, ""), "\n")
				for k := range min(len(wl), len(al)) {
					if wl[k] != al[k] {
						t.Fatalf("orca dump of chunk file %s alone (exit %d), line %d:\n %s\nbeside .methods (exit %d):\n %s", c.Path, a.code, k+1, al[k], w.code, wl[k])
					}
				}
				t.Fatalf("orca dump of chunk file %s alone: %d lines (exit %d), beside .methods %d (exit %d)", c.Path, len(al), a.code, len(wl), w.code)
			}
			framed += strings.Count(a.stdout, ".java:")
		}
		if framed == 0 {
			t.Errorf("no frame named with its line in %d chunk files", len(rec.Chunks))
		}

		// The seed export holds the same events: the two dumps differ only by the marks of the
		// carried records (there events of the export).
		seed := filepath.Join(dir, "seed")
		if x := run(t, dir, bin, "export", "--format", "seed", "-o", seed, prefix); x.code != 0 {
			t.Fatalf("orca export --format seed:\n%s", x)
		}
		a, s := run(t, dir, bin, "dump", prefix), run(t, dir, bin, "dump", seed)
		a.stdout = withoutSamples(a.stdout) // the seed's format has no kind for them: the export leaves them out
		carried := strings.Count(a.stdout, " (carried)\n")
		if a.code != 0 || s.code != 0 || strings.ReplaceAll(a.stdout, " (carried)\n", "\n") != s.stdout || carried < 5 {
			t.Errorf("orca dump of the bounded recording (%d bytes, exit %d, %d carried) and of its seed export (%d bytes, exit %d) differ",
				len(a.stdout), a.code, carried, len(s.stdout), s.code)
		}
	})
}

// TestBoundedKill9 kills a bounded recording's JVM in the middle of a chunk: every chunk file
// before it reads whole, the cut one to its last whole record, with no malformed record, and the
// blocked threads are placed.
func TestBoundedKill9(t *testing.T) {
	bin := orcaBin(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		prefix := filepath.Join(dir, "k")
		ctx, cancel := context.WithTimeout(context.Background(), javaTimeout)
		defer cancel()
		cmd := testjvm.CommandContext(ctx, t, dir, append([]string{bin, "record", "-o", prefix, "--max-size", "1MB", "--quiet", "--"},
			j.argv(dir, "-cp", classes(t), "Bounded", "-1", "0")...)...)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		startUntilLine(t, cmd, &stderr, "FLOODING")
		// Until a few chunk files were deleted.
		deadline := time.Now().Add(javaTimeout / 2)
		for {
			in, _ := reader.LoadInfo(prefix + format.SuffixInfo)
			if n, _ := strconv.Atoi(in[format.InfoChunksDeleted]); n >= 3 || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // orca and the JVM: kill -9
		cmd.Wait()
		crash.Check(t, dir)

		rec, built := buildModel(t, prefix)
		if len(rec.Chunks) < 2 {
			t.Fatalf("%d chunk files, want at least 2", len(rec.Chunks))
		}
		if built.Malformed > 0 {
			t.Errorf("%d malformed records after kill -9: %v", built.Malformed, built.ParseErrors)
		}
		if built.Model.Events < 1000 {
			t.Errorf("%d events read, want the flood's", built.Model.Events)
		}
		if len(built.Model.Problems) > 0 {
			t.Errorf("%d events could not be placed; the first: %v", len(built.Model.Problems), built.Model.Problems[:min(5, len(built.Model.Problems))])
		}
		blocked := 0
		for _, th := range built.Model.Threads {
			if th.Name == "orca-bounded-blocked" {
				for _, iv := range th.Intervals {
					if iv.State == model.Blocked && iv.Open {
						blocked++
					}
				}
			}
		}
		if blocked != 1 {
			t.Errorf("orca-bounded-blocked: %d open blocked intervals, want 1 (still blocked at the kill)", blocked)
		}
		if t.Failed() {
			t.Logf("stderr:\n%s", stderr.String())
		}
	})
}
