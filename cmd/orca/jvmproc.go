package main

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
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"orca/internal/hostfs"
)

// jvmProc is a running JVM as orca reaches it through /proc: its user, and
// whether its files are in another mount namespace (a container), where
// orca reaches a path P of the JVM as /proc/PID/root/P.
type jvmProc struct {
	proc      string // "/proc"; a directory laid out like it in tests
	pid       int
	uid, gid  int       // effective ids, as orca's user namespace sees them
	groups    []int     // supplementary groups
	uidMap    []idRange // its user namespace's uid_map
	contained bool      // its / is not orca's /
}

// readJVMProc reads what orca needs to know about process pid below proc.
func readJVMProc(proc string, pid int) (*jvmProc, error) {
	if pid <= 0 {
		return nil, fmt.Errorf("pid %d: a pid is a positive number", pid)
	}
	j := &jvmProc{proc: proc, pid: pid, uid: -1, gid: -1}
	b, err := os.ReadFile(j.path("status"))
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
				j.uid = id
			} else {
				j.gid = id
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
	if j.uid < 0 || j.gid < 0 {
		return nil, fmt.Errorf("/proc/%d/status: no Uid or Gid line", pid)
	}
	j.uidMap = readIDMap(j.path("uid_map"))
	// A JVM in a container has its own mount namespace, whose / may still
	// be orca's (unshare --mount) but with other mounts on it; or another
	// / (a chroot, pivot_root).
	root, err := os.Stat(j.path("root"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("pid %d has ended: there is no JVM to attach to or stop", pid)
	}
	if err != nil {
		if uerr := j.checkUser(os.Geteuid()); uerr != nil {
			return nil, uerr
		}
		return nil, fmt.Errorf("pid %d: reading its root directory: %w (orca must run as the JVM's user or root)", pid, err)
	}
	self, err := os.Stat("/")
	if err != nil {
		return nil, err
	}
	ns, err1 := os.Readlink(j.path("ns/mnt"))
	own, err2 := os.Readlink(filepath.Join(selfProc, "ns/mnt"))
	j.contained = !os.SameFile(root, self) || err1 == nil && err2 == nil && ns != own
	return j, nil
}

// selfProc is orca's own /proc entry, whose ns/mnt names orca's mount
// namespace.
var selfProc = "/proc/self"

// checkUser refuses, before anything else, an orca run by euid that is
// neither root nor the JVM's user: HotSpot takes no attach from it, and
// /proc hides the JVM's files from it.
func (j *jvmProc) checkUser(euid int) error {
	if euid == 0 || euid == j.uid {
		return nil
	}
	return fmt.Errorf("pid %d runs as %s and orca as %s; HotSpot accepts an attach only from its own user or root: run orca as that user (sudo -u '#%d' orca ...) or as root",
		j.pid, idName(j.uid), idName(euid), j.uid)
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
func (j *jvmProc) nsRootOver(owner int) bool {
	if j.uid == 0 {
		return true
	}
	for _, r := range j.uidMap {
		if r.inside == 0 && r.outside == j.uid {
			return mapped(j.uidMap, owner)
		}
	}
	return false
}

// path names a file of the process below proc/PID.
func (j *jvmProc) path(name string) string {
	return filepath.Join(j.proc, strconv.Itoa(j.pid), name)
}

// host returns where orca reaches the JVM's absolute path p.
func (j *jvmProc) host(p string) string {
	if !j.contained {
		return p
	}
	return filepath.Join(j.path("root"), p)
}

// stopped reports whether the process is stopped (SIGSTOP, SIGTSTP, or by
// a debugger: /proc/PID/stat's state T or t): it runs no code, answers no
// attach command, until it continues.
func (j *jvmProc) stopped() bool {
	b, err := os.ReadFile(j.path("stat"))
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

// alive reports whether the process still runs: it exists and is no
// zombie (ended, not yet reaped by its parent).
func (j *jvmProc) alive() bool {
	b, err := os.ReadFile(j.path("status"))
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
func (j *jvmProc) inGroup(gid int) bool {
	if gid == j.gid {
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
func (j *jvmProc) may(st *syscall.Stat_t, want uint32) bool {
	if j.nsRootOver(int(st.Uid)) {
		return true
	}
	mode := st.Mode
	switch {
	case int(st.Uid) == j.uid:
		mode >>= 6
	case j.inGroup(int(st.Gid)):
		mode >>= 3
	}
	return mode&want == want
}

// checkWritableBy makes sure, before attaching, that the JVM's user can
// create the recording's files: prefix's directory exists in the JVM's
// filesystem, each directory on the way is searchable and the last one
// writable by that user, and it is no read-only mount.
func (j *jvmProc) checkWritableBy(prefix string) error {
	dir := filepath.Dir(prefix)
	where := ""
	if j.contained {
		where = fmt.Sprintf(" in the container of pid %d (%s on this host)", j.pid, j.host(dir))
	}
	fi, err := os.Stat(j.host(dir))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("-o %s: the directory %s does not exist%s: create it or choose another -o; nothing was attached", prefix, dir, where)
	case err != nil:
		return fmt.Errorf("-o %s: %v; choose another -o; nothing was attached", prefix, err)
	case !fi.IsDir():
		return fmt.Errorf("-o %s: %s%s is not a directory; choose another -o; nothing was attached", prefix, dir, where)
	}
	who := fmt.Sprintf("the JVM's user (%s)", idName(j.uid))
	for d := dir; ; d = filepath.Dir(d) {
		var st syscall.Stat_t
		if err := syscall.Stat(j.host(d), &st); err != nil {
			return fmt.Errorf("-o %s: %s: %v", prefix, d, err)
		}
		want, what := uint32(1), "enter"
		if d == dir {
			want, what = 3, "create files in"
		}
		if !j.may(&st, want) {
			return fmt.Errorf("-o %s: %s cannot %s %s%s (owner %s, group %d, mode %#o): choose a directory that user can write with -o (e.g. -o /tmp/%s), "+
				"or run the JVM as another user; nothing was attached", prefix, who, what, d, where, idName(int(st.Uid)), st.Gid, st.Mode&0o7777, filepath.Base(prefix))
		}
		if d == "/" {
			break
		}
	}
	var sfs syscall.Statfs_t
	if err := syscall.Statfs(j.host(dir), &sfs); err == nil && sfs.Flags&stRdonly != 0 {
		return fmt.Errorf("-o %s: %s%s is on a read-only file system: choose another -o; nothing was attached", prefix, dir, where)
	}
	return nil
}

// stRdonly is ST_RDONLY of statfs(2)'s f_flags.
const stRdonly = 1

// idName returns "name (uid N)", or "uid N" when the user database does
// not know the uid (a container's user).
func idName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return fmt.Sprintf("%s (uid %d)", u.Username, uid)
	}
	return fmt.Sprintf("uid %d", uid)
}

// placeAgent returns the path, as the JVM sees it, of a file holding the
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
func (j *jvmProc) placeAgent(data []byte, sum string, cache func() (string, error)) (string, error) {
	libs, _ := j.mappedAgents()
	for _, l := range libs {
		if l.err == nil && l.sum == sum {
			return l.path, nil
		}
	}
	for _, l := range libs {
		if l.err != nil {
			return "", exitError{2, fmt.Sprintf("pid %d maps an Orca agent library at %s that orca cannot check (%v): "+
				"orca loads no second copy beside it; nothing was attached: stop that recording as the JVM's user (orca stop %d), or restart the JVM",
				j.pid, l.path, l.err, j.pid)}
		}
	}
	if !j.contained && j.uid == os.Geteuid() {
		return cache()
	}
	p, err := j.writeAgent(data)
	if err != nil {
		return "", fmt.Errorf("writing the agent library where pid %d can read it (a new directory in its /tmp, %s): %w; nothing was attached",
			j.pid, j.host("/tmp"), err)
	}
	return p, nil
}

// writeAgent writes data to a new /tmp/orca-RANDOM/liborca.so of the JVM,
// as the JVM's user, and returns its path as the JVM sees it.
func (j *jvmProc) writeAgent(data []byte) (string, error) {
	root, err := hostfs.OpenRoot(j.path("root"))
	if err != nil {
		return "", err
	}
	defer syscall.Close(root)
	tmp, err := hostfs.OpenIn(root, "tmp", unix.O_PATH|unix.O_DIRECTORY)
	if err != nil {
		return "", err
	}
	defer syscall.Close(tmp)
	name, dir, err := hostfs.MkdirTemp(tmp, "orca-", 0o700, j.uid, j.gid)
	if err != nil {
		return "", err
	}
	defer syscall.Close(dir)
	if _, err := hostfs.CreateExcl(dir, "liborca.so", 0o500, data, j.uid, j.gid); err != nil {
		hostfs.As(j.uid, j.gid, func() error { return unix.Unlinkat(tmp, name, unix.AT_REMOVEDIR) })
		return "", err
	}
	return "/tmp/" + name + "/liborca.so", nil
}

// agentLib is an Orca agent library that the JVM maps.
type agentLib struct {
	path string // as the JVM sees it
	sum  string // the hex SHA-256 of its content, when err is nil
	err  error  // why it is not trusted: not the file mapped, or in a place others can change
}

// mappedAgents lists the orca agent libraries the JVM has mapped (any
// build's: liborca.so from orca's cache, -agentpath or an earlier attach's
// /tmp/orca-RANDOM/, or an older orca's /tmp/orca-SUM.so), each checked
// (checkLib); any says whether it maps one at all (also one deleted since).
// When the maps cannot be read, any is true.
func (j *jvmProc) mappedAgents() (libs []agentLib, any bool) {
	f, err := os.Open(j.path("maps"))
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
		l := agentLib{path: p}
		l.sum, l.err = j.checkLib(p, fields[0], fields[3], fields[4])
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
func (j *jvmProc) checkLib(p, span, dev, ino string) (string, error) {
	root, err := hostfs.OpenRoot(j.path("root"))
	if err != nil {
		return "", err
	}
	defer syscall.Close(root)
	owners := []int{0, os.Geteuid(), j.uid}
	fd, err := hostfs.OpenChecked(root, p, func(name string, st *unix.Stat_t, last bool) error {
		if !slices.Contains(owners, int(st.Uid)) {
			return fmt.Errorf("%s belongs to %s", name, idName(int(st.Uid)))
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
func (j *jvmProc) sameMapped(st *unix.Stat_t, span, dev, ino string) bool {
	var m unix.Stat_t
	if unix.Stat(j.path(filepath.Join("map_files", span)), &m) == nil && m.Dev == st.Dev && m.Ino == st.Ino {
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

// runningPrefix returns the prefix of the recording the JVM is writing (the
// path it sees), from the files it holds open: PREFIX.orca or a chunk file
// PREFIX.orca.NNNNNN. "" when none is open or the path cannot be told.
func (j *jvmProc) runningPrefix() string {
	ents, err := os.ReadDir(j.path("fd"))
	if err != nil {
		return ""
	}
	for _, e := range ents {
		fd := filepath.Join(j.path("fd"), e.Name())
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
		have, err := os.Stat(j.host(p))
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
