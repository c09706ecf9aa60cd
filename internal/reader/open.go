package reader

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// OpenFile opens a file of a recording for reading. A recording's directory may be another user's
// (orca runs as root against other users' JVMs, and reads what their agents wrote), who can put
// anything at a name: a FIFO with no writer hung orca's open forever, a link to /dev/zero fed it
// without end. So the file is opened O_NONBLOCK (a FIFO's open returns) and must be a regular
// file, or a FIFO or socket of orca's own user (a shell's <(...)); a device is never read.
func OpenFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFIFO, unix.S_IFSOCK:
		if int(st.Uid) != os.Geteuid() {
			f.Close()
			return nil, fmt.Errorf("%s is a FIFO or socket of uid %d, not orca's user's, %w: not read", path, st.Uid, errNotRegular)
		}
	default:
		f.Close()
		return nil, fmt.Errorf("%s is a device (mode %#o), %w: not read", path, st.Mode, errNotRegular)
	}
	// Reads block again (a regular file's never wait anyway).
	if err := unix.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return f, nil
}
