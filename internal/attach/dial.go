package attach

import (
	"fmt"
	"net"
	"os"
	"runtime"
	"syscall"
)

// dial connects to HotSpot's attach socket at path. HotSpot reads the peer's credentials
// (SO_PEERCRED, taken at connect) and accepts only its own effective uid and gid, or root as
// its user namespace sees it. When orca's effective ids differ from uid/gid (orca is root and the
// JVM runs as another user), the connect runs on a thread whose effective ids are switched to
// uid/gid: then the check passes also where orca's root is no root to the JVM (a container in
// its own user namespace, where host root is the overflow uid).
func dial(path string, uid, gid int) (*net.UnixConn, error) {
	if os.Geteuid() == uid && os.Getegid() == gid {
		return net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
	}
	type result struct {
		fd  int
		err error
	}
	ch := make(chan result, 1)
	go func() {
		// Linux keeps credentials per thread; glibc's seteuid and Go's syscall.Seteuid change
		// them on every thread of the process (Go's since 1.16), which would let other
		// goroutines run as the JVM's user meanwhile. So the raw system calls change this one
		// thread, and the thread is never unlocked: when this goroutine returns, the runtime
		// ends the thread, and the switched ids end with it. The runtime never clones a new
		// thread from a locked one (it asks its template thread), so none inherits them.
		runtime.LockOSThread()
		fd, err := dialAs(path, uid, gid)
		ch <- result{fd, err}
	}()
	r := <-ch
	if r.err != nil {
		return nil, r.err
	}
	f := os.NewFile(uintptr(r.fd), path)
	defer f.Close()
	c, err := net.FileConn(f)
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", path, err)
	}
	return c.(*net.UnixConn), nil
}

// dialAs switches the calling (locked) thread's effective gid and uid and connects. The gid
// goes first: after the uid leaves root, the thread may no longer change its gid.
func dialAs(path string, uid, gid int) (int, error) {
	const keep = ^uintptr(0) // -1: leave the real and saved id as they are
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESGID, keep, uintptr(gid), keep); e != 0 {
		return -1, fmt.Errorf("%w: switching to gid %d to connect to %s: %v", ErrPermission, gid, path, e)
	}
	if _, _, e := syscall.RawSyscall(syscall.SYS_SETRESUID, keep, uintptr(uid), keep); e != 0 {
		return -1, fmt.Errorf("%w: switching to uid %d to connect to %s: %v", ErrPermission, uid, path, e)
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("connecting to %s: socket: %w", path, err)
	}
	for {
		err = syscall.Connect(fd, &syscall.SockaddrUnix{Name: path})
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Close(fd)
		return -1, &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: path, Net: "unix"}, Err: os.NewSyscallError("connect", err)}
	}
	return fd, nil
}
