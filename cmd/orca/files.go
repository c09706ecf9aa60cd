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
	"time"

	"golang.org/x/sys/unix"

	"orca/internal/attach"
	"orca/internal/format"
	"orca/internal/hostfs"
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

// recordingNames calls f with each name of the recording with prefix in
// dir, prefix's directory opened once (PREFIX.EXT, PREFIX-N.EXT, chunk files,
// PREFIX.lease), in order, and why it is no file of a recording of uid (""
// when it is one: its status taken of the name itself, a symbolic link not
// followed).
func recordingNames(dir *os.File, prefix string, uid int, f func(name string, why string) error) error {
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return err
	}
	sort.Strings(names)
	_, base := filepath.Split(prefix)
	for _, name := range names {
		if _, _, ok := matchRecording(base, name); !ok && !isLeaseName(base, name) {
			continue
		}
		var st unix.Stat_t
		if unix.Fstatat(int(dir.Fd()), name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue // gone since
		}
		if err := f(name, notOwnFile(&st, uid)); err != nil {
			return err
		}
	}
	return nil
}

// removeRecordings deletes the recording files with prefix that are
// regular files of uid (the recording's user: the JVM's), and returns their
// paths. Each is looked at and deleted by its name in the directory opened
// once, with orca's own ids (no symbolic link followed, no path another user
// controls resolved again); the deletions with uid's and gid's file system
// ids when orca is root (hostfs.As), so that the kernel lets it delete no
// one else's file. Anything else at a recording's name (a symbolic link,
// another user's file) is left and refused, with exit status 2.
func removeRecordings(prefix string, uid, gid int) ([]string, error) {
	dir, _ := filepath.Split(prefix)
	d, err := os.Open(dirOrDot(dir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer d.Close()
	var removed, refused []string
	err = hostfs.As(uid, gid, func() error {
		return recordingNames(d, prefix, uid, func(name, why string) error {
			if why != "" {
				refused = append(refused, fmt.Sprintf("%s (%s)", dir+name, why))
				return nil
			}
			if err := unix.Unlinkat(int(d.Fd()), name, 0); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s: %w", dir+name, err)
			}
			removed = append(removed, dir+name)
			return nil
		})
	})
	if err == nil && len(refused) > 0 {
		err = exitError{2, fmt.Sprintf("--force deletes only the recording's regular files of its user (%s); not removed, as orca did not create them: %s: "+
			"remove them yourself or choose another prefix with -o", attach.UserName(uid), strings.Join(refused, ", "))}
	}
	return removed, err
}

// notOwnFile says why st is no file of a recording of user uid ("" when it
// is one: a regular file of uid).
func notOwnFile(st *unix.Stat_t, uid int) string {
	switch {
	case st.Mode&unix.S_IFMT == unix.S_IFLNK:
		return "a symbolic link"
	case st.Mode&unix.S_IFMT == unix.S_IFDIR:
		return "a directory"
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return "not a regular file"
	case int(st.Uid) != uid:
		return "a file of " + attach.UserName(int(st.Uid))
	}
	return ""
}

// checkRecordingNames refuses, before anything is started or attached
// (nothing names what was not), a prefix whose recording names — PREFIX.EXT,
// PREFIX-N.EXT, chunk files, PREFIX.lease — are taken by something orca did
// not create: a symbolic link, a file of another user than uid (the
// recording's user), anything but a regular file. Another user may put one
// there in a shared directory; the agent would refuse it, and --force does
// not remove it.
func checkRecordingNames(prefix string, uid int, nothing string) error {
	dir, _ := filepath.Split(prefix)
	d, err := os.Open(dirOrDot(dir))
	if err != nil {
		return nil // checkWritable tells
	}
	defer d.Close()
	var taken []string
	recordingNames(d, prefix, uid, func(name, why string) error {
		if why != "" {
			taken = append(taken, fmt.Sprintf("%s is %s", dir+name, why))
		}
		return nil
	})
	if len(taken) == 0 {
		return nil
	}
	return exitError{2, fmt.Sprintf("record: the recording's names are taken by files orca did not create (the recording's user is %s): %s; "+
		"remove them or choose another prefix with -o; %s", attach.UserName(uid), strings.Join(taken, ", "), nothing)}
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
