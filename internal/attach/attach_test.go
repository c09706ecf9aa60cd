package attach

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"orca/internal/crash"
	"orca/internal/hostfs"
	"orca/internal/testjvm"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The tests start real JVMs running testdata/Sleeper.java on every JDK present, attach to them
// and run commands, and load testdata/agent.c compiled by gcc.

// The JDKs are internal/testjvm's: every one present, an absent one skipped (or failed:
// ORCA_REQUIRE_JDKS).

// nobody is the user the other-user tests run a JVM as; other is a second user without an
// entry in /etc/passwd.
const (
	nobody = 65534
	other  = 65533
)

var workDir string // classes and agents, readable by nobody; removed by TestMain

func TestMain(m *testing.M) {
	if pid := os.Getenv("ORCA_ATTACH_HELPER_PID"); pid != "" {
		helper(pid)
		return
	}
	d, err := os.MkdirTemp("", "orca-attach-")
	if err == nil {
		err = os.Chmod(d, 0o755) // a JVM run as nobody reads the classes and agents here
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "attach:", err)
		os.Exit(1)
	}
	workDir = d
	code := m.Run()
	os.RemoveAll(d)
	os.Exit(code)
}

// helper attaches to the JVM ORCA_ATTACH_HELPER_PID and prints the outcome: the test binary
// run as another user (TestOtherUserRefused).
func helper(pid string) {
	n, _ := strconv.Atoi(pid)
	vm, err := AttachTimeout(n, 2*time.Second)
	if err != nil {
		fmt.Printf("error: %v\nis ErrPermission: %v\n", err, errors.Is(err, ErrPermission))
		os.Exit(0)
	}
	fmt.Printf("attached to %d\n", vm.PID)
}

type jdk struct {
	feature int
	home    string
	version string // JAVA_VERSION of the release file: 17.0.15
}

func (j jdk) java() string { return filepath.Join(j.home, "bin", "java") }

// forEachJDK runs f as a subtest per JDK (testjvm.Each).
func forEachJDK(t *testing.T, f func(t *testing.T, j jdk)) {
	testjvm.Each(t, func(t *testing.T, tj testjvm.JDK) {
		v, err := tj.Version()
		if err != nil {
			t.Fatal(err)
		}
		f(t, jdk{feature: tj.Feature, home: tj.Home, version: v})
	})
}

var (
	buildMu sync.Mutex
	built   = map[string]error{}
)

// once runs build the first time key is asked for and returns its error every time.
func once(key string, build func() error) error {
	buildMu.Lock()
	defer buildMu.Unlock()
	if err, ok := built[key]; ok {
		return err
	}
	err := build()
	built[key] = err
	return err
}

// classes returns the directory of the compiled Sleeper.
func classes(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(workDir, "classes")
	err := once("classes", func() error {
		src, err := filepath.Abs("testdata/Sleeper.java")
		if err != nil {
			return err
		}
		return testjvm.Compile(dir, workDir, src)
	})
	crash.Check(t, workDir)
	if err != nil {
		t.Skipf("JDK 17's javac compiles the test program: %v", err)
	}
	return dir
}

// agent compiles testdata/agent.c against j's headers into a library whose Agent_OnAttach
// writes its options into out and returns result.
func agent(t *testing.T, j jdk, out string, result int) string {
	t.Helper()
	lib := filepath.Join(workDir, fmt.Sprintf("libagent-%d-%d-%08x.so", j.feature, result, crc32.ChecksumIEEE([]byte(out))))
	err := once(lib, func() error {
		gcc, err := exec.LookPath("gcc")
		if err != nil {
			return err
		}
		cmd := exec.Command(gcc, "-shared", "-fPIC", "-Wall", "-Werror",
			"-I", filepath.Join(j.home, "include"), "-I", filepath.Join(j.home, "include", "linux"),
			"-DOUT_FILE="+strconv.Quote(out), "-DRESULT="+strconv.Itoa(result),
			"-o", lib, "testdata/agent.c")
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("gcc: %v\n%s", err, b)
		}
		return os.Chmod(lib, 0o755)
	})
	if err != nil {
		t.Skipf("compiling the test agent: %v", err)
	}
	return lib
}

// javaProc is a JVM a test started (testjvm.Start).
type javaProc struct{ *testjvm.Proc }

// startJVM starts Sleeper on j in dir (its working directory and the place of its crash
// files) and waits until main runs. prefix runs the JVM under another command (setpriv);
// env is added to the environment. The JVM is ended when the test ends, and the test fails
// when it crashed.
func startJVM(t *testing.T, j jdk, dir string, prefix, env []string, opts ...string) *javaProc {
	t.Helper()
	args := append(slices.Clone(opts), "-cp", classes(t), "Sleeper")
	cmd := testjvm.Command(t, dir, append(slices.Clone(prefix), testjvm.Argv(j.java(), dir, args...)...)...)
	cmd.Env = append(os.Environ(), env...)
	return startCmd(t, cmd)
}

// startCmd starts cmd (testjvm.Command's), a JVM running Sleeper or a command that runs one;
// see startJVM.
func startCmd(t *testing.T, cmd *exec.Cmd) *javaProc {
	t.Helper()
	return &javaProc{testjvm.Start(t, cmd, "ready")}
}

func (p *javaProc) pid() int { return p.JVM }

// noThreadDump fails t when the JVM printed a thread dump: SIGQUIT reached a JVM that did not
// take it as the attach trigger (or reached one after its listener started).
func (p *javaProc) noThreadDump(t *testing.T) {
	t.Helper()
	if out := p.Stdout.String(); strings.Contains(out, "Full thread dump") {
		t.Errorf("the JVM printed a thread dump: a SIGQUIT went astray:\n%.2000s", out)
	}
}

func TestAttach(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := t.TempDir()
		p := startJVM(t, j, dir, nil, nil)
		vm, err := Attach(p.pid())
		if err != nil {
			t.Fatalf("Attach(%d): %v", p.pid(), err)
		}
		if vm.NSPid != p.pid() {
			t.Errorf("NSPid = %d, want %d (one pid namespace)", vm.NSPid, p.pid())
		}

		code, out, err := vm.Command("properties")
		if err != nil || code != 0 {
			t.Fatalf("properties: code %d, %v\n%s", code, err, out)
		}
		if want := "java.version=" + j.version + "\n"; !strings.Contains(out, want) {
			t.Errorf("properties: no line %q in\n%.3000s", strings.TrimSpace(want), out)
		}

		code, out, err = vm.Command("jcmd", "VM.version")
		if err != nil || code != 0 || !strings.Contains(out, "JDK "+j.version+"\n") {
			t.Errorf("jcmd VM.version: code %d, %v; want \"JDK %s\" in\n%s", code, err, j.version, out)
		}

		// An unknown command: the JVM says so with a non-zero code, not a broken connection.
		code, out, err = vm.Command("nosuchcommand")
		if err != nil || code == 0 || !strings.Contains(out, "not recognized") {
			t.Errorf("nosuchcommand: code %d, %v, %q; want a non-zero code and \"not recognized\"", code, err, out)
		}

		wantVersion := 1
		if j.feature >= 24 {
			wantVersion = 2
		}
		if v, err := vm.ProtocolVersion(); err != nil || v != wantVersion || vm.Version != wantVersion {
			t.Errorf("ProtocolVersion = %d, %v, Version %d; want %d", v, err, vm.Version, wantVersion)
		}

		// load: Agent_OnAttach gets the options and its result comes back.
		okOut := filepath.Join(dir, "ok.txt")
		opts := "hello attach, k=v " + j.version
		code, out, err = vm.Load(agent(t, j, okOut, 0), opts)
		if err != nil || code != 0 {
			t.Errorf("Load(ok agent): code %d, %v\n%s", code, err, out)
		}
		if b, err := os.ReadFile(okOut); err != nil || string(b) != opts {
			t.Errorf("the agent wrote %q, %v; want its options %q", b, err, opts)
		}
		sevenOut := filepath.Join(dir, "seven.txt")
		code, out, err = vm.Load(agent(t, j, sevenOut, 7), "seven")
		if err != nil || code != 7 {
			t.Errorf("Load(agent returning 7): code %d, %v, %q; want code 7", code, err, out)
		}
		if b, err := os.ReadFile(sevenOut); err != nil || string(b) != "seven" {
			t.Errorf("the agent returning 7 wrote %q, %v; want \"seven\"", b, err)
		}
		missing := filepath.Join(dir, "libmissing.so")
		code, out, err = vm.Load(missing, "")
		if err == nil || !strings.Contains(err.Error(), "was not loaded") || !strings.Contains(err.Error(), missing) {
			t.Errorf("Load(%s): code %d, %v; want an error saying it was not loaded", missing, code, err)
		}

		// JDK 21+ (JEP 451) warns on the JVM's stderr about a dynamically loaded JVMTI agent.
		warned := strings.Contains(p.Stderr.String(), "A JVM TI agent has been loaded dynamically")
		if warned != (j.feature >= 21) {
			t.Errorf("JDK %d: dynamic-agent warning printed: %v, want %v; stderr:\n%s", j.feature, warned, j.feature >= 21, p.Stderr)
		}

		// A second attach to the same JVM (its listener runs now) works as well.
		vm2, err := Attach(p.pid())
		if err != nil {
			t.Fatalf("second Attach(%d): %v", p.pid(), err)
		}
		code, out, err = vm2.Command("threaddump")
		if err != nil || code != 0 || !strings.Contains(out, "Sleeper.main") {
			t.Errorf("threaddump: code %d, %v; want Sleeper.main in\n%.3000s", code, err, out)
		}
		if strings.Contains(p.Stdout.String(), "Sleeper.main") {
			t.Errorf("the thread dump went to the JVM's stdout, not to the attach connection")
		}
		p.noThreadDump(t)
	})
}

func TestAttachDisabled(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		t.Run("command-line", func(t *testing.T) {
			p := startJVM(t, j, t.TempDir(), nil, nil, "-XX:+DisableAttachMechanism")
			_, err := Attach(p.pid())
			if !errors.Is(err, ErrAttachDisabled) || !strings.Contains(err.Error(), "-XX:+DisableAttachMechanism (in the command line)") {
				t.Errorf("Attach: %v; want ErrAttachDisabled naming the command line", err)
			}
			p.noThreadDump(t) // refused without a signal
		})
		t.Run("JAVA_TOOL_OPTIONS", func(t *testing.T) {
			p := startJVM(t, j, t.TempDir(), nil, []string{"JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"})
			_, err := Attach(p.pid())
			if !errors.Is(err, ErrAttachDisabled) || !strings.Contains(err.Error(), "JAVA_TOOL_OPTIONS") {
				t.Errorf("Attach: %v; want ErrAttachDisabled naming JAVA_TOOL_OPTIONS", err)
			}
		})
		t.Run("re-enabled", func(t *testing.T) {
			// The command line comes after JAVA_TOOL_OPTIONS: the last setting wins.
			p := startJVM(t, j, t.TempDir(), nil, []string{"JAVA_TOOL_OPTIONS=-XX:+DisableAttachMechanism"}, "-XX:-DisableAttachMechanism")
			vm, err := Attach(p.pid())
			if err != nil {
				t.Fatalf("Attach: %v", err)
			}
			if code, out, err := vm.Command("jcmd", "VM.version"); err != nil || code != 0 {
				t.Errorf("jcmd VM.version: code %d, %v\n%s", code, err, out)
			}
		})
		t.Run("no-dynamic-agents", func(t *testing.T) {
			dir := t.TempDir()
			p := startJVM(t, j, dir, nil, nil, "-XX:-EnableDynamicAgentLoading")
			vm, err := Attach(p.pid())
			if err != nil {
				t.Fatalf("Attach: %v", err)
			}
			out := filepath.Join(dir, "ok.txt")
			_, _, err = vm.Load(agent(t, j, out, 0), "x")
			if err == nil || !strings.Contains(err.Error(), "restart it without that option") {
				t.Errorf("Load into a JVM with -XX:-EnableDynamicAgentLoading: %v; want an error naming the option", err)
			}
			if exists(out) {
				t.Errorf("the agent ran")
			}
		})
		// Options the command line does not show: refused at once from what the JVM recorded
		// in its hsperfdata file, with no SIGQUIT (before, the listener never started, the
		// attach timed out, and a second SIGQUIT made the JVM print a thread dump).
		for _, c := range []struct{ name, file, opt string }{
			{"argfile", "-XX:+DisableAttachMechanism\n", "@"},
			{"flags-file", "+DisableAttachMechanism\n", "-XX:Flags="},
			{"vm-options-file", "-XX:+DisableAttachMechanism\n", "-XX:VMOptionsFile="},
		} {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				file := filepath.Join(dir, "args")
				if err := os.WriteFile(file, []byte(c.file), 0o644); err != nil {
					t.Fatal(err)
				}
				p := startJVM(t, j, dir, nil, nil, c.opt+file)
				start := time.Now()
				_, err := AttachTimeout(p.pid(), 3*time.Second)
				if !errors.Is(err, ErrAttachDisabled) || !strings.Contains(err.Error(), "hsperfdata") {
					t.Errorf("Attach: %v; want ErrAttachDisabled naming the hsperfdata file", err)
				}
				if d := time.Since(start); d > 2*time.Second {
					t.Errorf("Attach took %v: want refused at once", d)
				}
				time.Sleep(200 * time.Millisecond)
				p.noThreadDump(t)
			})
		}
	})
}

// TestAttachNoStraySignal: orca never sends a SIGQUIT that the JVM would take for a thread
// dump: not to a stopped JVM (it would get it once continued), not to a thread id (the signal
// goes to the process, whose trigger has another name), not twice when two attaches start at
// once (2 of 6 trials printed a dump before).
func TestAttachNoStraySignal(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		t.Run("stopped", func(t *testing.T) {
			p := startJVM(t, j, t.TempDir(), nil, nil)
			syscall.Kill(p.pid(), syscall.SIGSTOP)
			for i := 0; i < 100; i++ {
				if tg, err := readTarget(p.pid()); err == nil && tg.stopped() {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			start := time.Now()
			_, err := Attach(p.pid())
			if !errors.Is(err, ErrStopped) || !strings.Contains(err.Error(), "kill -CONT") || time.Since(start) > time.Second {
				t.Errorf("Attach of a stopped JVM: %v after %v; want ErrStopped at once, saying kill -CONT", err, time.Since(start))
			}
			syscall.Kill(p.pid(), syscall.SIGCONT)
			time.Sleep(300 * time.Millisecond)
			p.noThreadDump(t)
			if vm, err := Attach(p.pid()); err != nil {
				t.Errorf("Attach once continued: %v", err)
			} else if code, _, err := vm.Command("jcmd", "VM.version"); err != nil || code != 0 {
				t.Errorf("jcmd VM.version: %d, %v", code, err)
			}
		})
		t.Run("thread-id", func(t *testing.T) {
			p := startJVM(t, j, t.TempDir(), nil, nil)
			tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", p.pid()))
			tid := 0
			for _, e := range tasks {
				if n, _ := strconv.Atoi(e.Name()); n != p.pid() {
					tid = n
					break
				}
			}
			_, err := Attach(tid)
			if !errors.Is(err, ErrNoProcess) || !strings.Contains(err.Error(), fmt.Sprintf("a thread of process %d", p.pid())) {
				t.Errorf("Attach(%d), a thread of %d: %v", tid, p.pid(), err)
			}
			time.Sleep(300 * time.Millisecond)
			p.noThreadDump(t)
		})
		t.Run("simultaneous", func(t *testing.T) {
			for round := 0; round < 4; round++ {
				p := startJVM(t, j, t.TempDir(), nil, nil)
				var wg sync.WaitGroup
				errs := make([]error, 3)
				for i := range errs {
					wg.Add(1)
					go func() {
						defer wg.Done()
						_, errs[i] = Attach(p.pid())
					}()
				}
				wg.Wait()
				for i, err := range errs {
					if err != nil {
						t.Errorf("round %d: attach %d of 3 at once: %v", round, i, err)
					}
				}
				time.Sleep(300 * time.Millisecond)
				p.noThreadDump(t)
			}
		})
	})
}

func TestNotJVM(t *testing.T) {
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Skipf("starting sleep: %v", err)
	}
	defer func() {
		sleep.Process.Kill()
		sleep.Wait()
	}()
	_, err := Attach(sleep.Process.Pid)
	if !errors.Is(err, ErrNotJVM) || !strings.Contains(err.Error(), "(sleep)") {
		t.Errorf("Attach(sleep): %v; want ErrNotJVM naming sleep", err)
	}
	// sleep is still alive: no SIGQUIT reached it.
	if err := sleep.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("sleep ended: %v", err)
	}

	done := exec.Command("true")
	if err := done.Run(); err != nil {
		t.Skipf("running true: %v", err)
	}
	for _, pid := range []int{done.Process.Pid, 0, -3} {
		if _, err := Attach(pid); !errors.Is(err, ErrNoProcess) {
			t.Errorf("Attach(%d), a process that is gone: %v; want ErrNoProcess", pid, err)
		}
	}
}

// nobodyDir returns a directory that a JVM run as nobody can write, with the test's own
// crash check.
func nobodyDir(t *testing.T) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("running a JVM as another user needs root")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Skip("setpriv (util-linux) runs the JVM as another user: not found")
	}
	dir, err := os.MkdirTemp(workDir, "nobody-")
	if err == nil {
		err = os.Chown(dir, nobody, nobody)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

var asNobody = []string{"setpriv", "--reuid=" + strconv.Itoa(nobody), "--regid=" + strconv.Itoa(nobody), "--clear-groups"}

func TestOtherUser(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := nobodyDir(t)
		p := startJVM(t, j, dir, asNobody, nil)
		vm, err := Attach(p.pid())
		if err != nil {
			t.Fatalf("Attach(%d), a JVM of nobody, as root: %v", p.pid(), err)
		}
		var st syscall.Stat_t
		if err := syscall.Stat(vm.Socket, &st); err != nil || st.Uid != nobody {
			t.Errorf("socket %s: uid %d, %v; want nobody's", vm.Socket, st.Uid, err)
		}
		code, out, err := vm.Command("jcmd", "VM.version")
		if err != nil || code != 0 || !strings.Contains(out, "JDK "+j.version) {
			t.Errorf("jcmd VM.version: code %d, %v\n%s", code, err, out)
		}
		okOut := filepath.Join(dir, "ok.txt")
		code, out, err = vm.Load(agent(t, j, okOut, 0), "as nobody")
		if err != nil || code != 0 {
			t.Errorf("Load: code %d, %v\n%s", code, err, out)
		}
		if err := syscall.Stat(okOut, &st); err != nil || st.Uid != nobody {
			t.Errorf("the agent's file %s: uid %d, %v; want written by the JVM as nobody", okOut, st.Uid, err)
		}
		if b, err := os.ReadFile(okOut); err != nil || string(b) != "as nobody" {
			t.Errorf("the agent wrote %q, %v", b, err)
		}
		p.noThreadDump(t)
	})
}

func TestOtherUserRefused(t *testing.T) {
	j := testjvm.All()[0] // JDK 17
	j.Check(t, nil)
	dir := nobodyDir(t)
	p := startJVM(t, jdk{feature: j.Feature, home: j.Home}, dir, asNobody, nil)

	// The test binary, run as another user, attaches to nobody's JVM.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "attach.test")
	b, err := os.ReadFile(self)
	if err == nil {
		err = os.WriteFile(bin, b, 0o755)
	}
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("setpriv", "--reuid="+strconv.Itoa(other), "--regid="+strconv.Itoa(other), "--clear-groups", bin)
	cmd.Env = append(os.Environ(), "ORCA_ATTACH_HELPER_PID="+strconv.Itoa(p.pid()))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the helper as uid %d: %v\n%s", other, err, out)
	}
	want := []string{"is ErrPermission: true", "runs as nobody (uid 65534) and orca as uid 65533", "sudo -u '#65534'"}
	for _, w := range want {
		if !strings.Contains(string(out), w) {
			t.Errorf("the helper as uid %d said\n%s\nwant %q", other, out, w)
		}
	}
	if !exists(fmt.Sprintf("/proc/%d", p.pid())) {
		t.Errorf("nobody's JVM ended")
	}
	p.noThreadDump(t)
}

// TestContainer attaches to a JVM in a container made by unshare: its own user namespace
// (where it is root, and the host's root is nobody), pid namespace (where it is pid 1) and
// mount namespace (where /tmp is an empty tmpfs). Orca must find the socket through
// /proc/PID/root, name it by the JVM's own pid, make the trigger file the JVM's user's and
// connect as that user.
func TestContainer(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) makes the container: not found")
	}
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := nobodyDir(t)
		probe := exec.Command("setpriv", append(asNobody[1:], "unshare", "--user", "--map-root-user", "--mount", "true")...)
		if out, err := probe.CombinedOutput(); err != nil {
			t.Skipf("nobody cannot create a user and mount namespace here: %v\n%s", err, out)
		}
		// The container sees dir as /mnt (dir is under the /tmp that its tmpfs covers): its
		// classes, its crash files and the test agent are there.
		cp := exec.Command("cp", "-r", classes(t)+"/.", dir)
		if out, err := cp.CombinedOutput(); err != nil {
			t.Fatalf("copying the classes: %v\n%s", err, out)
		}
		script := `mount --bind "$0" /mnt && mount -t tmpfs tmpfs /tmp && cd /mnt && exec "$1" ` + testjvm.Options("/mnt", "-cp", "/mnt", "Sleeper")
		cmd := testjvm.Command(t, dir, append(slices.Clone(asNobody), "unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork",
			"--mount-proc", "--kill-child=SIGTERM", "sh", "-c", script, dir, j.java())...)
		p := startCmd(t, cmd)
		kids, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", p.JVM, p.JVM))
		f := strings.Fields(string(kids))
		if err != nil || len(f) != 1 {
			t.Fatalf("the JVM, child of unshare %d: %q, %v", p.JVM, kids, err)
		}
		p.JVM, _ = strconv.Atoi(f[0])

		vm, err := Attach(p.pid())
		if err != nil {
			t.Fatalf("Attach(%d), a JVM in a container: %v", p.pid(), err)
		}
		if vm.NSPid != 1 {
			t.Errorf("NSPid = %d, want 1", vm.NSPid)
		}
		if want := fmt.Sprintf("/proc/%d/root/tmp/.java_pid1", p.pid()); vm.Socket != want {
			t.Errorf("Socket = %s, want %s", vm.Socket, want)
		}
		if exists("/tmp/.java_pid1") {
			t.Errorf("/tmp/.java_pid1 exists on the host: the JVM's /tmp is not its own")
		}
		code, out, err := vm.Command("jcmd", "VM.version")
		if err != nil || code != 0 || !strings.Contains(out, "JDK "+j.version) {
			t.Errorf("jcmd VM.version: code %d, %v\n%s", code, err, out)
		}
		// The agent's path is the container's.
		lib := agent(t, j, "/mnt/ok.txt", 0)
		if b, err := os.ReadFile(lib); err != nil || os.WriteFile(filepath.Join(dir, "libagent.so"), b, 0o755) != nil {
			t.Fatalf("copying %s into the container: %v", lib, err)
		}
		code, out, err = vm.Load("/mnt/libagent.so", "in a container")
		if err != nil || code != 0 {
			t.Errorf("Load: code %d, %v\n%s", code, err, out)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "ok.txt")); err != nil || string(b) != "in a container" {
			t.Errorf("the agent wrote %q, %v", b, err)
		}
		p.noThreadDump(t)
	})
}

// sleeper starts a process that runs as uid in dir (its working directory) and returns its
// target, for the trigger's tests.
func sleeper(t *testing.T, dir string, uid int) *target {
	t.Helper()
	cmd := exec.Command("setpriv", "--reuid="+strconv.Itoa(uid), "--regid="+strconv.Itoa(uid), "--clear-groups", "sleep", "60")
	cmd.Dir = dir
	if err := cmd.Start(); err != nil {
		t.Skipf("setpriv: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	tg, err := readTarget(cmd.Process.Pid)
	// setpriv switches its user first, then its group (it keeps the capability to): wait
	// for both, or the trigger is made with root's group (seen once in a test run).
	for i := 0; err == nil && (tg.euid != uid || tg.egid != uid) && i < 100; i++ {
		time.Sleep(10 * time.Millisecond) // setpriv has not switched yet
		tg, err = readTarget(cmd.Process.Pid)
	}
	if err != nil || tg.euid != uid || tg.egid != uid {
		t.Fatalf("readTarget(sleep as %d) = %+v, %v", uid, tg, err)
	}
	tg.nspid = 1 // a name no JVM of this test uses
	return tg
}

// TestCreateTrigger: the trigger is created in the JVM's working directory by the JVM's user
// (no chown), and removed by orca only while it is the file orca made.
func TestCreateTrigger(t *testing.T) {
	dir := nobodyDir(t)
	tg := sleeper(t, dir, nobody)
	path := filepath.Join(dir, ".attach_pid1")
	c, err := createTrigger(tg)
	if err != nil || c == nil {
		t.Fatalf("createTrigger = %v, %v", c, err)
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil || st.Uid != nobody || st.Gid != nobody || st.Mode&0o777 != 0o600 {
		t.Errorf("%s: uid %d gid %d mode %#o, %v; want the JVM's user's, 0600", path, st.Uid, st.Gid, st.Mode&0o777, err)
	}
	// A trigger that is there already is another attacher's: not ours to remove.
	if c2, err := createTrigger(tg); err != nil || c2 != nil {
		t.Errorf("second createTrigger = %v, %v; want nil, nil", c2, err)
	}
	// Replaced since: the new file is not removed.
	must(t, os.WriteFile(path+".new", nil, 0o600))
	must(t, os.Rename(path+".new", path))
	if err := c.Remove(); err == nil || !exists(path) {
		t.Errorf("Remove of a replaced trigger: %v, still there %v; want refused", err, exists(path))
	}
	must(t, os.Remove(path))
	c, err = createTrigger(tg)
	if err != nil || c == nil {
		t.Fatalf("createTrigger = %v, %v", c, err)
	}
	if err := c.Remove(); err != nil || exists(path) {
		t.Errorf("Remove: %v, still there %v", err, exists(path))
	}
	// A working directory the JVM's user cannot write (root's, 0755): the trigger goes to /tmp,
	// never created there by root and given away.
	rootDir, err := os.MkdirTemp(workDir, "root-") // workDir: nobody may enter it
	must(t, err)
	must(t, os.Chmod(rootDir, 0o755))
	tg = sleeper(t, rootDir, nobody)
	tg.nspid = 1_000_000 + os.Getpid() // a pid no process has: a trigger no JVM takes
	c, err = createTrigger(tg)
	if err != nil || c == nil {
		t.Fatalf("createTrigger in a directory nobody cannot write: %v, %v", c, err)
	}
	defer c.Remove()
	if exists(filepath.Join(rootDir, ".attach_pid"+strconv.Itoa(tg.nspid))) {
		t.Errorf("the trigger was made in a directory the JVM's user cannot write")
	}
	if err := syscall.Lstat(filepath.Join("/tmp", c.Name), &st); err != nil || st.Uid != nobody {
		t.Errorf("/tmp/%s: uid %d, %v; want nobody's", c.Name, st.Uid, err)
	}
}

// TestTriggerSwap: the JVM's user owns its working directory and swaps the trigger for a
// symlink to a file of root's as fast as it can while orca creates and removes it: the file
// stays root's, untouched. Before, createTrigger chowned the trigger by path after closing it,
// and gave root's file away (6 of 31 rounds of orca record --pid).
func TestTriggerSwap(t *testing.T) {
	dir := nobodyDir(t)
	tg := sleeper(t, dir, nobody)
	victim := filepath.Join(t.TempDir(), "root-only")
	must(t, os.WriteFile(victim, []byte("root's"), 0o600))
	path := filepath.Join(dir, ".attach_pid1")
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		// The attacker: replaces whatever is at the name by a link to root's file.
		defer wg.Done()
		tmp := filepath.Join(dir, "link")
		for {
			select {
			case <-stop:
				return
			default:
			}
			os.Remove(tmp)
			if os.Symlink(victim, tmp) == nil {
				os.Rename(tmp, path)
			}
		}
	}()
	created := 0
	for i := 0; i < 2000; i++ {
		c, err := createTrigger(tg)
		if err == nil && c != nil {
			created++
			c.Remove()
		}
		os.Remove(path)
	}
	close(stop)
	wg.Wait()
	var st syscall.Stat_t
	if err := syscall.Stat(victim, &st); err != nil || st.Uid != 0 || st.Mode&0o777 != 0o600 {
		t.Errorf("%s: uid %d mode %#o, %v: root's file was given to the JVM's user", victim, st.Uid, st.Mode&0o777, err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "root's" {
		t.Errorf("%s now holds %q", victim, b)
	}
	if created == 0 {
		t.Errorf("no trigger was created in 2000 rounds: the race was not run")
	}
	t.Logf("%d of 2000 rounds created the trigger", created)
}

func TestParseStatus(t *testing.T) {
	status := "Name:\tjava\nUid:\t1000\t1001\t1001\t1001\nGid:\t50\t51\t51\t51\nNSpid:\t4242\t17\t1\n" +
		"SigIgn:\t0000000000000000\nSigCgt:\t2000000181005ccf\n"
	tg, err := parseStatus(4242, []byte(status))
	if err != nil {
		t.Fatal(err)
	}
	if tg.nspid != 1 || tg.euid != 1001 || tg.egid != 51 || !tg.catchesQuit() {
		t.Errorf("parseStatus = %+v; want nspid 1 (innermost), euid 1001, egid 51, SIGQUIT caught", tg)
	}
	tg, err = parseStatus(7, []byte("Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\nSigIgn:\t0000000000000004\nSigCgt:\t0000000000000004\n"))
	if err != nil || tg.nspid != 7 || tg.catchesQuit() {
		t.Errorf("parseStatus without NSpid, SIGQUIT ignored = %+v, %v; want nspid 7, not caught", tg, err)
	}
	if _, err := parseStatus(7, []byte("Name:\tx\n")); err == nil {
		t.Errorf("parseStatus without Uid: no error")
	}
}

func TestJVMOptions(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want []string
	}{
		{[]string{"java", "-Xmx1g", "-cp", "a:b", "-XX:+DisableAttachMechanism", "Main", "-XX:-DisableAttachMechanism"},
			[]string{"-Xmx1g", "-cp", "-XX:+DisableAttachMechanism"}},
		{[]string{"java", "-jar", "app.jar", "-XX:+DisableAttachMechanism"}, nil},
		{[]string{"java", "--add-opens", "java.base/java.lang=ALL-UNNAMED", "-m", "mod/x.Main"}, []string{"--add-opens"}},
	} {
		if got := jvmOptions(c.argv); !slices.Equal(got, c.want) {
			t.Errorf("jvmOptions(%q) = %q, want %q", c.argv, got, c.want)
		}
	}
}

func TestParseStartTime(t *testing.T) {
	stat := []byte("4242 (java (a) b) S 1 4242 4242 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 12345 0 0\n")
	boot := []byte("cpu  1 2 3\nbtime 1795720000\nprocesses 9\n")
	got, err := parseStartTime(stat, boot)
	if want := time.Unix(1795720000, 0).Add(123450 * time.Millisecond); err != nil || !got.Equal(want) {
		t.Errorf("parseStartTime = %v, %v; want %v", got, err, want)
	}
	if _, err := parseStartTime([]byte("4242 (java) S 1"), boot); err == nil {
		t.Error("a short stat line was read")
	}
	// This process started before now and after boot.
	if st, err := startTime(os.Getpid()); err != nil || st.After(time.Now()) || time.Since(st) > time.Hour {
		t.Errorf("startTime(self) = %v, %v", st, err)
	}
}

// TestStaleSocket: a socket left by an earlier process with the JVM's pid (older than the JVM)
// is removed, so that the JVM's own listener is started; the JVM's own socket is kept.
func TestStaleSocket(t *testing.T) {
	dir := t.TempDir()
	fd, err := hostfs.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	sock := filepath.Join(dir, ".java_pid1")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close()
	self := &target{pid: os.Getpid(), nspid: 1}
	old := time.Now().Add(-48 * time.Hour)
	os.Chtimes(sock, old, old)
	if err := removeStaleIn(fd, sock, self); err != nil || exists(sock) {
		t.Errorf("a socket older than the process: %v, still there %v", err, exists(sock))
	}
	// A link, or a file, at the name is not the socket: not removed.
	must(t, os.Symlink("/etc/passwd", sock))
	ts := []unix.Timespec{unix.NsecToTimespec(old.UnixNano()), unix.NsecToTimespec(old.UnixNano())}
	must(t, unix.UtimesNanoAt(unix.AT_FDCWD, sock, ts, unix.AT_SYMLINK_NOFOLLOW))
	if err := removeStaleIn(fd, sock, self); err == nil || !exists(sock) {
		t.Errorf("a link at the socket's name: %v, removed %v", err, !exists(sock))
	}
	os.Remove(sock)
	os.WriteFile(sock, nil, 0o600)
	if err := removeStaleIn(fd, sock, self); err != nil || !exists(sock) {
		t.Errorf("a file made after the process started: %v, removed %v", err, !exists(sock))
	}
}

// TestListenerRuns names one of this process's threads "Attach Listener" and looks for it: found
// on a first look, and not on a look that skips the tasks seen before, which is how start's
// second look reads only the tasks started since its first.
func TestListenerRuns(t *testing.T) {
	self, err := readTarget(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	if self.listenerRuns(seen) {
		t.Fatal("a listener found before any thread was named so")
	}
	if len(seen) == 0 {
		t.Fatal("the look kept no task as seen")
	}
	named, done := make(chan int), make(chan bool)
	go func() {
		runtime.LockOSThread() // the thread ends with the goroutine: its name goes with it
		if err := unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&[]byte("Attach Listener\x00")[0])), 0, 0, 0); err != nil {
			t.Error(err)
		}
		named <- unix.Gettid()
		<-done
	}()
	tid := <-named
	defer close(done)
	if !self.listenerRuns(map[string]bool{}) {
		t.Fatalf("thread %d named Attach Listener not found", tid)
	}
	all := map[string]bool{}
	self.listenerRuns(all)
	all[strconv.Itoa(tid)] = true
	if self.listenerRuns(all) {
		t.Fatal("found in a task the look was told it had seen")
	}
	delete(all, strconv.Itoa(tid))
	if !self.listenerRuns(all) {
		t.Fatal("not found among the tasks left to read")
	}
}

// TestPerfFlagsOpensNoFIFO: any user can make a directory hsperfdata_NAME in /tmp, and the
// hsperfdata reader looks in every one for the JVM's pid: a FIFO (or a link to a device) put
// there was opened by root before its owner and kind were checked. A writer blocked on the FIFO
// shows whether it was opened.
func TestPerfFlagsOpensNoFIFO(t *testing.T) {
	sleep := exec.Command("sleep", "30")
	if err := sleep.Start(); err != nil {
		t.Skip(err)
	}
	defer func() { sleep.Process.Kill(); sleep.Wait() }()
	tg, err := readTarget(sleep.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("/tmp", "hsperfdata_orcatest")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	fifo := filepath.Join(dir, strconv.Itoa(tg.nspid))
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	woke := make(chan struct{})
	go func() {
		if fd, err := unix.Open(fifo, unix.O_WRONLY|unix.O_CLOEXEC, 0); err == nil {
			unix.Close(fd)
		}
		close(woke)
	}()
	time.Sleep(100 * time.Millisecond) // the writer blocks in its open
	if _, ok := tg.perfFlags(); ok {
		t.Errorf("perfFlags took a FIFO for the JVM's hsperfdata file")
	}
	select {
	case <-woke:
		t.Errorf("perfFlags opened a FIFO in %s", dir)
	case <-time.After(300 * time.Millisecond):
		fd, err := unix.Open(fifo, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			<-woke
			unix.Close(fd)
		}
	}
}

// TestPlantedTrigger: a name .attach_pid<PID> that orca did not make (here the JVM's user's
// symlink to a file of the test's, in the JVM's working directory) is neither written nor
// followed, and no SIGQUIT is sent (another attach may be starting the listener); the timeout
// then names the file, what it is and whose. It said "did not appear after SIGQUIT to pid N",
// which orca never sent.
func TestPlantedTrigger(t *testing.T) {
	forEachJDK(t, func(t *testing.T, j jdk) {
		dir := t.TempDir()
		p := startJVM(t, j, dir, nil, nil)
		target := filepath.Join(t.TempDir(), "kept")
		if err := os.WriteFile(target, []byte("kept\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(dir, fmt.Sprintf(".attach_pid%d", p.pid()))); err != nil {
			t.Fatal(err)
		}
		_, err := AttachTimeout(p.pid(), 500*time.Millisecond)
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "no SIGQUIT") ||
			!strings.Contains(err.Error(), fmt.Sprintf(".attach_pid%d in the JVM's working directory (a symlink of ", p.pid())) {
			t.Errorf("Attach with a planted trigger: %v; want a timeout naming the symlink", err)
		}
		if b, _ := os.ReadFile(target); string(b) != "kept\n" {
			t.Errorf("the link's target was written: %q", b)
		}
		time.Sleep(300 * time.Millisecond)
		p.noThreadDump(t)
	})
}

// TestHostileAnswer: the attach socket is the JVM's user's, who may answer anything. An endless
// answer is cut at MaxAnswer (300 MB took 1.5 GB of root's memory, and came back whole in the
// error), a code line without end is refused, and the JVM's words in an error have their
// control characters escaped (they are printed on root's terminal).
func TestHostileAnswer(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "s")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	answers := make(chan []byte, 3)
	go func() {
		for a := range answers {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 4096)
			c.Read(buf)
			c.Write(a)
			c.Close()
		}
	}()
	vm := &VM{PID: os.Getpid(), Socket: sock, CommandTimeout: 20 * time.Second, uid: os.Geteuid(), gid: os.Getegid()}

	answers <- append([]byte("0\n"), make([]byte, MaxAnswer+1)...)
	if _, out, err := vm.Command("properties"); err == nil || !strings.Contains(err.Error(), "longer than 16 MB") || len(out) > 0 {
		t.Errorf("an answer of more than MaxAnswer: %d bytes read, %v", len(out), err)
	}
	answers <- bytes.Repeat([]byte("A"), 5000)
	if _, _, err := vm.Command("properties"); err == nil || !strings.Contains(err.Error(), "no result code") {
		t.Errorf("a code line without end: %v", err)
	}
	answers <- []byte("-1\n\x1b]0;PWNED\x07\x1b[2J was not loaded")
	_, _, err = vm.Load("/x.so", "")
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07") || !strings.Contains(err.Error(), `\x1b]0;PWNED\x07\x1b[2J was not loaded`) {
		t.Errorf("the JVM's words with escape sequences: %q", err)
	}
	close(answers)
}
