package attach

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// fakeProc lays out proc/PID like /proc: status with the given ids, root
// (a link to / for a JVM on this host, a directory for one in a container),
// fd, maps and uid_map.
type fakeProc struct {
	proc string
	pid  int
	root string // where the JVM's / is
}

func newFakeProc(t *testing.T, contained bool, uid, gid int, groups []int) *fakeProc {
	t.Helper()
	f := &fakeProc{proc: t.TempDir(), pid: 4242}
	d := filepath.Join(f.proc, "4242")
	must(t, os.MkdirAll(filepath.Join(d, "fd"), 0o755))
	gs := strings.Trim(fmt.Sprint(groups), "[]")
	status := fmt.Sprintf("Name:\tjava\nUid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\nGroups:\t%s\n", uid, uid, uid, uid, gid, gid, gid, gid, gs)
	must(t, os.WriteFile(filepath.Join(d, "status"), []byte(status), 0o644))
	must(t, os.MkdirAll(filepath.Join(d, "ns"), 0o755))
	own, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		own = "mnt:[1]"
	}
	if contained {
		own = "mnt:[4026599999]"
	}
	must(t, os.Symlink(own, filepath.Join(d, "ns", "mnt")))
	if contained {
		f.root = t.TempDir()
		must(t, os.Mkdir(filepath.Join(f.root, "tmp"), 0o777))
		must(t, os.Chmod(filepath.Join(f.root, "tmp"), os.ModeSticky|0o777))
		must(t, os.Symlink(f.root, filepath.Join(d, "root")))
	} else {
		f.root = "/"
		must(t, os.Symlink("/", filepath.Join(d, "root")))
	}
	return f
}

func (f *fakeProc) write(t *testing.T, name, text string) {
	t.Helper()
	must(t, os.WriteFile(filepath.Join(f.proc, "4242", name), []byte(text), 0o644))
}

func (f *fakeProc) read(t *testing.T) *Proc {
	t.Helper()
	j, err := ReadProc(f.proc, f.pid)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

func TestReadJVMProc(t *testing.T) {
	f := newFakeProc(t, false, 1001, 1002, []int{1002, 27, 100})
	j := f.read(t)
	if j.UID != 1001 || j.GID != 1002 || !reflect.DeepEqual(j.groups, []int{1002, 27, 100}) || j.Contained {
		t.Errorf("host JVM: %+v", j)
	}
	if got := j.Host("/tmp/r"); got != "/tmp/r" {
		t.Errorf("host(/tmp/r) = %s", got)
	}
	f = newFakeProc(t, true, 0, 0, nil)
	f.write(t, "uid_map", "         0     100000      65536\n")
	j = f.read(t)
	if !j.Contained || j.Host("/tmp/r") != filepath.Join(f.proc, "4242", "root", "tmp", "r") {
		t.Errorf("contained JVM: %+v, host(/tmp/r) = %s", j, j.Host("/tmp/r"))
	}
	if !reflect.DeepEqual(j.uidMap, []idRange{{0, 100000, 65536}}) {
		t.Errorf("uid_map read as %+v", j.uidMap)
	}
	// unshare --mount: the same / with other mounts on it.
	f = newFakeProc(t, true, 0, 0, nil)
	must(t, os.Remove(filepath.Join(f.proc, "4242", "root")))
	must(t, os.Symlink("/", filepath.Join(f.proc, "4242", "root")))
	if j = f.read(t); !j.Contained || j.Host("/mnt") != filepath.Join(f.proc, "4242", "root", "mnt") {
		t.Errorf("another mount namespace, the same /: %+v, host(/mnt) = %s", j, j.Host("/mnt"))
	}
	if !j.Alive() {
		t.Error("a process without a State line is not alive")
	}
	for state, alive := range map[string]bool{"S (sleeping)": true, "R (running)": true, "Z (zombie)": false, "X (dead)": false} {
		f.write(t, "status", "Name:\tjava\nState:\t"+state+"\nUid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n")
		if got := j.Alive(); got != alive {
			t.Errorf("State: %s: alive %v, want %v", state, got, alive)
		}
	}
	if _, err := ReadProc(f.proc, 4243); err == nil || !strings.Contains(err.Error(), "no such process") {
		t.Errorf("missing pid: %v", err)
	}
	f.write(t, "status", "Name:\tjava\n")
	if _, err := ReadProc(f.proc, 4242); err == nil || !strings.Contains(err.Error(), "no Uid") {
		t.Errorf("status without ids: %v", err)
	}
}

func TestCheckUser(t *testing.T) {
	j := &Proc{PID: 4242, UID: 1001}
	for euid, ok := range map[int]bool{0: true, 1001: true, 1002: false} {
		err := j.CheckUser(euid)
		if ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "sudo -u '#1001' orca") {
			t.Errorf("orca as uid %d, the JVM as 1001: %v", euid, err)
		}
	}
}

// TestCheckWritableBy judges as the JVM's user: owner, group (its own or a supplementary
// one) or others' bits, search permission on the way, root in its user namespace. The files
// are the test's own; the JVM's ids are chosen around them, so no chown is needed.
func TestCheckWritableBy(t *testing.T) {
	f := newFakeProc(t, true, 0, 0, nil)
	var st syscall.Stat_t
	must(t, syscall.Stat(f.root, &st))
	me, mine := int(st.Uid), int(st.Gid)
	if me == 0 {
		// Root's powers would pass every check: the files get a user of their own.
		me, mine = 54321, 54322
	}
	mk := func(name string, mode os.FileMode) {
		p := filepath.Join(f.root, name)
		must(t, os.MkdirAll(p, 0o755))
		must(t, os.Chmod(p, mode))
		if os.Geteuid() == 0 {
			must(t, os.Chown(p, me, mine))
		}
	}
	mk("owner", 0o700)
	mk("group", 0o570)
	mk("others", 0o557)
	mk("closed", 0o555)
	mk("shut", 0o700)
	mk("shut/in", 0o777)
	t.Cleanup(func() { os.Chmod(filepath.Join(f.root, "shut"), 0o700) })
	must(t, os.WriteFile(filepath.Join(f.root, "plain"), nil, 0o644))
	other := me + 1
	for _, c := range []struct {
		uid, gid int
		groups   []int
		uidMap   string
		prefix   string
		want     string // in the error; "" for none
	}{
		{me, mine, nil, "", "/owner/r", ""},
		{other, mine, nil, "", "/owner/r", "cannot create files in /owner"},
		{other, mine, nil, "", "/group/r", ""},
		{other, mine + 1, []int{5, mine}, "", "/group/r", ""},
		{me, mine, nil, "", "/group/r", "cannot create files in /group"}, // the owner's bits count, not the group's
		{other, mine + 1, nil, "", "/others/r", ""},
		{other, mine + 1, nil, "", "/closed/r", "cannot create files in /closed"},
		{other, mine + 1, nil, "", "/shut/in/r", "cannot enter /shut"},
		{other, mine + 1, nil, "", "/none/r", "/none does not exist"},
		{other, mine + 1, nil, "", "/plain/x", "is not a directory"},
		{0, 0, nil, "", "/closed/r", ""},
		// Root of a user namespace that maps the files' owner: root's powers.
		{other, mine + 1, nil, fmt.Sprintf("0 %d 1\n1 %d 1\n", other, me), "/closed/r", ""},
		// ... but not over a file of a user it does not map.
		{other, mine + 1, nil, fmt.Sprintf("0 %d 1\n", other), "/closed/r", "cannot create files in /closed"},
	} {
		j := &Proc{Dir: f.proc, PID: f.pid, UID: c.uid, GID: c.gid, groups: c.groups, Contained: true}
		if c.uidMap != "" {
			f.write(t, "uid_map", c.uidMap)
			j.uidMap = readIDMap(filepath.Join(f.proc, "4242", "uid_map"))
		}
		err := j.CheckWritableBy(c.prefix)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("uid %d gid %d groups %v map %q, -o %s: %v; want %q", c.uid, c.gid, c.groups, c.uidMap, c.prefix, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "in the container of pid 4242") {
			t.Errorf("-o %s: %v does not say the path is in the container", c.prefix, err)
		}
	}
}

func sumOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// mapsLine is a /proc/PID/maps line mapping the file at host path h, which the JVM sees as p.
func mapsLine(t *testing.T, h, p string) string {
	t.Helper()
	var st unix.Stat_t
	must(t, unix.Stat(h, &st))
	return fmt.Sprintf("7f0000200000-7f0000300000 r-xp 00000000 %02x:%02x %d %s\n", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino, p)
}

// TestPlaceAgent: a JVM of orca's user on this host loads the cached library; any other gets a
// copy in a new directory of its /tmp with a name nobody can foresee, made by the JVM's user;
// a library of this build that the JVM maps already is reused when checked, and an unchecked
// one gets no second copy beside it.
func TestPlaceAgent(t *testing.T) {
	data := []byte("\x7fELF not really a library")
	sum := sumOf(data)
	cached := 0
	cache := func() (string, error) { cached++; return "/cache/liborca.so", nil }

	host := newFakeProc(t, false, os.Geteuid(), os.Getegid(), nil).read(t)
	if p, err := host.PlaceAgent(data, sum, cache); err != nil || p != "/cache/liborca.so" || cached != 1 {
		t.Errorf("host JVM of orca's user: %q, %v (cache asked %d times)", p, err, cached)
	}

	f := newFakeProc(t, true, 1000, 1000, nil)
	// As root, orca writes the copy as the JVM's user (uid 1000), who must reach the directory.
	for d := f.root; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		must(t, os.Chmod(d, 0o755))
	}
	// A third user took the names an older orca used: no matter.
	must(t, os.Mkdir(filepath.Join(f.root, "tmp", "orca-"+sum[:16]+".so"), 0o755))
	must(t, os.WriteFile(filepath.Join(f.root, "tmp", "orca-"+sum[:16]+".so", "x"), nil, 0o644))
	box := f.read(t)
	named := regexp.MustCompile(`^/tmp/orca-[0-9a-z]{16}/liborca\.so$`)
	place := func(what string) string {
		t.Helper()
		p, err := box.PlaceAgent(data, sum, cache)
		if err != nil || !named.MatchString(p) {
			t.Fatalf("%s: %q, %v; want /tmp/orca-RANDOM/liborca.so", what, p, err)
		}
		file := filepath.Join(f.root, p)
		var st, dst syscall.Stat_t
		must(t, syscall.Lstat(file, &st))
		must(t, syscall.Lstat(filepath.Dir(file), &dst))
		if got, _ := os.ReadFile(file); !bytes.Equal(got, data) || st.Mode&0o7777 != 0o500 || dst.Mode&0o7777 != 0o700 {
			t.Errorf("%s: %s holds %q, mode %#o in a directory of mode %#o; want the library, 0500 in 0700", what, file, got, st.Mode&0o7777, dst.Mode&0o7777)
		}
		if os.Geteuid() == 0 && (st.Uid != 1000 || dst.Uid != 1000) {
			t.Errorf("%s: %s is uid %d's, its directory uid %d's; want made by the JVM's user, 1000", what, file, st.Uid, dst.Uid)
		}
		return p
	}
	first := place("first")
	if cached != 1 {
		t.Error("a contained JVM was given the cache's path")
	}
	if second := place("not mapped"); second == first {
		t.Errorf("two attaches wrote the same name %s", first)
	}
	// Mapped already: the same file is loaded again (HotSpot then loads no second copy).
	f.write(t, "maps", mapsLine(t, filepath.Join(f.root, first), first))
	if p, err := box.PlaceAgent(data, sum, cache); err != nil || p != first {
		t.Errorf("mapped already: %q, %v; want %s reused", p, err, first)
	}
	// Another build mapped: this build is written beside it.
	f.write(t, "maps", mapsLine(t, filepath.Join(f.root, first), first))
	if p, err := box.PlaceAgent([]byte("another build"), sumOf([]byte("another build")), cache); err != nil || p == first {
		t.Errorf("another build mapped: %q, %v; want a new copy", p, err)
	}
	// Mapped, but the file at the path is no longer the one mapped: refused, no second copy.
	h := filepath.Join(f.root, first)
	line := mapsLine(t, h, first)
	must(t, os.Chmod(filepath.Dir(h), 0o755))
	must(t, os.WriteFile(h+".new", data, 0o500))
	must(t, os.Rename(h+".new", h))
	f.write(t, "maps", line)
	if _, err := box.PlaceAgent(data, sum, cache); err == nil || !strings.Contains(err.Error(), "not the file the JVM mapped") {
		t.Errorf("replaced since mapped: %v", err)
	}
	// Mapped from a directory others may write, or through a symlink: not trusted.
	must(t, os.Chmod(filepath.Dir(h), 0o777))
	f.write(t, "maps", mapsLine(t, h, first))
	if _, err := box.PlaceAgent(data, sum, cache); err == nil || !strings.Contains(err.Error(), "writable by others") {
		t.Errorf("a directory writable by others: %v", err)
	}
	must(t, os.Chmod(filepath.Dir(h), 0o700))
	link := filepath.Join(f.root, "tmp", "link")
	must(t, os.Symlink(filepath.Dir(h), link))
	f.write(t, "maps", mapsLine(t, h, "/tmp/link/liborca.so"))
	if _, err := box.PlaceAgent(data, sum, cache); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlink on the way: %v", err)
	}
	// No /tmp in the container: the error names the pid.
	f.write(t, "maps", "")
	must(t, os.RemoveAll(filepath.Join(f.root, "tmp")))
	if _, err := box.PlaceAgent(data, sum, cache); err == nil || !strings.Contains(err.Error(), "pid 4242") {
		t.Errorf("no /tmp: %v", err)
	}
}

func TestMappedAgents(t *testing.T) {
	f := newFakeProc(t, true, 1000, 1000, nil)
	lib := "/tmp/orca-0123456789abcdef.so"
	must(t, os.WriteFile(filepath.Join(f.root, lib), []byte("lib"), 0o644))
	f.write(t, "maps", `55d0c0000000-55d0c0001000 r--p 00000000 08:01 1 /usr/lib/jvm/java-17/bin/java
7f0000000000-7f0000100000 r-xp 00000000 08:01 2 /usr/lib/jvm/java-17/lib/server/libjvm.so
`+mapsLine(t, filepath.Join(f.root, lib), lib)+mapsLine(t, filepath.Join(f.root, lib), lib)+
		`7f0000400000-7f0000500000 r-xp 00000000 08:01 4 /gone/liborca.so (deleted)
7f0000600000-7f0000601000 rw-p 00000000 00:00 0 
`)
	j := f.read(t)
	libs, any := j.MappedAgents()
	if len(libs) != 1 || libs[0].Path != lib || libs[0].Err != nil || libs[0].Sum != sumOf([]byte("lib")) || !any {
		t.Errorf("mappedAgents = %+v, %v; want [%s] checked, true", libs, any, lib)
	}
	f.write(t, "maps", "7f0000400000-7f0000500000 r-xp 00000000 08:01 4 /gone/liborca.so (deleted)\n")
	if libs, any := j.MappedAgents(); len(libs) != 0 || !any {
		t.Errorf("a deleted library: %+v, %v; want none checked, but one mapped", libs, any)
	}
	f.write(t, "maps", "7f0000100000-7f0000200000 r-xp 00000000 08:01 2 /usr/lib/jvm/java-17/lib/server/libjvm.so\n")
	if libs, any := j.MappedAgents(); len(libs) != 0 || any {
		t.Errorf("no agent: %+v, %v", libs, any)
	}
}

func TestRunningPrefix(t *testing.T) {
	f := newFakeProc(t, false, 1000, 1000, nil)
	dir := t.TempDir()
	fd := filepath.Join(f.proc, "4242", "fd")
	link := func(n, target string) {
		must(t, os.WriteFile(target, nil, 0o644))
		must(t, os.Symlink(target, filepath.Join(fd, n)))
	}
	j := f.read(t)
	must(t, os.Symlink("socket:[1234]", filepath.Join(fd, "3")))
	link("4", filepath.Join(dir, "app.log"))
	if p := j.RunningPrefix(); p != "" {
		t.Errorf("no recording open: %q", p)
	}
	link("5", filepath.Join(dir, "rec-2.orca.000007"))
	if p := j.RunningPrefix(); p != filepath.Join(dir, "rec-2") {
		t.Errorf("a chunk file: %q", p)
	}
	must(t, os.Remove(filepath.Join(fd, "5")))
	link("6", filepath.Join(dir, "run 1.orca"))
	if p := j.RunningPrefix(); p != filepath.Join(dir, "run 1") {
		t.Errorf("PREFIX.orca: %q", p)
	}
}

// TestRemovePlaced: the library PlaceAgent wrote into a JVM's /tmp is removed, with its
// directory, when the JVM did not load it (an attach that timed out or was refused left a 2 MB
// /tmp/orca-RANDOM/liborca.so of the JVM's user's that nothing removed: four after this
// session's audit), and kept when the JVM maps it.
func TestRemovePlaced(t *testing.T) {
	data := []byte("\x7fELF not really a library")
	sum := sumOf(data)
	f := newFakeProc(t, true, 1000, 1000, nil)
	for d := f.root; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		must(t, os.Chmod(d, 0o755))
	}
	box := f.read(t)
	p, err := box.PlaceAgent(data, sum, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(filepath.Join(f.root, p))
	box.RemovePlaced()
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("not loaded: %s is left (%v)", dir, err)
	}
	box.RemovePlaced() // twice: nothing to do

	box = f.read(t)
	p, err = box.PlaceAgent(data, sum, nil)
	if err != nil {
		t.Fatal(err)
	}
	f.write(t, "maps", mapsLine(t, filepath.Join(f.root, p), p))
	box.RemovePlaced()
	if _, err := os.Stat(filepath.Join(f.root, p)); err != nil {
		t.Errorf("mapped by the JVM: %s removed (%v)", p, err)
	}
}
