// Package agentlib carries the C agent (liborca.so) inside the orca binary
// and extracts it to a cache directory, so one file is all a user installs.
//
// The library is embedded at build time: `make` compiles agent/*.c into
// internal/agentlib/liborca.so before `go build`; without that file this
// package does not compile (run `make`, not plain `go build`, on a fresh tree).
package agentlib

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

//go:embed liborca.so
var lib []byte

// sum is the hex SHA-256 of the embedded library.
var sum = func() string {
	s := sha256.Sum256(lib)
	return hex.EncodeToString(s[:])
}()

// Checksum returns the hex SHA-256 of the embedded agent library.
func Checksum() string { return sum }

// Bytes returns the embedded agent library, to be written where a JVM in a
// container can load it (the caller must not modify it).
func Bytes() []byte { return lib }

// Path extracts the agent library, if not already there, and returns its
// path: $XDG_CACHE_HOME/orca/<first 16 hex digits of its SHA-256>/liborca.so
// (~/.cache by default), or, when that directory is not writable, the same
// below os.TempDir()/orca-cache-<uid>. The name carries the checksum so
// different orca builds never share a file, and an existing copy is verified
// before use.
func Path() (string, error) {
	return extract(lib, sum, cacheDirs())
}

// cacheDirs lists the directories to try, in order.
func cacheDirs() []string {
	var dirs []string
	if d, err := os.UserCacheDir(); err == nil {
		dirs = append(dirs, filepath.Join(d, "orca"))
	}
	return append(dirs, filepath.Join(os.TempDir(), fmt.Sprintf("orca-cache-%d", os.Getuid())))
}

func extract(data []byte, sum string, dirs []string) (string, error) {
	if len(data) == 0 {
		return "", errors.New("the embedded agent library is empty: build orca with `make`")
	}
	var errs []error
	for i, d := range dirs {
		// Only the shared temp directory needs the ownership check: there
		// another user could have created it first.
		p, err := extractTo(data, sum, d, i > 0)
		if err == nil {
			return p, nil
		}
		errs = append(errs, err)
	}
	return "", fmt.Errorf("extracting the agent library: %w", errors.Join(errs...))
}

func extractTo(data []byte, sum, root string, shared bool) (string, error) {
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", err
	}
	if shared {
		if err := checkPrivate(root); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(root, sum[:16])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	// The library is loaded into JVMs, as root too: nobody else may be able to change it, or
	// a directory on its way (a $HOME or $XDG_CACHE_HOME of another user's under sudo, a
	// symlink to somewhere they write).
	if err := CheckWay(dir, "the agent library"); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "liborca.so")
	if have, err := os.ReadFile(path); err == nil && bytes.Equal(have, data) {
		return path, nil
	}
	// Written whole under another name, then renamed: a concurrent orca (or
	// a JVM loading the library right now) never sees a half-written file.
	if err := WriteFileAtomic(path, data, ".liborca-*.tmp", 0o755); err != nil {
		return "", err
	}
	return path, nil
}

// WriteFileAtomic writes data to path through a temporary file (pattern, in
// path's directory) renamed over it once complete, with mode: no reader
// sees half a file, and a file already at path (someone else's, at a
// predictable name) is replaced, never written through.
func WriteFileAtomic(path string, data []byte, pattern string, mode os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), pattern)
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(mode)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// CheckWay refuses a directory that is reached through a symlink, or that another user than
// orca's and root owns or could change, or any directory above it that is: each must be a
// directory (no symlink), owned by orca's user or root, and writable by no one else unless
// sticky (then no one else can rename what is in it). what names what orca would write below
// it, for the error ("the agent library").
func CheckWay(dir, what string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		switch {
		case !fi.IsDir():
			return fmt.Errorf("%s: a symlink or no directory on the way to %s's directory %s", d, what, dir)
		case !ok || int(st.Uid) != os.Geteuid() && st.Uid != 0:
			return fmt.Errorf("%s belongs to uid %d, not to orca's user (uid %d) or root: %s is not written below it", d, st.Uid, os.Geteuid(), what)
		case fi.Mode().Perm()&0o022 != 0 && fi.Mode()&os.ModeSticky == 0:
			return fmt.Errorf("%s is writable by others (mode %v): %s is not written below it", d, fi.Mode(), what)
		}
		if d == "/" || d == filepath.Dir(d) {
			return nil
		}
	}
}

// checkPrivate refuses a directory another user could write to.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%s: not a directory owned by uid %d and writable only by it", dir, os.Getuid())
	}
	return nil
}
