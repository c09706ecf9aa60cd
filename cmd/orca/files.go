package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
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

// removeRecordings deletes every recording file with prefix and returns
// their paths.
func removeRecordings(prefix string) ([]string, error) {
	recs, err := findRecordings(prefix)
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, r := range recs {
		for _, f := range r.files {
			if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return removed, err
			}
			removed = append(removed, f.path)
		}
	}
	return removed, nil
}

// empty reports whether the recording's event and name files are all empty
// (its .info aside): the agent wrote nothing but its header.
func (r recording) empty() bool {
	for _, f := range r.files {
		if strings.HasSuffix(f.path, format.SuffixInfo) || f.size == 0 {
			continue
		}
		// A compact .orca begins with its header line, events or not.
		if strings.HasSuffix(f.path, format.SuffixEvents) && f.size == int64(len(format.CompactHeader)) {
			if b, err := os.ReadFile(f.path); err == nil && string(b) == format.CompactHeader {
				continue
			}
		}
		return false
	}
	return true
}
