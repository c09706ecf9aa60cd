package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"orca/internal/format"
	"orca/internal/reader"
)

// exportSeed writes the recording at prefix as OUT.orca in the seed's text
// encoding (docs/format.md), with its .methods, .classtable, .info and
// .ext beside it. A text recording is copied byte for byte; a compact one
// is converted event for event, and its .info loses the key encoding.
// Either way the lines of kinds the seed has not (notSeed: samples and
// scheduler times) are left out, and counted on stderr.
func exportSeed(u ui, prefix, out string) error {
	if out == "" || out == "-" {
		return usagef("export: --format seed writes several files: -o OUT names their prefix")
	}
	for _, s := range recordingExts {
		if p, ok := strings.CutSuffix(out, s); ok {
			out = p
			break
		}
	}
	if same(prefix, out) {
		return usagef("export: -o %s is the recording itself", out)
	}
	compact, err := isCompactFile(prefix + format.SuffixEvents)
	if err != nil {
		return fmt.Errorf("exporting %s: %w", prefix, err)
	}
	var events, read int64          // read: the file's events, not a chunk's restated facts
	var left [format.NumKinds]int64 // lines left out, by kind
	var malformed int
	var truncated string // why the last record is cut short, "" when it is not
	err = writeAtomically(out+format.SuffixEvents, func(f *os.File) error {
		if !compact {
			return copySeedLines(f, prefix+format.SuffixEvents, &left)
		}
		// Through the Recording: a bounded one's events are in its chunk files.
		rec, err := reader.Open(prefix)
		if err != nil {
			return err
		}
		evs, closer, err := rec.Events()
		if err != nil {
			return err
		}
		defer closer.Close()
		bw := bufio.NewWriterSize(f, 256<<10)
		w := format.NewWriter(format.Files{Prefix: out, Events: bw})
		for {
			ev, err := evs.Next()
			if err == io.EOF {
				break
			}
			var pe *reader.ParseError
			if errors.As(err, &pe) {
				malformed++
				fmt.Fprintf(u.stderr, "orca: warning: %s: skipped\n", termSafe(pe.Error()))
				continue
			}
			if err != nil {
				return err
			}
			if !ev.Carried {
				read++
			}
			if notSeed(ev.Kind) {
				left[ev.Kind]++
				continue
			}
			fe := format.Event{Time: ev.Time, Kind: ev.Kind, Thread: ev.Thread, Object: ev.Object, Target: ev.Target,
				Owner: ev.Owner, Name: ev.Name, Stack: ev.Stack, Timeout: ev.Timeout, How: ev.How, Class: ev.Class, Mode: ev.Mode,
				Sampled: ev.Sampled, Weight: ev.Weight, CPU: ev.CPU, Ready: ev.Ready, Depth: ev.Depth, Lock: ev.Lock()}
			if err := w.Event(&fe); err != nil {
				return err
			}
			events++
		}
		if err := rec.CheckRead(read, malformed); err != nil {
			return err
		}
		if evs.Truncated() {
			truncated = rec.TruncatedWhy()
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("exporting %s: %w", prefix, err)
	}
	copied := []string{out + format.SuffixEvents}
	for _, s := range []string{format.SuffixMethods, format.SuffixClasses, format.SuffixInfo, format.SuffixExt} {
		if _, err := os.Stat(prefix + s); errors.Is(err, os.ErrNotExist) {
			os.Remove(out + s) // not a file of the recording: none of an older export either
			continue
		}
		err := writeAtomically(out+s, func(f *os.File) error {
			if s == format.SuffixInfo {
				return copyInfo(f, prefix+s, compact)
			}
			return copyFile(f, prefix+s)
		})
		if err != nil {
			return fmt.Errorf("exporting %s: %w", prefix, err)
		}
		copied = append(copied, out+s)
	}
	how := "copied (already the seed's encoding)"
	if compact {
		how = fmt.Sprintf("%d events converted from the compact encoding", events)
	}
	fmt.Fprintf(u.stdout, "wrote %s: %s\n", strings.Join(copied, ", "), how)
	if malformed > 0 {
		fmt.Fprintf(u.stderr, "orca: warning: %d malformed records of %s.orca were skipped\n", malformed, termSafe(prefix))
	}
	var leftOut []string
	for k, n := range left {
		if n > 0 {
			leftOut = append(leftOut, fmt.Sprintf("%d %s", n, format.Kind(k)))
		}
	}
	if len(leftOut) > 0 {
		fmt.Fprintf(u.stderr, "orca: %s lines left out: the seed's format has no kind for them (docs/export.md)\n", strings.Join(leftOut, " and "))
	}
	if truncated != "" {
		fmt.Fprintf(u.stderr, "orca: warning: the last record of %s.orca is cut short (%s) and was skipped\n", termSafe(prefix), termSafe(truncated))
	}
	return nil
}

// notSeed reports whether lines of kind k are left out of a seed export:
// Orca's samples and scheduler times (issue 33), which the seed's format
// has no kind for. Other kinds Orca added (parks, class initialisation,
// timeouts) the seed's readers skip as unknown; these would be most of
// the file.
func notSeed(k format.Kind) bool { return slices.Contains(notSeedKinds, k) }

var notSeedKinds = []format.Kind{format.Sample, format.ThreadCPU}

// copySeedLines copies the text .orca at path to w line for line, but for
// the lines of kinds notSeed, which it counts in left: the rest is the
// file's bytes.
func copySeedLines(w io.Writer, path string, left *[format.NumKinds]int64) error {
	in, err := reader.OpenFile(path)
	if err != nil {
		return err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in, 256<<10)
	bw := bufio.NewWriterSize(w, 256<<10)
	for {
		// The kind is the line's second field, in its first slice (a
		// line longer than the buffer, a deep stack, comes in several).
		line, err := br.ReadSlice('\n')
		kind := format.KindNone
		if _, rest, ok := bytes.Cut(line, []byte{','}); ok {
			name, _, _ := bytes.Cut(rest, []byte{','})
			for _, k := range notSeedKinds {
				if string(name) == k.String() {
					kind = k
					left[k]++
				}
			}
		}
		for {
			if kind == format.KindNone {
				bw.Write(line)
			}
			if err != bufio.ErrBufferFull {
				break
			}
			line, err = br.ReadSlice('\n')
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return bw.Flush()
}

// isCompactFile reports whether the .orca at path is in the compact encoding.
func isCompactFile(path string) (bool, error) {
	f, err := reader.OpenFile(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	head := make([]byte, len(format.CompactHeader))
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return false, err
	}
	return bytes.HasPrefix(head[:n], []byte("orca-compact")), nil
}

// copyFile copies the file at path to w.
func copyFile(w io.Writer, path string) error {
	in, err := reader.OpenFile(path)
	if err != nil {
		return err
	}
	defer in.Close()
	_, err = io.Copy(w, in)
	return err
}

// copyInfo copies the .info at path to w with the counts of the kinds left
// out 0 (events.Sample, events.ThreadCPU: a reader compares the lines it
// reads with the counts) and, from a compact recording, without its
// encoding line.
func copyInfo(w io.Writer, path string, compact bool) error {
	f, err := reader.OpenFile(path)
	if err != nil {
		return err
	}
	b, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		return err
	}
	var out []byte
	for line := range bytes.Lines(b) {
		if compact && bytes.HasPrefix(line, []byte(format.InfoEncoding+"=")) {
			continue
		}
		if k, _, ok := bytes.Cut(line, []byte("=")); ok && bytes.HasPrefix(k, []byte(format.InfoEvents)) {
			if kind, known := format.KindByName[string(k[len(format.InfoEvents):])]; known && notSeed(kind) {
				out = append(append(out, k...), "=0\n"...)
				continue
			}
		}
		out = append(out, line...)
	}
	_, err = w.Write(out)
	return err
}

// same reports whether two prefixes name the same files.
func same(a, b string) bool {
	fa, err1 := os.Stat(a + format.SuffixEvents)
	fb, err2 := os.Stat(b + format.SuffixEvents)
	if err1 == nil && err2 == nil {
		return os.SameFile(fa, fb)
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
