package web

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"orca/internal/format"
)

// TestConvertIndex rewrites an index of version 2 (before the lanes' kept
// tiles) as one of this version, $ORCA_CONVERT_INDEX=OLD:NEW: its answers
// and tiles kept whole copied, each thread's lane read whole and written
// again with its kept tiles (writeLane). A lane cut from the index is the
// model's (TestIndexAnswers), so NEW is what orca view writes of the same
// model: BenchmarkIndexTiles on both, without reading the recording again.
func TestConvertIndex(t *testing.T) {
	v := os.Getenv("ORCA_CONVERT_INDEX")
	if v == "" {
		t.Skip("ORCA_CONVERT_INDEX=OLD:NEW: nothing to convert")
	}
	oldPath, newPath, _ := strings.Cut(v, ":")
	f, err := os.Open(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	le := binary.LittleEndian
	head := make([]byte, len(indexMagic)+4+16)
	f.ReadAt(head, 0)
	if string(head[:len(indexMagic)]) != indexMagic || le.Uint32(head[len(indexMagic):]) != 2 {
		t.Fatal("not an index of version 2")
	}
	off, n := le.Uint64(head[len(indexMagic)+4:]), le.Uint64(head[len(indexMagic)+12:])
	js := make([]byte, n)
	f.ReadAt(js, int64(off))
	var dir indexDir
	if err := json.Unmarshal(js, &dir); err != nil {
		t.Fatal(err)
	}
	old := &Index{f: f, dir: dir}
	out, err := os.OpenFile(newPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	w := &posWriter{w: bufio.NewWriterSize(out, 1<<20), f: out}
	w.Write([]byte(indexMagic))
	binary.Write(w, le, uint32(indexVersion))
	w.Write(make([]byte, 16))
	nd := dir
	nd.Bodies = map[string][2]int64{}
	copyAt := func(at [2]int64) [2]int64 {
		b := make([]byte, at[1])
		if _, err := f.ReadAt(b, at[0]); err != nil {
			t.Fatal(err)
		}
		p := w.n
		w.Write(b)
		return [2]int64{p, at[1]}
	}
	for path, at := range dir.Bodies {
		nd.Bodies[path] = copyAt(at)
	}
	top := 0
	for top < MaxLevel && dir.Duration/(int64(TileWidth)<<top) > 0 {
		top++
	}
	var levels []int
	for l := min(top+indexAbove, MaxLevel); l >= 0; l-- {
		levels = append(levels, l)
	}
	t0 := time.Now()
	kept := 0
	var recs []byte
	// The lane records before the lanes (version 5 on): their room first.
	nd.Lanes = w.n
	w.Write(make([]byte, dir.Threads*laneRecBytes))
	nd.LaneData[0] = w.n
	for ti := range dir.Threads {
		rec := make([]byte, laneRecBytes)
		if _, err := f.ReadAt(rec[:88], dir.Lanes+int64(ti)*88); err != nil {
			t.Fatal(err)
		}
		th, base, split, err := old.lanePart(rec, &laneSrc{x: old}, math.MinInt64, math.MaxInt64)
		if err != nil || base != 0 {
			t.Fatalf("thread %d: %v (base %d)", ti, err, base)
		}
		r := writeLane(w, th, split, 0, levels, format.Time(dir.Duration))
		kept += int(le.Uint32(r[24+16*laneCols+8:]))
		recs = append(recs, r...)
	}
	nd.LaneData[1] = w.n
	w.writeAt(recs, nd.Lanes)
	t.Logf("lanes of %d threads written again in %.1f s, %d kept tiles, %d bytes (before %d)",
		dir.Threads, time.Since(t0).Seconds(), kept, nd.LaneData[1]-nd.LaneData[0], dir.LaneData[1]-dir.LaneData[0])
	for i, l := range dir.Levels {
		nd.Levels[i] = indexLevel{Level: l.Level}
		for _, at := range l.Tiles {
			nd.Levels[i].Tiles = append(nd.Levels[i].Tiles, copyAt(at))
		}
	}
	js, err = json.Marshal(nd)
	if err != nil {
		t.Fatal(err)
	}
	p := w.n
	w.Write(js)
	if err := w.w.Flush(); err != nil || w.err != nil {
		t.Fatal(err, w.err)
	}
	h := make([]byte, 16)
	le.PutUint64(h, uint64(p))
	le.PutUint64(h[8:], uint64(len(js)))
	if _, err := out.WriteAt(h, int64(len(indexMagic)+4)); err != nil {
		t.Fatal(err)
	}
}
