package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"orca/internal/format"
)

// recordingExts are the files of one recording, in the order orca lists them.
var recordingExts = []string{format.SuffixEvents, format.SuffixMethods, format.SuffixClasses, format.SuffixInfo, format.SuffixExt}

// recording is one JVM's set of files: PREFIX.* or PREFIX-N.*.
type recording struct {
	prefix string // PREFIX or PREFIX-N, as given on the command line
	n      int    // 1 for PREFIX, N for PREFIX-N
	files  []recFile
}

// recFile is one file of a recording.
type recFile struct {
	path  string
	size  int64
	mtime time.Time
}

// findRecordings lists the recording files with prefix (PREFIX.* and
// PREFIX-N.* for the four extensions), ordered by N then extension.
func findRecordings(prefix string) ([]recording, error) {
	dir, base := filepath.Split(prefix)
	ents, err := os.ReadDir(dirOrDot(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	byN := map[int]*recording{}
	for _, e := range ents {
		n, ext, ok := matchRecording(base, e.Name())
		if !ok || e.IsDir() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		r := byN[n]
		if r == nil {
			p := prefix
			if n > 1 {
				p += "-" + strconv.Itoa(n)
			}
			r = &recording{prefix: p, n: n}
			byN[n] = r
		}
		r.files = append(r.files, recFile{r.prefix + ext, fi.Size(), fi.ModTime()})
	}
	var out []recording
	for _, r := range byN {
		sort.Slice(r.files, func(i, j int) bool { return extRank(r.files[i].path) < extRank(r.files[j].path) })
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].n < out[j].n })
	return out, nil
}

func dirOrDot(d string) string {
	if d == "" {
		return "."
	}
	return d
}

func extRank(path string) int {
	for i, e := range recordingExts {
		if strings.HasSuffix(path, e) {
			return i
		}
	}
	return len(recordingExts)
}

// matchRecording reports whether name is a file of a recording with the
// base name base: base.EXT (n = 1) or base-N.EXT with N >= 2 in decimal;
// EXT is one of recordingExts or a bounded recording's chunk file's
// .orca.NNNNNN.
func matchRecording(base, name string) (n int, ext string, ok bool) {
	if i := strings.LastIndex(name, format.SuffixEvents+"."); i > 0 {
		if d := name[i+len(format.SuffixEvents)+1:]; d != "" && strings.Trim(d, "0123456789") == "" {
			n, ok := matchStem(base, name[:i])
			return n, name[i:], ok
		}
	}
	for _, e := range recordingExts {
		stem, found := strings.CutSuffix(name, e)
		if !found {
			continue
		}
		n, ok := matchStem(base, stem)
		return n, e, ok
	}
	return 0, "", false
}

// matchStem: stem is base (1) or base-N (N >= 2).
func matchStem(base, stem string) (int, bool) {
	if stem == base {
		return 1, true
	}
	num, found := strings.CutPrefix(stem, base+"-")
	if !found || num == "" || num[0] == '0' || strings.Trim(num, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 2 {
		return 0, false
	}
	return n, true
}

// newRecordings returns the recordings in after with a file that is not in
// before or has changed since: those the command just wrote.
func newRecordings(before, after []recording) []recording {
	old := map[string]recFile{}
	for _, r := range before {
		for _, f := range r.files {
			old[f.path] = f
		}
	}
	var out []recording
	for _, r := range after {
		for _, f := range r.files {
			if o, ok := old[f.path]; !ok || o.size != f.size || !o.mtime.Equal(f.mtime) {
				out = append(out, r)
				break
			}
		}
	}
	return out
}

// removeRecordings deletes the recording files with prefix that are
// regular files of owner (the recording's user: the JVM's), and returns their
// paths. Each is looked at and deleted by its name in the directory opened
// once (no symbolic link followed, no path another user controls resolved
// again); when orca's user is not owner, with owner's file system ids (uid
// and gid), so that the kernel lets it delete no one else's file. Anything
// else at a recording's name (a symbolic link, another user's file) is left
// and refused, with exit status 2.
func removeRecordings(prefix string, uid, gid int) ([]string, error) {
	dir, base := filepath.Split(prefix)
	d, err := os.Open(dirOrDot(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var removed, refused []string
	remove := func() error {
		for _, name := range names {
			if _, _, ok := matchRecording(base, name); !ok {
				continue
			}
			var st syscall.Stat_t
			if err := lstatAt(int(d.Fd()), name, &st); err != nil {
				continue // gone since
			}
			if why := notOwnFile(&st, uid); why != "" {
				refused = append(refused, fmt.Sprintf("%s (%s)", dir+name, why))
				continue
			}
			if err := syscall.Unlinkat(int(d.Fd()), name); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: %w", dir+name, err)
			}
			removed = append(removed, dir+name)
		}
		return nil
	}
	if uid != os.Geteuid() {
		err = asFSUser(uid, gid, remove)
	} else {
		err = remove()
	}
	if err == nil && len(refused) > 0 {
		err = exitError{2, fmt.Sprintf("--force deletes only the recording's regular files of its user (%s); not removed, as orca did not create them: %s: "+
			"remove them yourself or choose another prefix with -o", idName(uid), strings.Join(refused, ", "))}
	}
	return removed, err
}

// notOwnFile says why st is no file of a recording of user uid ("" when it
// is one: a regular file of uid).
func notOwnFile(st *syscall.Stat_t, uid int) string {
	switch {
	case st.Mode&syscall.S_IFMT == syscall.S_IFLNK:
		return "a symbolic link"
	case st.Mode&syscall.S_IFMT == syscall.S_IFDIR:
		return "a directory"
	case st.Mode&syscall.S_IFMT != syscall.S_IFREG:
		return "not a regular file"
	case int(st.Uid) != uid:
		return "a file of " + idName(int(st.Uid))
	}
	return ""
}

// oPath is O_PATH, the same on every Linux architecture (syscall does not
// name it on amd64).
const oPath = 0x200000

// lstatAt is fstatat(dirfd, name, AT_SYMLINK_NOFOLLOW) with syscall's
// exported calls: a descriptor of the name itself (a symbolic link not
// followed, a FIFO not opened), then fstat.
func lstatAt(dirfd int, name string, st *syscall.Stat_t) error {
	fd, err := syscall.Openat(dirfd, name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Fstat(fd, st)
}

// checkRecordingNames refuses, before anything is started or attached
// (nothing names what was not), a prefix whose recording names — PREFIX.EXT,
// PREFIX-N.EXT, chunk files — are taken by something orca did not create: a
// symbolic link, a file of another user than uid (the recording's user),
// anything but a regular file. Another user may put one there in a shared
// directory; the agent would refuse it, and --force does not remove it.
func checkRecordingNames(prefix string, uid int, nothing string) error {
	dir, base := filepath.Split(prefix)
	d, err := os.Open(dirOrDot(dir))
	if err != nil {
		return nil // checkWritable tells
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	sort.Strings(names)
	var taken []string
	for _, name := range names {
		if _, _, ok := matchRecording(base, name); !ok && !isLeaseName(base, name) {
			continue
		}
		var st syscall.Stat_t
		if lstatAt(int(d.Fd()), name, &st) != nil {
			continue
		}
		if why := notOwnFile(&st, uid); why != "" {
			taken = append(taken, fmt.Sprintf("%s is %s", dir+name, why))
		}
	}
	if len(taken) == 0 {
		return nil
	}
	return exitError{2, fmt.Sprintf("record: the recording's names are taken by files orca did not create (the recording's user is %s): %s; "+
		"remove them or choose another prefix with -o; %s", idName(uid), strings.Join(taken, ", "), nothing)}
}

// empty reports whether the recording's event and name files are all empty
// (its .info aside): the agent wrote nothing but its header.
func (r recording) empty() bool {
	for _, f := range r.files {
		if strings.HasSuffix(f.path, format.SuffixInfo) || f.size == 0 {
			continue
		}
		// A compact .orca begins with its header line, events or not (of any
		// version: an older agent's too).
		if strings.HasSuffix(f.path, format.SuffixEvents) && f.size <= 32 {
			if b, err := os.ReadFile(f.path); err == nil && strings.HasPrefix(string(b), "orca-compact ") && strings.IndexByte(string(b), '\n') == len(b)-1 {
				continue
			}
		}
		return false
	}
	return true
}

// isLeaseName reports whether name is the lease file the agent makes for a
// recording with the base name base (PREFIX.lease or PREFIX-N.lease).
func isLeaseName(base, name string) bool {
	stem, ok := strings.CutSuffix(name, ".lease")
	if !ok {
		return false
	}
	_, ok = matchStem(base, stem)
	return ok
}
