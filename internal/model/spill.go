package model

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"iter"
	"math"
	"os"
	"slices"
	"unsafe"

	"golang.org/x/sys/unix"

	"orca/internal/format"
	"orca/internal/hostfs"
)

// The spill (issue 34, docs/streaming.md): the threads' intervals are
// written, as the fold seals them, to a temporary file of the model's own,
// and their samples at Finalize; what the holders of a lock did
// (View.HoldersDoing) reads each holder's back from it, and with
// Options.DropIntervals every reader does (Model.IntervalsOf): the Model
// then keeps none once the fold is done.
//
// The file is private: created with O_TMPFILE (never named), or, where the
// file system has none, exclusively and without following a symlink inside
// a directory of mode 0700 made for it, and unlinked at once with its
// directory; after that it is only a descriptor, and nothing another user
// controls is resolved again. It is read by the process that wrote it, so
// samples and the rest are written as they are in memory: no encoding to
// get wrong, and a copy each way (TestSpillPlain checks that no such type
// holds a pointer). The intervals alone are packed (ivcodec.go): they were
// most of its bytes, 72 each, and pack into ~19.

// spillBufSize is the write buffer: the fold seals a few intervals of a
// thread at a time, and a write per seal would be a system call per few
// hundred bytes.
const spillBufSize = 1 << 20

// spillFile is the model's spill: written while building (add, behind a
// buffer), read only after Finalize (flush), then by any number of
// goroutines (ReadAt).
type spillFile struct {
	f   *os.File
	buf []byte
	off int64 // bytes written, the buffer's included
	err error // the first write's error: the spill is then given up
	// tailTaken counts the lists' last blocks found through a spillTail
	// (addTail), for the tests.
	tailTaken int
	// kept: put's buffers whose write failed, read from memory.
	kept []scratchChunk
	// alloc: the bytes of the file allocated ahead (spillAllocStep), -1
	// when the file system has no fallocate.
	alloc int64
}

// spillAllocStep is how far ahead of its writes the spill's file is
// allocated (fallocate, its size kept): a write into blocks allocated
// costs ~25 % less of the system's CPU than one that allocates them (a
// GiB written in writes of 1 MB into a file in /tmp: 0.27 -> 0.19 CPU-s,
// docs/perf/2026-12-02-spill-io.md).
const spillAllocStep = 64 << 20

// spillBlock is a run of bytes of the file: a thread's intervals, or
// samples, written at once or one after the other.
type spillBlock struct {
	off, len int64
}

// spillRef is where a thread's records of each kind (spillKind) are in
// the spill: their blocks in one list, in the order written. One list, not
// one a kind, and packed: a Thread is kept for each thread the recording
// had (1.3 M in an hour of a busy server), five empty lists were 120 bytes
// of each, and a block of 16 bytes (offset, length) 120 bytes of each
// there. A block is two uvarints: its length shifted left by 3 with its
// kind in the low bits, then its offset less the end of the block before
// (0 for the first): the blocks are appended in the order of the file. A
// block of intervals (spillIvs, packed: ivcodec.go) has a third, their
// count: Model.IntervalCount reads nothing, and the fold's reads of some
// of them (Builder.readSpilled) find their blocks.
//
// The list's bytes are a pointer and two 32-bit counts (bytes), not a
// slice: 16 bytes of each Thread, not 24.
type spillRef struct {
	p    *byte
	n, c uint32
}

// bytes returns r's list.
func (r *spillRef) bytes() []byte { return unsafe.Slice(r.p, r.c)[:r.n] }

// set makes bs r's list.
func (r *spillRef) set(bs []byte) {
	r.p, r.n, r.c = unsafe.SliceData(bs), uint32(len(bs)), uint32(cap(bs))
}

// spillKind is what a block of a thread's holds.
type spillKind uint8

const (
	// spillIvs: its intervals, in the order the fold added them.
	spillIvs spillKind = iota
	// spillSmp: its samples, in time order.
	spillSmp
	// spillLent: the cpu samples of the virtual threads it carried that
	// the fold gave up while it went (Builder.releaseSamples, retire),
	// until read back.
	spillLent
	// spillBlame: the bytes of its blameLog it gave up (Builder.giveBlame),
	// before those it logged since (Thread.blame.b).
	spillBlame
	// spillWins, spillSched: its windows between ThreadCPU lines
	// (Thread.wins) and its scheduler times (Thread.Sched), given up once
	// split to its end (finishThread): RunIn and the viewer read them, on
	// a copy of the thread read back (spilledThread, ReadRun).
	spillWins
	spillSched
	// spillRest: what a thread retired keeps of its fold's state
	// (restState, Builder.giveBody), until revive reads it back.
	spillRest
)

// next decodes r's block at i, after a block ending at end: its offset,
// length, kind and count (spillIvs: its intervals; 0 for the others), and
// the index of the next.
func (r *spillRef) next(i int, end int64) (off, n int64, k spillKind, c int64, j int) {
	bs := r.bytes()
	lk, w := uvarint(bs[i:])
	d, w2 := uvarint(bs[i+w:])
	j = i + w + w2
	if k = spillKind(lk & 7); k == spillIvs {
		cu, w3 := uvarint(bs[j:])
		c, j = int64(cu), j+w3
	}
	return end + int64(d), int64(lk >> 3), k, c, j
}

// of returns r's blocks of kind k, in order.
func (r *spillRef) of(k spillKind) []spillBlock {
	var out []spillBlock
	end := int64(0)
	for i := 0; i < int(r.n); {
		off, n, bk, _, j := r.next(i, end)
		if bk == k {
			out = append(out, spillBlock{off, n})
		}
		end, i = off+n, j
	}
	return out
}

// has reports whether r has a block of kind k.
func (r *spillRef) has(k spillKind) bool {
	end := int64(0)
	for i := 0; i < int(r.n); {
		off, n, bk, _, j := r.next(i, end)
		if bk == k {
			return true
		}
		end, i = off+n, j
	}
	return false
}

// count is the count of r's blocks of kind k: of spillIvs, the thread's
// intervals in the spill (Model.IntervalCount), nothing read.
func (r *spillRef) count(k spillKind) int64 {
	var cn int64
	end := int64(0)
	for i := 0; i < int(r.n); {
		off, n, bk, c, j := r.next(i, end)
		if bk == k {
			cn += c
		}
		end, i = off+n, j
	}
	return cn
}

// putBlock appends the block (off, n) of kind k to bs, after a block ending at
// end; of spillIvs, with its count c.
func putBlock(bs []byte, end, off, n int64, k spillKind, c int64) []byte {
	bs = binary.AppendUvarint(bs, uint64(n)<<3|uint64(k))
	bs = binary.AppendUvarint(bs, uint64(off-end))
	if k == spillIvs {
		bs = binary.AppendUvarint(bs, uint64(c))
	}
	return bs
}

// drop forgets r's blocks of kind k (read back, or to be written again),
// in place: a list is kept for every thread ever seen, and one made anew
// for each (the report drops every thread's spillBlame blocks) was 43 MB
// of c5G-slow5's report at its peak, for the room of its appends. A block
// kept is written where its bytes were or before: its offset's
// difference grows by the blocks dropped before it (d + their lengths
// and differences), whose varints were at least as long
// (uvarint(a+b) <= uvarint(a) + uvarint(b)), so that it never reaches
// the next block still to read.
func (r *spillRef) drop(k spillKind) {
	bs := r.bytes()
	w := 0
	end, outEnd := int64(0), int64(0)
	for i := 0; i < int(r.n); {
		off, n, bk, c, j := r.next(i, end)
		if bk != k {
			w += binary.PutUvarint(bs[w:], uint64(n)<<3|uint64(bk))
			w += binary.PutUvarint(bs[w:], uint64(off-outEnd))
			if bk == spillIvs {
				w += binary.PutUvarint(bs[w:], uint64(c))
			}
			outEnd = off + n
		}
		end, i = off+n, j
	}
	r.n = uint32(w)
	if w == 0 {
		r.p, r.c = nil, 0
	}
}

// addTo appends p to the file as r's next block of kind k: the last block
// grows when it is of k and ends where p begins (of spillIvs, holding
// fewer than ivBlockMax intervals).
func (s *spillFile) addTo(r *spillRef, k spillKind, p []byte) { s.addCount(r, k, p, 0) }

// addCount is addTo, p holding c records (spillIvs: packed intervals).
func (s *spillFile) addCount(r *spillRef, k spillKind, p []byte, c int64) {
	s.addTail(r, k, p, c, nil)
}

// spillTail is where a list's last block was when it was last added to
// (spillFile.addTail): the list's bytes then (p, n), the block's index in
// them and the end of the block before it. A live thread's intervals go
// to the spill at every seal (Builder.spillFed), after the other
// threads': a block each time, and finding the last one by reading the
// list from its start was 5.2 of the 133 CPU-s of an hour of a loaded
// Tomcat (its long-lived threads' lists of thousands of blocks).
type spillTail struct {
	p      *byte
	n, idx uint32
	end    int64
}

// addTail is addCount, the list's last block found through tl when it is
// still the list's (its bytes where and as long as they were: in place, a
// list grows by appends and shortens by drops, and a drop forgets its
// tail, dropLive), then tl set to the list's new last block; nil tl: the
// list read from its start.
func (s *spillFile) addTail(r *spillRef, k spillKind, p []byte, c int64, tl *spillTail) {
	if s.err != nil || len(p) == 0 {
		return
	}
	// The last block, and the end of the one before it.
	last, prevEnd, end := -1, int64(0), int64(0)
	var lastOff, lastN, lastC int64
	var lastK spillKind
	if tl != nil && tl.p != nil && tl.p == r.p && tl.n == r.n {
		last, prevEnd = int(tl.idx), tl.end
		lastOff, lastN, lastK, lastC, _ = r.next(last, prevEnd)
		end = lastOff + lastN
		s.tailTaken++
	} else {
		for i := 0; i < int(r.n); {
			off, n, bk, bc, j := r.next(i, end)
			last, prevEnd, lastOff, lastN, lastK, lastC = i, end, off, n, bk, bc
			end, i = off+n, j
		}
	}
	if last >= 0 && lastK == k && lastOff+lastN == s.off && (k != spillIvs || lastC < int64(ivBlockMax)) {
		r.set(putBlock(r.bytes()[:last], prevEnd, lastOff, lastN+int64(len(p)), k, lastC+c))
	} else {
		last, prevEnd = int(r.n), end
		r.set(putBlock(r.bytes(), end, s.off, int64(len(p)), k, c))
	}
	if tl != nil {
		*tl = spillTail{p: r.p, n: r.n, idx: uint32(last), end: prevEnd}
	}
	if spillStats != nil {
		spillStats.noteAdd(fmt.Sprint("kind ", k), s.off, len(p))
	}
	s.write(p)
}

// spillNoTmpfile makes openSpill take the way of a file system without
// O_TMPFILE: the tests take both.
var spillNoTmpfile = false

// openSpill creates the spill in dir ("": os.TempDir()).
func openSpill(dir string) (*spillFile, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	fd, err := -1, error(unix.EOPNOTSUPP)
	if !spillNoTmpfile {
		fd, err = unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	}
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.EISDIR) || errors.Is(err, unix.EINVAL) {
		// No O_TMPFILE here (a file system without it; EISDIR or EINVAL:
		// a kernel before 3.11).
		fd, err = spillInDir(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("the model's temporary file in %s: %w", dir, err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("the model's temporary file in %s: %w", dir, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink != 0 || st.Mode&0o077 != 0 || int(st.Uid) != os.Geteuid() {
		unix.Close(fd)
		return nil, fmt.Errorf("the model's temporary file in %s: not a private unlinked file (mode %o, links %d, owner %d)", dir, st.Mode, st.Nlink, st.Uid)
	}
	return &spillFile{f: os.NewFile(uintptr(fd), "the model's temporary file"), buf: make([]byte, 0, spillBufSize)}, nil
}

// spillInDir creates the spill as a file in a new directory of mode 0700
// below dir, both by descriptor, and unlinks both.
func spillInDir(dir string) (int, error) {
	dfd, err := hostfs.OpenRoot(dir)
	if err != nil {
		return -1, err
	}
	defer unix.Close(dfd)
	name, sub, err := hostfs.MkdirTemp(dfd, "orca-model-", 0o700, -1, -1)
	if err != nil {
		return -1, err
	}
	defer unix.Unlinkat(dfd, name, unix.AT_REMOVEDIR)
	defer unix.Close(sub)
	fd, err := unix.Openat(sub, "spill", unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, err
	}
	if err := unix.Unlinkat(sub, "spill", 0); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// add appends p to the file, at the end of the blocks bs: a block that
// ends where p begins grows.
func (s *spillFile) add(bs *[]spillBlock, p []byte) {
	if s.err != nil || len(p) == 0 {
		return
	}
	if n := len(*bs); n > 0 && (*bs)[n-1].off+(*bs)[n-1].len == s.off {
		(*bs)[n-1].len += int64(len(p))
	} else {
		*bs = append(*bs, spillBlock{s.off, int64(len(p))})
	}
	if spillStats != nil {
		spillStats.noteAdd("add < "+callerName(2), s.off, len(p))
	}
	s.write(p)
}

// write appends p to the file, behind the buffer.
func (s *spillFile) write(p []byte) {
	s.off += int64(len(p))
	for len(p) > 0 {
		if len(s.buf) == cap(s.buf) && s.flush() != nil {
			return
		}
		k := copy(s.buf[len(s.buf):cap(s.buf)], p)
		s.buf, p = s.buf[:len(s.buf)+k], p[k:]
	}
}

// flush writes the buffer out.
func (s *spillFile) flush() error {
	if s.err == nil && len(s.buf) > 0 {
		if spillStats != nil {
			spillStats.noteWrite(len(s.buf))
		}
		if s.alloc >= 0 && s.off > s.alloc {
			// s.off is where the buffer ends in the file.
			if unix.Fallocate(int(s.f.Fd()), unix.FALLOC_FL_KEEP_SIZE, s.alloc, s.off-s.alloc+spillAllocStep) != nil {
				s.alloc = -1 // none here: written as it comes
			} else {
				s.alloc = s.off + spillAllocStep
			}
		}
		_, s.err = s.f.Write(s.buf)
		s.buf = s.buf[:0]
	}
	return s.err
}

// done flushes the file after the last add, and frees the buffer: from
// then on it is only read. It returns the first write's error.
func (s *spillFile) done() error {
	err := s.flush()
	s.buf = nil
	return err
}

// read reads the blocks bs into dst's room (grown as needed) and returns
// the elements.
func spillRead[T any](s *spillFile, bs []spillBlock, dst []T) ([]T, error) {
	return spillReadAhead(s, bs, dst, nil)
}

// spillReadAhead is spillRead, the blocks a staged (nil: none) holds
// copied from it.
func spillReadAhead[T any](s *spillFile, bs []spillBlock, dst []T, a *spillAhead) ([]T, error) {
	if spillReadFault != nil && len(bs) > 0 {
		return dst[:0], spillReadFault
	}
	size := int64(unsafe.Sizeof(*new(T)))
	var n int64
	for _, b := range bs {
		n += b.len
	}
	dst = slices.Grow(dst[:0], int(n/size))[:n/size]
	p := bytesOf(dst)
	for _, b := range bs {
		if a.get(p[:b.len], b.off) {
			p = p[b.len:]
			continue
		}
		if _, err := s.readAt(p[:b.len], b.off); err != nil {
			return dst[:0], err
		}
		p = p[b.len:]
	}
	return dst, nil
}

// spillStageMax is the most bytes spillFill reads at once into its room.
const spillStageMax = 1 << 20

// spillKinds is the count of the kinds of a thread's blocks.
const spillKinds = int(spillRest) + 1

// roomFor returns dst's room grown to n bytes of T's, as elements, and
// their memory (nil when n is 0).
func roomFor[T any](dst []T, n int64) ([]T, []byte) {
	size := int64(unsafe.Sizeof(*new(T)))
	dst = slices.Grow(dst[:0], int(n/size))[:n/size]
	return dst, bytesOf(dst)
}

// spillKBlock is a block of a thread's with its kind and count
// (spillRef.decode).
type spillKBlock struct {
	off, n, c int64
	k         spillKind
}

// decode appends r's blocks, in order, to dst: a reader of several kinds
// decodes the list once, not once a kind (spillRef.size, has, of: the
// holders' pass decoded each thread's list eight times, 0.7 of c1G's
// CPU-s).
func (r *spillRef) decode(dst []spillKBlock) []spillKBlock {
	for i, end := 0, int64(0); i < int(r.n); {
		off, n, k, c, j := r.next(i, end)
		dst = append(dst, spillKBlock{off, n, c, k})
		i, end = j, off+n
	}
	return dst
}

// spillGapMax is the most bytes between two wanted blocks that spillFill
// reads through rather than read the second on its own: a read costs as
// much as ~10 kB copied (issue 34, docs/perf/2026-12-01-issue-34-spill-io.md),
// and a thread's blocks written at its end (finishThread: intervals, blame
// log, samples, windows, scheduler times) lie one after the other, its
// samples, which the holders' pass does not read of a waiter, between
// them: c1G's pass read in 1.38 M preads, not 1.64 M.
const spillGapMax = 4 << 10

// spillFill reads the blocks bs (a thread's, decoded) of each kind k that
// dst has room for into dst[k] (their bytes), in order: a read for each
// run of those blocks that lie one after the other in the file, or with
// at most spillGapMax bytes between two, not one for each block. A
// thread's blocks of several kinds written together (its intervals,
// windows and blame log at its end) lie so: the holders' pass on the
// 128 MB synthetic recording read 309 000 blocks in 167 000 runs, and its
// reads were a system call each (issue 34). A run of more than one block
// is read into stage's room, then copied out: at most spillStageMax bytes
// (the room is kept for the next thread's).
//
// Blocks a staged (spillAhead, nil: none) holds are copied from it.
func spillFill(s *spillFile, bs []spillKBlock, dst *[spillKinds][]byte, stage *[]byte, a *spillAhead) error {
	var at [spillKinds]int64
	for i := 0; i < len(bs); {
		b := bs[i]
		if dst[b.k] == nil {
			i++
			continue
		}
		if spillReadFault != nil {
			return spillReadFault
		}
		if a.get(dst[b.k][at[b.k]:at[b.k]+b.n], b.off) {
			at[b.k] += b.n
			i++
			continue
		}
		// The run from this block: the wanted blocks after it that lie
		// right after it in the file, or close, up to spillStageMax bytes.
		runEnd, last := b.off+b.n, i
		for ii := i + 1; ii < len(bs); ii++ {
			b2 := bs[ii]
			if dst[b2.k] == nil {
				continue
			}
			if b2.off < runEnd || b2.off-runEnd > spillGapMax || b2.off+b2.n-b.off > spillStageMax {
				break
			}
			runEnd, last = b2.off+b2.n, ii
		}
		if last == i {
			if _, err := s.readAt(dst[b.k][at[b.k]:at[b.k]+b.n], b.off); err != nil {
				return err
			}
			at[b.k] += b.n
			i++
			continue
		}
		*stage = slices.Grow((*stage)[:0], int(runEnd-b.off))[:runEnd-b.off]
		if _, err := s.readAt(*stage, b.off); err != nil {
			return err
		}
		for _, b2 := range bs[i : last+1] { // the run's wanted blocks, copied out
			if dst[b2.k] != nil {
				at[b2.k] += int64(copy(dst[b2.k][at[b2.k]:], (*stage)[b2.off-b.off:b2.off-b.off+b2.n]))
			}
		}
		i = last + 1
	}
	return nil
}

// spillAhead stages the blocks of the threads a pass reads next, many
// threads' in one read of the file: the holders' pass and EachSample read
// a thread at a time, and a thread's blocks (a short-lived thread's
// intervals, written at a seal, and its blame log, windows and samples,
// written at its end) lie among those of the threads next to it in
// Threads' order, which ended about when it did. Read a thread at a time,
// the 128 MB synthetic recording's holders' pass took 159 000 reads of
// the file, most of 128 B to 2 kB (a read costs its system call, ~1 µs,
// as much as ~10 kB copied: docs/perf/2026-12-02-spill-io.md); staged,
// the threads of aheadBytes of blocks at once, ~25 000. A thread with more
// than aheadBytes of blocks (the few that live the recording long, their
// intervals in blocks of spillBatch) is left to its own reads, and so is
// every block when a staged read fails: its own read then fails, or not,
// as it would have.
type spillAhead struct {
	bs   []spillKBlock // the blocks to stage, in order of the file once read
	n    int64         // their bytes
	buf  []byte        // the runs read, one after the other
	runs []aheadRun    // in order of the file
	last int           // the run get found last
}

// aheadRun is a run of the file staged: off, n bytes at buf[at:].
type aheadRun struct{ off, n, at int64 }

// aheadBytes is the bytes of blocks a pass stages at once (the buffer,
// with the gaps read through: at most twice as many).
const aheadBytes = 1 << 20

// add adds t's blocks of the kinds want to the next stage, unless they are
// more than aheadBytes, and returns the bytes of the next stage.
func (a *spillAhead) add(t *Thread, want *[spillKinds]bool) int64 {
	from, n := len(a.bs), int64(0)
	a.bs = t.spill.decode(a.bs)
	w := from
	for _, b := range a.bs[from:] {
		if want[b.k] {
			a.bs[w] = b
			w++
			n += b.n
		}
	}
	if n > aheadBytes {
		w = from
	} else {
		a.n += n
	}
	a.bs = a.bs[:w]
	return a.n
}

// read reads the blocks added since the last read: a read of the file for
// each run of them that lie one after the other or with at most
// spillGapMax bytes between two. A failed read stages nothing.
func (a *spillAhead) read(s *spillFile) {
	a.buf, a.runs, a.last = a.buf[:0], a.runs[:0], 0
	bs := a.bs
	a.bs, a.n = a.bs[:0], 0
	if spillReadFault != nil || len(bs) == 0 {
		return
	}
	slices.SortFunc(bs, func(x, y spillKBlock) int { return cmp.Compare(x.off, y.off) })
	gaps := int64(0) // the gaps' bytes read through, at most aheadBytes
	for i := 0; i < len(bs); {
		off, end := bs[i].off, bs[i].off+bs[i].n
		for i++; i < len(bs) && bs[i].off >= end && bs[i].off-end <= min(spillGapMax, aheadBytes-gaps); i++ {
			gaps += bs[i].off - end
			end = bs[i].off + bs[i].n
		}
		a.runs = append(a.runs, aheadRun{off, end - off, int64(len(a.buf))})
		a.buf = slices.Grow(a.buf, int(end-off))[:len(a.buf)+int(end-off)]
	}
	for _, r := range a.runs {
		if _, err := s.readAt(a.buf[r.at:r.at+r.n], r.off); err != nil {
			a.buf, a.runs = a.buf[:0], a.runs[:0]
			return
		}
	}
}

// aheadThreads is the most threads eachAhead stages at once.
const aheadThreads = 4096

// eachAhead calls fn with each thread of ts, in order, their blocks of the
// kinds want staged in a (spillAhead) a group of threads at a time.
// fn is given each thread's index in ts too.
func eachAhead(m *Model, ts iter.Seq2[int, *Thread], a *spillAhead, want *[spillKinds]bool, fn func(int, *Thread)) {
	type at struct {
		i int
		t *Thread
	}
	var group []at
	flush := func() {
		a.read(m.spill)
		for i, g := range group {
			fn(g.i, g.t)
			group[i] = at{}
		}
		group = group[:0]
	}
	for i, t := range ts {
		n := a.n
		if t != nil {
			n = a.add(t, want)
		}
		group = append(group, at{i, t})
		if n >= aheadBytes || len(group) >= aheadThreads {
			flush()
		}
	}
	flush()
}

// get copies the len(p) bytes at off into p when they are staged.
func (a *spillAhead) get(p []byte, off int64) bool {
	if a == nil || len(a.runs) == 0 {
		return false
	}
	i := a.last
	if r := a.runs[i]; off < r.off || off >= r.off+r.n {
		// The runs are mostly asked in order: the next, else a search.
		if i+1 < len(a.runs) && off >= a.runs[i+1].off && off < a.runs[i+1].off+a.runs[i+1].n {
			i++
		} else {
			i, _ = slices.BinarySearchFunc(a.runs, off, func(r aheadRun, off int64) int {
				return cmp.Compare(r.off+r.n, off+1)
			})
			if i == len(a.runs) || off < a.runs[i].off {
				return false
			}
		}
	}
	r := a.runs[i]
	if off+int64(len(p)) > r.off+r.n {
		return false
	}
	a.last = i
	copy(p, a.buf[r.at+off-r.off:])
	return true
}

// spillEach reads the records of bs from the spill len(buf) at a time
// into buf, and calls fn with each piece read (valid until the next).
func spillEach[T any](s *spillFile, bs []spillBlock, buf []T, fn func([]T)) error {
	if spillReadFault != nil && len(bs) > 0 {
		return spillReadFault
	}
	size := int64(unsafe.Sizeof(*new(T)))
	room := bytesOf(buf)
	for _, b := range bs {
		for off, left := b.off, b.len; left > 0; {
			n := min(left, int64(len(room))/size*size)
			if _, err := s.readAt(room[:n], off); err != nil {
				return err
			}
			fn(buf[:n/size])
			off, left = off+n, left-n
		}
	}
	return nil
}

// bytesOf is the memory of s, for a type without pointers.
func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), uintptr(len(s))*unsafe.Sizeof(s[0]))
}

// spilled is a thread's intervals and samples read back from the spill:
// the holders' fold reads one thread's at a time into the same room.
type spilled struct {
	ivs   []Interval
	ivb   []byte // the intervals packed, as read
	smp   []Sample
	blame []byte
	wins  []runWin
	stage []byte        // spillFill's
	bs    []spillKBlock // the thread's blocks, decoded
	ahead *spillAhead   // the blocks staged, nil: none
}

// spilledThread returns a copy of t with its intervals, sorted as Finalize
// sorted t's, its blame log, and its samples and windows when asked (else
// no samples, and the windows t holds in memory: the holders' first pass
// reads neither) as the spill has them, in sp's room: valid until sp is
// used again. It returns t itself
// when the model has no spill, or, when the intervals are still in memory
// too, it could not be read.
func (m *Model) spilledThread(t *Thread, sp *spilled, samples bool) *Thread {
	return m.spilledSome(t, sp, samples, true)
}

// spilledSome is spilledThread, with its intervals only when ivs (else
// none: an ivStream reads them by pieces).
func (m *Model) spilledSome(t *Thread, sp *spilled, samples, ivs bool) *Thread {
	if m.spill == nil || t == nil {
		return t
	}
	// Every kind in one pass (spillFill), as readIntervals, blameBytes
	// and spillRead each would.
	sp.bs = t.spill.decode(sp.bs[:0])
	var size [spillKinds]int64
	for _, b := range sp.bs {
		size[b.k] += b.n
	}
	var dst [spillKinds][]byte
	if ivs {
		sp.ivb, dst[spillIvs] = roomFor(sp.ivb, size[spillIvs])
	}
	sp.smp = sp.smp[:0]
	if samples {
		sp.smp, dst[spillSmp] = roomFor(sp.smp, size[spillSmp])
	}
	blame, wins := size[spillBlame] > 0, samples && size[spillWins] > 0 // a block is never empty (addTo)
	if blame {
		sp.blame, dst[spillBlame] = roomFor(sp.blame, size[spillBlame])
	}
	if wins {
		sp.wins, dst[spillWins] = roomFor(sp.wins, size[spillWins])
	}
	err := spillFill(m.spill, sp.bs, &dst, &sp.stage, sp.ahead)
	sp.ivs = sp.ivs[:0]
	if err == nil && ivs {
		sp.ivs, err = decodeIvsOf(sp.ivs, sp.ivb, sp.bs)
	}
	if err != nil {
		if !m.dropped {
			return t
		}
		// The intervals are nowhere else: a report without them would
		// claim what they may contradict.
		panic(&SpillError{err})
	}
	m.IntervalsRead += len(sp.ivs)
	if !startsInOrder(sp.ivs) {
		slices.SortStableFunc(sp.ivs, byStart)
	}
	if blame {
		sp.blame = append(sp.blame, t.folded().blame.b...) // those logged since (blameBytes)
	}
	h := *t
	h.Intervals, h.Samples = sp.ivs, sp.smp
	if !ivs {
		h.Intervals = nil
	}
	if blame || wins {
		f := h.ownFold() // not t's
		if blame {
			f.blame.b = sp.blame
		}
		if wins {
			f.wins = sp.wins
		}
	}
	return &h
}

// ivPiece is the most intervals of a thread the holders' passes decode at
// once, about (a var: the tests cut pieces of a block or two): a thread
// with more, in order (Thread.ivsUnsorted), is read by pieces
// (ivStream), so that the report's memory does not grow with the longest
// thread's life. Decoded whole, c5G-slow5's longest was 42.94 MB of
// intervals and 27.38 MB of their bytes at the report's peak (325.77 MB;
// docs/perf/2026-12-05-ranks-holders-read.md): one of a server's pool
// threads over an hour of an always-on recording is millions.
var ivPiece = 1 << 15

// SetIvPiece makes the holders' passes and Model.WindowOf read a thread of
// more than n intervals by pieces of about n, and returns a func that
// restores it: for the tests of the packages that read a spilled model,
// whose small recordings would otherwise be read whole.
func SetIvPiece(n int) (restore func()) {
	old := ivPiece
	ivPiece = n
	return func() { ivPiece = old }
}

// ivBlockMax is the most intervals a block of a thread's grows to before
// the next chunk begins a block of its own (addCount): ivStream reads
// whole blocks, and a thread whose chunks follow each other in the file
// (the only busy thread of a recording, each seal's chunk after the last)
// would be one block.
var ivBlockMax = 1 << 14

// SetIvBlockMax makes a block of a thread's intervals hold at most n
// (ivBlockMax), and returns a func that restores it: for a test whose
// thread's intervals, written one after another, would be one block, a
// piece (ivStream reads whole blocks).
func SetIvBlockMax(n int) (restore func()) {
	old := ivBlockMax
	ivBlockMax = n
	return func() { ivBlockMax = old }
}

// ByPieces reports whether WindowOf reads t by pieces (byPieces):
// nothing read.
func (m *Model) ByPieces(t *Thread) bool { return m.byPieces(t) }

// byPieces reports whether the holders' passes read t's intervals by
// pieces (ivStream): a Model that dropped them (Options.DropIntervals,
// its spill whole), t's more than ivPiece and in order.
func (m *Model) byPieces(t *Thread) bool {
	return m.dropped && m.spill != nil && t != nil && !t.ivsUnsorted && t.spill.count(spillIvs) > int64(ivPiece)
}

// ivStream reads a thread's intervals back from the spill in order, a
// piece at a time (ivPiece, whole blocks), into ivs: those read and not
// let go, ivs[0] the from-th of the thread's.
type ivStream struct {
	m     *Model
	bs    []spillKBlock // the thread's blocks of intervals, in order
	next  int           // the next block to read
	ivs   []Interval
	from  int
	room  []byte // the blocks read
	stage []byte
	ahead *spillAhead // the blocks staged (spillFill), nil: none
	// floor: with from > 0, the intervals let go ended at or before it
	// (cover): a span that begins before it reads the thread again from
	// its first.
	floor format.Time
}

// reset makes s read t's intervals from the first, the blocks staged in
// ahead (nil: none) copied from there.
func (s *ivStream) reset(m *Model, t *Thread, ahead *spillAhead) {
	s.m, s.ahead = m, ahead
	s.bs = t.spill.decode(s.bs[:0])
	w := 0
	for _, b := range s.bs {
		if b.k == spillIvs {
			s.bs[w] = b
			w++
		}
	}
	s.bs = s.bs[:w]
	s.rewind()
}

// rewind makes s read from the thread's first interval again.
func (s *ivStream) rewind() {
	s.next, s.ivs, s.from = 0, s.ivs[:0], 0
}

// more reads the next piece after those in ivs, and reports whether there
// was one. A spill that cannot be read, or intervals out of order,
// panic as spilledThread's (Options.DropIntervals: they are nowhere
// else).
func (s *ivStream) more() bool {
	if s.next == len(s.bs) {
		return false
	}
	j, n, c := s.next, int64(0), int64(0)
	for j < len(s.bs) && (j == s.next || c+s.bs[j].c <= int64(ivPiece)) {
		n, c = n+s.bs[j].n, c+s.bs[j].c
		j++
	}
	var dst [spillKinds][]byte
	s.room = slices.Grow(s.room[:0], int(n))[:n]
	dst[spillIvs] = s.room
	at := len(s.ivs)
	err := spillFill(s.m.spill, s.bs[s.next:j], &dst, &s.stage, s.ahead)
	if err == nil {
		s.ivs, err = decodeIvs(slices.Grow(s.ivs, int(c)), s.room, 0, -1)
	}
	if err == nil && int64(len(s.ivs)-at) != c {
		err = fmt.Errorf("%d intervals read back from the model's temporary file, %d written", len(s.ivs)-at, c)
	}
	if err == nil && (!startsInOrder(s.ivs[at:]) || at > 0 && s.ivs[at].Start < s.ivs[at-1].Start) {
		err = spillErr("a thread's intervals read back from the model's temporary file are not in order")
	}
	if err != nil {
		panic(&SpillError{err})
	}
	s.m.IntervalsRead += int(c)
	s.next = j
	return true
}

// IntervalWindow reads a thread's intervals back in order of start, as the
// holders' passes do: a thread of more than ivPiece (in order) by pieces,
// a window over them, else whole (Model.IntervalsOf). The zero
// IntervalWindow reads nothing; Model.WindowOf sets it to a thread.
type IntervalWindow struct {
	s      ivStream
	buf    []Interval // IntervalsOf's room
	ivs    []Interval // the whole, when not by pieces
	pieces bool
}

// WindowOf makes w read t's intervals from the first.
func (m *Model) WindowOf(t *Thread, w *IntervalWindow) {
	w.pieces = m.byPieces(t)
	w.ivs = nil
	if w.pieces {
		w.s.reset(m, t, nil)
		return
	}
	w.ivs = m.IntervalsOf(t, &w.buf)
}

// Next returns the thread's next intervals, in order, and false after
// the last: a piece at a time (about ivPiece, the one before let go) when
// read by pieces, else the whole once. WindowOf's thread read once through
// in the memory of a piece: a server's thread of an hour holds millions
// (a whole Tomcat worker's were 490 MB). Not to be mixed with Cover.
func (w *IntervalWindow) Next() ([]Interval, bool) { return w.NextKeeping(0) }

// NextKeeping is Next that gives the last keep intervals of those it gave
// last again, first: a reader's item that may go on into the next piece
// (a java.util.concurrent acquire's parks: one contention) is read whole
// at the next call, once Last says there is one. Read whole, there is no
// next, and keep does not matter.
func (w *IntervalWindow) NextKeeping(keep int) ([]Interval, bool) {
	if !w.pieces {
		ivs := w.ivs
		w.ivs = nil
		return ivs, ivs != nil
	}
	n := len(w.s.ivs)
	keep = min(max(keep, 0), n)
	w.s.ivs = w.s.ivs[:copy(w.s.ivs, w.s.ivs[n-keep:])]
	if !w.s.more() {
		w.s.ivs = w.s.ivs[:0]
		return nil, false
	}
	return w.s.ivs, true
}

// ByPieces reports whether w reads its thread by pieces: else the first
// Next gives them all.
func (w *IntervalWindow) ByPieces() bool { return w.pieces }

// Last reports whether the intervals Next gave last are the thread's
// last ones: no call gives more.
func (w *IntervalWindow) Last() bool {
	if !w.pieces {
		return true
	}
	return w.s.next == len(w.s.bs)
}

// Cover returns the thread's intervals from the from-th on, a window that
// holds every one that ends after a and begins before b (the whole, when
// not read by pieces): valid until the next call. Asked with a's in order,
// it reads each interval once and holds about those asked for and a
// piece or two; an a before one asked reads the thread again from its
// first.
func (w *IntervalWindow) Cover(a, b format.Time) (ivs []Interval, from int) {
	if !w.pieces {
		return w.ivs, 0
	}
	w.s.cover(a, b, nil, nil)
	return w.s.ivs, w.s.from
}

// cover makes ivs hold every interval of the thread that ends after a and
// begins before b, and the intervals of the first's start before it (a
// blameIndex counts them): it lets go of those before, once they are a
// piece or more, and reads on. With c and x (nil: none), the holders'
// fold's cursor and blame index over ivs, moved with it. A span of a holder's comes in
// order of start (heldSort): one that begins before the intervals let go
// ended reads them again from the first.
func (s *ivStream) cover(a, b format.Time, c *Cursor, x *blameIndex) {
	if s.from > 0 && a < s.floor {
		s.rewind()
		s.moved(math.MaxInt, c, x)
	}
	s.letGo(a, c, x)
	for (len(s.ivs) == 0 || s.ivs[len(s.ivs)-1].Start < b) && s.more() {
		s.letGo(a, c, x)
	}
	if x != nil {
		x.ivs = s.ivs
	}
}

// moved moves c and x (nil: none) back by the k intervals let go before
// ivs[0]: to the first, or none asked, when they were among them.
func (s *ivStream) moved(k int, c *Cursor, x *blameIndex) {
	if c != nil {
		c.iv = max(c.iv-k, 0)
	}
	if x != nil {
		x.last = max(x.last-k, -1)
	}
}

// letGo lets go of the intervals that end by a, but those of the first
// kept's start, once they are ivPiece or more; looked for once ivs holds
// two pieces, not searched at every span.
func (s *ivStream) letGo(a format.Time, c *Cursor, x *blameIndex) {
	if len(s.ivs) < 2*ivPiece {
		return
	}
	k := searchEndAfter(s.ivs, 0, a)
	if k < ivPiece {
		return
	}
	st := s.ivs[len(s.ivs)-1].Start
	if k < len(s.ivs) {
		st = s.ivs[k].Start
	}
	for k > 0 && s.ivs[k-1].Start == st {
		k--
	}
	if k == 0 {
		return
	}
	s.ivs = s.ivs[:copy(s.ivs, s.ivs[k:])]
	s.from += k
	s.floor = a
	s.moved(k, c, x)
}

// ReadRun gives h, a copy of t, t's scheduler times (Thread.Sched) and
// its windows between them, which RunIn and RunWindows read: a Model
// built with Options.DropIntervals keeps those of a thread split to its
// end only in the spill, as its intervals (ReadIntervals). Any number of
// goroutines may call it at once.
func (m *Model) ReadRun(t, h *Thread) error {
	if m.spill == nil {
		return nil
	}
	var err error
	if t.spill.has(spillWins) {
		h.ownFold().wins, err = spillRead(m.spill, t.spill.of(spillWins), []runWin(nil))
	}
	if err == nil && t.spill.has(spillSched) {
		h.Sched, err = spillRead(m.spill, t.spill.of(spillSched), []SchedTime(nil))
		h.nSched = 0 // all of them in h.Sched
	}
	return err
}

// blameBytes returns t's blame log's bytes whole, in room: the part an
// ended thread gave up to the spill (Builder.giveBlame), then those logged
// since.
func (m *Model) blameBytes(t *Thread, room []byte) ([]byte, error) {
	b, err := spillRead(m.spill, t.spill.of(spillBlame), room)
	return append(b, t.folded().blame.b...), err
}

// readIntervals reads t's intervals back from the spill into dst's room,
// sorted as Finalize sorts them.
func (m *Model) readIntervals(t *Thread, dst []Interval) ([]Interval, error) {
	ivs, err := m.readIvs(t, dst, &m.ivRoom)
	m.IntervalsRead += len(ivs)
	return ivs, err
}

// readIvs reads t's intervals back from the spill into dst's room, sorted
// as Finalize sorts them, their packed bytes read into *room's.
func (m *Model) readIvs(t *Thread, dst []Interval, room *[]byte) ([]Interval, error) {
	p, err := spillRead(m.spill, t.spill.of(spillIvs), *room)
	*room = p
	if err != nil {
		return dst[:0], err
	}
	ivs, err := decodeIvs(slices.Grow(dst[:0], int(t.spill.count(spillIvs))), p, 0, -1)
	if err == nil && int64(len(ivs)) != t.spill.count(spillIvs) {
		err = fmt.Errorf("%d intervals of thread %v read back from the model's temporary file, %d written", len(ivs), t.ID, t.spill.count(spillIvs))
	}
	if err != nil {
		return dst[:0], err
	}
	if !startsInOrder(ivs) {
		slices.SortStableFunc(ivs, byStart)
	}
	return ivs, nil
}

// decodeIvsOf decodes p, the bytes of the blocks of intervals of bs one
// after the other, into dst's room.
func decodeIvsOf(dst []Interval, p []byte, bs []spillKBlock) ([]Interval, error) {
	var c int64
	for _, b := range bs {
		if b.k == spillIvs {
			c += b.c
		}
	}
	dst = slices.Grow(dst[:0], int(c))
	ivs, err := decodeIvs(dst, p, 0, -1)
	if err == nil && int64(len(ivs)) != c {
		err = fmt.Errorf("%d intervals read back from the model's temporary file, %d written", len(ivs), c)
	}
	if err != nil {
		return dst[:0], err
	}
	return ivs, nil
}

// IntervalsOf returns t's intervals: t.Intervals, or, when the Model was
// built with Options.DropIntervals, read back from the spill into *buf's
// room (which it keeps for the next call): valid until then.
func (m *Model) IntervalsOf(t *Thread, buf *[]Interval) []Interval {
	if !m.dropped {
		return t.Intervals
	}
	ivs, err := m.readIntervals(t, *buf)
	if err != nil {
		panic(&SpillError{err}) // as spilledThread
	}
	*buf = ivs
	return ivs
}

// ReadIntervals returns t's intervals: t.Intervals (not to be changed),
// or, when the Model was built with Options.DropIntervals, read back from
// the spill into dst's room. Unlike IntervalsOf it counts nothing in the
// Model, so any number of goroutines may call it at once (the viewer's
// handlers), and a failed read is its error, not a panic.
func (m *Model) ReadIntervals(t *Thread, dst []Interval) ([]Interval, error) {
	if !m.dropped {
		return t.Intervals, nil
	}
	var room []byte
	return m.readIvs(t, dst, &room)
}

// WithOwnerChanges runs f while every lock's owner changes are in memory
// (Lock.OwnerChanges, read back from the spill), as in a Model built
// without Options.DropIntervals: for a reader that folds the locks again
// from some threads' intervals, which it sets itself (Filter of a thread
// filter: orca view's ?thread=, whose aggregation reads them there). No
// other reader of the Model may run meanwhile; a failed read panics with
// its *SpillError.
func (m *Model) WithOwnerChanges(f func()) {
	if !m.dropped {
		f()
		return
	}
	type saved struct {
		l    *Lock
		base int
	}
	var set []saved
	defer func() {
		for _, s := range set {
			s.l.OwnerChanges, s.l.ownBase = nil, s.base
		}
	}()
	for _, l := range m.byObject {
		if len(l.ownSpill) == 0 || len(l.OwnerChanges) > 0 {
			continue
		}
		ch, err := spillRead(m.spill, l.ownSpill, []OwnerChange(nil))
		if err != nil {
			panic(&SpillError{err})
		}
		set = append(set, saved{l, l.ownBase})
		l.OwnerChanges, l.ownBase = ch, 0
	}
	f()
}

// IntervalCount is len(t.Intervals), of a Model built with
// Options.DropIntervals too (from where they are in the spill, nothing
// read).
func (m *Model) IntervalCount(t *Thread) int {
	if !m.dropped {
		return len(t.Intervals)
	}
	return int(t.spill.count(spillIvs))
}

// ownerCache holds locks' owner changes read back from the spill: a
// reader of many contentions (View.HoldersDoing) keeps its own while it
// runs, the Model one for the others (ownerCache).
type ownerCache map[*Lock][]OwnerChange

// ownerChanges returns all of l's owner changes: l.OwnerChanges, or, once
// Finalize gave them up to the spill (Options.DropIntervals), read back
// into c (once per lock).
func (m *Model) ownerChanges(l *Lock, c ownerCache) []OwnerChange {
	if len(l.ownSpill) == 0 {
		return l.OwnerChanges
	}
	if m.ownSparse {
		panic("model: a lock's owner changes read whole from a Model built with Options.SpansFromLogs")
	}
	if ch, ok := c[l]; ok {
		return ch
	}
	ch, err := spillRead(m.spill, l.ownSpill, []OwnerChange(nil))
	if err != nil {
		panic(&SpillError{err}) // as spilledThread
	}
	c[l] = ch
	return ch
}

// ownerRange returns l's owner changes from the from-th to the to-th (a
// contention's: Interval.ownFrom, ownTo) and the number of the first of
// those returned (ownerSpans' all and base): those in the spill read back
// into *buf's room (grown as needed, kept for the next call), alone. It
// panics when they were not given to the spill (Options.SpansFromLogs:
// Lock.ownAt).
func (m *Model) ownerRange(l *Lock, from, to int, buf *[]OwnerChange) ([]OwnerChange, int) {
	if to <= from {
		return nil, 0
	}
	if from >= l.ownBase {
		if to-l.ownBase > len(l.OwnerChanges) {
			return nil, 0 // as ownerSpans takes all's: none
		}
		return l.OwnerChanges[from-l.ownBase : to-l.ownBase], from
	}
	notKept := func() {
		panic(fmt.Sprintf("model: owner changes %d to %d of lock %v not kept (Options.SpansFromLogs: a contention's blame spans are its thread's blame log's)", from, to, l.Object))
	}
	// The last run that begins at from or before it, and the runs after
	// it that go on in number: a contention's changes given up at two
	// seals are two runs when the spill took other bytes between them
	// (FuzzReportStreamed's 2e724e438b1f7e85: C's forced block, 1 to 3,
	// given up at 1 and at 2, panicked here); then those still in memory.
	k, found := slices.BinarySearch(l.ownAt, from)
	if !found {
		k--
	}
	if k < 0 {
		notKept()
	}
	var room [4]spillBlock
	blks, at := room[:0], from
	for j := k; j < len(l.ownAt) && at < to; j++ {
		start, n := l.ownAt[j], int(l.ownSpill[j].len)/ownerChangeSize
		if start > at || start+n <= at {
			break
		}
		upto := min(to, start+n)
		blks = append(blks, spillBlock{l.ownSpill[j].off + int64((at-start)*ownerChangeSize), int64((upto - at) * ownerChangeSize)})
		at = upto
	}
	if at < to && (at < l.ownBase || to-l.ownBase > len(l.OwnerChanges)) {
		notKept()
	}
	ch, err := spillRead(m.spill, blks, *buf)
	if err != nil {
		panic(&SpillError{err}) // as spilledThread
	}
	if at < to {
		ch = append(ch, l.OwnerChanges[at-l.ownBase:to-l.ownBase]...)
	}
	*buf = ch
	return ch, from
}

// ownerCache returns the Model's cache of owner changes read back, for
// the readers of a contention at a time (OwnerSpans); nil when they are in
// memory. A Model with its intervals dropped is orca report's, read by one
// goroutine.
func (m *Model) ownerCache() ownerCache {
	if !m.dropped {
		return nil
	}
	if m.ownCache == nil {
		m.ownCache = ownerCache{}
	}
	return m.ownCache
}

// LetGoOwnerChanges lets go of the owner changes read back from the spill
// for OwnerSpans and OwnerAt (a lock's all, kept for the next call: 64 MB
// for the locks open at the end of a 1 GB recording); a later call reads
// them again. orca report calls it once its questions at the end are
// answered.
func (m *Model) LetGoOwnerChanges() { m.ownCache = nil }

// SamplesOf returns t's samples: t.Samples, or, when the Model was built
// with Options.DropIntervals, read back from the spill into *buf's room
// (which it keeps for the next call): valid until then.
func (m *Model) SamplesOf(t *Thread, buf *[]Sample) []Sample {
	if !m.dropped {
		return t.Samples
	}
	smp, err := spillRead(m.spill, t.spill.of(spillSmp), *buf)
	if err != nil {
		panic(&SpillError{err}) // as spilledThread
	}
	*buf = smp
	return smp
}

// SpillError is a failed read of the model's temporary file (the spill).
// A Model built with Options.DropIntervals keeps its threads' intervals
// and samples there alone, and its readers (IntervalsOf, SamplesOf,
// HoldersDoing, EachSample) return no error: they panic with a
// *SpillError, which the caller turns into its error with RecoverSpill
// (orca report: one line, not a stack trace).
type SpillError struct{ Err error }

func (e *SpillError) Error() string {
	return "reading the model's temporary file back: " + e.Err.Error()
}

// Unwrap returns the read's error.
func (e *SpillError) Unwrap() error { return e.Err }

// RecoverSpill, deferred, turns a panic with a *SpillError into *err;
// another panic goes on.
func RecoverSpill(err *error) {
	if r := recover(); r != nil {
		se, ok := r.(*SpillError)
		if !ok {
			panic(r)
		}
		*err = se
	}
}

// spillReadFault, when set (by tests), is the error of every read of the
// spill: a file that fails.
var spillReadFault error

// TailOf returns t's last intervals, from index at of its intervals on: at
// least its open segments at the end and those from the last that began
// before its end (what the hangs, the graph at the end and the last events
// before a hang read). All of them (IntervalsOf, at 0) but in a Model
// built with Options.DropIntervals, which keeps the tail of each thread
// as the fold ends and reads the spill for none.
func (m *Model) TailOf(t *Thread, buf *[]Interval) (ivs []Interval, at int) {
	if m.dropped && t.tailOK {
		*buf = t.tails((*buf)[:0])
		return *buf, int(t.tailAt)
	}
	return m.IntervalsOf(t, buf), 0
}

// LetGoHolds lets go of the locks' hold times by stack, from which
// Finalize made each Lock's Hold: a later View of some threads (Filter)
// has its locks' figures without their hold times. For a reader that
// makes no such View (orca report once its View is made:
// report.Options.LetGoTails): 45 MB of c5G-slow5's report at its peak, the
// wait chains' second pass.
func (m *Model) LetGoHolds() { m.holds = nil }

// LetGoTails lets go of the threads' tails (TailOf) of a Model built
// with Options.DropIntervals: a later TailOf reads the thread's intervals
// back from the spill, all of them. For a reader that asks for no tail
// again (orca report once its hangs are found: report.Options.LetGoTails):
// ~30 bytes of every thread ever seen (1.33 M at 5 GB: ~38 MB), kept in
// blocks of their own (keepTail), not the lists'.
func (m *Model) LetGoTails() {
	if !m.dropped {
		return
	}
	for i, t := range m.Threads {
		if t == nil {
			// Packed: its record again without its tail, in place (the
			// tail's bytes stay in the block, unread).
			t = m.ThreadAt(i)
			if t.tailN == 0 && !t.tailOK {
				continue
			}
			t.tail, t.tailN, t.tailAt, t.tailOK = nil, 0, 0, false
			m.updateThread(i, t)
			continue
		}
		t.tail, t.tailN, t.tailAt, t.tailOK = nil, 0, 0, false
	}
}

// IntervalsDropped reports whether the threads' intervals are in the spill
// alone (Options.DropIntervals): Thread.Intervals is then nil, and
// Model.IntervalsOf reads them.
func (m *Model) IntervalsDropped() bool { return m.dropped }

func byStart(a, b Interval) int { return cmp.Compare(a.Start, b.Start) }

// startsInOrder is slices.IsSortedFunc(ivs, byStart) without a call and
// two copies of 72 bytes a pair: the holders' pass asks it of every
// thread's intervals read back, twice (0.2 of c1G's CPU-s).
func startsInOrder(ivs []Interval) bool {
	for i := 1; i < len(ivs); i++ {
		if ivs[i].Start < ivs[i-1].Start {
			return false
		}
	}
	return true
}

// ScratchRef is where ScratchWrite put a block in the Model's spill.
type ScratchRef struct {
	off int64
	len int32
}

// Len is r's bytes.
func (r ScratchRef) Len() int { return int(r.len) }

// Slice is the bytes [i, j) of r's block, a ScratchRef ScratchRead reads
// as any (a block read back a piece at a time).
func (r ScratchRef) Slice(i, j int) ScratchRef {
	if i < 0 || i > j || j > int(r.len) {
		panic("model: ScratchRef.Slice out of range")
	}
	return ScratchRef{r.off + int64(i), int32(j - i)}
}

// scratchBufSize is put's buffer: the wait chains' edges come a
// block of a few kB at a time, and a write each was 26 000 system calls at
// 128 MB (docs/perf/2026-11-30-issue-34-holders.md).
const scratchBufSize = 1 << 20

// ScratchWrite appends the bytes of ps, one after the other, to the
// Model's spill (Options.Spill) as one block, for a reader of the Model
// that gives up memory it would hold (the wait chains' edges,
// analysis.HoldersAndChains), and returns where; ok is false when there is
// no spill or it failed: keep them then. One goroutine at a time, once
// the Model is built (spillFile.put).
func (m *Model) ScratchWrite(ps ...[]byte) (ScratchRef, bool) {
	if m.spill == nil {
		return ScratchRef{}, false
	}
	return m.spill.put(ps...)
}

// ScratchRead reads back the block ScratchWrite put at r into room's
// room (grown as needed) and returns it.
func (m *Model) ScratchRead(r ScratchRef, room []byte) []byte { return m.spill.read(r, room) }

// ScratchCache is room for ScratchReadNear: pieces of the spill read
// whole, kept for the blocks near them.
type ScratchCache struct {
	slots [scratchCacheSlots]scratchSlot
}

type scratchSlot struct {
	at int64 // the piece's number + 1; 0: none
	b  []byte
}

// scratchCacheSlots and scratchCachePiece: a ScratchCache holds up to
// scratchCacheSlots pieces of scratchCachePiece bytes (4 MB), a piece in
// the slot of its number. c128's releases (4.7 MB): 45 064 reads of 105
// bytes, through 256 pieces of 4 kB 10 911 (40 MB), of 32 kB 15 707 (510
// MB: the pieces read are mostly not read again), through these 5 390
// (17 MB).
const (
	scratchCacheSlots = 1024
	scratchCachePiece = 4 << 10
)

// ScratchReadNear is ScratchRead for a reader of many small blocks written
// near each other (the wait chains' releases, a holder's after another's
// in the order the holders' pass met them, read back as the sweep reaches
// their times: 360 000 reads of 105 bytes at c1G, a system call each):
// the piece of scratchCachePiece bytes of the spill around r (or the two)
// is read whole into c and kept, and a block in pieces kept is copied from
// them. A block across more than two pieces, or not yet written out, is
// read as ScratchRead reads it, and so is every block once a write of the
// spill failed.
func (m *Model) ScratchReadNear(c *ScratchCache, r ScratchRef, room []byte) []byte {
	s := m.spill
	end := r.off + int64(r.len)
	pc := r.off / scratchCachePiece
	written := s.off - int64(len(s.buf))
	if r.len == 0 || (end-1)/scratchCachePiece > pc+1 || end > written || s.err != nil || len(s.kept) > 0 || spillReadFault != nil {
		return s.read(r, room)
	}
	room = slices.Grow(room[:0], int(r.len))[:r.len]
	// A block across two pieces (~6 % of the releases' reads of 256
	// bytes, each a system call) is copied from both.
	for at := r.off; at < end; {
		p := at / scratchCachePiece
		sl := &c.slots[p%scratchCacheSlots]
		lo := p * scratchCachePiece
		if sl.at != p+1 {
			hi := min(lo+scratchCachePiece, written)
			sl.b = slices.Grow(sl.b[:0], int(hi-lo))[:hi-lo]
			if _, err := s.readAt(sl.b, lo); err != nil {
				sl.at = 0
				return s.read(r, room) // fails, or not, as it would have
			}
			sl.at = p + 1
		}
		at += int64(copy(room[at-r.off:], sl.b[at-lo:]))
	}
	return room
}

// put appends the bytes of ps to the file as one block, and returns
// where: the fold's runs of sorted records (the locks' owners and
// waiters) and, once the Model is built, its readers' (ScratchWrite). The
// blocks go through the buffer, written when full or when read asks for a
// block still in it; a buffer whose write fails is kept in memory
// (kept), so a block put took is always read back. ok is false when the
// spill failed (before, or now): keep the bytes then.
func (s *spillFile) put(ps ...[]byte) (ScratchRef, bool) {
	n := 0
	for _, p := range ps {
		n += len(p)
	}
	if s.err != nil || n > math.MaxInt32 {
		return ScratchRef{}, false
	}
	if len(s.buf)+n > cap(s.buf) {
		if s.flushKeep() != nil {
			return ScratchRef{}, false
		}
		if cap(s.buf) < max(n, scratchBufSize) {
			s.buf = make([]byte, 0, max(n, scratchBufSize))
		}
	}
	if spillStats != nil {
		spillStats.noteAdd("put < "+callerName(2), s.off, n)
	}
	// s.off counts the buffer's bytes: the block is written at it.
	r := ScratchRef{s.off, int32(n)}
	for _, p := range ps {
		s.buf = append(s.buf, p...)
	}
	s.off += int64(n)
	return r, true
}

// putNow is put, p written out at once, not through the buffer: a block
// of packed Threads (threadPack.spillLast), which readers of any
// goroutine read back, and which is written again in place
// (threadPack.writeBack). ok is false when the spill failed (before, or
// now): keep the bytes then.
func (s *spillFile) putNow(p []byte) (ScratchRef, bool) {
	if s.err != nil || len(p) > math.MaxInt32 || s.flushKeep() != nil {
		return ScratchRef{}, false
	}
	if spillStats != nil {
		spillStats.noteAdd("putNow < "+callerName(2), s.off, len(p))
		spillStats.noteWrite(len(p))
	}
	r := ScratchRef{s.off, int32(len(p))}
	s.off += int64(len(p))
	if _, s.err = s.f.Write(p); s.err != nil {
		return ScratchRef{}, false
	}
	return r, true
}

// flushKeep writes the buffer out; when that fails, the buffer is kept
// in memory for read, and the error returned.
func (s *spillFile) flushKeep() error {
	if len(s.buf) == 0 {
		return s.err
	}
	at, b := s.off-int64(len(s.buf)), s.buf
	if err := s.flush(); err != nil {
		// What the buffer held is read from memory from now on.
		s.kept = append(s.kept, scratchChunk{at, b})
		s.buf = nil
		return err
	}
	return nil
}

// scratchChunk is put's buffer that could not be written: its bytes from
// off on.
type scratchChunk struct {
	off int64
	b   []byte
}

// read reads back the block put put at r into room's room (grown as
// needed) and returns it; a failed read panics with its *SpillError (as
// spilledThread).
func (s *spillFile) read(r ScratchRef, room []byte) []byte {
	room = slices.Grow(room[:0], int(r.len))[:r.len]
	for _, c := range s.kept {
		if r.off >= c.off && r.off+int64(r.len) <= c.off+int64(len(c.b)) {
			copy(room, c.b[r.off-c.off:])
			return room
		}
	}
	if r.off+int64(r.len) > s.off-int64(len(s.buf)) {
		// Still in the buffer: written out first (then read as the rest).
		if s.flushKeep() != nil {
			return s.read(r, room) // kept now
		}
	}
	if _, err := s.readAt(room, r.off); err != nil {
		panic(&SpillError{err})
	}
	return room
}

// runReader reads a run of records put in the spill in blocks back, a
// block at a time into its room: the merges of sorted runs (mergeRuns:
// the locks' owners and waiters, the holders' time on other locks), the
// span logs' chunks and the holders' logs read through it.
type runReader struct {
	refs []ScratchRef // the blocks not yet read
	room []byte
	b    []byte // the rest of the block read last
}

// more reads the next block once b is used up; false at the run's end.
func (r *runReader) more(s *spillFile) bool {
	for len(r.b) == 0 {
		if len(r.refs) == 0 {
			return false
		}
		r.room = s.read(r.refs[0], r.room)
		r.b, r.refs = r.room, r.refs[1:]
	}
	return true
}

// runCursor is a run's place in mergeRuns: its record read last, the
// next of the merge, and the run's number.
type runCursor[T any] struct {
	v T
	r runReader
	i int
}

// mergeRuns calls emit with the records of runs (each written to the
// spill in blocks by put, its records packed one after the other, each
// against the one before and the first against T's zero value, as read
// unpacks them: read returns 0 for bytes that hold no whole record) and
// of tab (one more run, in memory, the last), in the order of cmp that
// each run is sorted in: a merge through a binary heap of the runs by
// their next record, stable (at a tie, the earlier run's first). The locks' owners and waiters (Finalize)
// and the holders' time on other locks (onSpill) merge their runs so.
func mergeRuns[T any](s *spillFile, runs [][]ScratchRef, tab []T, cmp func(a, b *T) int, read func(b []byte, prev *T) (T, int), emit func(T)) {
	next := func(c *runCursor[T]) bool {
		if !c.r.more(s) {
			return false
		}
		v, n := read(c.r.b, &c.v)
		if n <= 0 {
			panic(&SpillError{errRun})
		}
		c.v, c.r.b = v, c.r.b[n:]
		return true
	}
	h := make([]runCursor[T], 0, len(runs))
	for i, r := range runs {
		c := runCursor[T]{r: runReader{refs: r}, i: i}
		if next(&c) {
			h = append(h, c)
		}
	}
	less := func(a, b *runCursor[T]) bool {
		c := cmp(&a.v, &b.v)
		return c < 0 || c == 0 && a.i < b.i
	}
	heapify(h, less)
	for len(h) > 0 || len(tab) > 0 {
		if len(h) == 0 || len(tab) > 0 && cmp(&tab[0], &h[0].v) < 0 {
			emit(tab[0])
			tab = tab[1:]
			continue
		}
		emit(h[0].v)
		if !next(&h[0]) {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		siftDown(h, 0, less)
	}
}

// errRun is a run read back that does not decode.
var errRun = spillErr("a run read back from the model's temporary file does not decode")

type spillErr string

func (e spillErr) Error() string { return string(e) }

// ScratchRun writes the records rs, sorted, to the Model's spill as a run
// (putRun: packed by pack each against the one before, in blocks), for a
// reader of the Model that sorts more than it would hold (the timelines'
// events, export.tlSort); MergeScratchRuns reads the runs back merged. ok
// is false when there is no spill or it failed: keep the records then.
func ScratchRun[T any](m *Model, rs []T, pack func(b []byte, r, prev *T) []byte) (run []ScratchRef, ok bool) {
	if m.spill == nil {
		return nil, false
	}
	return putRun(m.spill, rs, pack)
}

// MergeScratchRuns calls emit with the records of the runs ScratchRun
// wrote and of tab (one more run, in memory), in the order of cmp each is
// sorted in (mergeRuns; read unpacks what pack packed). A record emit is
// given is its own until emit returns.
func MergeScratchRuns[T any](m *Model, runs [][]ScratchRef, tab []T, cmp func(a, b *T) int, read func(b []byte, prev *T) (T, int), emit func(T)) {
	mergeRuns(m.spill, runs, tab, cmp, read, emit)
}

// readBuffered reads len(p) bytes at off while the file is written (the
// fold's reads, Builder.readSpilled): those still in the write buffer
// copied from it, the rest read from the file. Not once the Model is
// built: its readers may run at once with a writer (ScratchWrite).
func (s *spillFile) readBuffered(p []byte, off int64) error {
	if at := s.off - int64(len(s.buf)); len(s.buf) > 0 && off+int64(len(p)) > at {
		k := max(at-off, 0) // the bytes before the buffer's
		copy(p[k:], s.buf[off+k-at:])
		p = p[:k]
	}
	if len(p) == 0 {
		return nil
	}
	_, err := s.readAt(p, off)
	return err
}

// readAt reads len(p) bytes at off.
func (s *spillFile) readAt(p []byte, off int64) (int, error) {
	if spillStats != nil {
		spillStats.noteRead(off, len(p))
	}
	return s.f.ReadAt(p, off)
}
