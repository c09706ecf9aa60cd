// Package hostfs acts on files in directories that another user controls: the working
// directory and /tmp of a JVM that orca, as root, attaches to, and any directory inside the
// JVM's root (/proc/PID/root: a container's). It never resolves a path there twice: a directory
// is opened once, by descriptor, with symlinks kept inside the root it was reached from; files
// are created with O_CREAT|O_EXCL|O_NOFOLLOW relative to that descriptor; and what is created
// or removed on another user's behalf is done with that user's file system ids (setfsuid), so
// the kernel checks that user's permissions and root's powers are never lent to a planted name.
//
// docs/attach.md, "Security", says what orca creates where with this package.
package hostfs

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// OpenRoot opens the directory at path (a /proc/PID/root or /proc/PID/cwd magic link, or a
// directory orca trusts) as an O_PATH descriptor, following the link: the kernel resolves
// such a link to the process's own directory, not through a path another user could change.
func OpenRoot(path string) (int, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return fd, nil
}

// resolveInRoot is how paths below a root descriptor are resolved: ".." and absolute symlinks
// stay inside the root (a container's /tmp that links to /etc names the container's /etc, not
// the host's), and no /proc magic link is followed.
const resolveInRoot = unix.RESOLVE_IN_ROOT | unix.RESOLVE_NO_MAGICLINKS

// OpenIn opens rel below the directory root (a descriptor from OpenRoot) with flags (O_PATH or
// O_RDONLY, O_DIRECTORY, ...), rel resolved as if root were /. Kernels before 5.6 have no
// openat2: there every component is opened in turn with O_NOFOLLOW, and a symlink on the way is
// refused.
func OpenIn(root int, rel string, flags int) (int, error) {
	rel = strings.TrimLeft(rel, "/")
	if rel == "" {
		rel = "."
	}
	fd, err := unix.Openat2(root, rel, &unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Resolve: resolveInRoot})
	if err == nil {
		return fd, nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return -1, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	return walk(root, rel, flags, nil)
}

// OpenFileIn opens the file rel below root for reading, resolved as OpenIn resolves it, but
// opens nothing check has not seen: rel is opened O_PATH (no device is opened, no FIFO's writer
// woken: opening /dev/watchdog arms it, a tape rewinds), check is called with its status, and only
// then is it opened for reading, through that descriptor (/proc/self/fd/N: the very file checked,
// whatever is renamed meanwhile), O_NONBLOCK.
func OpenFileIn(root int, rel string, check func(st *unix.Stat_t) error) (*os.File, error) {
	fd, err := OpenIn(root, rel, unix.O_PATH)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	return reopen(fd, rel, unix.O_RDONLY|unix.O_NONBLOCK, check)
}

// reopen checks the file of the O_PATH descriptor fd with check and opens it with flags.
func reopen(fd int, name string, flags int, check func(st *unix.Stat_t) error) (*os.File, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: name, Err: err}
	}
	if err := check(&st); err != nil {
		return nil, err
	}
	r, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), flags|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: name, Err: err}
	}
	return os.NewFile(uintptr(r), name), nil
}

// As runs f with the calling thread's file system ids switched to uid and gid, when orca runs
// as root and they are not root's: then every create, remove and permission check f makes is
// that user's. f runs on a goroutine locked to its thread, which it never unlocks: the Go
// runtime then ends the thread when f returns, and the switched ids with it, and never clones
// a new thread from it. f must make its system calls itself (unix.Openat, ...), not through
// os.File's poller, which may run on another thread.
func As(uid, gid int, f func() error) error {
	if os.Geteuid() != 0 || uid == 0 && gid == 0 || uid < 0 {
		return f()
	}
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		// setfsgid first: once the fsuid is no longer root, it could not. Both return the
		// previous id and never an error: ask again to check.
		unix.Setfsgid(gid)
		unix.Setfsuid(uid)
		if got, _ := unix.SetfsuidRetUid(-1); got != uid {
			done <- fmt.Errorf("setfsuid(%d) did not take", uid)
			return
		}
		if got, _ := unix.SetfsgidRetGid(-1); got != gid {
			done <- fmt.Errorf("setfsgid(%d) did not take", gid)
			return
		}
		done <- f()
	}()
	return <-done
}

// Created is a file CreateExcl made: its directory's descriptor, its name and its identity,
// so that Remove removes that file and no other that took its name since.
type Created struct {
	Dir      int // O_PATH descriptor of the directory (owned by Created: Remove closes it)
	Name     string
	dev, ino uint64
	uid, gid int
}

// CreateExcl creates name in dir (a descriptor; CreateExcl takes a duplicate) as uid/gid
// (see As) with mode, exclusively and without following a symlink, writes data and closes it.
// A name that exists already, as anything, is os.ErrExist.
func CreateExcl(dir int, name string, mode uint32, data []byte, uid, gid int) (*Created, error) {
	if strings.Contains(name, "/") {
		return nil, fmt.Errorf("CreateExcl: %q is no file name", name)
	}
	c := &Created{Dir: -1, Name: name, uid: uid, gid: gid}
	err := As(uid, gid, func() error {
		fd, err := unix.Openat(dir, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, mode)
		if err != nil {
			if errors.Is(err, unix.EEXIST) {
				return os.ErrExist
			}
			return err
		}
		defer unix.Close(fd)
		for b := data; len(b) > 0; {
			n, err := unix.Write(fd, b)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				unix.Unlinkat(dir, name, 0)
				return err
			}
			b = b[n:]
		}
		// The umask must not narrow what the JVM needs, nor widen anything.
		if err := unix.Fchmod(fd, mode); err != nil {
			unix.Unlinkat(dir, name, 0)
			return err
		}
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			unix.Unlinkat(dir, name, 0)
			return err
		}
		c.dev, c.ino = st.Dev, st.Ino
		return nil
	})
	if err != nil {
		return nil, err
	}
	if c.Dir, err = unix.Dup(dir); err != nil {
		c.Dir = -1
	}
	return c, nil
}

// Close lets c go without removing the file: it closes c's directory.
func (c *Created) Close() {
	if c.Dir >= 0 {
		unix.Close(c.Dir)
		c.Dir = -1
	}
}

// Remove removes the file c, if its name still names it, as the user who created it, and
// closes c's directory.
func (c *Created) Remove() error {
	if c.Dir < 0 {
		return nil
	}
	defer func() { unix.Close(c.Dir); c.Dir = -1 }()
	return As(c.uid, c.gid, func() error {
		var st unix.Stat_t
		if err := unix.Fstatat(c.Dir, c.Name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			return err
		}
		if st.Dev != c.dev || st.Ino != c.ino {
			return fmt.Errorf("%s was replaced: not removed", c.Name)
		}
		return unix.Unlinkat(c.Dir, c.Name, 0)
	})
}

// MkdirTemp makes a new directory below dir named prefix followed by random characters, as
// uid/gid with mode, and returns its name and a descriptor of it. Its name cannot be
// foreseen, so nobody can take it first.
func MkdirTemp(dir int, prefix string, mode uint32, uid, gid int) (string, int, error) {
	var name string
	fd := -1
	err := As(uid, gid, func() error {
		for try := 0; try < 100; try++ {
			name = prefix + randomName()
			err := unix.Mkdirat(dir, name, mode)
			if errors.Is(err, unix.EEXIST) {
				continue
			}
			if err != nil {
				return err
			}
			if fd, err = unix.Openat(dir, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0); err != nil {
				return err
			}
			// The umask must not narrow what the JVM needs.
			return unix.Fchmod(fd, mode)
		}
		return errors.New("no free name after 100 tries")
	})
	if err != nil && fd >= 0 {
		unix.Close(fd)
		fd = -1
	}
	return name, fd, err
}

// randomName is 16 random characters of [0-9a-z].
func randomName() string {
	var b [16]byte
	if _, err := unix.Getrandom(b[:], 0); err != nil {
		panic(fmt.Sprintf("getrandom: %v", err))
	}
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b[:])
}

// Stat returns the status of the file that fd (any descriptor, O_PATH too) stands for.
func Stat(fd int) (unix.Stat_t, error) {
	var st unix.Stat_t
	err := unix.Fstat(fd, &st)
	return st, err
}

// OpenChecked opens the file rel below root (a descriptor from OpenRoot) for reading, one
// component at a time and refusing symlinks and "..", and calls check with the status of each
// directory on the way (root's included, named "/") and of the file (last true); an error from
// check ends the walk. So the file opened is the one whose way was checked, whatever is renamed
// meanwhile. The file is opened O_PATH for check and opened for reading only after it (as
// OpenFileIn): a device or FIFO at the name is refused without being opened.
func OpenChecked(root int, rel string, check func(name string, st *unix.Stat_t, last bool) error) (int, error) {
	fd, err := walk(root, rel, unix.O_PATH, check)
	if err != nil {
		return -1, err
	}
	defer unix.Close(fd)
	r, err := unix.Open("/proc/self/fd/"+strconv.Itoa(fd), unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: rel, Err: err}
	}
	return r, nil
}

// walk opens rel below root with flags, one component at a time with O_NOFOLLOW, refusing
// symlinks and "..": OpenIn without openat2 (check nil), and OpenChecked.
func walk(root int, rel string, flags int, check func(name string, st *unix.Stat_t, last bool) error) (int, error) {
	dir, err := unix.Openat(root, ".", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &os.PathError{Op: "open", Path: "/", Err: err}
	}
	name := "/"
	var parts []string
	for _, p := range strings.Split(rel, "/") {
		if p != "" && p != "." {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		unix.Close(dir)
		return -1, &os.PathError{Op: "open", Path: rel, Err: errors.New("no file name")}
	}
	for i := 0; ; i++ {
		if check != nil {
			var st unix.Stat_t
			if err := unix.Fstat(dir, &st); err != nil {
				unix.Close(dir)
				return -1, &os.PathError{Op: "stat", Path: name, Err: err}
			}
			if err := check(name, &st, i == len(parts)); err != nil {
				unix.Close(dir)
				return -1, err
			}
		}
		if i == len(parts) {
			return dir, nil
		}
		if parts[i] == ".." {
			unix.Close(dir)
			return -1, &os.PathError{Op: "open", Path: rel, Err: errors.New("'..' in the path")}
		}
		f := unix.O_PATH | unix.O_DIRECTORY
		if i == len(parts)-1 {
			f = flags
		}
		next, err := unix.Openat(dir, parts[i], f|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		var lst unix.Stat_t
		if err != nil && unix.Fstatat(dir, parts[i], &lst, unix.AT_SYMLINK_NOFOLLOW) == nil && lst.Mode&unix.S_IFMT == unix.S_IFLNK {
			err = errors.New("a symlink, not followed")
		}
		unix.Close(dir)
		if err != nil {
			return -1, &os.PathError{Op: "open", Path: "/" + strings.Join(parts[:i+1], "/"), Err: err}
		}
		dir = next
		name = "/" + strings.Join(parts[:i+1], "/")
	}
}
