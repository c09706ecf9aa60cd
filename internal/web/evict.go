package web

import (
	"os"
	"sort"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The indexes are evicted (docs/web.md, "Where it lives"): after an index
// is written, those below root are kept newest first, by when each was
// last used (written, or opened: OpenIndex touches it), while they are at
// most indexKeep and hold at most indexMaxBytes in all; the older ones are
// removed. The one just written is always kept.
const (
	indexKeep     = 8
	indexMaxBytes = 16 << 30
	// indexBusy: a KEY directory with a file being written (index.new-…)
	// more recently than this is another orca view's at work: not removed.
	indexBusy = time.Hour
)

// keyDirInfo is what evictIndexes knows of one KEY directory.
type keyDirInfo struct {
	name  string
	used  int64 // ns: its index's modification time (or its newest file's)
	bytes int64
	busy  bool
}

// evictIndexes removes the indexes below root that the rule above gives
// up, key's kept, and returns the names of the KEY directories removed.
// It acts on descriptors: root opened as openKeyDir opens it, each KEY
// directory below it opened without following a symlink and left alone
// unless the user's own and closed to others, its files unlinked by name
// in it (a symlink among them is removed, not followed).
func evictIndexes(root, key string, keep int, maxBytes int64) []string {
	vfd, err := openViewDir(root)
	if err != nil {
		return nil
	}
	defer unix.Close(vfd)
	names, err := dirNames(vfd)
	if err != nil {
		return nil
	}
	now := time.Now().UnixNano()
	var dirs []keyDirInfo
	kept, held := 1, int64(0)
	for _, name := range names {
		if !isKeyName(name) {
			continue
		}
		info, ok := statKeyDir(vfd, name, now)
		if !ok {
			continue
		}
		if name == key[:32] {
			held += info.bytes
			continue
		}
		dirs = append(dirs, info)
	}
	sort.Slice(dirs, func(i, j int) bool { return dirs[i].used > dirs[j].used })
	var gone []string
	full := false
	for _, k := range dirs {
		if !full && kept < keep && held+k.bytes <= maxBytes {
			kept++
			held += k.bytes
			continue
		}
		full = true
		if k.busy {
			continue
		}
		if removeKeyDir(vfd, k.name) {
			gone = append(gone, k.name)
		}
	}
	return gone
}

// isKeyName: a KEY directory's name, 32 hex digits.
func isKeyName(name string) bool {
	if len(name) != 32 {
		return false
	}
	return strings.Trim(name, "0123456789abcdef") == ""
}

// dirNames lists the directory fd (a descriptor of its own, so fd's
// offset is left alone).
func dirNames(fd int) ([]string, error) {
	dup, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}

// openOwnDir opens the directory name below vfd without following a
// symlink, -1 unless the user's own and closed to others.
func openOwnDir(vfd int, name string) int {
	fd, err := unix.Openat(vfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		unix.Close(fd)
		return -1
	}
	return fd
}

// statKeyDir says when the KEY directory name was last used, how many
// bytes its files hold and whether one is being written.
func statKeyDir(vfd int, name string, now int64) (keyDirInfo, bool) {
	info := keyDirInfo{name: name}
	fd := openOwnDir(vfd, name)
	if fd < 0 {
		return info, false
	}
	defer unix.Close(fd)
	files, err := dirNames(fd)
	if err != nil {
		return info, false
	}
	var newest int64
	for _, f := range files {
		var st unix.Stat_t
		if unix.Fstatat(fd, f, &st, unix.AT_SYMLINK_NOFOLLOW) != nil {
			continue
		}
		mt := st.Mtim.Nano()
		newest = max(newest, mt)
		info.bytes += st.Size
		if f == "index" {
			info.used = mt
		}
		if strings.HasPrefix(f, "index.new-") && now-mt < int64(indexBusy) {
			info.busy = true
		}
	}
	if info.used == 0 {
		info.used = newest
	}
	return info, true
}

// removeKeyDir removes the KEY directory name below vfd and its files.
func removeKeyDir(vfd int, name string) bool {
	fd := openOwnDir(vfd, name)
	if fd < 0 {
		return false
	}
	files, err := dirNames(fd)
	if err == nil {
		for _, f := range files {
			unix.Unlinkat(fd, f, 0) // a file or a symlink itself; a directory stays, and so does name
		}
	}
	unix.Close(fd)
	return unix.Unlinkat(vfd, name, unix.AT_REMOVEDIR) == nil
}

// touch sets the modification time of the file fd to now (utimensat on
// the descriptor itself).
func touch(fd int) {
	ts := [2]unix.Timespec{{Nsec: unix.UTIME_NOW}, {Nsec: unix.UTIME_NOW}}
	unix.Syscall6(unix.SYS_UTIMENSAT, uintptr(fd), 0, uintptr(unsafe.Pointer(&ts[0])), 0, 0, 0)
}
