package integration

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	profpb "go.opentelemetry.io/proto/slim/otlp/profiles/v1development"

	"orca/internal/format"
	"orca/internal/otlptest"
)

// pushed runs bin/orca push of prefix to collector c and returns the
// samples the collector wrote, waiting for want messages in all.
func pushed(t *testing.T, c *otlptest.Collector, prefix string, want int, args ...string) []otlptest.Sample {
	t.Helper()
	r := run(t, "", orcaBin(t), append(append([]string{"push", "--otlp", c.URL}, args...), prefix)...)
	if r.code != 0 {
		t.Fatalf("orca push failed:\n%s", r)
	}
	return otlptest.Samples(c.WaitReceived(30*time.Second, func(pds []*profpb.ProfilesData) bool { return len(pds) >= want }))
}

// checkPushedBlame checks ss against bin/orca report --json of prefix
// (otlptest.CheckBlame) and returns how many owners it compared.
func checkPushedBlame(t *testing.T, prefix string, ss []otlptest.Sample) int {
	t.Helper()
	r := run(t, "", orcaBin(t), "report", "--json", "--top", "100000", prefix)
	if r.code != 0 {
		t.Fatalf("orca report --json failed:\n%s", r)
	}
	_, owners := otlptest.CheckBlame(t, []byte(r.stdout), ss)
	return owners
}

// TestPushScenario records Scenario and Parking, pushes each to a real
// OpenTelemetry Collector (built from its modules, profiles feature gate)
// and decodes what the collector wrote: the totals per lock and per owner
// are orca report --json's; Scenario's contentions on lock are the
// contender's, blamed on the owner, with their names (quotes, commas, a
// whale), at the contender's line, each with a timestamp within the run;
// Parking's ReentrantLock contentions are rl-waiter-I's, one each, blamed
// on rl-holder-I for at least HOLD_MS; the resource names the JVM.
func TestPushScenario(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	c := otlptest.Start(t)
	messages := 0
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "Scenario")
		messages++
		ss := pushed(t, c, prefix, messages)
		ss = ss[len(ss)-countLast(t, c):]
		if n := checkPushedBlame(t, prefix, ss); n == 0 {
			t.Errorf("Scenario: no owner compared")
		}
		lock, owner, contender := format.Hex(e.hash(t, "lock")), format.Hex(e.hash(t, "owner")), format.Hex(e.hash(t, "contender"))
		rec, _ := buildModel(t, prefix)
		unix, mono, _ := rec.Info.Origin()
		start, end, _ := rec.Info.Span()
		var count int64
		for _, s := range ss {
			if s.Resource["service.name"] != "Scenario" || s.Resource["process.pid"] != rec.Info.PID() ||
				s.Resource["process.runtime.version"] != rec.Info.JavaVersion() {
				t.Fatalf("resource %v", s.Resource)
			}
			for _, ts := range s.Timestamps {
				if at := format.Time(int64(ts) - unix + mono); at < start || at > end {
					t.Errorf("a %s timestamp at %v, outside the recording's %v..%v", s.Kind, at, start, end)
				}
			}
			if s.Kind != "monitor" || s.Attrs["lock.id"] != lock {
				continue
			}
			if len(s.Timestamps) != len(s.Values) {
				t.Errorf("%d values, %d timestamps", len(s.Values), len(s.Timestamps))
			}
			if s.Attrs["thread.id"] != contender || s.Attrs["lock.owner.thread.id"] != owner ||
				s.Attrs["thread.name"] != Scenario.contender || s.Attrs["lock.owner.thread.name"] != Scenario.owner ||
				s.Attrs["lock.class"] != "Scenario$Lock" || s.Attrs["lock.kind"] != "monitor" {
				t.Errorf("a contention on lock with attributes %q", s.Attrs)
			}
			if want := int64(e.int(t, "line.contend")); s.Lines[0] != want || !strings.HasPrefix(s.Frames[0], "Scenario") {
				t.Errorf("a contention on lock at %s:%d, want line %d", s.Frames[0], s.Lines[0], want)
			}
			if s.Type == "contentions" {
				count += s.Sum()
			}
		}
		if want := int64(e.int(t, "contentions")); count != want {
			t.Errorf("%d contentions on lock pushed, want %d", count, want)
		}

		// Parking: a ReentrantLock's contentions, each blamed on its holder.
		pe, pprefix := recordExpect(t, j, "Parking")
		messages++
		ps := pushed(t, c, pprefix, messages)
		ps = ps[len(ps)-countLast(t, c):]
		checkPushedBlame(t, pprefix, ps)
		holders, waiters := pe.hashes(t, "rl_holders"), pe.hashes(t, "rl_waiters")
		hold := int64(pe.int(t, "hold_ms")) * 1e6
		byWaiter := map[string][2]int64{}
		for _, s := range ps {
			// The waiters park on the lock's sync, not on the lock.
			if s.Kind != "juc" || s.Attrs["lock.class"] != "java.util.concurrent.locks.ReentrantLock$NonfairSync" {
				continue
			}
			for i, w := range waiters {
				if s.Attrs["thread.id"] != format.Hex(w) {
					continue
				}
				if o := s.Attrs["lock.owner.thread.id"]; o != format.Hex(holders[i]) || s.Attrs["lock.owner.thread.name"] != "rl-holder-"+strconv.Itoa(i) {
					t.Errorf("rl-waiter-%d blocked on %s, want rl-holder-%d (%08X): %v", i, o, i, holders[i], s.Attrs)
				}
				v := byWaiter[s.Attrs["thread.name"]]
				if s.Type == "contentions" {
					v[0] += s.Sum()
				} else {
					v[1] += s.Sum()
				}
				byWaiter[s.Attrs["thread.name"]] = v
			}
		}
		for i := range waiters {
			if v := byWaiter["rl-waiter-"+strconv.Itoa(i)]; v[0] != 1 || v[1] < hold {
				t.Errorf("rl-waiter-%d: %d contentions, %d ns pushed; want 1, at least %d ns", i, v[0], v[1], hold)
			}
		}
	})
}

// countLast returns how many samples the collector's last message holds.
func countLast(t *testing.T, c *otlptest.Collector) int {
	t.Helper()
	pds, err := c.Received()
	if err != nil || len(pds) == 0 {
		t.Fatalf("the collector's file: %v, %d messages", err, len(pds))
	}
	return len(otlptest.Samples(pds[len(pds)-1:]))
}

// recordPushing starts bin/orca record --otlp of Bounded (FLOOD notifies:
// a few seconds of 1 s chunks, --max-age 60s keeping them all) and returns
// the running command, its output buffers and the recording's prefix.
func recordPushing(t *testing.T, j jdk, c *otlptest.Collector, flood string, env ...string) (*exec.Cmd, *bytes.Buffer, string) {
	t.Helper()
	dir := newDir(t)
	prefix := filepath.Join(dir, "p")
	cmd := exec.Command(orcaBin(t), append([]string{"record", "-o", prefix, "--max-age", "60s", "--otlp", c.URL, "--push-every", "200ms", "--"},
		j.argv(dir, "-cp", classes(t), "Bounded", flood, "100")...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &out, prefix
}

// pushSummary reads orca record's "pushed N chunk files ... in M requests".
func pushSummary(t *testing.T, out string) (chunks, requests int) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "orca: pushed ") {
			f := strings.Fields(l)
			chunks, _ = strconv.Atoi(f[2])
			for i := range f {
				if f[i] == "in" && i+1 < len(f) {
					requests, _ = strconv.Atoi(f[i+1])
				}
			}
			return chunks, requests
		}
	}
	t.Fatalf("orca record said nothing of its pushes:\n%s", out)
	return 0, 0
}

// TestRecordPush records Bounded with orca record --otlp: the chunks are
// pushed as they close, in several requests while the JVM runs, every
// chunk file once (the collector's messages are the requests orca counts,
// and their sums per lock and owner are the whole local recording's
// report); then again with the collector stopped mid-recording and
// started again: orca retries and says so, drops nothing, exits 0, and
// the recording is intact; then with the collector gone for good before
// the end: orca says how many pushes it dropped and still exits 0 with
// the recording whole.
func TestRecordPush(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		c := otlptest.Start(t)
		cmd, out, prefix := recordPushing(t, j, c, "2000000")
		if err := cmd.Wait(); err != nil {
			t.Fatalf("orca record --otlp: %v\n%s", err, out)
		}
		chunks, requests := pushSummary(t, out.String())
		files, _ := filepath.Glob(prefix + ".orca.*")
		if chunks != len(files) || requests < 2 {
			t.Errorf("pushed %d chunk files in %d requests; the recording has %d, and more than one request was due:\n%s", chunks, requests, len(files), out)
		}
		pds := c.WaitReceived(30*time.Second, func(pds []*profpb.ProfilesData) bool { return len(pds) >= requests })
		if len(pds) != requests {
			t.Errorf("the collector wrote %d messages, orca sent %d requests", len(pds), requests)
		}
		if checkPushedBlame(t, prefix, otlptest.Samples(pds)) == 0 {
			t.Errorf("no owner compared")
		}

		// The collector away for a while in the middle.
		c2 := otlptest.Start(t)
		cmd, out, prefix = recordPushing(t, j, c2, "4000000")
		c2.WaitReceived(30*time.Second, func(pds []*profpb.ProfilesData) bool { return len(pds) >= 1 })
		c2.Stop()
		time.Sleep(1500 * time.Millisecond)
		c2.Restart()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("orca record --otlp: %v\n%s", err, out)
		}
		if !strings.Contains(out.String(), " retried)") || strings.Contains(out.String(), "warning: dropped") {
			t.Errorf("want failed tries retried and nothing dropped:\n%s", out)
		}
		chunks, requests = pushSummary(t, out.String())
		files, _ = filepath.Glob(prefix + ".orca.*")
		if chunks != len(files) {
			t.Errorf("pushed %d chunk files of %d:\n%s", chunks, len(files), out)
		}
		pds = c2.WaitReceived(30*time.Second, func(pds []*profpb.ProfilesData) bool { return len(pds) >= requests })
		checkPushedBlame(t, prefix, otlptest.Samples(pds))

		// The collector gone for good: drops, said at the end.
		c3 := otlptest.Start(t)
		cmd, out, prefix = recordPushing(t, j, c3, "2000000", "ORCA_TEST_PUSH_DRAIN=1s")
		c3.WaitReceived(30*time.Second, func(pds []*profpb.ProfilesData) bool { return len(pds) >= 1 })
		c3.Stop()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("orca record --otlp: %v\n%s", err, out)
		}
		if !strings.Contains(out.String(), "orca: warning: dropped ") || !strings.Contains(out.String(), "is whole: push it again with orca push") {
			t.Errorf("want the drops said:\n%s", out)
		}
		if r := run(t, "", orcaBin(t), "report", prefix); r.code != 0 {
			t.Errorf("the recording is not readable after the drops:\n%s", r)
		}
	})
}

// TestRecordPushAttach attaches to Attachee with orca record --pid --otlp
// for a window holding one of its rounds: the chunks are pushed, every
// one, and what the collector received is the report's per lock and
// owner, the round's contentions on its lock among it.
func TestRecordPushAttach(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		c := otlptest.Start(t)
		dir := newDir(t)
		a := startAttachee(t, j, dir)
		pid := strconv.Itoa(a.cmd.Process.Pid)
		a.round(t) // loads the round's classes: the one recorded is quick
		w := filepath.Join(dir, "w")
		o := startOrca(t, dir, "orca: recording pid "+pid+" (Attachee) to ", "record", "--pid", pid, "-o", w, "--duration", "3s",
			"--max-age", "60s", "--otlp", c.URL, "--push-every", "200ms")
		e := o.roundIn(t, a)
		if code := o.wait(t); code != 0 {
			t.Fatalf("orca record --pid --otlp: exit %d:\n%s", code, o.stderr)
		}
		chunks, requests := pushSummary(t, o.stderr.String())
		files, _ := filepath.Glob(w + ".orca.*")
		if chunks != len(files) || chunks == 0 {
			t.Errorf("pushed %d chunk files; the recording has %d:\n%s", chunks, len(files), o.stderr)
		}
		ss := otlptest.Samples(c.WaitReceived(30*time.Second, func(pds []*profpb.ProfilesData) bool { return len(pds) >= requests }))
		checkPushedBlame(t, w, ss)
		lock := format.Hex(e.hash(t, "lock"))
		var count int64
		for _, s := range ss {
			if s.Kind == "monitor" && s.Type == "contentions" && s.Attrs["lock.id"] == lock {
				count += s.Sum()
			}
		}
		if want := int64(e.int(t, "contentions")); count != want {
			t.Errorf("%d contentions on the round's lock pushed, want %d", count, want)
		}
		a.exit(t, 2)
	})
}
