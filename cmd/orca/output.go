package main

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"orca/internal/attach"
)

// openOutput opens path to write an output of orca's into (report -o, export -o
// of a device), as a shell's > would, but never through a name someone else may
// have planted: orca runs as root, and a symlink in /tmp or in a directory
// another user can write would make root truncate and overwrite the file it
// names (/etc/passwd). A new file is created exclusively, mode 0600. An existing
// name is opened without following it (O_PATH|O_NOFOLLOW), checked, and only then
// opened for writing through that descriptor: a regular file of orca's user with
// one link (another user's, or a hard link, is refused), a character device
// (/dev/null: only root makes one), or a FIFO of orca's user. A symlink, a
// directory, a socket, another user's file or FIFO is refused, naming what it is.
func openOutput(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err == nil || !errors.Is(err, os.ErrExist) {
		return f, err
	}
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if why := outputRefused(&st, os.Geteuid()); why != "" {
		return nil, fmt.Errorf("%s %s: not written; remove it or give another name", path, why)
	}
	// Through the descriptor checked: the name may have been swapped since.
	f, err = os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), os.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: errors.Unwrap(err)}
	}
	if st.Mode&unix.S_IFMT == unix.S_IFREG {
		if err := f.Truncate(0); err != nil {
			f.Close()
			return nil, err
		}
	}
	return f, nil
}

// outputRefused says why an existing file st may not be written as orca's output
// by user uid ("" when it may).
func outputRefused(st *unix.Stat_t, uid int) string {
	owner := func(what string) string {
		if int(st.Uid) != uid {
			return fmt.Sprintf("is %s of %s, not of orca's user", what, attach.UserName(int(st.Uid)))
		}
		return ""
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if why := owner("a file"); why != "" {
			return why
		}
		if st.Nlink != 1 {
			return fmt.Sprintf("has %d hard links (writing it would change the others)", st.Nlink)
		}
		return ""
	case unix.S_IFCHR:
		return ""
	case unix.S_IFIFO:
		return owner("a FIFO")
	case unix.S_IFLNK:
		return "is a symbolic link, which orca does not follow (another user may have planted it): give the file it names"
	case unix.S_IFDIR:
		return "is a directory"
	}
	return fmt.Sprintf("is no regular file (mode %#o)", st.Mode)
}
