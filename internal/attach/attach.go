// Package attach speaks HotSpot's dynamic attach protocol on Linux, the one jcmd and
// VirtualMachine.attach use, without any JDK tool and without cgo.
//
// Attach finds the JVM's socket /tmp/.java_pid<NSPID> (through /proc/PID/root: a JVM in a
// container has its own /tmp), starting the JVM's attach listener first when the socket is
// absent (the file .attach_pid<NSPID> in the JVM's working directory or /tmp, then SIGQUIT).
// Each Command is one connection: the request "1\0NAME\0ARG0\0ARG1\0ARG2\0" (protocol version
// 1), the answer a decimal result code, a newline and the command's output until the JVM
// closes the connection. Load runs the "load" command for a JVMTI agent library.
//
// docs/attach.md describes the protocol as implemented, the identity switch that lets root
// attach to another user's JVM, containers, timeouts and what changed between JDK 17 and 25.
package attach

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"golang.org/x/sys/unix"

	"orca/internal/hostfs"
)

// The errors Attach returns wrap one of these, so that a caller can tell them apart.
var (
	ErrNoProcess      = errors.New("no such process")
	ErrNotJVM         = errors.New("not a HotSpot JVM")
	ErrAttachDisabled = errors.New("attach disabled in the JVM")
	ErrTimeout        = errors.New("the JVM's attach listener did not start")
	ErrPermission     = errors.New("permission denied")
	ErrStopped        = errors.New("the JVM is stopped")
	ErrNotLive        = errors.New("the JVM is still starting")
)

// DefaultTimeout bounds the wait for the attach listener to start: HotSpot's own client waits
// 10 s (sun.tools.attach.attachTimeout).
const DefaultTimeout = 10 * time.Second

// DefaultCommandTimeout bounds one command (connect, request, whole answer): a JVM that hangs
// at a safepoint must not hang orca.
const DefaultCommandTimeout = 2 * time.Minute

// VM is a JVM whose attach listener runs. Each command opens its own connection: HotSpot
// serves one command per connection, one at a time.
type VM struct {
	PID            int           // in orca's pid namespace
	NSPid          int           // the JVM's own pid (its pid namespace's)
	Socket         string        // the socket's path, as reached from orca's mount namespace
	CommandTimeout time.Duration // bounds each command; 0: none
	Version        int           // the attach protocol version the JVM speaks: 1, or 2 since JDK 24 (ProtocolVersion)
	uid, gid       int           // the JVM's effective ids: the socket's owner
}

// Attach attaches to the HotSpot JVM with process id pid (in orca's pid namespace), waiting at
// most DefaultTimeout for its attach listener to start.
func Attach(pid int) (*VM, error) {
	return AttachTimeout(pid, DefaultTimeout)
}

// AttachTimeout is Attach with the wait for the attach listener bounded by timeout.
func AttachTimeout(pid int, timeout time.Duration) (*VM, error) {
	t, err := readTarget(pid)
	if err != nil {
		return nil, err
	}
	if e := os.Geteuid(); e != 0 && e != t.euid {
		return nil, fmt.Errorf("%w: pid %d runs as %s and orca as %s; HotSpot accepts an attach only from its own user or root: run orca as that user (sudo -u '#%d' orca ...) or as root",
			ErrPermission, pid, UserName(t.euid), UserName(e), t.euid)
	}
	jvm, known := t.isJVM()
	if known && !jvm {
		return nil, fmt.Errorf("%w: pid %d (%s) has no libjvm.so mapped: give the pid of a java process (jps or ps -C java lists them)",
			ErrNotJVM, pid, command(t))
	}
	if t.tgid != t.pid {
		return nil, fmt.Errorf("%w: %d is a thread of process %d, not a process: give the JVM's process id (orca record --pid %d)",
			ErrNoProcess, pid, t.tgid, t.tgid)
	}
	if t.stopped() {
		return nil, fmt.Errorf("%w (SIGSTOP or a debugger: state %s): pid %d answers nothing until it is continued (kill -CONT %d), and orca sends it no signal, which it would take for a thread dump once continued",
			ErrStopped, t.state, pid, pid)
	}
	if off, where := t.attachDisabled(); off {
		return nil, fmt.Errorf("%w: pid %d was started with -XX:+DisableAttachMechanism (in %s): no tool can attach to it; restart it without that option, or start it with orca's agent (-agentpath)",
			ErrAttachDisabled, pid, where)
	}
	tmp := t.dir("root/tmp")
	vm := &VM{PID: pid, NSPid: t.nspid, Socket: filepath.Join(tmp, ".java_pid"+strconv.Itoa(t.nspid)),
		CommandTimeout: DefaultCommandTimeout, uid: t.euid, gid: t.egid}
	if err := removeStale(vm.Socket, t); err != nil {
		return nil, err
	}
	if !exists(vm.Socket) {
		if err := start(t, vm.Socket, timeout); err != nil {
			return nil, err
		}
	}
	if err := checkSocket(vm.Socket, t); err != nil {
		return nil, err
	}
	// Ask once now, so that a refusal shows here rather than at the first command (HotSpot
	// accepts a connection and then closes it when the peer's credentials do not match). JDK
	// 24+'s client asks the same question at attach.
	if vm.Version, err = vm.ProtocolVersion(); err != nil {
		return nil, err
	}
	return vm, nil
}

// exists reports whether path names a file (a missing /proc/PID/root counts as none).
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// start starts the JVM's attach listener: HotSpot's SIGQUIT handler starts it when the file
// .attach_pid<NSPID> is in the JVM's working directory or its /tmp, and owned by the JVM's
// effective user or root. Then the socket appears; start polls for it with sleeps that grow
// from 2 ms to 50 ms. HotSpot's own client sleeps 100 ms, 200 ms, ...: a socket that came at
// 350 ms (a JVM with 10 000 threads) was seen only at 600 ms. A look is one lstat.
//
// A SIGQUIT that HotSpot does not take as an attach prints a thread dump on the application's
// stdout, so start sends one only when its own trigger file is in place and no listener runs or
// is being started: never a second one (HotSpot's client resends halfway; a JVM does not miss
// a signal, and a late one lands on a listener that runs), none when another attach made the
// trigger (it signals; both wait for the socket), none to a JVM whose "Attach Listener" thread
// exists already.
func start(t *target, socket string, timeout time.Duration) error {
	if !t.catchesQuit() {
		return fmt.Errorf("%w: pid %d has no SIGQUIT handler (a JVM still starting, or one run with -Xrs whose attach listener failed): sending SIGQUIT would end it; try again when it runs",
			ErrTimeout, t.pid)
	}
	// A listener that runs already (another attach started it, and its socket is on the
	// way) is waited for.
	seen := map[string]bool{}
	signalled := false
	if !t.listenerRuns(seen) {
		trig, err := createTrigger(t)
		if err != nil {
			return err
		}
		if trig != nil {
			defer trig.Remove()
			// Another attach may have started the listener, and removed its trigger, since
			// the socket was looked for.
			if !exists(socket) && !t.listenerRuns(seen) {
				if err := syscall.Kill(t.pid, syscall.SIGQUIT); err != nil {
					return fmt.Errorf("sending SIGQUIT to pid %d: %w", t.pid, err)
				}
				signalled = true
			}
		}
	}
	var spent, delay time.Duration
	for !exists(socket) {
		if spent > timeout && t.listenerRuns(map[string]bool{}) {
			return fmt.Errorf("%w: pid %d runs its attach listener, but its socket %s did not appear within %v (removed by someone?): the JVM cannot be attached to until it restarts",
				ErrTimeout, t.pid, socket, spent)
		}
		if spent > timeout && !signalled {
			if found := foundTrigger(t); found != "" {
				return fmt.Errorf("%w: %s did not appear within %v, and orca sent pid %d no SIGQUIT: %s was there already, not orca's, so another attach seemed under way; if none is, remove it (as its owner or root) and attach again",
					ErrTimeout, socket, spent, t.pid, found)
			}
		}
		if spent > timeout {
			return fmt.Errorf("%w: %s did not appear within %v after SIGQUIT to pid %d: the JVM is busy (a long safepoint, a full GC, swapping: try again or with a longer timeout), or is not HotSpot (OpenJ9 attaches otherwise)",
				ErrTimeout, socket, spent, t.pid)
		}
		delay = min(2*delay+2*time.Millisecond, 50*time.Millisecond)
		time.Sleep(delay)
		spent += delay
		if !exists(t.dir("")) {
			return fmt.Errorf("%w: pid %d ended while orca waited for its attach listener", ErrNoProcess, t.pid)
		}
	}
	return nil
}

// removeStale removes a socket left by an earlier process with the JVM's pid: one made before
// the JVM started. A JVM killed (SIGKILL) leaves its socket behind, and once its pid is
// reused the socket would stand for the new JVM, whose listener then never starts: refused as
// another user's, or nobody listening.
func removeStale(socket string, t *target) error {
	dir, err := triggerDir(t, "tmp")
	if err != nil {
		return nil // no /tmp: no socket either
	}
	defer syscall.Close(dir)
	return removeStaleIn(dir, socket, t)
}

// removeStaleIn is removeStale with the JVM's /tmp open as dir.
func removeStaleIn(dir int, socket string, t *target) error {
	fi, err := os.Lstat(socket)
	if err != nil {
		return nil
	}
	started, err := startTime(t.pid)
	if err != nil || !fi.ModTime().Before(started.Add(-time.Second)) {
		return nil
	}
	// Removed through the directory's descriptor, and only while the name is the socket seen
	// (a socket, no link, older than the JVM): /tmp is everybody's.
	err = func() error {
		var st unix.Stat_t
		name := filepath.Base(socket)
		if err := unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		if st.Mode&unix.S_IFMT != unix.S_IFSOCK || !time.Unix(st.Mtim.Unix()).Before(started.Add(-time.Second)) {
			return fmt.Errorf("it changed since it was looked at")
		}
		return unix.Unlinkat(dir, name, 0)
	}()
	if err != nil {
		return fmt.Errorf("%s was left by an earlier process with pid %d (it is older than the JVM) and cannot be removed: %w; remove it (as its owner or root) and attach again",
			socket, t.nspid, err)
	}
	return nil
}

// startTime returns when process pid started: /proc/PID/stat's starttime (clock ticks after
// boot, USER_HZ = 100 in every /proc file) after /proc/stat's btime.
func startTime(pid int) (time.Time, error) {
	stat, err := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "stat"))
	if err != nil {
		return time.Time{}, err
	}
	boot, err := os.ReadFile(filepath.Join(procRoot, "stat"))
	if err != nil {
		return time.Time{}, err
	}
	return parseStartTime(stat, boot)
}

// parseStartTime reads the start time from the texts of /proc/PID/stat and /proc/stat.
func parseStartTime(stat, boot []byte) (time.Time, error) {
	// The command, field 2, is in parentheses and may hold anything: count after the last ')'.
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	if i < 0 || len(f) < 20 {
		return time.Time{}, errors.New("/proc/PID/stat: too few fields")
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64) // field 22
	if err != nil {
		return time.Time{}, fmt.Errorf("/proc/PID/stat: starttime: %v", err)
	}
	for _, l := range strings.Split(string(boot), "\n") {
		if v, ok := strings.CutPrefix(l, "btime "); ok {
			b, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, fmt.Errorf("/proc/stat: btime: %v", err)
			}
			return time.Unix(b, 0).Add(time.Duration(ticks) * time.Second / 100), nil
		}
	}
	return time.Time{}, errors.New("/proc/stat: no btime")
}

// createTrigger creates the file .attach_pid<NSPID> in the JVM's working directory or, when
// that cannot be done, in its /tmp, owned by the JVM's effective user (a user-namespaced JVM
// does not take one owned by the host's root). The directory is opened once (the cwd through
// /proc/PID/cwd, /tmp inside /proc/PID/root) and the file created in it exclusively, without
// following a symlink, with the JVM's user's file system ids: that user owns the directory and
// may swap names in it, but cannot make root create or give away any other file. It returns
// the file it created, or nil when one was there already (another attach is under way: it
// removes its own).
func createTrigger(t *target) (*hostfs.Created, error) {
	name := ".attach_pid" + strconv.Itoa(t.nspid)
	var errs []string
	for _, where := range []string{"cwd", "tmp"} {
		dir, err := triggerDir(t, where)
		if err == nil {
			var c *hostfs.Created
			c, err = hostfs.CreateExcl(dir, name, 0o600, nil, t.euid, t.egid)
			syscall.Close(dir)
			switch {
			case err == nil:
				return c, nil
			case errors.Is(err, os.ErrExist):
				return nil, nil
			}
		}
		errs = append(errs, fmt.Sprintf("%s: %v", where, err))
	}
	return nil, fmt.Errorf("creating the attach trigger %s in the working directory or /tmp of pid %d as its user (%s): %s",
		name, t.pid, UserName(t.euid), strings.Join(errs, "; "))
}

// foundTrigger describes a trigger file .attach_pid<NSPID> in the JVM's working directory or
// /tmp that orca did not make ("" when there is none): a name planted by the JVM's user, or by
// anyone in /tmp, keeps orca from signalling, and the timeout then says which.
func foundTrigger(t *target) string {
	name := ".attach_pid" + strconv.Itoa(t.nspid)
	for _, where := range []string{"cwd", "tmp"} {
		dir, err := triggerDir(t, where)
		if err != nil {
			continue
		}
		var st unix.Stat_t
		err = unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW)
		syscall.Close(dir)
		if err != nil {
			continue
		}
		kind := "a file"
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			kind = "a symlink"
		case unix.S_IFDIR:
			kind = "a directory"
		}
		place := map[string]string{"cwd": "the JVM's working directory", "tmp": "its /tmp"}[where]
		return fmt.Sprintf("%s in %s (%s of %s)", name, place, kind, UserName(int(st.Uid)))
	}
	return ""
}

// triggerDir opens where ("cwd": the JVM's working directory; "tmp": its /tmp).
func triggerDir(t *target, where string) (int, error) {
	if where == "cwd" {
		return hostfs.OpenRoot(t.dir("cwd"))
	}
	root, err := hostfs.OpenRoot(t.dir("root"))
	if err != nil {
		return -1, err
	}
	defer syscall.Close(root)
	return hostfs.OpenIn(root, "tmp", unix.O_PATH|unix.O_DIRECTORY)
}

// checkSocket checks that the socket at path is the JVM's: a socket owned by the JVM's
// effective user and accessible by nobody else, as HotSpot creates it. A file that another
// user made is refused rather than trusted with the commands.
func checkSocket(path string, t *target) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFSOCK {
		return fmt.Errorf("%s is no socket (mode %#o): remove it and attach again", path, st.Mode)
	}
	if int(st.Uid) != t.euid {
		return fmt.Errorf("%w: %s is owned by uid %d, but pid %d runs as uid %d: not the JVM's socket; remove it if that JVM has ended",
			ErrPermission, path, st.Uid, t.pid, t.euid)
	}
	if st.Mode&0o077 != 0 {
		return fmt.Errorf("%w: %s is accessible by other users (mode %#o), HotSpot makes it 0600: not trusted",
			ErrPermission, path, st.Mode&0o777)
	}
	return nil
}

// dialError explains a failed connect.
func (vm *VM) dialError(err error) error {
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Errorf("connecting to %s: nobody listens: a file left by an earlier process with pid %d? remove it and attach again: %w", vm.Socket, vm.NSPid, err)
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return fmt.Errorf("%w: connecting to %s (the socket of pid %d, owned by %s): %v: run orca as that user or as root", ErrPermission, vm.Socket, vm.PID, UserName(vm.uid), err)
	}
	return fmt.Errorf("connecting to the attach socket of pid %d: %w", vm.PID, err)
}

// Command runs an attach command (load, properties, agentProperties, threaddump, jcmd,
// printflag, setflag, dumpheap, inspectheap, datadump; JDK 24+: getversion) with at most three
// arguments of at most 1024 bytes, as protocol version 1 allows. code is the JVM's result code
// (0: the command ran; for "load" see Load), out the command's output; err is a failure to
// talk to the JVM. Since JDK 25 the JVM streams the output of jcmd, threaddump, dumpheap and
// inspectheap: it sends code 0 before the command runs, and a command that fails says so in
// out.
func (vm *VM) Command(name string, args ...string) (code int, out string, err error) {
	if len(args) > 3 {
		return 0, "", fmt.Errorf("attach command %s: %d arguments, protocol version 1 takes at most 3", name, len(args))
	}
	if len(name) > 16 {
		return 0, "", fmt.Errorf("attach command %q: name longer than 16 bytes", name)
	}
	req := []string{"1", name, "", "", ""}
	for i, a := range args {
		if len(a) > 1024 {
			return 0, "", fmt.Errorf("attach command %s: argument %d has %d bytes, protocol version 1 takes at most 1024", name, i, len(a))
		}
		req[2+i] = a
	}
	for _, s := range req {
		if strings.IndexByte(s, 0) >= 0 {
			return 0, "", fmt.Errorf("attach command %s: a NUL byte in the request", name)
		}
	}
	return vm.roundTrip(name, strings.Join(req, "\x00")+"\x00")
}

// roundTrip sends one request on a new connection and reads the answer.
func (vm *VM) roundTrip(name, req string) (int, string, error) {
	c, err := dial(vm.Socket, vm.uid, vm.gid)
	if err != nil {
		return 0, "", vm.dialError(err)
	}
	defer c.Close()
	if vm.CommandTimeout > 0 {
		c.SetDeadline(time.Now().Add(vm.CommandTimeout))
	}
	// A write error is reported after the answer is read: HotSpot may have answered (a bad
	// version) and closed before taking the whole request.
	_, werr := io.WriteString(c, req)
	r := bufio.NewReader(c)
	// Bounded: the answer comes from a socket the JVM's user controls.
	b, err := r.ReadSlice('\n')
	line := string(b)
	if err == bufio.ErrBufferFull {
		return 0, "", fmt.Errorf("attach command %s to pid %d: no result code in the answer's first %d bytes: not a JVM's answer", name, vm.PID, len(b))
	}
	if err != nil {
		if werr != nil {
			err = werr
		}
		if line == "" && (err == io.EOF || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
			return 0, "", fmt.Errorf("attach command %s to pid %d: the JVM closed the connection without an answer: it refused orca's credentials (it takes uid %d gid %d, or its own root) or it is ending: %w",
				name, vm.PID, vm.uid, vm.gid, ErrPermission)
		}
		return 0, "", fmt.Errorf("attach command %s to pid %d: reading the result code: %w", name, vm.PID, err)
	}
	code, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return 0, "", fmt.Errorf("attach command %s to pid %d: result code %.40q is no number", name, vm.PID, strings.TrimSpace(line))
	}
	rest, err := io.ReadAll(io.LimitReader(r, MaxAnswer+1))
	if len(rest) > MaxAnswer {
		return code, "", fmt.Errorf("attach command %s to pid %d: the answer is longer than %d MB: not read", name, vm.PID, MaxAnswer>>20)
	}
	if err != nil {
		return code, string(rest), fmt.Errorf("attach command %s to pid %d: reading the output: %w", name, vm.PID, err)
	}
	if code == badVersion {
		return code, string(rest), fmt.Errorf("attach command %s to pid %d: the JVM does not speak this protocol version (code %d): %s", name, vm.PID, code, strings.TrimSpace(string(rest)))
	}
	return code, string(rest), nil
}

// MaxAnswer bounds what orca reads of one command's answer: the socket is the JVM's user's,
// who may put anything behind it (an endless answer took 1.5 GB of root's memory for 300 MB,
// and printed it). The answers orca asks for (getversion, properties, load, VM.log) are a few
// kB; a longer one (a thread dump of 100 000 threads by orca-attach's jcmd) is cut with an error.
const MaxAnswer = 16 << 20

// shown is the JVM's words for a message: at most 2000 bytes, control characters but newline
// and tab escaped (the JVM's user chose them; they go to root's terminal).
func shown(s string) string {
	cut := ""
	if len(s) > 2000 {
		s, cut = s[:2000], fmt.Sprintf(" ... (%d bytes)", len(s))
	}
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r < 0xa0 || r == utf8.RuneError {
			fmt.Fprintf(&b, "\\x%02x", r&0xff)
			continue
		}
		b.WriteRune(r)
	}
	return b.String() + cut
}

// badVersion is HotSpot's answer to a request of a protocol version it does not know.
const badVersion = 101

// ProtocolVersion asks the JVM which attach protocol version it speaks (command getversion,
// JDK 24+; 2 there, unless the JVM runs with -Djdk.attach.compat=true). A JVM that does not
// know the command speaks version 1.
func (vm *VM) ProtocolVersion() (int, error) {
	code, out, err := vm.Command("getversion")
	if err != nil {
		return 0, err
	}
	if code != 0 {
		return 1, nil // "Operation getversion not recognized!"
	}
	f := strings.Fields(out)
	if len(f) == 0 {
		return 0, fmt.Errorf("getversion of pid %d: empty answer", vm.PID)
	}
	v, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, fmt.Errorf("getversion of pid %d: %.40q is no version", vm.PID, out)
	}
	return v, nil
}

// Load loads the JVMTI agent library at path (absolute: the JVM resolves a relative one in
// its own working directory and mount namespace) and calls its Agent_OnAttach with options.
// code is what Agent_OnAttach returned (0: the agent runs; otherwise the JVM has unloaded the
// library again). err says why the library could not be loaded or Agent_OnAttach not found,
// with the JVM's words.
func (vm *VM) Load(path, options string) (code int, out string, err error) {
	// "true": the path is absolute and used as is, what VirtualMachine.loadAgentPath sends;
	// "false" would make it a library name searched in the JDK and the library path.
	code, out, err = vm.Command("load", path, "true", options)
	if err != nil {
		return 0, out, fmt.Errorf("loading agent %s into pid %d: %w", path, vm.PID, err)
	}
	msg := strings.TrimSpace(out)
	// JDK 17..25 answer code 0 and "return code: N" when Agent_OnAttach ran; an agent that
	// could not be loaded gets code -1 (JDK 17) or 0 (JDK 21+) and the reason.
	if code == 0 {
		for _, l := range strings.Split(msg, "\n") {
			if rc, ok := strings.CutPrefix(strings.TrimSpace(l), "return code: "); ok {
				n, err := strconv.Atoi(rc)
				if err != nil {
					return 0, out, fmt.Errorf("loading agent %s into pid %d: %q: no return code", path, vm.PID, l)
				}
				return n, out, nil
			}
		}
	}
	if msg == "" {
		msg = "no message"
	}
	hint := ""
	if strings.Contains(msg, "EnableDynamicAgentLoading") {
		hint = " (it runs with -XX:-EnableDynamicAgentLoading: restart it without that option)"
	}
	if strings.Contains(msg, "only permitted in the live phase") {
		// JDK 21+ before the JVM's live phase: its attach listener serves commands while the
		// module system and the system class loader are being set up; the library was not
		// loaded, and a later load can succeed.
		return code, out, fmt.Errorf("%w: loading agent %s into pid %d: the JVM answered code %d: %s", ErrNotLive, path, vm.PID, code, shown(msg))
	}
	return code, out, fmt.Errorf("loading agent %s into pid %d: the JVM answered code %d: %s%s", path, vm.PID, code, shown(msg), hint)
}

// command returns the process's command (its argv[0]'s base) for messages.
func command(t *target) string {
	b, err := os.ReadFile(t.dir("comm"))
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

// UserName returns "name (uid N)", or "uid N" when the user database does not know the uid
// (a container's user).
func UserName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}
