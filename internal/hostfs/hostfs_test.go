package hostfs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestOpenInStaysInRoot: an absolute symlink inside a container's root names the container's
// file, not the host's (the container's /tmp a link to /etc must not reach the host's /etc).
func TestOpenInStaysInRoot(t *testing.T) {
	root := t.TempDir()
	must(t, os.Mkdir(filepath.Join(root, "etc"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "etc", "marker"), []byte("inside"), 0o644))
	must(t, os.Symlink("/etc", filepath.Join(root, "tmp")))
	rfd, err := OpenRoot(root)
	must(t, err)
	defer unix.Close(rfd)
	fd, err := OpenIn(rfd, "/tmp/marker", unix.O_RDONLY)
	must(t, err)
	f := os.NewFile(uintptr(fd), "marker")
	defer f.Close()
	b := make([]byte, 16)
	n, _ := f.Read(b)
	if string(b[:n]) != "inside" {
		t.Errorf("read %q through the root's /tmp -> /etc: want the root's own file", b[:n])
	}
	if _, err := OpenIn(rfd, "../../../../etc/passwd", unix.O_RDONLY); err == nil {
		// RESOLVE_IN_ROOT clamps .. at the root: the root has no etc/passwd.
		t.Errorf("../ left the root")
	}
}

// TestCreateExcl: a name taken by anything, a symlink too, is refused and left alone; the
// file made has the mode asked, whatever the umask; Remove removes only that file.
func TestCreateExcl(t *testing.T) {
	dir := t.TempDir()
	dfd, err := OpenRoot(dir)
	must(t, err)
	defer unix.Close(dfd)
	victim := filepath.Join(dir, "victim")
	must(t, os.WriteFile(victim, []byte("keep"), 0o600))
	must(t, os.Symlink(victim, filepath.Join(dir, "link")))
	if _, err := CreateExcl(dfd, "link", 0o600, []byte("x"), -1, -1); err != os.ErrExist {
		t.Errorf("CreateExcl over a symlink: %v; want os.ErrExist", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("written through the symlink: %q", b)
	}
	old := syscall.Umask(0o077)
	c, err := CreateExcl(dfd, "lib", 0o500, []byte("data"), -1, -1)
	syscall.Umask(old)
	must(t, err)
	fi, err := os.Lstat(filepath.Join(dir, "lib"))
	if err != nil || fi.Mode().Perm() != 0o500 {
		t.Errorf("mode %v, %v; want 0500", fi.Mode(), err)
	}
	must(t, c.Remove())
	if _, err := os.Lstat(filepath.Join(dir, "lib")); err == nil {
		t.Errorf("Remove left the file")
	}
	if _, err := CreateExcl(dfd, "a/b", 0o600, nil, -1, -1); err == nil {
		t.Errorf("a name with a slash was taken")
	}
}

// TestAs: as root, files are made with the other user's ids and that user's permissions.
func TestAs(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("switching file system ids needs root")
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	dfd, err := OpenRoot(dir)
	must(t, err)
	defer unix.Close(dfd)
	// A directory of root's (0755): the other user may not create in it.
	if _, err := CreateExcl(dfd, "x", 0o600, nil, 65532, 65532); err == nil {
		t.Errorf("uid 65532 created a file in root's 0755 directory")
	}
	sub := filepath.Join(dir, "sub")
	must(t, os.Mkdir(sub, 0o700))
	must(t, os.Chown(sub, 65532, 65532))
	sfd, err := OpenRoot(sub)
	must(t, err)
	defer unix.Close(sfd)
	name, nfd, err := MkdirTemp(sfd, "orca-", 0o700, 65532, 65532)
	must(t, err)
	unix.Close(nfd)
	var st unix.Stat_t
	must(t, unix.Lstat(filepath.Join(sub, name), &st))
	if st.Uid != 65532 || st.Gid != 65532 || st.Mode&0o7777 != 0o700 || !strings.HasPrefix(name, "orca-") || len(name) != len("orca-")+16 {
		t.Errorf("MkdirTemp: %s uid %d gid %d mode %#o; want orca-RANDOM16, 65532's, 0700", name, st.Uid, st.Gid, st.Mode&0o7777)
	}
	// The ids end with the call: orca's own thread is root still.
	if os.Geteuid() != 0 {
		t.Errorf("euid changed")
	}
	must(t, os.WriteFile(filepath.Join(dir, "root-again"), nil, 0o600))
}

// TestOpenChecked: every directory on the way and the file are shown to check; a symlink on
// the way is refused.
func TestOpenChecked(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "a", "b"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "a", "b", "f"), []byte("x"), 0o644))
	must(t, os.Symlink(filepath.Join(root, "a"), filepath.Join(root, "l")))
	rfd, err := OpenRoot(root)
	must(t, err)
	defer unix.Close(rfd)
	var seen []string
	fd, err := OpenChecked(rfd, "/a/b/f", func(name string, st *unix.Stat_t, last bool) error {
		seen = append(seen, name)
		return nil
	})
	must(t, err)
	unix.Close(fd)
	if strings.Join(seen, " ") != "/ /a /a/b /a/b/f" {
		t.Errorf("checked %q", seen)
	}
	if _, err := OpenChecked(rfd, "/l/b/f", func(string, *unix.Stat_t, bool) error { return nil }); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a symlink on the way: %v", err)
	}
	// OpenIn's way on kernels without openat2: the same walk, unchecked.
	if fd, err := walk(rfd, "a/b/f", unix.O_RDONLY, nil); err != nil {
		t.Errorf("walk a/b/f: %v", err)
	} else {
		unix.Close(fd)
	}
	if _, err := walk(rfd, "l/b/f", unix.O_RDONLY, nil); err == nil {
		t.Errorf("walk through a symlink: no error")
	}
	if _, err := walk(rfd, "a/../a/b/f", unix.O_RDONLY, nil); err == nil {
		t.Errorf("walk with '..': no error")
	}
}

// fifoOpened makes a FIFO at path with a writer blocked opening it, runs f, and reports whether
// f opened the FIFO (the writer's open returned: a reader came).
func fifoOpened(t *testing.T, path string, f func()) bool {
	t.Helper()
	must(t, unix.Mkfifo(path, 0o600))
	woke := make(chan struct{})
	go func() {
		if fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0); err == nil {
			unix.Close(fd)
		}
		close(woke)
	}()
	time.Sleep(100 * time.Millisecond) // the writer blocks in its open
	f()
	opened := false
	select {
	case <-woke:
		opened = true
	case <-time.After(300 * time.Millisecond):
	}
	// Release the writer.
	if fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0); err == nil {
		<-woke
		unix.Close(fd)
	}
	return opened
}

// TestCheckedBeforeOpened: OpenFileIn and OpenChecked open nothing their check refuses. A FIFO
// (or a link to a device: /dev/watchdog arms when opened) that another user put at the name
// was opened by root before it was looked at; here a writer blocked on the FIFO shows it.
func TestCheckedBeforeOpened(t *testing.T) {
	root := t.TempDir()
	rfd, err := OpenRoot(root)
	must(t, err)
	defer unix.Close(rfd)
	regular := errors.New("no regular file")
	if fifoOpened(t, filepath.Join(root, "a"), func() {
		f, err := OpenFileIn(rfd, "a", func(st *unix.Stat_t) error {
			if st.Mode&unix.S_IFMT != unix.S_IFREG {
				return regular
			}
			return nil
		})
		if err != regular {
			t.Errorf("OpenFileIn of a FIFO: %v, want the check's error", err)
			f.Close()
		}
	}) {
		t.Errorf("OpenFileIn opened the FIFO its check refuses")
	}
	if fifoOpened(t, filepath.Join(root, "b"), func() {
		fd, err := OpenChecked(rfd, "b", func(name string, st *unix.Stat_t, last bool) error {
			if last && st.Mode&unix.S_IFMT != unix.S_IFREG {
				return regular
			}
			return nil
		})
		if err != regular {
			t.Errorf("OpenChecked of a FIFO: %v, want the check's error", err)
			unix.Close(fd)
		}
	}) {
		t.Errorf("OpenChecked opened the FIFO its check refuses")
	}
	// A regular file passes and is read.
	must(t, os.WriteFile(filepath.Join(root, "c"), []byte("c"), 0o600))
	f, err := OpenFileIn(rfd, "c", func(st *unix.Stat_t) error { return nil })
	must(t, err)
	b := make([]byte, 2)
	if n, _ := f.Read(b); string(b[:n]) != "c" {
		t.Errorf("OpenFileIn read %q", b[:n])
	}
	f.Close()
}
