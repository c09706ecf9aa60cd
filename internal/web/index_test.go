package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"orca/internal/format"
	"orca/internal/model"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestIndexAnswers writes the index of recordings and serves them from it
// alone (NewFromIndex): the first screen's answers, every tile of the
// levels it keeps whole and tiles of every level finer, cut from its
// lanes, are those of the model, byte for byte, for all threads and some;
// what needs the model answers 503, still reading; once Ready, the model
// answers the rest and the tiles are still the same.
func TestIndexAnswers(t *testing.T) {
	small := synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix
	// Few threads, long: lanes of many blocks (laneBlock intervals each).
	long := synthetic(t, "long", synth.Options{Threads: 3, Monitors: 3, Semaphores: 1, Size: 1 << 20}).prefix
	type indexCase struct {
		prefix string
		// lean: only the coarsest level kept whole (indexBudget 1), a
		// lane's tiles kept whole above 50 intervals and samples
		// (laneKeepMin): the coarse levels' tiles of the long-lived
		// threads, of many segments, from their kept tiles, the other
		// threads' cut from their lanes, in one tile; the lane records
		// put in place 3 at a time (laneRecBlock).
		lean bool
		// pieces: a thread of more than 40 intervals read by pieces of
		// about 40 (model.SetIvPiece), its blocks of at most 16: its
		// lane, overviews, flame graph and tiles of the levels kept whole
		// cut as its intervals come (lanePieces, levelCut).
		pieces bool
	}
	cases := []indexCase{{small, false, false}, {long, false, false}, {small, true, false}, {long, true, false},
		{small, false, true}, {long, false, true}, {long, true, true}}
	for _, f := range []string{"contention", "deadlock", "split"} {
		cases = append(cases, indexCase{testrec.Files(t, "../report/testdata/"+f+".txtar"), false, false})
	}
	defer func(b, k, r, l int) { indexBudget, laneKeepMin, laneRecBlock, indexLocks = b, k, r, l }(indexBudget, laneKeepMin, laneRecBlock, indexLocks)
	budget, keep, recs, locks := indexBudget, laneKeepMin, laneRecBlock, indexLocks
	for _, c := range cases {
		prefix := c.prefix
		indexBudget, laneKeepMin, laneRecBlock, indexLocks = budget, keep, recs, locks
		if c.lean {
			// And the details of 3 locks kept: the others' are the model's.
			indexBudget, laneKeepMin, laneRecBlock, indexLocks = 1, 50, 3, 3
		}
		restore := func() {}
		if c.pieces {
			r1, r2 := model.SetIvPiece(40), model.SetIvBlockMax(16)
			restore = func() { r2(); r1() }
		}
		rec, res := viewerBuild(t, prefix)
		if c.pieces {
			n := 0
			for _, th := range res.Model.AllThreads() {
				if res.Model.ByPieces(th) {
					n++
				}
			}
			if n < 3 {
				t.Fatalf("%s: %d threads read by pieces: the case compares little", prefix, n)
			}
		}
		srv := New(rec, res, Options{})
		root := filepath.Join(t.TempDir(), "cache", "orca", "view")
		key := IndexKey(fmt.Sprint("sig of ", prefix, c.lean, c.pieces), "")
		st, err := srv.WriteIndex(root, key)
		if err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		if len(st.Levels) == 0 || st.Segments == 0 {
			t.Fatalf("%s: an index of no tiles: %+v", prefix, st)
		}
		if c.lean && (len(st.Levels) != 1 || st.Kept < 10) {
			t.Fatalf("%s: %+v, want one level kept whole and kept tiles of the lanes", prefix, st)
		}
		if _, err := OpenIndex(root, IndexKey("sig of another", "")); err != nil {
			t.Errorf("another recording's index: %v, want none and no error", err)
		}
		file := filepath.Join(root, key[:32], "index")
		old := time.Now().Add(-time.Hour)
		os.Chtimes(file, old, old)
		idx, err := OpenIndex(root, key)
		if err != nil || idx == nil {
			t.Fatalf("%s: opening the index: %v", prefix, err)
		}
		if fi, err := os.Stat(file); err != nil || fi.ModTime().Before(old.Add(time.Minute)) {
			t.Errorf("%s: opened, the index is not marked used now (%v): evicted first", prefix, err)
		}
		if idx.Size() != st.Bytes {
			t.Errorf("index of %d bytes, written %d", idx.Size(), st.Bytes)
		}
		mem := httptest.NewServer(srv)
		isrv := NewFromIndex(idx, Options{})
		isrv.SetProgress(0.42)
		var builds atomic.Int32
		isrv.BuildOnDemand(func() { builds.Add(1) })
		sd := srv.cur.Load().d
		if sd.holders != nil {
			t.Errorf("%s: the index's build folded every lock's holders, not the kept details' alone", prefix)
		}
		kept := sd.keptLocks()
		answers := sd.indexAnswers(kept)
		if want := len(overviewBuckets) + 2; len(answers) < want {
			t.Errorf("%s: the index keeps %d answers with parameters (%q), want %d or more", prefix, len(answers), answers, want)
		}
		// The locks' details kept: the first of the Locks view, a
		// contended monitor among them; past them, another's is not.
		var notKept []string
		{
			var all []*model.Lock
			for _, l := range sd.all.Locks {
				if sd.all.GroupOf(l) == nil {
					all = append(all, l)
				}
			}
			if len(kept) != min(len(all), indexLocks) {
				t.Errorf("%s: %d locks' details kept of %d, want the first %d", prefix, len(kept), len(all), indexLocks)
			}
			if len(all) > 0 && (!kept[0].Contended() || kept[0].Kind != model.Monitor && kept[0].Kind != model.JUCLock) {
				t.Errorf("%s: the first lock's detail kept is %s %s's: want a contended lock's first", prefix, kept[0].Kind, kept[0].Object)
			}
			for _, l := range all {
				if !slices.Contains(kept, l) {
					if l.Blocked > kept[len(kept)-1].Blocked {
						t.Errorf("%s: lock %s (blocked %d) not kept, %s (%d) kept", prefix, l.Object, l.Blocked, kept[len(kept)-1].Object, kept[len(kept)-1].Blocked)
					}
					if len(notKept) == 0 && l.Contended() {
						notKept = append(notKept, lockURL(l))
					}
				}
			}
			if c.lean && len(notKept) == 0 {
				t.Errorf("%s: every lock's detail kept: the case compares no other", prefix)
			}
		}
		fromIdx := httptest.NewServer(isrv)
		m := res.Model
		n := len(m.Threads)
		var urls []string
		for _, l := range st.Levels {
			span := int64(TileWidth) << l
			for k := int64(0); k <= min(int64(m.End-m.Start)/span, 15); k++ {
				urls = append(urls, fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=0-%d", l, k, n-1),
					fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=%d,0", l, k, n-1))
			}
		}
		// The levels finer than those kept whole, to 0: a few tiles of
		// each, the first ones, some in the middle and the last.
		for l := st.Levels[len(st.Levels)-1] - 1; l >= 0; l-- {
			last := int64(m.End-m.Start) / (int64(TileWidth) << l)
			ks := map[int64]bool{0: true, 1: true, last / 3: true, last / 2: true, last - 1: true, last: true}
			for k := range ks {
				if k < 0 || k > last {
					continue
				}
				urls = append(urls, fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=0-%d", l, k, n-1),
					fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=%d,%d,0", l, k, n-1, n/2))
			}
		}
		if len(urls) < 100 {
			t.Errorf("%s: only %d tiles compared", prefix, len(urls))
		}
		same := func(phase string, list []string) {
			for _, u := range list {
				a, b := getBody(t, mem.URL+u), getBody(t, fromIdx.URL+u)
				if a != b {
					t.Errorf("%s, %s: %s from the index differs:\nmodel: %.300q\nindex: %.300q", prefix, phase, u, a, b)
				}
			}
		}
		// What the page asks unasked, as it asks it (URLSearchParams
		// escapes the comma).
		asked := append(append(append([]string{}, urls...), indexBodies...), answers...)
		asked = append(asked, "/api/flame?states=blocked,waiting")
		same("before the model", asked)
		indexTileKept = 0 // every tile read in parts
		same("tiles read in parts", urls)
		indexTileKept = indexTileCache / 4
		if b := builds.Load(); b != 0 {
			t.Errorf("%s: the index's answers started the model's build (%d)", prefix, b)
		}
		finest := st.Levels[len(st.Levels)-1]
		for _, u := range append([]string{"/api/overview", "/api/overview?buckets=37", "/api/summary?thread=main", "/api/threads/0", "/api/flame",
			"/api/flame?states=blocked", "/api/waitfor?t=1", "/api/edges",
			fmt.Sprintf("/api/tiles?level=%d&tile=0&threads=0&lock=0000000A", finest)}, notKept...) {
			if got := getBody(t, fromIdx.URL+u); !strings.HasPrefix(got, `503 {"error":"still reading the recording: 42 %"}`) {
				t.Errorf("%s: %s from the index alone: %.200s, want 503, still reading", prefix, u, got)
			}
		}
		for i := 0; builds.Load() == 0 && i < 500; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		if b := builds.Load(); b != 1 {
			t.Errorf("%s: a detail asked: the model's build started %d times, want once", prefix, b)
		}
		isrv.Ready(rec, res)
		same("once ready", append(append(asked, "/api/overview", "/api/threads/0", "/api/summary?thread=main",
			fmt.Sprintf("/api/tiles?level=%d&tile=0&threads=0-%d", max(finest-1, 0), n-1)), notKept...))
		mem.Close()
		fromIdx.Close()
		idx.Close()
		restore()
	}
}

// TestIndexBuildFails: a reopen whose model cannot be read (Failed)
// answers a detail with the error, not "still reading" for ever, and
// still serves what the index keeps.
func TestIndexBuildFails(t *testing.T) {
	prefix := testrec.Files(t, "../report/testdata/deadlock.txtar")
	rec, res := testrec.OpenWith(t, prefix, model.Options{})
	root := filepath.Join(t.TempDir(), "orca", "view")
	key := IndexKey("deadlock", "")
	if _, err := New(rec, res, Options{}).WriteIndex(root, key); err != nil {
		t.Fatal(err)
	}
	srv, _ := reopenedServer(t, root, key)
	failed := make(chan bool)
	srv.BuildOnDemand(func() {
		srv.Failed(fmt.Errorf("the recording is gone"))
		close(failed)
	})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	if got := getBody(t, ts.URL+"/api/threads/0"); !strings.HasPrefix(got, "503 ") {
		t.Errorf("a detail before the build: %.200s, want 503", got)
	}
	<-failed
	if got, want := getBody(t, ts.URL+"/api/threads/0"), `500 {"error":"reading the recording: the recording is gone"}`; !strings.HasPrefix(got, want) {
		t.Errorf("a detail once the build failed: %.200s, want %s", got, want)
	}
	if got := getBody(t, ts.URL+"/api/deadlocks"); !strings.HasPrefix(got, "200 ") {
		t.Errorf("the index's answer once the build failed: %.200s", got)
	}
}

// TestIndexPrivate: the index's directories are the user's own, made
// 0700; view/ or a key's directory of another mode, orca/ writable by
// others, a symlink in their place, or a symlink as the index, is refused,
// not followed.
func TestIndexPrivate(t *testing.T) {
	key := IndexKey("sig", "")
	cache := t.TempDir()
	root := filepath.Join(cache, "orca", "view")
	fd, err := openKeyDir(root, key)
	if err != nil {
		t.Fatal(err)
	}
	closeFd(fd)
	for _, d := range []string{filepath.Join(cache, "orca"), root, filepath.Join(root, key[:32])} {
		fi, err := os.Lstat(d)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Errorf("%s: %v %v, want a directory of mode 0700", d, fi.Mode(), err)
		}
	}
	// A symlink as the index: not followed.
	target := filepath.Join(cache, "elsewhere")
	os.WriteFile(target, []byte(indexMagic), 0o600)
	os.Symlink(target, filepath.Join(root, key[:32], "index"))
	if idx, err := OpenIndex(root, key); err == nil || idx != nil {
		t.Errorf("an index that is a symlink: opened (%v)", err)
	}
	// A directory open to others.
	os.Chmod(root, 0o755)
	if _, err := OpenIndex(root, key); err == nil || !strings.Contains(err.Error(), "not a private directory") {
		t.Errorf("a view directory of mode 0755: %v, want refused", err)
	}
	os.Chmod(root, 0o700)
	// orca/ above it is the agent library's cache too, often 0755: used; writable by others: refused.
	os.Chmod(filepath.Dir(root), 0o755)
	if fd, err := openKeyDir(root, key); err != nil {
		t.Errorf("an orca directory of mode 0755: %v, want used", err)
	} else {
		closeFd(fd)
	}
	os.Chmod(filepath.Dir(root), 0o775)
	if _, err := OpenIndex(root, key); err == nil || !strings.Contains(err.Error(), "not a directory only this user can change") {
		t.Errorf("an orca directory of mode 0775: %v, want refused", err)
	}
	os.Chmod(filepath.Dir(root), 0o700)
	// A symlink in place of a directory.
	other := t.TempDir()
	os.RemoveAll(root)
	os.Symlink(other, root)
	if _, err := OpenIndex(root, key); err == nil {
		t.Errorf("a view directory that is a symlink: followed")
	}
	if _, err := os.Stat(filepath.Join(other, key[:32])); err == nil {
		t.Errorf("made a directory through a symlink")
	}
	// The cache directory itself reached through a symlink (a $HOME or $XDG_CACHE_HOME of
	// another user's under sudo -E): nothing made below it.
	link := filepath.Join(t.TempDir(), "cache")
	elsewhere := t.TempDir()
	os.Symlink(elsewhere, link)
	if _, err := openKeyDir(filepath.Join(link, "orca", "view"), key); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("a cache directory that is a symlink: %v, want refused", err)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "orca")); err == nil {
		t.Errorf("made orca/ through a symlinked cache directory")
	}
}

// TestIndexEvict: after an index is written, the most recently used ones
// are kept, at most N and X bytes in all, the one written always; the
// others are removed, but one being written (a recent index.new-…), a
// directory open to others or a symlink in the view directory are left
// alone, and nothing is followed out of it.
func TestIndexEvict(t *testing.T) {
	root := filepath.Join(t.TempDir(), "cache", "orca", "view")
	keys := make([]string, 6)
	base := time.Now().Add(-48 * time.Hour)
	for i := range keys {
		keys[i] = IndexKey(fmt.Sprint("sig ", i), "")
		fd, err := openKeyDir(root, keys[i])
		if err != nil {
			t.Fatal(err)
		}
		closeFd(fd)
		p := filepath.Join(root, keys[i][:32], "index")
		if err := os.WriteFile(p, make([]byte, 1000*(i+1)), 0o600); err != nil {
			t.Fatal(err)
		}
		// keys[i] used i hours after base: keys[5] the newest.
		at := base.Add(time.Duration(i) * time.Hour)
		os.Chtimes(p, at, at)
	}
	// keys[0], the oldest, is being written by another orca view.
	busy := filepath.Join(root, keys[0][:32], "index.new-0123")
	os.WriteFile(busy, nil, 0o600)
	// A symlink to elsewhere in the view directory, named as a KEY.
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "index"), []byte("x"), 0o600)
	os.Symlink(elsewhere, filepath.Join(root, strings.Repeat("e", 32)))
	// A directory open to others.
	open := filepath.Join(root, strings.Repeat("f", 32))
	os.Mkdir(open, 0o755)
	os.WriteFile(filepath.Join(open, "index"), nil, 0o600)

	exists := func(k string) bool { _, err := os.Lstat(filepath.Join(root, k[:32])); return err == nil }
	// Written keys[1]: kept with the 2 most recent others (keys[5], keys[4]).
	gone := evictIndexes(root, keys[1], 3, 1<<30)
	sort.Strings(gone)
	want := []string{keys[2][:32], keys[3][:32]}
	sort.Strings(want)
	if fmt.Sprint(gone) != fmt.Sprint(want) {
		t.Errorf("evicted %v, want %v", gone, want)
	}
	for i, keep := range []bool{true, true, false, false, true, true} {
		if exists(keys[i]) != keep {
			t.Errorf("index %d: exists %v, want %v", i, !keep, keep)
		}
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "index")); err != nil || !exists(strings.Repeat("e", 32)) {
		t.Errorf("a symlink in the view directory: followed or removed (%v)", err)
	}
	if _, err := os.Stat(filepath.Join(open, "index")); err != nil {
		t.Errorf("a directory open to others: emptied (%v)", err)
	}
	// By size: keys[1] (2000 bytes) and at most 8000 in all: keys[5]
	// (6000) fits, keys[4] does not, and nothing older is kept.
	os.Remove(busy)
	gone = evictIndexes(root, keys[1], 8, 8000)
	sort.Strings(gone)
	want = []string{keys[0][:32], keys[4][:32]}
	sort.Strings(want)
	if fmt.Sprint(gone) != fmt.Sprint(want) {
		t.Errorf("by size: evicted %v, want %v", gone, want)
	}
	if !exists(keys[5]) || !exists(keys[1]) {
		t.Errorf("by size: kept the wrong ones")
	}
}

// TestThreadsStreamed: /api/threads, written a thread at a time
// (jsonList), is the list json.Encoder writes whole, byte for byte, and so
// is the index's copy of it, written as it goes; a recording's thread
// names with what JSON escapes (<, &, a quote) included.
func TestThreadsStreamed(t *testing.T) {
	renamed := 0
	for _, f := range []string{"contention", "deadlock", "split"} {
		prefix := testrec.Files(t, "../report/testdata/"+f+".txtar")
		rec, res := viewerBuild(t, prefix)
		// The first Thread not packed (a packed one is read as a copy of
		// its own: a name changed in it is lost).
		for _, th := range res.Model.Threads {
			if th != nil {
				th.Name = `<main> & "the other"`
				renamed++
				break
			}
		}
		srv := New(rec, res, Options{})
		st := srv.cur.Load()
		whole := make([]threadJSON, len(res.Model.Threads))
		for i := range whole {
			whole[i] = st.threadJSON(i)
		}
		var want bytes.Buffer
		json.NewEncoder(&want).Encode(whole)
		hs := httptest.NewServer(srv)
		if got := getBody(t, hs.URL+"/api/threads"); got != "200 "+want.String() {
			t.Errorf("%s: /api/threads streamed:\n%.300q\nwant\n%.300q", f, got, want.String())
		}
		hs.Close()
		root := filepath.Join(t.TempDir(), "cache", "orca", "view")
		key := IndexKey("sig of "+prefix, "")
		if _, err := srv.WriteIndex(root, key); err != nil {
			t.Fatal(err)
		}
		idx, err := OpenIndex(root, key)
		if err != nil || idx == nil {
			t.Fatalf("%s: opening the index: %v", f, err)
		}
		if got := string(idx.body("/api/threads")); got != want.String() {
			t.Errorf("%s: the index's /api/threads:\n%.300q\nwant\n%.300q", f, got, want.String())
		}
		idx.Close()
	}
	if renamed == 0 {
		t.Error("no thread renamed: no name with what JSON escapes")
	}
	var empty bytes.Buffer
	(jsonList{0, nil}).writeJSON(&empty)
	if empty.String() != "[]\n" {
		t.Errorf("no threads: %q, want []", empty.String())
	}
}

// reopenedServer opens the index key under root and serves from it, as a
// reopened orca view does; the index is closed when the test ends.
func reopenedServer(t *testing.T, root, key string) (*Server, *Index) {
	t.Helper()
	idx, err := OpenIndex(root, key)
	if err != nil || idx == nil {
		t.Fatalf("opening the index: %v", err)
	}
	t.Cleanup(func() { idx.Close() })
	return NewFromIndex(idx, Options{}), idx
}

// TestIndexQuietDay: a thread alive a day whose intervals are a burst of
// a millisecond has its burst's tiles kept down to ~100 µs, ~10⁹ tiles of
// its life at that level; the index finds the tiles with something in
// them from one to the next (writeKept), not by walking every tile of the
// life (which took hours), and its tiles of the burst at every level are
// the model's. Also a recording that ends a century after its start:
// the levels below the coarsest tile's (13 days) are cut from the lanes,
// not kept whole (indexMaxTiles: millions of tiles a level).
func TestIndexQuietDay(t *testing.T) {
	defer func(k int) { laneKeepMin = k }(laneKeepMin)
	laneKeepMin = 50
	for _, end := range []string{"86400", "3155760000"} {
		var b strings.Builder
		b.WriteString("0.0,ThreadStarted,00000001,holder\n0.0,ThreadStarted,00000002,quiet\n")
		burst := 43200.0
		for i := range 200 {
			at := burst + float64(i)*5e-6
			fmt.Fprintf(&b, "%.9f,MonitorContendedEnter,00000002,0000AAAA,00000001,0\n", at)
			fmt.Fprintf(&b, "%.9f,MonitorContendedEntered,00000002,0000AAAA,0\n", at+2e-6)
		}
		fmt.Fprintf(&b, "%s,ThreadEnded,00000002\n%s,ThreadEnded,00000001\n", end, end)
		prefix := filepath.Join(t.TempDir(), "quiet")
		if err := os.WriteFile(prefix+".orca", []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		rec, res := viewerBuild(t, prefix)
		srv := New(rec, res, Options{})
		root := filepath.Join(t.TempDir(), "cache", "orca", "view")
		key := IndexKey("sig", "")
		st, err := srv.WriteIndex(root, key)
		if err != nil {
			t.Fatal(err)
		}
		if end == "86400" && st.Kept < 10 {
			t.Errorf("end %s: %d kept tiles, want the burst's at ten levels or more", end, st.Kept)
		}
		if end != "86400" && st.Levels[len(st.Levels)-1] < MaxLevel-3 {
			t.Errorf("end %s: levels %v kept whole, want only those of at most %d tiles", end, st.Levels, indexMaxTiles)
		}
		idx, err := OpenIndex(root, key)
		if err != nil || idx == nil {
			t.Fatalf("opening the index: %v", err)
		}
		isrv := NewFromIndex(idx, Options{})
		isrv.BuildOnDemand(func() {})
		m := res.Model
		var urls []string
		for l := 0; l <= MaxLevel; l++ {
			k := int64(format.Time(burst*1e9)-m.Start) / (int64(TileWidth) << l)
			urls = append(urls, fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=0-1", l, k), fmt.Sprintf("/api/tiles?level=%d&tile=%d&threads=1", l, k+1))
		}
		mem, fromIdx := httptest.NewServer(srv), httptest.NewServer(isrv)
		for _, u := range urls {
			if a, b := getBody(t, mem.URL+u), getBody(t, fromIdx.URL+u); a != b {
				t.Errorf("end %s: %s from the index differs:\nmodel: %.300q\nindex: %.300q", end, u, a, b)
			}
		}
		mem.Close()
		fromIdx.Close()
		idx.Close()
	}
}
