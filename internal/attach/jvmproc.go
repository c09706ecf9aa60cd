package attach

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"orca/internal/hostfs"
)

// Proc is a running JVM as orca reaches it through /proc: its user, and
// whether its files are in another mount namespace (a container), where
// orca reaches a path P of the JVM as /proc/PID/root/P.
type Proc struct {
	Dir       string // "/proc"; a directory laid out like it in tests
	PID       int
	UID, GID  int       // effective ids, as orca's user namespace sees them
	groups    []int     // supplementary groups
	uidMap    []idRange // its user namespace's uid_map
	Contained bool      // its / is not orca's /
	placed    *placed   // the library writeAgent put in its /tmp, until RemovePlaced
}

// placed is a library writeAgent wrote: the JVM's /tmp (a descriptor), the
// directory's name in it and the file.
type placed struct {
	tmp  int
	name string
	file *hostfs.Created
}

// ReadProc reads what orca needs to know about process pid below proc.
func ReadProc(proc string, pid int) (*Proc, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d: a pid is a positive number", pid)
	}
	j := &Proc{Dir: proc, PID: pid, UID: -1, GID: -1}
	b, err := os.ReadFile(j.Path("status"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("pid %d: no such process (is the JVM still running? jps or ps -C java lists them)", pid)
	}
	if err != nil {
		return nil, fmt.Errorf("reading /proc/%d/status: %w", pid, err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		key, val, _ := strings.Cut(sc.Text(), ":")
		f := strings.Fields(val)
		switch key {
		case "Uid", "Gid":
			// Real, effective, saved, filesystem: the agent creates files with the
			// filesystem ids, which follow the effective ones.
			if len(f) < 4 {
				return nil, fmt.Errorf("/proc/%d/status: %s: want 4 fields", pid, key)
			}
			id, err := strconv.Atoi(f[3])
			if err != nil {
				return nil, fmt.Errorf("/proc/%d/status: %s: %v", pid, key, err)
			}
			if key == "Uid" {
				j.UID = id
			} else {
				j.GID = id
			}
		case "State":
			// A zombie has ended: its /proc entry stays until its parent
			// collects it, without its files (root, fd, maps).
			if len(f) > 0 && (f[0] == "Z" || f[0] == "X") {
				return nil, fmt.Errorf("pid %d has ended (its parent has not yet collected it: a zombie): there is no JVM to attach to or stop", pid)
			}
		case "Groups":
			for _, g := range f {
				if id, err := strconv.Atoi(g); err == nil {
					j.groups = append(j.groups, id)
				}
			}
		}
	}
	if j.UID < 0 || j.GID < 0 {
		return nil, fmt.Errorf("/proc/%d/status: no Uid or Gid line", pid)
	}
	j.uidMap = readIDMap(j.Path("uid_map"))
	// A JVM in a container has its own mount namespace, whose / may still
	// be orca's (unshare --mount) but with other mounts on it; or another
	// / (a chroot, pivot_root).
	root, err := os.Stat(j.Path("root"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("pid %d has ended: there is no JVM to attach to or stop", pid)
	}
	if err != nil {
		if uerr := j.CheckUser(os.Geteuid()); uerr != nil {
			return nil, uerr
		}
		return nil, fmt.Errorf("pid %d: reading its root directory: %w (orca must run as the JVM's user or root)", pid, err)
	}
	self, err := os.Stat("/")
	if err != nil {
		return nil, err
	}
	ns, err1 := os.Readlink(j.Path("ns/mnt"))
	own, err2 := os.Readlink(filepath.Join(selfProc, "ns/mnt"))
	j.Contained = !os.SameFile(root, self) || err1 == nil && err2 == nil && ns != own
	return j, nil
}

// selfProc is orca's own /proc entry, whose ns/mnt names orca's mount
// namespace.
var selfProc = "/proc/self"

// CheckUser refuses, before anything else, an orca run by euid that is
// neither root nor the JVM's user: HotSpot takes no attach from it, and
// /proc hides the JVM's files from it.
func (j *Proc) CheckUser(euid int) error {
	if euid == 0 || euid == j.UID {
		return nil
	}
	return fmt.Errorf("pid %d runs as %s and orca as %s; HotSpot accepts an attach only from its own user or root: run orca as that user (sudo -u '#%d' orca ...) or as root",
		j.PID, UserName(j.UID), UserName(euid), j.UID)
}

// idRange is a line of a uid_map: ids inside..inside+count-1 of a user
// namespace are outside.. in its parent's.
type idRange struct{ inside, outside, count int }

// readIDMap reads /proc/PID/uid_map; nil when it cannot.
func readIDMap(path string) []idRange {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []idRange
	for _, l := range strings.Split(string(b), "\n") {
		var r idRange
		if _, err := fmt.Sscan(l, &r.inside, &r.outside, &r.count); err == nil {
			out = append(out, r)
		}
	}
	return out
}

// mapped reports whether uid (orca's view) has a name in the namespace.
func mapped(m []idRange, uid int) bool {
	for _, r := range m {
		if uid >= r.outside && uid-r.outside < r.count {
			return true
		}
	}
	return false
}

// nsRootOver reports whether the JVM's user is root in its own user
// namespace and the file's owner is of that namespace: root's powers then
// pass over the permission bits (a container's root, or root itself).
func (j *Proc) nsRootOver(owner int) bool {
	if j.UID == 0 {
		return true
	}
	for _, r := range j.uidMap {
		if r.inside == 0 && r.outside == j.UID {
			return mapped(j.uidMap, owner)
		}
	}
	return false
}

// Path names a file of the process below proc/PID.
func (j *Proc) Path(name string) string {
	return filepath.Join(j.Dir, strconv.Itoa(j.PID), name)
}

// Host returns where orca reaches the JVM's absolute path p.
func (j *Proc) Host(p string) string {
	if !j.Contained {
		return p
	}
	return filepath.Join(j.Path("root"), p)
}

// Stopped reports whether the process is stopped (SIGSTOP, SIGTSTP, or by
// a debugger: /proc/PID/stat's state T or t): it runs no code, answers no
// attach command, until it continues.
func (j *Proc) Stopped() bool {
	b, err := os.ReadFile(j.Path("stat"))
	if err != nil {
		return false
	}
	// "PID (COMM) STATE ...": COMM may hold spaces and parentheses.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	return b[i+2] == 'T' || b[i+2] == 't'
}

// Alive reports whether the process still runs: it exists and is no
// zombie (ended, not yet reaped by its parent).
func (j *Proc) Alive() bool {
	b, err := os.ReadFile(j.Path("status"))
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "State:"); ok {
			v = strings.TrimSpace(v)
			return !strings.HasPrefix(v, "Z") && !strings.HasPrefix(v, "X")
		}
	}
	return true
}

// inGroup reports whether the JVM's user is in group gid.
func (j *Proc) inGroup(gid int) bool {
	if gid == j.GID {
		return true
	}
	for _, g := range j.groups {
		if g == gid {
			return true
		}
	}
	return false
}

// may reports whether the JVM's user has the permission bits want (a
// combination of 4 read, 2 write, 1 search) on a file with st: the owner's,
// group's or others' bits, as the kernel picks them. ACLs are not read; the
// agent's own answer (code 3) is the last word.
func (j *Proc) may(st *syscall.Stat_t, want uint32) bool {
	if j.nsRootOver(int(st.Uid)) {
		return true
	}
	mode := st.Mode
	switch {
	case int(st.Uid) == j.UID:
		mode >>= 6
	case j.inGroup(int(st.Gid)):
		mode >>= 3
	}
	return mode&want == want
}

// CheckWritableBy makes sure, before attaching, that the JVM's user can
// create the recording's files: prefix's directory exists in the JVM's
// filesystem, each directory on the way is searchable and the last one
// writable by that user, and it is no read-only mount.
func (j *Proc) CheckWritableBy(prefix string) error {
	dir := filepath.Dir(prefix)
	where := ""
	if j.Contained {
		where = fmt.Sprintf(" in the container of pid %d (%s on this host)", j.PID, j.Host(dir))
	}
	fi, err := os.Stat(j.Host(dir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-o %s: the directory %s does not exist%s: create it or choose another -o; nothing was attached", prefix, dir, where)
	case err != nil:
		return fmt.Errorf("-o %s: %v; choose another -o; nothing was attached", prefix, err)
	case !fi.IsDir():
		return fmt.Errorf("-o %s: %s%s is not a directory; choose another -o; nothing was attached", prefix, dir, where)
	}
	who := fmt.Sprintf("the JVM's user (%s)", UserName(j.UID))
	for d := dir; ; d = filepath.Dir(d) {
		var st syscall.Stat_t
		if err := syscall.Stat(j.Host(d), &st); err != nil {
			return fmt.Errorf("-o %s: %s: %v", prefix, d, err)
		}
		want, what := uint32(1), "enter"
		if d == dir {
			want, what = 3, "create files in"
		}
		if !j.may(&st, want) {
			return fmt.Errorf("-o %s: %s cannot %s %s%s (owner %s, group %d, mode %#o): choose a directory that user can write with -o (e.g. -o /tmp/%s), "+
				"or run the JVM as another user; nothing was attached", prefix, who, what, d, where, UserName(int(st.Uid)), st.Gid, st.Mode&0o7777, filepath.Base(prefix))
		}
		if d == "/" {
			break
		}
	}
	var sfs syscall.Statfs_t
	if err := syscall.Statfs(j.Host(dir), &sfs); err == nil && sfs.Flags&stRdonly != 0 {
		return fmt.Errorf("-o %s: %s%s is on a read-only file system: choose another -o; nothing was attached", prefix, dir, where)
	}
	return nil
}

// stRdonly is ST_RDONLY of statfs(2)'s f_flags.
const stRdonly = 1

// UncheckedAgentError is PlaceAgent's refusal of a JVM that maps an Orca
// agent library orca cannot check: orca exits with status 2 on it, as on a
// usage error (the user must act first).
type UncheckedAgentError struct{ msg string }

func (e *UncheckedAgentError) Error() string { return e.msg }

// PlaceAgent returns the path, as the JVM sees it, of a file holding the
// agent library data (checksum sum) that the JVM's user can read, and that
// nobody but root, orca's user and the JVM's user could have put there:
//   - the library of this build that the JVM maps already (an earlier
//     attach), checked by mappedAgents: HotSpot finds it loaded and loads no
//     second copy;
//   - for a JVM of orca's own user on this host, orca's cache (cache, the
//     path orca agent-path prints);
//   - for any other JVM (in a container, or another user's when orca runs
//     as root), a new directory /tmp/orca-RANDOM/ in the JVM's /tmp, made by
//     the JVM's user with mode 0700, holding liborca.so (0500). Its name
//     cannot be foreseen, so no other user can take it first or plant
//     anything in it; a later attach or orca stop finds it in the JVM's maps.
func (j *Proc) PlaceAgent(data []byte, sum string, cache func() (string, error)) (string, error) {
	libs, _ := j.MappedAgents()
	for _, l := range libs {
		if l.Err == nil && l.Sum == sum {
			return l.Path, nil
		}
	}
	for _, l := range libs {
		if l.Err != nil {
			return "", &UncheckedAgentError{fmt.Sprintf("pid %d maps an Orca agent library at %s that orca cannot check (%v): "+
				"orca loads no second copy beside it; nothing was attached: stop that recording as the JVM's user (orca stop %d), or restart the JVM",
				j.PID, l.Path, l.Err, j.PID)}
		}
	}
	if !j.Contained && j.UID == os.Geteuid() {
		return cache()
	}
	p, err := j.writeAgent(data)
	if err != nil {
		return "", fmt.Errorf("writing the agent library where pid %d can read it (a new directory in its /tmp, %s): %w; nothing was attached",
			j.PID, j.Host("/tmp"), err)
	}
	return p, nil
}

// writeAgent writes data to a new /tmp/orca-RANDOM/liborca.so of the JVM,
// as the JVM's user, and returns its path as the JVM sees it.
func (j *Proc) writeAgent(data []byte) (string, error) {
	root, err := hostfs.OpenRoot(j.Path("root"))
	if err != nil {
		return "", err
	}
	defer syscall.Close(root)
	tmp, err := hostfs.OpenIn(root, "tmp", unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return "", err
	}
	defer syscall.Close(tmp)
	name, dir, err := hostfs.MkdirTemp(tmp, "orca-", 0o700, j.UID, j.GID)
	if err != nil {
		return "", err
	}
	defer syscall.Close(dir)
	c, err := hostfs.CreateExcl(dir, "liborca.so", 0o500, data, j.UID, j.GID)
	if err != nil {
		hostfs.As(j.UID, j.GID, func() error { return unix.Unlinkat(tmp, name, unix.AT_REMOVEDIR) })
		return "", err
	}
	if t, err := unix.Dup(tmp); err == nil {
		unix.CloseOnExec(t)
		j.placed = &placed{tmp: t, name: name, file: c}
	}
	return "/tmp/" + name + "/liborca.so", nil
}

// RemovePlaced removes the library PlaceAgent wrote into the JVM's /tmp, and
// its directory, unless the JVM maps it: an attach that failed (a timeout, a
// refused load) left a 2 MB /tmp/orca-RANDOM/liborca.so of the JVM's user's
// that nothing removes (the agent removes its own at the JVM's exit, once it
// loaded). As the JVM's user, through the descriptors kept, the file only
// while it is the one written; the directory only when empty.
func (j *Proc) RemovePlaced() {
	p := j.placed
	if p == nil {
		return
	}
	j.placed = nil
	defer unix.Close(p.tmp)
	// Unreadable maps: the JVM is gone, and loaded nothing since PlaceAgent.
	if b, err := os.ReadFile(j.Path("maps")); err == nil && strings.Contains(string(b), "/tmp/"+p.name+"/liborca.so") {
		p.file.Close() // the JVM runs it: kept (the agent removes it at the JVM's exit)
		return
	}
	if p.file.Remove() == nil {
		hostfs.As(j.UID, j.GID, func() error { return unix.Unlinkat(p.tmp, p.name, unix.AT_REMOVEDIR) })
	}
}

// AgentLib is an Orca agent library that the JVM maps.
type AgentLib struct {
	Path string // as the JVM sees it
	Sum  string // the hex SHA-256 of its content, when Err is nil
	Err  error  // why it is not trusted: not the file mapped, or in a place others can change
}

// MappedAgents lists the orca agent libraries the JVM has mapped (any
// build's: liborca.so from orca's cache, -agentpath or an earlier attach's
// /tmp/orca-RANDOM/, or an older orca's /tmp/orca-SUM.so), each checked
// (checkLib); any says whether it maps one at all (also one deleted since).
// When the maps cannot be read, any is true.
func (j *Proc) MappedAgents() (libs []AgentLib, any bool) {
	f, err := os.Open(j.Path("maps"))
	if err != nil {
		return nil, true
	}
	defer f.Close()
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 {
			continue
		}
		p := strings.Join(fields[5:], " ")
		if !agentName.MatchString(filepath.Base(strings.TrimSuffix(p, " (deleted)"))) {
			continue
		}
		any = true
		if strings.HasSuffix(p, " (deleted)") || seen[p] {
			continue
		}
		seen[p] = true
		l := AgentLib{Path: p}
		l.Sum, l.Err = j.checkLib(p, fields[0], fields[3], fields[4])
		libs = append(libs, l)
	}
	return libs, any
}

// agentName matches the names orca gives the agent library.
var agentName = regexp.MustCompile(`^(liborca\.so|orca-[0-9a-f]{16}\.so)$`)

// checkLib opens the JVM's path p inside its root, refusing symlinks, and
// checks that every directory on the way and the file belong to root, orca's
// user or the JVM's user and are writable by no one else (a directory may
// be, when sticky: nobody else can rename what is in it), and that the file
// is the one mapped at addresses span (device dev, inode ino, as
// /proc/PID/maps gives them). It returns the file's SHA-256.
func (j *Proc) checkLib(p, span, dev, ino string) (string, error) {
	root, err := hostfs.OpenRoot(j.Path("root"))
	if err != nil {
		return "", err
	}
	defer syscall.Close(root)
	owners := []int{0, os.Geteuid(), j.UID}
	fd, err := hostfs.OpenChecked(root, p, func(name string, st *unix.Stat_t, last bool) error {
		if !slices.Contains(owners, int(st.Uid)) {
			return fmt.Errorf("%s belongs to %s", name, UserName(int(st.Uid)))
		}
		if st.Mode&0o022 != 0 && (last || st.Mode&unix.S_ISVTX == 0) {
			return fmt.Errorf("%s is writable by others (mode %#o)", name, st.Mode&0o7777)
		}
		if last && st.Mode&unix.S_IFMT != unix.S_IFREG {
			return fmt.Errorf("%s is no regular file", name)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	file := os.NewFile(uintptr(fd), p)
	defer file.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return "", err
	}
	if !j.sameMapped(&st, span, dev, ino) {
		return "", fmt.Errorf("%s is not the file the JVM mapped (replaced since it was loaded)", p)
	}
	h := sha256.New()
	if _, err := io.Copy(h, file); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sameMapped reports whether st is the file mapped at span: as
// /proc/PID/map_files/SPAN names it (root may read it), or by the device
// and inode of the maps line.
func (j *Proc) sameMapped(st *unix.Stat_t, span, dev, ino string) bool {
	var m unix.Stat_t
	if unix.Stat(j.Path(filepath.Join("map_files", span)), &m) == nil && m.Dev == st.Dev && m.Ino == st.Ino {
		return true
	}
	maj, min, ok := strings.Cut(dev, ":")
	a, err1 := strconv.ParseUint(maj, 16, 32)
	b, err2 := strconv.ParseUint(min, 16, 32)
	n, err3 := strconv.ParseUint(ino, 10, 64)
	return ok && err1 == nil && err2 == nil && err3 == nil &&
		uint64(unix.Major(st.Dev)) == a && uint64(unix.Minor(st.Dev)) == b && st.Ino == n
}

// chunkName matches a bounded recording's chunk file's suffix.
var chunkName = regexp.MustCompile(`\.orca\.[0-9]{6}$`)

// RunningPrefix returns the prefix of the recording the JVM is writing (the
// path it sees), from the files it holds open: PREFIX.orca or a chunk file
// PREFIX.orca.NNNNNN. "" when none is open or the path cannot be told.
func (j *Proc) RunningPrefix() string {
	ents, err := os.ReadDir(j.Path("fd"))
	if err != nil {
		return ""
	}
	for _, e := range ents {
		fd := filepath.Join(j.Path("fd"), e.Name())
		p, err := os.Readlink(fd)
		if err != nil || !strings.HasPrefix(p, "/") {
			continue
		}
		var prefix string
		switch {
		case strings.HasSuffix(p, ".orca"):
			prefix = strings.TrimSuffix(p, ".orca")
		case chunkName.MatchString(p):
			prefix = p[:len(p)-len(".orca.000000")]
		default:
			continue
		}
		// The kernel names a file of another mount namespace as that
		// namespace sees it; make sure orca finds it there.
		have, err := os.Stat(j.Host(p))
		if err != nil {
			continue
		}
		if open, err := os.Stat(fd); err == nil && !os.SameFile(have, open) {
			continue
		}
		return prefix
	}
	return ""
}
