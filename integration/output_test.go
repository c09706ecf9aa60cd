package integration

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"orca/internal/format"
	"orca/internal/testjvm"
)

// TestDiskFull (issue 12, item 4): with the output on a full 2 MB filesystem, orca record said
// "INCOMPLETE: the JVM did not exit normally" (it did), .info was stale with no write_errors, a
// 0-byte PREFIX.info.tmp was left and the agent printed nothing. Reproducer: NotifyFlood writes
// far more than 2 MB. As root (CI) the output is on a 2 MB tmpfs mounted here (a real
// ENOSPC, and .info must be rewritten in place); otherwise a 2 MB file size limit (ulimit -f;
// the JVM ignores SIGXFSZ, so write fails with EFBIG) stands in for it.
func TestDiskFull(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		mnt := filepath.Join(dir, "mnt")
		if err := os.Mkdir(mnt, 0o755); err != nil {
			t.Fatal(err)
		}
		var wrap []string
		errText := "No space left on device"
		if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", mnt).CombinedOutput(); err == nil {
			t.Cleanup(func() { exec.Command("umount", mnt).Run() })
		} else {
			t.Logf("no tmpfs (%v: %s): a 2 MB file size limit (ulimit -f) stands in for a full disk", err, bytes.TrimSpace(out))
			wrap = []string{"bash", "-c", `ulimit -f 2048 && exec "$@"`, "bash"}
			errText = "File too large"
		}
		prefix := filepath.Join(mnt, "rec")
		flood := func(ms string) *result {
			argv := append(append(wrap, orcaBin(t), "record", "-o", prefix, "--depth", "64", "--"),
				j.argv(dir, "-cp", classes(t), "NotifyFlood", "4", "50", ms)...)
			ctx, cancel := context.WithTimeout(context.Background(), javaTimeout)
			defer cancel()
			cmd := testjvm.CommandContext(ctx, t, dir, argv...)
			cmd.Env = append(os.Environ(), "ORCA_VERIFY_STACKS=0") // flood fast
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			return &result{cmd: strings.Join(argv, " "), dir: dir, stdout: out.String(), stderr: errb.String(), err: err, code: cmd.ProcessState.ExitCode()}
		}
		r := flood("1500")
		if r.code == 0 && !strings.Contains(r.stderr, "orca: cannot write ") && filesBelow(t, prefix, 2<<20) {
			// A loaded machine's flood of 1.5 s wrote less than the 2 MB
			// (1.7 MB at load 10-16): again, four times as long, on an
			// empty mount.
			t.Logf("the flood of 1.5 s did not fill 2 MB (a loaded machine): again for 6 s")
			files, _ := filepath.Glob(prefix + ".*")
			for _, f := range files {
				os.Remove(f)
			}
			r = flood("6000")
		}
		checkNoCrashLog(t, r)
		if r.code != 0 || !strings.Contains(r.stdout, "EXPECT") {
			t.Fatalf("the program must run to its end on a full disk:\n%s", r)
		}
		// The agent says it once, on stderr.
		msg := "orca: cannot write " + prefix + "."
		if n := strings.Count(r.stderr, "orca: cannot write "); n != 1 || !strings.Contains(r.stderr, msg) ||
			!strings.Contains(r.stderr, errText+"; the recording is cut at ") {
			t.Errorf("want one message %q…%q on stderr, got %d:\n%s", msg, errText, n, r)
		}
		if left, _ := filepath.Glob(prefix + ".info.tmp*"); len(left) > 0 {
			t.Errorf("%s.info's temporary file was left behind: %v", prefix, left)
		}
		rec := loadInfo(t, prefix)
		in := rec.info
		rec.checkInfo(t, true, false)
		if e := in["write_error"]; !strings.HasPrefix(e, prefix+".") || !strings.HasSuffix(e, ": "+errText) {
			t.Errorf(".info write_error=%q, want %s.EXT: %s", e, prefix, errText)
		}
		if n, _ := strconv.Atoi(in["write_errors"]); n < 1 {
			t.Errorf(".info write_errors=%q, want at least 1", in["write_errors"])
		}
		cut, err1 := strconv.ParseFloat(in["cut_s"], 64)
		start, err2 := strconv.ParseFloat(in["start_s"], 64)
		if err1 != nil || err2 != nil || cut < start {
			t.Errorf(".info cut_s=%q start_s=%q: want a time at or after the start", in["cut_s"], in["start_s"])
		}
		if n, _ := strconv.Atoi(in["dropped_after_cut"]); n == 0 {
			t.Errorf(".info dropped_after_cut=%q: the flood went on after the cut", in["dropped_after_cut"])
		}
		// What is in the file is whole lines, each counted.
		checkCounts(t, prefix, in)
		for _, want := range []string{"CUT SHORT, DISK FULL: the agent could not write " + prefix + ".", "after that were dropped"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("the summary lacks %q:\n%s", want, r)
			}
		}
		if strings.Contains(r.stderr, "INCOMPLETE") {
			t.Errorf("the summary says INCOMPLETE, but the JVM exited normally:\n%s", r)
		}
	})
}

// filesBelow says the files of the recording prefix hold fewer than n bytes
// in all.
func filesBelow(t *testing.T, prefix string, n int64) bool {
	files, err := filepath.Glob(prefix + ".*")
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil {
			sum += fi.Size()
		}
	}
	return sum < n
}

// TestTwoJVMsOnePrefix (issue 12, item 8): two JVMs with -agentpath and the same prefix
// (clobber=yes, the default) both wrote the same files: malformed lines, events unplaced, no
// warning. Now the first holds a lock on PREFIX.orca and the second records to PREFIX-2 and
// says so.
func TestTwoJVMsOnePrefix(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	lib := agentLib(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		prefix := filepath.Join(dir, "x")
		// Each runs 1.5 s (NotifyFlood with one quiet flooder), so the two overlap.
		res := twice(func() *result {
			return runJVM(t, dir, j.argv(dir, "-agentpath:"+lib+"=prefix="+prefix, "-cp", classes(t), "NotifyFlood", "0", "0", "1500"))
		})
		said := 0
		for _, r := range res {
			checkNoCrashLog(t, r)
			if r.code != 0 {
				t.Fatalf("JVM failed:\n%s", r)
			}
			if strings.Contains(r.stderr, "orca: another running JVM records to "+prefix+"; this one records to "+prefix+"-2") {
				said++
			}
		}
		if said != 1 {
			t.Errorf("%d JVMs said they record to %s-2, want 1:\n%s\n%s", said, prefix, res[0], res[1])
		}
		pids := map[string]bool{}
		for _, p := range []string{prefix, prefix + "-2"} {
			r := load(t, p)
			r.checkParse(t)
			r.checkInfo(t, true, true)
			r.checkInvariants(t)
			pids[r.info["pid"]] = true
		}
		if len(pids) != 2 {
			t.Errorf("the two recordings are not of two JVMs: pids %v", pids)
		}
	})
}

// TestTwoOrcaRecords (issue 12, item 8): two orca record -o SAME at the same time wrote rec and
// rec-2, but each summary listed both as its own. Each now lists only its own (session=).
func TestTwoOrcaRecords(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	bin := orcaBin(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		prefix := filepath.Join(dir, "rec")
		// Both orca records check that rec.orca is absent before their child starts;
		// the children meet at a barrier before either starts its JVM, so neither
		// check can see the other's file (the agent then names one rec-2).
		barrier := filepath.Join(dir, "barrier")
		if err := os.Mkdir(barrier, 0o700); err != nil {
			t.Fatal(err)
		}
		const meet = `touch "$1/ready.$$"; i=0
while [ "$(ls "$1" | grep -c '^ready\.')" -lt 2 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done
shift; exec "$@"`
		res := twice(func() *result {
			child := append([]string{"sh", "-c", meet, "sh", barrier}, j.argv(dir, "-cp", classes(t), "NotifyFlood", "0", "0", "1500")...)
			return run(t, dir, bin, append([]string{"record", "-o", prefix, "--"}, child...)...)
		})
		seen := map[string]bool{}
		for _, r := range res {
			if r.code != 0 {
				if strings.Contains(r.stderr, "already exists") {
					skipf(t, "one orca record started after the other's JVM had created %s.orca (the barrier timed out: a loaded machine):\n%s", prefix, r)
				}
				t.Fatalf("orca record failed:\n%s", r)
			}
			if n := strings.Count(r.stderr, "orca: recording "); n != 1 {
				t.Errorf("the summary lists %d recordings, want 1 (its own):\n%s", n, r)
			}
			for _, p := range []string{prefix + " ", prefix + "-2 "} {
				if strings.Contains(r.stderr, "orca: recording "+p) {
					seen[p] = true
				}
			}
		}
		if len(seen) != 2 {
			t.Errorf("the two summaries do not list %s and %s-2 once each:\n%s\n%s", prefix, prefix, res[0], res[1])
		}
	})
}

// TestAgentLoadedTwice (issue 12, item 7): `orca record -- orca record -- java …`, or an
// -agentpath in JAVA_TOOL_OPTIONS plus another, loaded the agent twice: contended enters were
// counted twice and the outer recording was empty and flagged incomplete. The second load now
// refuses with a message (and a nested orca record adds no agent at all); the first records
// Scenario exactly.
func TestAgentLoadedTwice(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	lib := agentLib(t)
	bin := orcaBin(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		t.Run("nested-record", func(t *testing.T) {
			dir := newDir(t)
			outer, inner := filepath.Join(dir, "outer"), filepath.Join(dir, "inner")
			r := run(t, dir, bin, append([]string{"record", "-o", outer, "--", bin, "record", "-o", inner, "--"}, j.argv(dir, "-cp", classes(t), "Scenario")...)...)
			checkNoCrashLog(t, r)
			if r.code != 0 {
				t.Fatalf("orca record failed:\n%s", r)
			}
			if !strings.Contains(r.stderr, "orca: already inside orca record (recording to "+outer+")") {
				t.Errorf("the inner orca record does not say it runs inside another:\n%s", r)
			}
			if files, _ := filepath.Glob(inner + "*"); len(files) != 0 {
				t.Errorf("the inner orca record wrote %v", files)
			}
			checkTwiceRecording(t, outer, parseExpect(t, r))
		})
		t.Run("two-agentpaths", func(t *testing.T) {
			dir := newDir(t)
			first, second := filepath.Join(dir, "first"), filepath.Join(dir, "second")
			// A second copy of the library, as a second orca record would extract: a separate
			// library instance with its own statics.
			lib2 := filepath.Join(dir, "liborca-copy.so")
			b, err := os.ReadFile(lib)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(lib2, b, 0o755); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), javaTimeout)
			defer cancel()
			cmd := testjvm.CommandContext(ctx, t, dir, j.argv(dir, "-agentpath:"+lib2+"=prefix="+second, "-cp", classes(t), "Scenario")...)
			cmd.Env = append(os.Environ(), "JAVA_TOOL_OPTIONS=-agentpath:"+lib+"=prefix="+first)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err = cmd.Run()
			r := &result{cmd: cmd.String(), dir: dir, stdout: out.String(), stderr: errb.String(), err: err, code: cmd.ProcessState.ExitCode()}
			checkNoCrashLog(t, r)
			if r.code != 0 {
				t.Fatalf("JVM failed:\n%s", r)
			}
			msg := "orca: an Orca agent already records this JVM (to " + first + "); this one (" + second + ") does not record"
			if strings.Count(r.stderr, msg) != 1 {
				t.Errorf("stderr does not say once %q:\n%s", msg, r)
			}
			if _, err := os.Stat(second + ".orca"); err == nil {
				t.Errorf("the refused agent wrote %s.orca", second)
			}
			if in := loadInfo(t, second).info; !strings.HasPrefix(in["refused"], "an Orca agent already records this JVM") {
				t.Errorf("%s.info: refused=%q, want the reason", second, in["refused"])
			}
			checkTwiceRecording(t, first, parseExpect(t, r))
		})
	})
}

// checkTwiceRecording checks that the recording of the agent that was loaded first holds
// Scenario once.
func checkTwiceRecording(t *testing.T, prefix string, e expect) {
	t.Helper()
	r := load(t, prefix)
	r.checkParse(t)
	r.checkInfo(t, true, true)
	r.checkInvariants(t)
	checkScenario(t, r, e)
}

// TestLongThreadName (issue 12, item 14): a 6 001-byte thread name was cut at 1 020 bytes in the
// middle of a UTF-8 character. The name is now cut at a character boundary and ends with "…"
// (docs/format.md).
func TestLongThreadName(t *testing.T) {
	t.Parallel() // beside another test: harness_test.go, "Two at a time"
	forEachJDK(t, func(t *testing.T, j jdk) {
		e, prefix := recordExpect(t, j, "LongName")
		r := load(t, prefix)
		r.checkParse(t)
		r.checkInfo(t, true, true)
		th := format.ThreadID(e.hash(t, "thread"))
		full, err := hex.DecodeString(e.str(t, "name"))
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, ev := range r.events {
			if ev.Kind != format.ThreadStarted || ev.Thread != th {
				continue
			}
			found = true
			name := ev.Name
			if !utf8.ValidString(name) {
				t.Errorf("the name is not valid UTF-8 (cut inside a character): ...%q", name[max(0, len(name)-8):])
			}
			kept, ok := strings.CutSuffix(name, "…")
			if !ok || len(name) > 1024 || len(kept) < 1000 || !strings.HasPrefix(string(full), kept) {
				t.Errorf("the name (%d bytes) is not the first characters of the %d-byte name followed by …", len(name), len(full))
			}
		}
		if !found {
			t.Errorf("no ThreadStarted for %08X", uint32(th))
		}
	})
}

// TestAttachByJcmd: the JDK's own `jcmd PID JVMTI.agent_load LIB OPTIONS` starts a recording
// as orca record --pid does (issue 24; before, the agent refused an attach), a second load
// while it runs is refused with return code 2 and says why on the JVM's stderr (HotSpot gives
// jcmd only the number), `JVMTI.agent_load LIB stop` stops it (code 0: its files complete),
// and a stop with none running answers 5.
func TestAttachByJcmd(t *testing.T) {
	lib := agentLib(t)
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := newDir(t)
		ctx, cancel := context.WithTimeout(context.Background(), javaTimeout)
		defer cancel()
		cmd := testjvm.CommandContext(ctx, t, dir, j.argv(dir, "-cp", classes(t), "Hang")...)
		errPath := filepath.Join(dir, "stderr")
		ef, err := os.Create(errPath)
		if err != nil {
			t.Fatal(err)
		}
		defer ef.Close()
		cmd.Stderr = ef
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		// READY: the program runs (the attach listener starts on demand).
		buf := make([]byte, 4096)
		var seen []byte
		for !bytes.Contains(seen, []byte("READY")) {
			n, err := out.Read(buf)
			if err != nil {
				t.Fatalf("Hang ended before READY: %v", err)
			}
			seen = append(seen, buf[:n]...)
		}
		jcmd := func(args ...string) string {
			t.Helper()
			jc := testjvm.CommandContext(ctx, t, dir, j.tool(dir, "jcmd", append([]string{strconv.Itoa(cmd.Process.Pid), "JVMTI.agent_load", lib}, args...)...)...)
			got, _ := jc.CombinedOutput()
			return string(got)
		}
		prefix := filepath.Join(dir, "rec")
		for _, c := range []struct{ opts, code string }{
			{"prefix=" + prefix + ",format=compact", "0"},
			{"prefix=" + prefix + "-2", "2"},
			{"stop", "0"},
			{"stop", "5"},
		} {
			// jcmd's parser takes KEY=VALUE for its own options: the agent's
			// options go in quotes (docs/attach.md).
			if got := jcmd(`"` + c.opts + `"`); !strings.Contains(got, "return code: "+c.code) {
				t.Errorf("jcmd JVMTI.agent_load %s: want return code %s, output:\n%s", c.opts, c.code, got)
			}
		}
		info, err := os.ReadFile(prefix + ".info")
		if err != nil || !strings.Contains(string(info), "\ncomplete=true\n") || !strings.Contains(string(info), "\nstopped=true\n") ||
			!strings.Contains(string(info), "\nattached=true\n") {
			t.Errorf("%s.info: %v, want attached, stopped and complete:\n%s", prefix, err, info)
		}
		if _, err := os.Stat(prefix + "-2.orca"); err == nil {
			t.Errorf("the refused second load wrote %s-2.orca", prefix)
		}
		want := "orca: a recording is running already (to " + prefix + ")"
		for i := 0; i < 50; i++ {
			b, _ := os.ReadFile(errPath)
			if strings.Contains(string(b), want) {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		b, _ := os.ReadFile(errPath)
		t.Errorf("the JVM's stderr lacks %q:\n%s", want, b)
	})
}

// twice runs f twice at the same time and returns both results.
func twice(f func() *result) []*result {
	res := make([]*result, 2)
	var wg sync.WaitGroup
	for i := range res {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = f()
		}()
	}
	wg.Wait()
	return res
}
