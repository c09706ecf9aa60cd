package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// checkOutDir makes sure, before anything is read or started, that a new
// file can be created in the directory of path, the output that what
// (e.g. "export: -o run1.pb.gz") names: a missing directory, a file in its
// place or one that takes no new file is one line saying what to do and
// that nothing was done (nothing, e.g. "nothing was read"), exit status 2,
// not an error naming a temporary file after the work.
func checkOutDir(what, path, nothing string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return exitError{2, fmt.Sprintf("%s: the directory %s does not exist: create it (mkdir -p %s) or choose another -o; %s", what, dir, dir, nothing)}
	case errors.Is(err, syscall.ENOTDIR):
		return exitError{2, fmt.Sprintf("%s: %s is not a directory (a file is in its path); choose another -o; %s", what, dir, nothing)}
	case err != nil:
		return exitError{2, fmt.Sprintf("%s: %v; choose another -o; %s", what, err, nothing)}
	case !fi.IsDir():
		return exitError{2, fmt.Sprintf("%s: %s is not a directory; choose another -o; %s", what, dir, nothing)}
	}
	f, err := os.CreateTemp(dir, ".orca-probe-*")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return exitError{2, fmt.Sprintf("%s: cannot create files in %s (%v): choose a writable directory with -o; %s", what, dir, err, nothing)}
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// checkOutFile is checkOutDir for an output that is one file: a directory
// of that name is refused too (it failed after the work, "rename
// /.x.tmp123 /tmp: file exists").
func checkOutFile(what, path, nothing string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return exitError{2, fmt.Sprintf("%s is a directory: want a file name (e.g. %s); %s", what, filepath.Join(path, "out"), nothing)}
	}
	return checkOutDir(what, path, nothing)
}
