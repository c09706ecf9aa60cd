package attach

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procRoot is where the target's /proc entries are read; tests never change it, it only
// names the one place.
const procRoot = "/proc"

// target is what /proc says about the process to attach to.
type target struct {
	pid    int    // in orca's pid namespace
	nspid  int    // in the target's own (innermost) pid namespace: the number HotSpot uses in file names
	euid   int    // effective uid, as orca's user namespace sees it
	egid   int    // effective gid
	sigCgt uint64 // signals with a handler (bit n-1 for signal n)
	sigIgn uint64 // ignored signals
}

func (t *target) dir(name string) string {
	return filepath.Join(procRoot, strconv.Itoa(t.pid), name)
}

// readTarget reads /proc/PID/status.
func readTarget(pid int) (*target, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("%w: pid %d: a pid is a positive number", ErrNoProcess, pid)
	}
	b, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "status"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: pid %d: no such process (is the JVM still running? jps or ps lists them)", ErrNoProcess, pid)
	}
	if err != nil {
		return nil, fmt.Errorf("reading /proc/%d/status: %w", pid, err)
	}
	return parseStatus(pid, b)
}

// parseStatus reads the fields of /proc/PID/status that attaching needs. A kernel without
// NSpid (before 4.1) has one pid namespace in practice: nspid is pid then.
func parseStatus(pid int, b []byte) (*target, error) {
	t := &target{pid: pid, nspid: pid, euid: -1, egid: -1}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		var err error
		switch key {
		case "NSpid":
			// The last field is the pid in the innermost namespace: the one the JVM calls its own.
			if len(f) > 0 {
				t.nspid, err = strconv.Atoi(f[len(f)-1])
			}
		case "Uid", "Gid":
			// Real, effective, saved, filesystem: HotSpot compares its effective ids.
			if len(f) < 2 {
				err = errors.New("want 4 fields")
				break
			}
			id, e := strconv.Atoi(f[1])
			err = e
			if key == "Uid" {
				t.euid = id
			} else {
				t.egid = id
			}
		case "SigCgt", "SigIgn":
			if len(f) != 1 {
				err = errors.New("want 1 field")
				break
			}
			m, e := strconv.ParseUint(f[0], 16, 64)
			err = e
			if key == "SigCgt" {
				t.sigCgt = m
			} else {
				t.sigIgn = m
			}
		}
		if err != nil {
			return nil, fmt.Errorf("/proc/%d/status: %s: %v", pid, key, err)
		}
	}
	if t.euid < 0 || t.egid < 0 {
		return nil, fmt.Errorf("/proc/%d/status: no Uid or Gid line", pid)
	}
	return t, nil
}

// catchesQuit reports whether the target has a handler for SIGQUIT and does not ignore it.
// SIGQUIT's default action ends a process with a core: sending it to a process that has no
// handler (a JVM still starting, or no JVM) would kill it.
func (t *target) catchesQuit() bool {
	const quit = 1 << (3 - 1) // SIGQUIT is 3
	return t.sigCgt&quit != 0 && t.sigIgn&quit == 0
}

// isJVM reports whether the target maps a libjvm.so (HotSpot's shared library). ok is false
// when the maps are not readable (another user's process when orca is not root).
func (t *target) isJVM() (jvm, ok bool) {
	f, err := os.Open(t.dir("maps"))
	if err != nil {
		return false, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.HasSuffix(sc.Text(), "/libjvm.so") {
			return true, true
		}
	}
	return false, sc.Err() == nil
}

// nulFields splits a /proc file of NUL-terminated strings (cmdline, environ).
func nulFields(b []byte) []string {
	s := strings.TrimSuffix(string(b), "\x00")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\x00")
}

// launcherValueOptions are the java launcher's options whose value is the next argument; the
// first argument after the options that is none of them is the main class (or -jar's file),
// and what follows belongs to the program.
var launcherValueOptions = map[string]bool{
	"-cp": true, "-classpath": true, "--class-path": true, "-p": true, "--module-path": true,
	"--upgrade-module-path": true, "--add-modules": true, "--add-exports": true,
	"--add-opens": true, "--add-reads": true, "--patch-module": true, "--limit-modules": true,
	"--enable-native-access": true, "--source": true,
}

// jvmOptions returns the JVM options of a java command line (argv[0] dropped), up to the main
// class, -jar or -m.
func jvmOptions(argv []string) []string {
	var out []string
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "-jar" || a == "-m" || a == "--module" || !strings.HasPrefix(a, "-") {
			break
		}
		out = append(out, a)
		if launcherValueOptions[a] && i+1 < len(argv) {
			i++
		}
	}
	return out
}

// attachDisabled reports whether the target was started with -XX:+DisableAttachMechanism and
// where that was said. HotSpot reads JAVA_TOOL_OPTIONS first, then the launcher's
// JDK_JAVA_OPTIONS, then the command line, then _JAVA_OPTIONS; the last setting wins. Options
// in an @argfile, a -XX:Flags file or -XX:VMOptionsFile are not seen here: the socket then
// never appears, and the timeout's error names this flag.
func (t *target) attachDisabled() (disabled bool, where string) {
	var env []string
	if b, err := os.ReadFile(t.dir("environ")); err == nil {
		env = nulFields(b)
	}
	getenv := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	var argv []string
	if b, err := os.ReadFile(t.dir("cmdline")); err == nil {
		argv = nulFields(b)
	}
	sources := []struct {
		where string
		opts  []string
	}{
		{"JAVA_TOOL_OPTIONS", strings.Fields(getenv("JAVA_TOOL_OPTIONS"))},
		{"JDK_JAVA_OPTIONS", strings.Fields(getenv("JDK_JAVA_OPTIONS"))},
		{"the command line", jvmOptions(argv)},
		{"_JAVA_OPTIONS", strings.Fields(getenv("_JAVA_OPTIONS"))},
	}
	for _, s := range sources {
		for _, o := range s.opts {
			switch o {
			case "-XX:+DisableAttachMechanism":
				disabled, where = true, s.where
			case "-XX:-DisableAttachMechanism":
				disabled, where = false, ""
			}
		}
	}
	return disabled, where
}
