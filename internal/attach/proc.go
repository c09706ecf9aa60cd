package attach

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"orca/internal/hostfs"
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
	tgid   int    // the process (thread group) pid belongs to: pid itself for a process
	state  string // State: of /proc/PID/status ("S (sleeping)", "T (stopped)", ...)
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
	t := &target{pid: pid, nspid: pid, tgid: pid, euid: -1, egid: -1}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		f := strings.Fields(val)
		var err error
		switch key {
		case "Tgid":
			if len(f) > 0 {
				t.tgid, err = strconv.Atoi(f[0])
			}
		case "State":
			t.state = strings.TrimSpace(val)
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

// stopped reports whether the process is stopped by a signal (SIGSTOP, SIGTSTP: state T) or
// a debugger (state t, tracing stop): it runs no handler and serves no attach until continued.
func (t *target) stopped() bool {
	return strings.HasPrefix(t.state, "T") || strings.HasPrefix(t.state, "t")
}

// listenerRuns reports whether the JVM has its "Attach Listener" thread: its attach listener
// was started (it never ends), and a SIGQUIT would print a thread dump. It reads each task's
// comm but those in seen (tasks read before, not the listener), and adds those it read to
// seen: a second look reads only the tasks started since. The reads are openat(2) on the task
// directory's descriptor, a few goroutines at once: a JVM of 10 000 threads took 400-500 ms a
// look with a path a task, 2 to 3 times less this way, and start looks twice.
func (t *target) listenerRuns(seen map[string]bool) bool {
	f, err := os.OpenFile(t.dir("task"), os.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return false
	}
	dir := int(f.Fd())
	todo := names[:0]
	for _, n := range names {
		if !seen[n] {
			todo = append(todo, n)
		}
	}
	const parts = 4
	var found atomic.Bool
	var wg sync.WaitGroup
	for p := range parts {
		part := todo[p*len(todo)/parts : (p+1)*len(todo)/parts]
		wg.Go(func() {
			buf := make([]byte, 64)
			for _, n := range part {
				if found.Load() {
					return
				}
				fd, err := unix.Openat(dir, n+"/comm", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
				if err != nil {
					continue
				}
				k, _ := unix.Read(fd, buf)
				unix.Close(fd)
				if k > 0 && strings.TrimSpace(string(buf[:k])) == "Attach Listener" {
					found.Store(true)
				}
			}
		})
	}
	wg.Wait()
	if found.Load() {
		return true
	}
	for _, n := range todo {
		seen[n] = true
	}
	return false
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
	}
	sources = append(sources, struct {
		where string
		opts  []string
	}{"_JAVA_OPTIONS", strings.Fields(getenv("_JAVA_OPTIONS"))})
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
	if disabled {
		return disabled, where
	}
	// What HotSpot itself took, after the launcher expanded @argfiles and the options files
	// were read (places the command line does not show).
	perf, _ := t.perfFlags()
	for _, o := range perf {
		switch o {
		case "-XX:+DisableAttachMechanism":
			disabled = true
		case "-XX:-DisableAttachMechanism":
			disabled = false
		}
	}
	if disabled {
		where = "an @argfile, -XX:Flags or -XX:VMOptionsFile, as the JVM's hsperfdata file shows"
	}
	return disabled, where
}

// perfFlags returns the JVM options the JVM itself recorded in its hsperfdata file
// (/tmp/hsperfdata_USER/NSPID in its root): java.rt.vmFlags (a -XX:Flags file's, as "+Name")
// and java.rt.vmArgs (every option the launcher passed, @argfiles and JDK_JAVA_OPTIONS expanded;
// -XX:VMOptionsFile's among them), in the order HotSpot applies them. ok is false when there is
// no such file (-XX:-UsePerfData) or it cannot be read.
func (t *target) perfFlags() (opts []string, ok bool) {
	root, err := hostfs.OpenRoot(t.dir("root"))
	if err != nil {
		return nil, false
	}
	defer unix.Close(root)
	tmp, err := hostfs.OpenIn(root, "tmp", unix.O_RDONLY|unix.O_DIRECTORY)
	if err != nil {
		return nil, false
	}
	d := os.NewFile(uintptr(tmp), "/tmp")
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if !strings.HasPrefix(n, "hsperfdata_") {
			continue
		}
		// Checked before it is opened: any user can make an hsperfdata_NAME directory in /tmp,
		// and a FIFO or a link to a device there must not be opened by root (OpenFileIn).
		f, err := hostfs.OpenFileIn(root, "tmp/"+n+"/"+strconv.Itoa(t.nspid), func(st *unix.Stat_t) error {
			if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != t.euid || st.Size > 16<<20 {
				return errors.New("not the JVM's hsperfdata file")
			}
			return nil
		})
		if err != nil {
			continue
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			continue
		}
		vals, err := parsePerfStrings(b)
		if err != nil {
			continue
		}
		for _, v := range strings.Fields(vals["java.rt.vmFlags"]) {
			opts = append(opts, "-XX:"+v)
		}
		return append(opts, strings.Fields(vals["java.rt.vmArgs"])...), true
	}
	return nil, false
}

// parsePerfStrings reads the string entries of an hsperfdata file (HotSpot's PerfMemory,
// version 2: a prologue, then entries of a length, a name offset, a vector length, a type, ...).
func parsePerfStrings(b []byte) (map[string]string, error) {
	if len(b) < 32 || !bytes.Equal(b[:4], []byte{0xca, 0xfe, 0xc0, 0xc0}) {
		return nil, errors.New("no hsperfdata magic")
	}
	var order binary.ByteOrder = binary.BigEndian
	if b[4] == 1 {
		order = binary.LittleEndian
	}
	if b[5] != 2 {
		return nil, fmt.Errorf("hsperfdata version %d.%d", b[5], b[6])
	}
	off := int(int32(order.Uint32(b[24:])))
	n := int(int32(order.Uint32(b[28:])))
	out := map[string]string{}
	for i := 0; i < n; i++ {
		if off < 0 || off+20 > len(b) {
			return out, errors.New("hsperfdata: an entry past the end")
		}
		e := b[off:]
		length := int(int32(order.Uint32(e[0:])))
		nameOff := int(int32(order.Uint32(e[4:])))
		vlen := int(int32(order.Uint32(e[8:])))
		typ := e[12]
		dataOff := int(int32(order.Uint32(e[16:])))
		if length <= 0 || length > len(e) || nameOff < 0 || nameOff >= length || dataOff < 0 || dataOff > length {
			return out, errors.New("hsperfdata: a malformed entry")
		}
		name := e[nameOff:length]
		if z := bytes.IndexByte(name, 0); z >= 0 {
			name = name[:z]
		}
		if typ == 'B' && vlen > 0 && dataOff+vlen <= length {
			v := e[dataOff : dataOff+vlen]
			if z := bytes.IndexByte(v, 0); z >= 0 {
				v = v[:z]
			}
			out[string(name)] = string(v)
		}
		off += length
	}
	return out, nil
}
