package integration

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"orca/internal/testjvm"
)

// planter is the third user of TestPlantedNames: neither the JVM's (nobody) nor root.
const planter = 65532

// TestPlantedNames (issue 30, item 2): a third user's symbolic links at a recording's
// predictable names, in a sticky world-writable directory (as /tmp) and in a group-writable one,
// pointing at a 0600 file of the JVM's user. Before, the agent opened the chunk files and
// PREFIX.info.tmp through them and overwrote that file. Now orca refuses a planted name with exit
// status 125 before it starts a command, 2 before it attaches (--force too: it deletes no one
// else's file);
// a name planted during a bounded recording, as root records nobody's JVM, cuts the recording
// with a message and the JVM runs to its end; the link and the file it points at are untouched;
// the recording's files are nobody's, mode 0600. fs.protected_symlinks, which hides the hole in
// the sticky directory alone, is off for the test.
func TestPlantedNames(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := nobodyDir(t)
		unprotectSymlinks(t)
		victim := filepath.Join(dir, "victim")
		if err := os.WriteFile(victim, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(victim, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		for _, kind := range []struct {
			name string
			mode os.FileMode
			gid  int
		}{{"sticky", os.ModeSticky | 0o777, 0}, {"group", 0o775, nobody}} {
			t.Run(kind.name, func(t *testing.T) {
				shared := filepath.Join(dir, kind.name)
				if err := os.Mkdir(shared, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.Chown(shared, 0, kind.gid); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(shared, kind.mode); err != nil {
					t.Fatal(err)
				}
				plantedNames(t, j, dir, shared, victim)
			})
		}
	})
}

func plantedNames(t *testing.T, j jdk, dir, shared, victim string) {
	// orca record -- COMMAND, as nobody: refused before COMMAND (a touch) starts.
	pre := filepath.Join(shared, "pre")
	links := plant(t, shared, victim, "pre.orca.000004")
	started := filepath.Join(dir, "started-"+filepath.Base(shared))
	out, code := runAs(t, dir, asNobody, orcaBin(t), "record", "-o", pre, "--max-size", "1MB", "--", "touch", started)
	if want := pre + ".orca.000004 is a symbolic link"; code != 125 || !strings.Contains(out, want) || !strings.Contains(out, "nothing was started") {
		t.Errorf("orca record -o %s with a planted chunk name: exit %d, want 125 and %q … nothing was started:\n%s", pre, code, want, out)
	}
	if _, err := os.Stat(started); err == nil {
		t.Errorf("orca record started COMMAND though a name of the recording was planted")
	}

	// Root attaching to nobody's JVM: refused before the attach, with --force too (nobody's own
	// earlier .info is not deleted either: nothing is).
	jvm := testjvm.Command(t, dir, append(slices.Clone(asNobody), j.argv(dir, "-cp", classes(t), "NotifyFlood", "2", "8", "8000")...)...)
	var jout, jerr testjvm.Buffer
	jvm.Stdout, jvm.Stderr = &jout, &jerr
	if err := jvm.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	noteTarget(t, jvm.Process.Pid, &jerr)
	go func() { jvm.Wait(); close(ended) }()
	t.Cleanup(func() { jvm.Process.Kill(); <-ended })
	pid := strconv.Itoa(jvm.Process.Pid)
	own := pre + ".info"
	if err := os.WriteFile(own, []byte("nobody's"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chown(own, nobody, nobody)
	for _, force := range []bool{false, true} {
		args := []string{"record", "--pid", pid, "-o", pre, "--duration", "1s"}
		if force {
			args = append(args, "--force")
		}
		r := run(t, dir, orcaBin(t), args...)
		if r.code != 2 || !strings.Contains(r.stderr, pre+".orca.000004 is a symbolic link") || !strings.Contains(r.stderr, "nothing was attached") {
			t.Errorf("orca %s: exit %d, want 2 naming the link, nothing was attached:\n%s", strings.Join(args, " "), r.code, r)
		}
	}
	if maps, _ := os.ReadFile("/proc/" + pid + "/maps"); bytes.Contains(maps, []byte("orca")) {
		t.Errorf("the agent was loaded into pid %s though the recording's names were refused", pid)
	}
	if b, err := os.ReadFile(own); err != nil || string(b) != "nobody's" {
		t.Errorf("--force deleted or changed %s before refusing: %q, %v", own, b, err)
	}

	// A bounded recording of that JVM by root, the third user planting links at the next chunk
	// files' names and at .info's temporary file's old name once it runs.
	rec := filepath.Join(shared, "rec")
	waitQuitHandler(t, jvm.Process.Pid)
	o := startOrca(t, dir, "orca: recording pid "+pid, "record", "--pid", pid, "-o", rec, "--max-size", "1MB")
	// Planted once the chunks rotate and the oldest are deleted (chunks of 256 kB, 1 MB kept).
	last := 0
	for deadline := time.Now().Add(javaTimeout / 4); last < 8 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		have, _ := filepath.Glob(rec + ".orca.*")
		for _, h := range have {
			if n, err := strconv.Atoi(h[len(rec+".orca."):]); err == nil && n > last {
				last = n
			}
		}
	}
	if last < 8 {
		t.Fatalf("the recording wrote %d chunk files, want 8 before the links are planted:\n%s\n%s", last, o.stderr, jerr.String())
	}
	var names []string
	for n := last + 1; n <= last+1000; n++ {
		names = append(names, fmt.Sprintf("rec.orca.%06d", n))
	}
	links = append(links, plant(t, shared, victim, append(names, "rec.info.tmp")...)...)
	select {
	case <-ended:
	case <-time.After(javaTimeout):
		t.Fatalf("NotifyFlood did not end %v after the links were planted (it sleeps 8 s, then exits): %s\nits stderr:\n%s\norca:\n%s",
			javaTimeout, stuckJVM(jvm.Process.Pid, &jout), jerr.String(), o.stderr)
	}
	<-o.done
	if jvm.ProcessState.ExitCode() != 0 || !strings.Contains(jout.String(), "EXPECT exit_ms=") {
		t.Errorf("the JVM did not run to its end (exit %d):\n%s\n%s", jvm.ProcessState.ExitCode(), jout.String(), jerr.String())
	}
	if want := "exists and is a symbolic link, which this agent did not create: not written through"; !strings.Contains(jerr.String(), want) ||
		!strings.Contains(jerr.String(), "the recording is cut at") {
		t.Errorf("the JVM's stderr does not say %q and that the recording is cut:\n%s\norca:\n%s", want, jerr.String(), o.stderr)
	}
	if b, err := os.ReadFile(victim); err != nil || string(b) != "precious" {
		t.Errorf("%s, the links' target, was written through: %q, %v", victim, b, err)
	}
	for _, l := range links {
		if to, err := os.Readlink(l); err != nil || to != victim {
			t.Errorf("the planted link %s was removed or replaced: %q, %v", l, to, err)
		}
	}
	files, _ := filepath.Glob(rec + ".*")
	var regular []string
	kinds := map[string]bool{}
	for _, f := range files {
		var st syscall.Stat_t
		if err := syscall.Lstat(f, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			continue // a planted link
		}
		ext := strings.TrimPrefix(f, rec)
		if strings.HasPrefix(ext, ".orca.") {
			ext = ".orca.N"
		}
		kinds[ext] = true
		regular = append(regular, filepath.Base(f))
		if st.Mode&0o7777 != 0o600 || st.Uid != nobody {
			t.Errorf("%s: mode %#o, uid %d; want 0600, nobody's", f, st.Mode&0o7777, st.Uid)
		}
	}
	for _, ext := range []string{".orca", ".methods", ".classtable", ".info", ".orca.N"} {
		if !kinds[ext] {
			t.Errorf("no %s among the recording's regular files %v", ext, regular)
		}
	}
	in, _ := os.ReadFile(rec + ".info")
	if !bytes.Contains(in, []byte("write_error="+rec+".orca.")) || bytes.Contains(in, []byte("\nchunks_deleted=0\n")) {
		t.Errorf("%s.info does not say where the recording was cut, or that chunks were deleted:\n%s", rec, in)
	}
}

// plant makes symbolic links to target at names in dir as the third user (its file system ids,
// so that the links are its own: a thread of the test switched for it, fast enough to stay ahead
// of the writer), and returns the paths of those it made (a name taken already is skipped).
func plant(t *testing.T, dir, target string, names ...string) []string {
	t.Helper()
	done := make(chan []string)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with the goroutine, its ids with it
		syscall.RawSyscall(syscall.SYS_SETFSGID, uintptr(nobody), 0, 0)
		syscall.RawSyscall(syscall.SYS_SETFSUID, uintptr(planter), 0, 0)
		var made []string
		for _, n := range names {
			p := filepath.Join(dir, n)
			if syscall.Symlink(target, p) == nil {
				made = append(made, p)
			}
		}
		done <- made
	}()
	made := <-done
	for _, p := range made {
		var st syscall.Stat_t
		if err := syscall.Lstat(p, &st); err != nil || st.Uid != planter {
			t.Fatalf("%s: not the third user's link (uid %d, %v)", p, st.Uid, err)
		}
	}
	if len(made) == 0 {
		t.Fatalf("the third user could not plant any of %v in %s", names[:min(3, len(names))], dir)
	}
	return made
}

// unprotectSymlinks turns fs.protected_symlinks off for the test (it hides the hole in sticky
// directories only) and back as it was at its end.
func unprotectSymlinks(t *testing.T) {
	const p = "/proc/sys/fs/protected_symlinks"
	was, err := os.ReadFile(p)
	if err != nil {
		skipf(t, "reading %s: %v", p, err)
	}
	if err := os.WriteFile(p, []byte("0"), 0o644); err != nil {
		skipf(t, "turning %s off: %v", p, err)
	}
	t.Cleanup(func() { os.WriteFile(p, was, 0o644) })
}

// runAs runs name args as the user of as (setpriv and its options) in dir; its combined
// output and exit status.
func runAs(t *testing.T, dir string, as []string, name string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(as[0], append(append(append([]string{}, as[1:]...), name), args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return string(out), cmd.ProcessState.ExitCode()
}

// waitQuitHandler waits until the JVM pid catches SIGQUIT (its attach listener's signal: orca
// record --pid refuses a JVM still starting, "try again when it runs"; under a loaded machine
// the refusals above took less than NotifyFlood's start-up).
func waitQuitHandler(t *testing.T, pid int) {
	t.Helper()
	const sigquit = 1 << (3 - 1)
	for deadline := time.Now().Add(javaTimeout / 4); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "SigCgt:"); ok {
				if m, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && m&sigquit != 0 {
					return
				}
			}
		}
	}
	t.Fatalf("pid %d catches no SIGQUIT after %v", pid, javaTimeout/4)
}
