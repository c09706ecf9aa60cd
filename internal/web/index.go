package web

import (
	"bufio"
	"bytes"
	"cmp"
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"orca/internal/agentlib"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"orca/internal/format"
	"orca/internal/model"
)

// The viewer's index (docs/web.md, "The index"): what the first screen
// asks, kept on disk once the model of a recording is built, so that the
// next orca view of the same recording serves it at once, without reading
// the recording again until a detail asks it. It holds the answers of the
// unfiltered /api/summary, /api/threads, /api/locks, /api/groups,
// /api/deadlocks and /api/version as the model gave them, and what the
// page asks unasked (indexAnswers: the overview, the default flame graph,
// the wait-for graphs of its default instants), every thread's lane and
// the tiles of the coarsest zoom levels, as /api/tiles cuts them.
//
// It lives in the invoking user's cache directory ($XDG_CACHE_HOME or
// ~/.cache, then orca/view/KEY/index), never beside the recording, whose
// directory may be another user's: the directories are made 0700 by
// descriptor and refused unless the user's own and closed to others; the
// file is written under a new name created exclusively without following a
// symlink, then renamed into place. KEY is a hash of what makes the
// answers: the recording's event files (name, size, modification time),
// the range asked for, and the orca binary itself; the index repeats it,
// and one that does not match is not used.

// indexMagic starts an index file, followed by its version.
const (
	indexMagic   = "ORCAVIEWINDEX\x00\x00\x00"
	indexVersion = 7
)

// indexBodies are the answers an index keeps, asked without parameters.
var indexBodies = []string{"/api/summary", "/api/threads", "/api/locks", "/api/groups", "/api/deadlocks", "/api/version"}

// indexFlame is the flame graph an index keeps: the Flame tab's first.
const indexFlame = "/api/flame?states=blocked%2Cwaiting"

// indexDeadlockInstants: the wait-for graphs an index keeps are those at
// the end and at the instants of the first this many deadlocks.
const indexDeadlockInstants = 64

// indexLocks is how many locks' details an index keeps (keptLocks).
var indexLocks = 100

// keptLocks returns the locks whose details an index keeps, so that a
// reopen answers them without the model (an hour of Tomcat: the model
// built on demand ~2 min, then the holders' fold of every lock ~15 s): the
// first indexLocks rows of the Locks view as it opens (locks.js: by
// blocked time, most first, then by object; a group's members are the
// group's row, whose figures /api/groups keeps), those clicked first.
func (d *data) keptLocks() []*model.Lock {
	var ls []*model.Lock
	for _, l := range d.all.Locks {
		if d.all.GroupOf(l) == nil {
			ls = append(ls, l)
		}
	}
	// The object's name is 8 hex digits: its order is the number's.
	slices.SortStableFunc(ls, func(a, b *model.Lock) int {
		return cmp.Or(cmp.Compare(b.Blocked, a.Blocked), cmp.Compare(a.Object, b.Object))
	})
	return ls[:min(len(ls), indexLocks)]
}

// lockURL is the detail's request of lock l.
func lockURL(l *model.Lock) string { return "/api/locks/" + l.Kind.String() + "/" + l.Object.String() }

// indexAnswers are the answers with parameters an index keeps: those the
// page asks before the user asks a detail (app.js, timeline.js,
// deadlocks.js, flame.js): the overview at each count of buckets it asks,
// the flame graph of blocked and waiting time, and the wait-for graph at
// the instant the Deadlocks tab first shows (the first deadlock's, else
// the end), and at the other deadlocks' and the end (a click on a
// deadlock or a hang). A deadlock's instant is Deadlocks.instantOf's.
// Then the details of kept, the locks listed first (keptLocks).
func (d *data) indexAnswers(kept []*model.Lock) []string {
	var u []string
	for _, n := range overviewBuckets {
		u = append(u, fmt.Sprintf("/api/overview?buckets=%d", n))
	}
	u = append(u, indexFlame)
	end := d.rel(d.m.End)
	seen := map[int64]bool{end: true}
	u = append(u, fmt.Sprintf("/api/waitfor?t=%d", end))
	for i, dl := range d.deadlocks {
		if i == indexDeadlockInstants {
			break
		}
		t := end
		if !dl.AtEnd {
			// Math.round((at + resolved) / 2) of integers: half up.
			t = (d.rel(dl.At) + d.rel(dl.Resolved) + 1) / 2
		}
		if !seen[t] {
			seen[t] = true
			u = append(u, fmt.Sprintf("/api/waitfor?t=%d", t))
		}
	}
	for _, l := range kept {
		u = append(u, lockURL(l))
	}
	return u
}

// answerKey is the key of a request's answer in an index: its path, then
// its parameters as url.Values.Encode writes them (sorted, escaped), so
// that ?states=blocked%2Cwaiting and ?states=blocked,waiting are one.
func answerKey(path string, q url.Values) string {
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// indexDir is an index's directory, the JSON at its end.
type indexDir struct {
	Key      string              `json:"key"`
	Duration int64               `json:"duration"` // ns
	Threads  int                 `json:"threads"`
	Bodies   map[string][2]int64 `json:"bodies"` // answerKey → offset, length
	// Levels: the zoom levels kept, coarsest first, each its tiles'
	// offset and length.
	Levels []indexLevel `json:"levels"`
	// Lanes: the offset of the threads' lane records (lanes.go);
	// LaneData: the bytes their columns are in.
	Lanes    int64    `json:"lanes"`
	LaneData [2]int64 `json:"lane_data"`
}

type indexLevel struct {
	Level int        `json:"level"`
	Tiles [][2]int64 `json:"tiles"`
}

// Index is an opened index: its answers and tiles, read as asked.
type Index struct {
	f      *os.File
	dir    indexDir
	size   int64
	levels map[int]*indexLevel
	// bodies: the kept answers' places in f, read as asked (c1G's
	// /api/threads is 80 MB).
	bodies map[string][2]int64

	mu    sync.Mutex
	tiles map[[2]int]*list.Element // (level, tile) → its bytes in lru
	lru   list.List                // of *indexTile
	held  int                      // bytes of tiles held

	extra indexExtra // the thread table and the rows' places, read once
}

type indexTile struct {
	key [2]int
	b   []byte
}

// indexTileCache bounds the bytes of tiles an Index keeps read.
const indexTileCache = 64 << 20

// indexTileKept: the largest tile an Index reads whole and keeps; of a
// larger one (the coarsest levels of a long recording's many threads: 100
// MB and more) it reads the table and the asked threads' parts only. A
// variable, that a test makes 0.
var indexTileKept int64 = indexTileCache / 4

// IndexKey is the key of the index of a recording: sig says what its
// event files are, ranges the range asked for (the flags as given).
func IndexKey(sig, ranges string) string {
	h := sha256.New()
	fmt.Fprintf(h, "orca view index %d\n%s\n%s\n", indexVersion, exeSig(), ranges)
	h.Write([]byte(sig))
	return hex.EncodeToString(h.Sum(nil))
}

// exeSig names this orca binary (its path, size and modification time):
// another build may answer otherwise, and then makes its own index.
func exeSig() string {
	p, err := os.Executable()
	if err != nil {
		return "?"
	}
	fi, err := os.Stat(p)
	if err != nil {
		return p
	}
	return fmt.Sprintf("%s %d %d", p, fi.Size(), fi.ModTime().UnixNano())
}

// IndexRoot is where the indexes go: $XDG_CACHE_HOME/orca/view, or
// ~/.cache/orca/view (os.UserCacheDir).
func IndexRoot() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "orca", "view"), nil
}

// openPrivateDir opens (making it, mode 0700, when missing) the directory
// name below the directory descriptor at, without following a symlink, and
// refuses it unless the user's own and closed to others.
func openPrivateDir(at int, name string) (int, error) {
	return openDirClosed(at, name, 0o077)
}

// openDirClosed is openPrivateDir refusing a directory whose mode has any of
// the bits open; openViewDir passes 0o022 for orca/, which the agent
// library's cache shares (other tools and older builds made it 0755): only
// the user may change what is in it, the indexes' privacy is view/'s.
func openDirClosed(at int, name string, open uint32) (int, error) {
	if err := unix.Mkdirat(at, name, 0o700); err != nil && !errors.Is(err, unix.EEXIST) {
		return -1, fmt.Errorf("making %s: %w", name, err)
	}
	fd, err := unix.Openat(at, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening %s: %w", name, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&open != 0 {
		unix.Close(fd)
		what := "a private directory of this user"
		if open&0o044 == 0 {
			what = "a directory only this user can change"
		}
		return -1, fmt.Errorf("%s: not %s (owner %d, mode %o)", name, what, st.Uid, st.Mode&0o7777)
	}
	return fd, nil
}

// openKeyDir opens root/KEY (root as IndexRoot gives it), making the
// directories below the cache directory as needed: orca, view and KEY.
func openKeyDir(root, key string) (int, error) {
	fd, err := openViewDir(root)
	if err != nil {
		return -1, err
	}
	kfd, err := openPrivateDir(fd, key[:32])
	unix.Close(fd)
	if err != nil {
		return -1, fmt.Errorf("the viewer's index in %s: %w", root, err)
	}
	return kfd, nil
}

// openViewDir opens root (IndexRoot), making the directories below the
// cache directory as needed: orca and view.
func openViewDir(root string) (int, error) {
	cache := filepath.Dir(filepath.Dir(root))
	if err := os.MkdirAll(cache, 0o700); err != nil {
		return -1, err
	}
	// orca may run as root with another user's $HOME or $XDG_CACHE_HOME (sudo -E): no
	// directory on the way that another user owns or could change, no symlink.
	if err := agentlib.CheckWay(cache, "the viewer's index"); err != nil {
		return -1, err
	}
	fd, err := unix.Open(cache, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening %s: %w", cache, err)
	}
	for i, name := range []string{filepath.Base(filepath.Dir(root)), filepath.Base(root)} {
		open := uint32(0o077)
		if i == 0 {
			open = 0o022
		}
		next, err := openDirClosed(fd, name, open)
		unix.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("the viewer's index in %s: %w", root, err)
		}
		fd = next
	}
	return fd, nil
}

// OpenIndex opens the index of key below root, nil when there is none or
// it is not one of key's (an error then says why it was not used).
func OpenIndex(root, key string) (*Index, error) {
	dfd, err := openKeyDir(root, key)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat(dfd, "index", unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the viewer's index: %w", err)
	}
	f := os.NewFile(uintptr(fd), filepath.Join(root, key[:32], "index"))
	idx, err := readIndex(f, key)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("the viewer's index %s: %w", f.Name(), err)
	}
	touch(fd) // used now: the last to be evicted (evictIndexes)
	return idx, nil
}

// readIndex checks and reads f's head and directory.
func readIndex(f *os.File, key string) (*Index, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || int(st.Uid) != os.Geteuid() || st.Mode&0o077 != 0 {
		return nil, fmt.Errorf("not a private file of this user (owner %d, mode %o)", st.Uid, st.Mode&0o7777)
	}
	head := make([]byte, len(indexMagic)+4+16)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, fmt.Errorf("its head: %w", err)
	}
	le := binary.LittleEndian
	p := len(indexMagic)
	if string(head[:p]) != indexMagic || le.Uint32(head[p:]) != indexVersion {
		return nil, errors.New("not an index of this version")
	}
	off, n := int64(le.Uint64(head[p+4:])), int64(le.Uint64(head[p+12:]))
	if off < int64(len(head)) || n <= 0 || n > 1<<30 || off+n != st.Size {
		return nil, errors.New("cut short or damaged")
	}
	b := make([]byte, n)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, err
	}
	idx := &Index{f: f, size: st.Size, levels: map[int]*indexLevel{}, bodies: map[string][2]int64{}, tiles: map[[2]int]*list.Element{}}
	if err := json.Unmarshal(b, &idx.dir); err != nil {
		return nil, err
	}
	if idx.dir.Key != key {
		return nil, errors.New("of another recording or build")
	}
	for path, at := range idx.dir.Bodies {
		if at[0] < 0 || at[1] < 0 || at[0]+at[1] > off {
			return nil, errors.New("damaged")
		}
		idx.bodies[path] = at
	}
	for i := range idx.dir.Levels {
		l := &idx.dir.Levels[i]
		for _, t := range l.Tiles {
			if t[0] < 0 || t[1] < 0 || t[0]+t[1] > off {
				return nil, errors.New("damaged")
			}
		}
		idx.levels[l.Level] = l
	}
	d := &idx.dir
	// The lane records, then the lanes (version 5 on).
	if d.Threads < 0 || d.Lanes < int64(len(head)) || d.Lanes+int64(d.Threads)*laneRecBytes > d.LaneData[0] ||
		d.LaneData[1] < d.LaneData[0] || d.LaneData[1] > off {
		return nil, errors.New("damaged")
	}
	return idx, nil
}

// Size is the index file's size in bytes.
func (x *Index) Size() int64 { return x.size }

// Levels are the zoom levels whose tiles the index keeps.
func (x *Index) Levels() []int {
	var out []int
	for _, l := range x.dir.Levels {
		out = append(out, l.Level)
	}
	return out
}

// Close closes the index's file.
func (x *Index) Close() error { return x.f.Close() }

// body returns the kept answer of key (answerKey), nil when none.
func (x *Index) body(key string) []byte {
	at, ok := x.bodies[key]
	if !ok {
		return nil
	}
	b := make([]byte, at[1])
	if _, err := x.f.ReadAt(b, at[0]); err != nil {
		return nil
	}
	return b
}

// answer returns the kept answer of r, to be read from the index's file;
// nil when none.
func (x *Index) answer(r *http.Request) *io.SectionReader {
	at, ok := x.bodies[answerKey(r.URL.Path, r.URL.Query())]
	if !ok {
		return nil
	}
	return io.NewSectionReader(x.f, at[0], at[1])
}

// tile returns tile k of level for threads as /api/tiles sends it: from
// the tiles of the level kept whole, or cut from the threads' lanes.
func (x *Index) tile(level, k int, threads []int) ([]byte, error) {
	l := x.levels[level]
	if l == nil || k >= len(l.Tiles) {
		return x.laneTile(level, k, threads)
	}
	at := l.Tiles[k]
	part := func(off, n int) ([]byte, error) { // a tile too large to keep: read the threads' parts
		b := make([]byte, n)
		if _, err := x.f.ReadAt(b, at[0]+int64(off)); err != nil {
			return nil, fmt.Errorf("the viewer's index: %w", err)
		}
		return b, nil
	}
	if at[1] < indexTileKept {
		b, err := x.tileBytes(level, k, at)
		if err != nil {
			return nil, err
		}
		part = func(off, n int) ([]byte, error) { return b[off : off+n], nil }
	}
	ln, err := decodeLanes(part, int(at[1]), threads, x.dir.Threads)
	if err != nil {
		return nil, fmt.Errorf("the viewer's index, tile %d of level %d: %w", k, level, err)
	}
	return encodeTile(0, threads, ln), nil
}

// tileBytes reads a tile's bytes, or takes them from the cache.
func (x *Index) tileBytes(level, k int, at [2]int64) ([]byte, error) {
	key := [2]int{level, k}
	x.mu.Lock()
	if e, ok := x.tiles[key]; ok {
		x.lru.MoveToFront(e)
		b := e.Value.(*indexTile).b
		x.mu.Unlock()
		return b, nil
	}
	x.mu.Unlock()
	b := make([]byte, at[1])
	if _, err := x.f.ReadAt(b, at[0]); err != nil {
		return nil, fmt.Errorf("the viewer's index: %w", err)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	if _, ok := x.tiles[key]; !ok && int64(len(b)) < indexTileKept {
		x.tiles[key] = x.lru.PushFront(&indexTile{key, b})
		x.held += len(b)
		for x.held > indexTileCache {
			e := x.lru.Back().Value.(*indexTile)
			x.lru.Remove(x.lru.Back())
			delete(x.tiles, e.key)
			x.held -= len(e.b)
		}
	}
	return b, nil
}

// A tile of the index holds the lanes of the threads it has anything of,
// in thread order, times in ns since the recording's start, little-endian:
//
//	u32 lanes M, u32 thread[M], u32 segStart[M+1], u32 runStart[M+1]
//	per segment: i64 start, i64 end, u32 first, u32 n, u8 state  (25 bytes)
//	per piece of runnable time: i64 start, end, running, ready, other,
//	virtual, unsplit  (56 bytes)
const (
	segBytes = 8 + 8 + 4 + 4 + 1
	runBytes = 7 * 8
)

// decodeLanes takes the lanes of threads out of a tile of the index of size
// bytes (n threads in the recording), reading only its table and the
// threads' parts: part(off, len) returns the tile's bytes from off.
func decodeLanes(part func(off, n int) ([]byte, error), size int, threads []int, n int) (lanes, error) {
	le := binary.LittleEndian
	bad := errors.New("damaged")
	if size < 4 {
		return lanes{}, bad
	}
	b, err := part(0, 4)
	if err != nil {
		return lanes{}, err
	}
	m := int(le.Uint32(b))
	segBase := 4 + 4*m + 8*(m+1)
	if m > n || size < segBase {
		return lanes{}, bad
	}
	if b, err = part(0, segBase); err != nil {
		return lanes{}, err
	}
	thread := func(i int) int { return int(le.Uint32(b[4+4*i:])) }
	segAt := func(i int) int { return int(le.Uint32(b[4+4*m+4*i:])) }
	runAt := func(i int) int { return int(le.Uint32(b[4+4*m+4*(m+1)+4*i:])) }
	runBase := segBase + segAt(m)*segBytes
	if segAt(m) > size || size != runBase+runAt(m)*runBytes {
		return lanes{}, bad
	}
	l := lanes{counts: make([]uint32, len(threads)), runCounts: make([]uint32, len(threads))}
	for j, ti := range threads {
		i := sort.Search(m, func(i int) bool { return thread(i) >= ti })
		if i == m || thread(i) != ti {
			continue // nothing of it in this tile
		}
		s0, s1, r0, r1 := segAt(i), segAt(i+1), runAt(i), runAt(i+1)
		if s1 < s0 || r1 < r0 || s1 > segAt(m) || r1 > runAt(m) {
			return lanes{}, bad
		}
		l.counts[j], l.runCounts[j] = uint32(s1-s0), uint32(r1-r0)
		segs, err := part(segBase+s0*segBytes, (s1-s0)*segBytes)
		if err != nil {
			return lanes{}, err
		}
		for p := segs; len(p) > 0; p = p[segBytes:] {
			l.segs = append(l.segs, segment{start: format.Time(le.Uint64(p)), end: format.Time(le.Uint64(p[8:])),
				first: le.Uint32(p[16:]), n: le.Uint32(p[20:]), state: p[24]})
		}
		runs, err := part(runBase+r0*runBytes, (r1-r0)*runBytes)
		if err != nil {
			return lanes{}, err
		}
		for p := runs; len(p) > 0; p = p[runBytes:] {
			v := func(k int) format.Time { return format.Time(le.Uint64(p[8*k:])) }
			l.runs = append(l.runs, runPiece{start: v(0), end: v(1), split: model.RunSplit{Running: v(2), Ready: v(3), Other: v(4), Virtual: v(5), Unsplit: v(6)}})
		}
	}
	return l, nil
}

// tileAcc gathers one tile's lanes as the index is built, thread by
// thread (in order, the empty lanes left out).
type tileAcc struct {
	threads []int32
	l       lanes
}

// levelAcc is a level's tiles kept whole, gathered as the index is built.
type levelAcc struct {
	level int
	tiles []tileAcc
}

// dropFinest gives up the finest of levels, whose segments and pieces
// held counts, and returns the others.
func dropFinest(levels []*levelAcc, held *int) []*levelAcc {
	last := levels[len(levels)-1]
	for _, ta := range last.tiles {
		*held -= len(ta.l.segs) + len(ta.l.runs)
	}
	// Let it go: the slice's array held every level given up (c5G-slow5:
	// 0.5 GB of segments and pieces at the end).
	levels[len(levels)-1] = nil
	return levels[:len(levels)-1]
}

// lanePieces is the index's build of thread ti, t, of more intervals than
// a piece (model.Model.ByPieces), read by pieces (win): its overviews'
// sums (ovs), the flame graph's (fa), its lane written to w with its kept
// tiles of keptLevels (coarsest first) and its lanes of the levels' tiles,
// each cut as its intervals come (levelCut); it returns its lane record.
// A thread read whole (writeLane, writeKept) keeps its tiles of any
// level over which it has more than laneKeepMin records; this one those
// of the levels of at most indexMaxTiles tiles alone (the levels whose
// tiles it cuts: a finer tile spans less than the recording's
// 1/indexMaxTiles, cut from the lane when asked).
func (d *data) lanePieces(w *posWriter, ti int, t *model.Thread, win *model.IntervalWindow, ovs []*overviewAcc, fa *flameAcc,
	levels []*levelAcc, keptLevels []int, held *int) []byte {
	h := d.runOf(ti)
	split := hasSplit(h)
	origin, dur := d.m.Start, d.m.End-d.m.Start
	for _, a := range ovs {
		a.life(h)
	}
	wants := fa.wants(ti, h)
	used := false
	// The kept tiles, written after the lane's columns: their segments
	// and pieces as writeKept writes them, by level.
	type keptTile struct {
		k          int64
		b          []byte
		segs, runs int
	}
	kept := map[int][]keptTile{}
	keep := func(level int, k int64, segs []segment, runs []runPiece) {
		kept[level] = append(kept[level], keptTile{k, appendKeptTile(nil, segs, runs, origin), len(segs), len(runs)})
	}
	// The levels cut: those of the tiles kept whole, and those of kept
	// tiles of at most indexMaxTiles tiles.
	var cuts []*levelCut
	reread := func(a0, a1 format.Time, add func(iv *model.Interval, i int)) {
		err := d.m.EachIntervalIn(t, a0, a1, func(ivs []model.Interval, from int) bool {
			for i := range ivs {
				add(&ivs[i], from+i)
			}
			return true
		})
		if err != nil {
			panic(&model.SpillError{Err: err})
		}
	}
	start := func(lo format.Time) {
		byLevel := map[int]*levelAcc{}
		for _, la := range levels {
			byLevel[la.level] = la
		}
		for _, l := range keptLevels { // the index's levels among them
			la := byLevel[l]
			keeps := dur/((format.Time(1)<<l)*TileWidth)+1 <= indexMaxTiles
			if la == nil && !keeps {
				continue
			}
			cuts = append(cuts, newLevelCut(l, h, split, origin, dur, lo, func(k int64, segs []segment, runs []runPiece, n int) {
				if la != nil && len(segs)+len(runs) > 0 {
					ta := &la.tiles[k]
					ta.l.counts = append(ta.l.counts, uint32(len(segs)))
					ta.l.runCounts = append(ta.l.runCounts, uint32(len(runs)))
					ta.l.segs = append(ta.l.segs, segs...)
					ta.l.runs = append(ta.l.runs, runs...)
					ta.threads = append(ta.threads, int32(ti))
					*held += len(segs) + len(runs)
				}
				if keeps && n > laneKeepMin {
					keep(l, k, segs, runs)
				}
			}))
			if la == nil {
				// Kept tiles alone: those of more than laneKeepMin
				// records cut once done, from their intervals read
				// again.
				c := cuts[len(cuts)-1]
				c.keepMin, c.reread = laneKeepMin, reread
			}
		}
	}
	laneStart := w.n
	ivs := ivColumn{c: colWriter{w: w}, origin: origin}
	d.m.WindowOf(t, win)
	gi := 0
	var lastEnd format.Time
	started := false
	for p, ok := win.Next(); ok; p, ok = win.Next() {
		if len(p) == 0 {
			continue
		}
		if !started {
			start(min(h.Start, p[0].Start))
			started = true
		}
		for _, a := range ovs {
			a.intervals(p)
		}
		if wants {
			hp := *h
			hp.Intervals = p
			used = fa.addPiece(&hp) || used
		}
		ivs.add(p)
		for i := range p {
			for _, c := range cuts {
				c.add(&p[i], gi+i)
			}
		}
		gi += len(p)
		lastEnd = p[len(p)-1].End
	}
	if !started {
		start(h.Start)
	}
	for _, c := range cuts {
		c.end(max(h.End, lastEnd))
	}
	if used {
		fa.out.Threads++
	}
	return writeLaneRest(w, h, laneStart, &ivs, split, origin, func() (int64, int) {
		var tab []byte
		for _, l := range keptLevels {
			ks := kept[l]
			if len(ks) == 0 {
				break // a finer level's tiles hold fewer
			}
			for _, kt := range ks {
				tab = appendKeptEntry(tab, l, kt.k, w.n, kt.segs, kt.runs)
				w.Write(kt.b)
			}
		}
		off := w.n
		w.Write(tab)
		return off, len(tab) / keptBytes
	})
}

// IndexStats say what building an index made.
type IndexStats struct {
	Levels   []int // kept, coarsest first
	Segments int   // in all its tiles
	Runs     int
	Bytes    int64
	Lanes    int64 // bytes of the threads' lanes
	Kept     int   // the lanes' kept tiles (writeKept)
}

// indexBudget bounds the segments and pieces of runnable time an index
// keeps (and holds while it is built, ~32 bytes each): the coarsest levels
// first, down to the finest that fits, at most indexDepth levels below the
// one of a single tile.
const (
	indexDepth = 12
	indexAbove = 3
	// indexMaxTiles bounds the tiles of a level the index keeps whole: a
	// recording longer than the coarsest level's tile (MaxLevel, 13 days;
	// a clock that jumps puts one event years away) has levels of
	// millions of tiles below it, each thread's life walked tile by tile.
	// A shorter one's levels have at most 1<<indexDepth tiles.
	indexMaxTiles = 1 << (indexDepth + 2)
)

// indexBudget: a variable, that a test makes smaller.
var indexBudget = 1 << 20

// WriteIndex builds the index of the Server's model and writes it below
// root under key, then evicts the oldest indexes (evictIndexes). It reads
// each thread's intervals once.
func (s *Server) WriteIndex(root, key string) (IndexStats, error) {
	st := s.cur.Load()
	if st.d == nil {
		return IndexStats{}, errors.New("no model to index")
	}
	var stats IndexStats
	err := writeIndexFile(root, key, func(w *posWriter) (head []byte, err error) {
		stats, head, err = s.writeIndex(st.d, key, w)
		return head, err
	})
	if err == nil {
		evictIndexes(root, key, indexKeep, indexMaxBytes)
	}
	return stats, err
}

// writeIndex writes the index of d to w, all but its head's directory
// offset and length, which it returns.
func (s *Server) writeIndex(d *data, key string, w *posWriter) (IndexStats, []byte, error) {
	var stats IndexStats
	le := binary.LittleEndian
	w.Write([]byte(indexMagic))
	binary.Write(w, le, uint32(indexVersion))
	w.Write(make([]byte, 16)) // the directory's offset and length
	dir := indexDir{Key: key, Duration: d.rel(d.m.End), Threads: d.m.NumThreads(), Bodies: map[string][2]int64{}}
	// ask writes the answers of the handlers to the urls.
	ask := func(urls []string) error {
		for _, u := range urls {
			if u == indexFlame {
				continue // summed with the lanes
			}
			rec := &bodyRecorder{h: http.Header{}, w: w}
			req, err := http.NewRequest("GET", u, nil)
			if err != nil {
				return err
			}
			at := w.n
			s.ServeHTTP(rec, s.withToken(withLoopback(req)))
			if rec.code != 0 && rec.code != http.StatusOK {
				return fmt.Errorf("%s: %d %s", u, rec.code, rec.b.Bytes())
			}
			dir.Bodies[answerKey(req.URL.Path, req.URL.Query())] = [2]int64{at, w.n - at}
		}
		return nil
	}
	if err := ask(indexBodies[:1]); err != nil {
		return stats, nil, err
	}
	if err := ask(indexBodies[2:]); err != nil {
		return stats, nil, err
	}
	// The wait-for graphs it keeps, before the lanes: they read every
	// lock's owner changes open then, which the model keeps for the next
	// question (0.25 GB at c5G-slow5), let go before the tiles' segments
	// and pieces are gathered (0.2 GB more). The overviews after the
	// lanes, which sum them.
	var graphs, locks, later []string
	kept := d.keptLocks()
	for _, u := range d.indexAnswers(kept) {
		switch {
		case strings.HasPrefix(u, "/api/waitfor?"):
			graphs = append(graphs, u)
		case strings.HasPrefix(u, "/api/locks/"):
			locks = append(locks, u)
		default:
			later = append(later, u)
		}
	}
	if err := ask(graphs); err != nil {
		return stats, nil, err
	}
	d.locked(d.m.LetGoOwnerChanges)
	// The locks' details it keeps, their holders folded for them alone
	// (foldFor), not for every lock (holdersDoing).
	if len(locks) > 0 {
		d.made.Store(d.foldFor(kept))
		err := ask(locks)
		d.made.Store(nil)
		if err != nil {
			return stats, nil, err
		}
	}
	// The threads' rows, their places and table, and the lanes' layouts
	// after the graphs' owner changes are let go: the table (c5G-slow5:
	// 92 MB) and the names' collation keys were held beside them (0.26 GB).
	// /api/threads as jsonList writes it, each row's place kept (the
	// page asks the rows of the lanes on screen: layout.go).
	{
		st := &site{d: d, srv: s, opt: s.opt}
		at := w.n
		n := d.m.NumThreads()
		places := make([]byte, 8*(n+1))
		bw := bufio.NewWriterSize(w, 64<<10)
		bw.WriteByte('[')
		pos := int64(1)
		for i := range n {
			if i > 0 {
				bw.WriteByte(',')
				pos++
			}
			binary.LittleEndian.PutUint64(places[8*i:], uint64(pos))
			b, err := json.Marshal(st.threadJSON(i))
			if err != nil {
				return stats, nil, err
			}
			bw.Write(b)
			pos += int64(len(b))
		}
		binary.LittleEndian.PutUint64(places[8*n:], uint64(pos+1)) // past the ']'
		bw.WriteString("]\n")
		if err := bw.Flush(); err != nil {
			return stats, nil, err
		}
		dir.Bodies["/api/threads"] = [2]int64{at, w.n - at}
		at = w.n
		w.Write(places)
		dir.Bodies[indexRows] = [2]int64{at, w.n - at}
		at = w.n
		w.Write(st.threadTable().encode())
		dir.Bodies[indexTable] = [2]int64{at, w.n - at}
	}
	// The lanes' layouts, each binary (layout.go).
	for _, u := range indexLayouts() {
		req, err := http.NewRequest("GET", u, nil)
		if err != nil {
			return stats, nil, err
		}
		p, err := (&site{d: d, srv: s, opt: s.opt}).layoutParams(nil, req)
		if err != nil {
			return stats, nil, err
		}
		at := w.n
		w.Write(layout((&site{d: d}).threadTable(), p))
		dir.Bodies[answerKey(req.URL.Path, req.URL.Query())] = [2]int64{at, w.n - at}
	}
	// The overviews the page asks, summed as the lanes read each thread.
	var ovs []*overviewAcc
	for _, n := range overviewBuckets {
		ovs = append(ovs, d.newOverview(n))
	}
	// The flame graph it keeps, summed so too.
	fr, err := http.NewRequest("GET", indexFlame, nil)
	if err != nil {
		return stats, nil, err
	}
	fa, err := (&site{d: d, srv: s, opt: s.opt}).newFlame(fr)
	if err != nil {
		return stats, nil, err
	}

	// The levels: from the one of a single tile down, each thread's
	// lanes at once; past the budget, the finest level still gathered is
	// given up. Each thread's lane is written as it is read.
	top := 0
	for top < MaxLevel && dir.Duration/(int64(TileWidth)<<top) > 0 {
		top++
	}
	var levels []*levelAcc
	// A few levels coarser than a single tile's too: the page's first
	// screen asks the level whose pixels fit the whole in its width.
	for l := min(top+indexAbove, MaxLevel); l >= 0 && l > top-indexDepth; l-- {
		n := dir.Duration/(int64(TileWidth)<<l) + 1
		if n > indexMaxTiles && len(levels) > 0 {
			break // the finer levels' tiles cut from the lanes
		}
		levels = append(levels, &levelAcc{level: l, tiles: make([]tileAcc, n)})
	}
	held := 0
	// A lane's kept tiles (writeKept): from the coarsest level kept whole.
	var keptLevels []int
	for l := min(top+indexAbove, MaxLevel); l >= 0; l-- {
		keptLevels = append(keptLevels, l)
	}
	// The threads' lane records (laneRecBytes each, in thread order)
	// before their lanes: their room written first, each record put in
	// place a block at a time as the lanes are written, not held to the
	// end (c5G-slow5's 1.33 M threads: 0.15 GB).
	dir.Lanes = w.n
	zeros := make([]byte, 64<<10)
	for n := int64(d.m.NumThreads()) * laneRecBytes; n > 0; n -= int64(len(zeros)) {
		w.Write(zeros[:min(n, int64(len(zeros)))])
	}
	laneRecs := make([]byte, 0, laneRecBlock*laneRecBytes)
	recsAt := dir.Lanes
	putRecs := func() {
		w.writeAt(laneRecs, recsAt)
		recsAt += int64(len(laneRecs))
		laneRecs = laneRecs[:0]
	}
	dir.LaneData[0] = w.n
	var win model.IntervalWindow
	for ti, t := range d.m.AllThreads() {
		if d.m.ByPieces(t) {
			rec := d.lanePieces(w, ti, t, &win, ovs, fa, levels, keptLevels, &held)
			stats.Kept += int(le.Uint32(rec[24+16*laneCols+8:]))
			if laneRecs = append(laneRecs, rec...); len(laneRecs) == cap(laneRecs) {
				putRecs()
			}
			for held > indexBudget && len(levels) > 1 {
				levels = dropFinest(levels, &held)
			}
			continue
		}
		t = d.readThread(t)
		for _, a := range ovs {
			a.add(t, t.Intervals)
		}
		if fa.wants(ti, t) {
			fa.add(t)
		}
		rec := writeLane(w, t, hasSplit(t), d.m.Start, keptLevels, d.m.End-d.m.Start)
		stats.Kept += int(le.Uint32(rec[24+16*laneCols+8:]))
		if laneRecs = append(laneRecs, rec...); len(laneRecs) == cap(laneRecs) {
			putRecs()
		}
		lo, hi := t.Start, t.End
		if len(t.Intervals) > 0 {
			lo, hi = min(lo, t.Intervals[0].Start), max(hi, t.Intervals[len(t.Intervals)-1].End)
		}
		for _, la := range levels {
			rpx := format.Time(1) << la.level
			span := rpx * TileWidth
			k0, k1 := int64(max(lo-d.m.Start, 0)/span), int64((hi-d.m.Start)/span)
			for k := k0; k <= k1 && k < int64(len(la.tiles)); k++ {
				ta := &la.tiles[k]
				a0 := d.m.Start + format.Time(k)*span
				n, nr := len(ta.l.segs), len(ta.l.runs)
				ta.l.counts, ta.l.runCounts = append(ta.l.counts, 0), append(ta.l.runCounts, 0)
				ta.l.lane(len(ta.l.counts)-1, t, a0, a0+span, rpx, 0)
				if len(ta.l.segs) == n && len(ta.l.runs) == nr {
					ta.l.counts, ta.l.runCounts = ta.l.counts[:len(ta.l.counts)-1], ta.l.runCounts[:len(ta.l.runCounts)-1]
					continue
				}
				ta.threads = append(ta.threads, int32(ti))
				held += len(ta.l.segs) - n + len(ta.l.runs) - nr
			}
		}
		for held > indexBudget && len(levels) > 1 {
			levels = dropFinest(levels, &held)
		}
	}
	putRecs()
	dir.LaneData[1] = w.n
	laneRecs = nil
	for _, a := range ovs {
		a.done() // the handler's answer now
	}
	if err := ask(later); err != nil {
		return stats, nil, err
	}
	// As jsonHandler writes it.
	at := w.n
	if err := json.NewEncoder(w).Encode(fa.done()); err != nil {
		return stats, nil, err
	}
	dir.Bodies[answerKey(fr.URL.Path, fr.URL.Query())] = [2]int64{at, w.n - at}
	// Each tile straight to the file (a buffer of the tile grew to the
	// largest's bytes, 128 MB at c5G-slow5, held to the end).
	for _, la := range levels {
		il := indexLevel{Level: la.level}
		for i := range la.tiles {
			ta := &la.tiles[i]
			at := w.n
			var wb [8]byte
			put32 := func(v int) { le.PutUint32(wb[:4], uint32(v)); w.Write(wb[:4]) }
			put64 := func(v format.Time) { le.PutUint64(wb[:], uint64(v)); w.Write(wb[:]) }
			put32(len(ta.threads))
			for _, ti := range ta.threads {
				put32(int(ti))
			}
			for _, cs := range []([]uint32){ta.l.counts, ta.l.runCounts} {
				at := 0
				for _, c := range cs {
					put32(at)
					at += int(c)
				}
				put32(at)
			}
			for _, sg := range ta.l.segs {
				put64(sg.start - d.m.Start)
				put64(sg.end - d.m.Start)
				put32(int(sg.first))
				put32(int(sg.n))
				wb[0] = sg.state
				w.Write(wb[:1])
			}
			for _, r := range ta.l.runs {
				for _, v := range []format.Time{r.start - d.m.Start, r.end - d.m.Start, r.split.Running, r.split.Ready, r.split.Other, r.split.Virtual, r.split.Unsplit} {
					put64(v)
				}
			}
			stats.Segments += len(ta.l.segs)
			stats.Runs += len(ta.l.runs)
			il.Tiles = append(il.Tiles, [2]int64{at, w.n - at})
			*ta = tileAcc{} // written: let it go
		}
		dir.Levels = append(dir.Levels, il)
		stats.Levels = append(stats.Levels, la.level)
	}
	js, err := json.Marshal(dir)
	if err != nil {
		return stats, nil, err
	}
	off := w.n
	w.Write(js)
	head := make([]byte, 16)
	le.PutUint64(head, uint64(off))
	le.PutUint64(head[8:], uint64(len(js)))
	stats.Bytes = w.n
	stats.Lanes = dir.LaneData[1] - dir.LaneData[0]
	return stats, head, w.err
}

// writeIndexFile writes root/KEY/index with write: under a new name
// created exclusively, without following a symlink, mode 0600, then
// renamed in place of any index before. write returns the 16 bytes of the
// head after the magic and version (the directory's offset and length).
func writeIndexFile(root, key string, write func(w *posWriter) ([]byte, error)) error {
	dfd, err := openKeyDir(root, key)
	if err != nil {
		return err
	}
	defer unix.Close(dfd)
	var rnd [8]byte
	if _, err := unix.Getrandom(rnd[:], 0); err != nil {
		return err
	}
	tmp := "index.new-" + hex.EncodeToString(rnd[:])
	fd, err := unix.Openat(dfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return fmt.Errorf("the viewer's index: %w", err)
	}
	f := os.NewFile(uintptr(fd), tmp)
	w := &posWriter{w: bufio.NewWriterSize(f, 1<<20), f: f}
	head, err := write(w)
	if err == nil {
		err = w.w.Flush()
	}
	if err == nil {
		_, err = f.WriteAt(head, int64(len(indexMagic)+4))
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = unix.Renameat(dfd, tmp, dfd, "index")
	}
	if err != nil {
		unix.Unlinkat(dfd, tmp, 0)
		return fmt.Errorf("the viewer's index: %w", err)
	}
	return nil
}

// readThread is thread t with its intervals and samples read back (not
// kept in the cache of threadWith: the index reads every thread once).
func (d *data) readThread(t *model.Thread) *model.Thread {
	if !d.m.IntervalsDropped() {
		return t
	}
	return d.readBack(t)
}

// readBack is a copy of t with its intervals, samples, scheduler times and
// windows (RunIn reads them) read back from the spill; a spill that cannot
// be read panics with its *model.SpillError.
func (d *data) readBack(t *model.Thread) *model.Thread {
	h := d.runBack(t)
	var err error
	if h.Intervals, err = d.m.ReadIntervals(t, nil); err != nil {
		panic(&model.SpillError{Err: err})
	}
	return h
}

// runOf is thread ti with its samples, scheduler times and windows
// (RunIn reads them), not its intervals: of a model built with
// Options.DropIntervals, a copy with those read back from the spill
// (readBack's but the intervals); a spill that cannot be read panics with
// its *model.SpillError.
func (d *data) runOf(ti int) *model.Thread {
	t := d.m.ThreadAt(ti)
	if !d.m.IntervalsDropped() {
		return t
	}
	return d.runBack(t)
}

// runBack is a copy of t with its samples, scheduler times and windows
// read back from the spill (runOf's, and readBack's with its intervals).
func (d *data) runBack(t *model.Thread) *model.Thread {
	h := *t
	var smp []model.Sample
	h.Samples = d.m.SamplesOf(t, &smp)
	if err := d.m.ReadRun(t, &h); err != nil {
		panic(&model.SpillError{Err: err})
	}
	return &h
}

// bodyRecorder writes an answer to w as the handler writes it, not held
// (the index's build asks the handlers); an error's body (a status other
// than 200 set first) it keeps, for the message.
type bodyRecorder struct {
	h    http.Header
	code int
	w    io.Writer
	b    bytes.Buffer
}

func (r *bodyRecorder) Header() http.Header { return r.h }
func (r *bodyRecorder) Write(p []byte) (int, error) {
	if r.code != 0 && r.code != http.StatusOK {
		return r.b.Write(p)
	}
	return r.w.Write(p)
}
func (r *bodyRecorder) WriteHeader(code int) { r.code = code }

// withLoopback names this machine as the request's host (the Host check).
func withLoopback(r *http.Request) *http.Request {
	r.Host = "127.0.0.1"
	return r
}

// withToken gives r, a request of the server's own, the cookie of its token.
func (s *Server) withToken(r *http.Request) *http.Request {
	if s.opt.Token != "" {
		r.AddCookie(&http.Cookie{Name: s.tokenCookie(), Value: s.opt.Token})
	}
	return r
}

// closeFd closes a descriptor (tests).
func closeFd(fd int) { unix.Close(fd) }
