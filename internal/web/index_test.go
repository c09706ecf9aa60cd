package web

import (
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestIndexAnswers writes the index of recordings and serves them from it
// alone (NewFromIndex): the first screen's answers and every tile of the
// levels it keeps are those of the model, byte for byte, for all threads
// and some; what needs the model answers 503, still reading; once Ready,
// the model answers the rest and the tiles are still the same.
func TestIndexAnswers(t *testing.T) {
	prefixes := []string{
		synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix,
		testrec.Files(t, "../report/testdata/contention.txtar"),
		testrec.Files(t, "../report/testdata/deadlock.txtar"),
		testrec.Files(t, "../report/testdata/split.txtar"),
	}
	for _, prefix := range prefixes {
		rec, err := reader.Open(prefix)
		if err != nil {
			t.Fatal(err)
		}
		res, err := model.Build(rec, ModelOptions(rec))
		if err != nil {
			t.Fatal(err)
		}
		srv := New(rec, res, Options{})
		root := filepath.Join(t.TempDir(), "cache", "orca", "view")
		key := IndexKey("sig of "+prefix, "")
		st, err := srv.WriteIndex(root, key)
		if err != nil {
			t.Fatalf("%s: %v", prefix, err)
		}
		if len(st.Levels) == 0 || st.Segments == 0 {
			t.Fatalf("%s: an index of no tiles: %+v", prefix, st)
		}
		if _, err := OpenIndex(root, IndexKey("sig of another", "")); err != nil {
			t.Errorf("another recording's index: %v, want none and no error", err)
		}
		idx, err := OpenIndex(root, key)
		if err != nil || idx == nil {
			t.Fatalf("%s: opening the index: %v", prefix, err)
		}
		if idx.Size() != st.Bytes {
			t.Errorf("index of %d bytes, written %d", idx.Size(), st.Bytes)
		}
		mem := httptest.NewServer(srv)
		isrv := NewFromIndex(idx, Options{})
		isrv.SetProgress(0.42)
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
		same := func(phase string, list []string) {
			for _, u := range list {
				if a, b := getBody(t, mem.URL+u), getBody(t, fromIdx.URL+u); a != b {
					t.Errorf("%s, %s: %s from the index differs:\nmodel: %.300q\nindex: %.300q", prefix, phase, u, a, b)
				}
			}
		}
		same("before the model", append(urls, indexBodies...))
		finest := st.Levels[len(st.Levels)-1]
		for _, u := range []string{"/api/overview", "/api/summary?thread=main", "/api/threads/0", "/api/flame",
			fmt.Sprintf("/api/tiles?level=%d&tile=0&threads=0", finest-1), fmt.Sprintf("/api/tiles?level=%d&tile=0&threads=0&lock=0000000A", finest)} {
			if finest == 0 && strings.Contains(u, "level=-1") {
				continue
			}
			if got := getBody(t, fromIdx.URL+u); !strings.HasPrefix(got, `503 {"error":"still reading the recording: 42 %"}`) {
				t.Errorf("%s: %s from the index alone: %.200s, want 503, still reading", prefix, u, got)
			}
		}
		isrv.Ready(rec, res)
		same("once ready", append(urls, "/api/overview", "/api/threads/0", "/api/summary?thread=main",
			fmt.Sprintf("/api/tiles?level=%d&tile=0&threads=0-%d", max(finest-1, 0), n-1)))
		mem.Close()
		fromIdx.Close()
		idx.Close()
	}
}

// TestIndexPrivate: the index's directories are the user's own, made
// 0700; a directory of another mode or a symlink in their place, or a
// symlink as the index, is refused, not followed.
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
