package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"orca/internal/format"
	"orca/internal/reader"
)

// openRecording opens the recording arg names for command (report, view,
// dump, export), or says what arg is instead and what to run: a JFR file
// (orca import it), a directory (its recordings), a prefix with no
// recording (the recordings beside it).
func openRecording(command, arg string) (*reader.Recording, error) {
	if _, err := os.Stat(arg + format.SuffixEvents); err != nil && isJFR(arg) {
		p := strings.TrimSuffix(arg, ".jfr")
		if p == arg {
			p += "-orca"
		}
		if _, err := os.Stat(p + format.SuffixEvents); err == nil {
			return nil, exitError{2, fmt.Sprintf("%s: %s is a JFR recording, imported as %s: orca %s %s", command, arg, p, command, p)}
		}
		return nil, exitError{2, fmt.Sprintf("%s: %s is a JFR recording: import it first, then use the prefix:\n  orca import -o %s %s\n  orca %s %s",
			command, arg, p, arg, command, p)}
	}
	if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
		return nil, exitError{2, fmt.Sprintf("%s: %s is a directory: want a recording's PREFIX%s", command, arg, listRecordings(command, arg))}
	}
	if fi, err := os.Stat(arg); err == nil && fi.Mode().IsRegular() && reader.IsChunkPath(arg) {
		return reader.Open(arg) // one chunk file of a bounded recording, read alone
	}
	prefix := arg
	for _, s := range recordingExts {
		if p, ok := strings.CutSuffix(arg, s); ok {
			prefix = p
			break
		}
	}
	if _, err := os.Stat(prefix + format.SuffixEvents); os.IsNotExist(err) {
		return nil, exitError{2, fmt.Sprintf("%s: no recording %s: %s.orca does not exist%s", command, arg, prefix, listRecordings(command, filepath.Dir(prefix)))}
	}
	return reader.Open(arg)
}

// isJFR reports whether path is a JFR file: named .jfr, or beginning with a
// JFR chunk's magic.
func isJFR(path string) bool {
	if strings.HasSuffix(path, ".jfr") {
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return true
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	magic := make([]byte, 4)
	n, _ := f.Read(magic)
	return n == 4 && bytes.Equal(magic, []byte("FLR\x00"))
}

// listRecordings names the recordings in dir (their prefixes, by the
// .orca files), for an error message: "; recordings in DIR: …" with an
// example command, or "; DIR has no recordings".
func listRecordings(command, dir string) string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var prefixes []string
	for _, e := range ents {
		if p, ok := strings.CutSuffix(e.Name(), format.SuffixEvents); ok && !e.IsDir() {
			// Names another user may have chosen: termSafe, newlines too.
			prefixes = append(prefixes, termSafe(filepath.Join(dir, p)))
		}
	}
	if len(prefixes) == 0 {
		return fmt.Sprintf("; %s has no recordings (no .orca file)", termSafe(dir))
	}
	sort.Strings(prefixes)
	const most = 10
	list := strings.Join(prefixes[:min(most, len(prefixes))], "\n  ")
	if len(prefixes) > most {
		list += fmt.Sprintf("\n  ... %d more", len(prefixes)-most)
	}
	return fmt.Sprintf("; recordings in %s:\n  %s\nfor example: orca %s %s", termSafe(dir), list, command, prefixes[0])
}
