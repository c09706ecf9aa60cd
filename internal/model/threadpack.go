package model

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"iter"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"orca/internal/format"
)

// An ended thread's Thread is kept packed with Options.PackThreads (orca
// report): every thread ever seen has one from the fold's end to the
// report's (1.33 M at 5 GB), 304 bytes as a Thread, its list of spill
// blocks and its tail in blocks beside it: ~0.4 GB at 5 GB (issue 34).
// Packed (packThread), its fields are varints, its name, list and tail
// inline, ~100 bytes, one record after the other in blocks of packBlock
// bytes. A thread is packed as it retires (Builder.packRetired: ended, its
// intervals and samples in the spill), and the fold unpacks it for good
// when it reads it again (Builder.tOf: an event of the thread, or of
// another that names it); Finalize packs those left (packThreads).
// Model.Threads keeps a nil in its place; the readers take it unpacked
// (Model.ThreadAt, Model.AllThreads, Model.Thread, View.At, View.All): a
// fresh copy each time, which points into the block for its name, list
// and tail (never written after: a reader that changes a Thread gives it
// back with Model.updateThread).

// packBlock is the size of a block of packed Threads; a record longer
// than it is not packed (a list of spill blocks of thousands: the Thread
// stays as it is). At most 64 kB (loc's offset); smaller in the tests
// (SetThreadPackSizes), so that their few threads fill blocks.
var packBlock = 64 << 10

// A block full goes to the model's spill (threadPack.sp): the blocks of
// every thread ever seen were c5G-slow5's report's largest live memory
// (320 MB of 682 MB at its peak, issue 34). The readers read a record
// back through a cache of packCacheSlots pieces of packPiece bytes (4
// MB), a piece in the slot of its number: pieces, not blocks, for the
// readers by ID (NameOf: the report names each owner of each lock
// listed), whose 219 000 records read at c1G were 14 GB of blocks of 64
// kB, and in order a piece each.
var (
	packPiece      = 4 << 10
	packCacheSlots = 1024
)

// A Thread is packed field by field (packThread): one more field would be
// lost, unless packed too. The size checks it (a compile error otherwise:
// the index is out of range), TestThreadPack each field.
var _ = [1]struct{}{}[unsafe.Sizeof(Thread{})-304]

// The bits of a packed Thread's flags.
const (
	packEnded = 1 << iota
	packVirtual
	packTailOK
	packIvsUnsorted
)

// threadPack holds the packed Threads of a Model.
type threadPack struct {
	blocks [][]byte
	// loc: by index in Model.Threads, where its record is (block<<16 |
	// offset) when Model.Threads has nil there.
	loc []uint32
	// ids: by index, the ID of a packed thread: the index by ID probes
	// it (Model.threadIndex), and a block read back for each probe was
	// 74 GB of reads at c1G.
	ids []format.ThreadID
	// names: by index, the names NameOf was asked for (made at its first
	// call): a pointer to one is kept by its reader.
	names []string
	// named: names holds every packed thread's (nameAll); nameReads:
	// the records NameOf read before.
	named     bool
	nameReads int
	// lent: by index, the packed threads ThreadAt gives unpacked for a
	// while (Model.Lend), nil when none; a map never changed once
	// stored, read by any goroutine.
	lent atomic.Pointer[map[int]*Thread]

	// sp: the spill a full block goes to (nil: none, the blocks stay);
	// blocks[k] is then nil, its bytes at spilt[k] in the file, read back
	// into cache (record) and changed there (overwrite), written back
	// when its slot is taken. Readers of any goroutine: mu guards cache
	// and kept.
	sp    *spillFile
	spilt []ScratchRef
	mu    sync.Mutex
	cache []packSlot
	// kept: by key, a piece whose writing back failed, kept in memory.
	kept map[int]*packSlot
	// room: span's.
	room []byte
}

// packSlot is a piece of the cache: the bytes of the piece key-1
// (block<<16 | piece; key 0: none), changed since read back when dirty.
type packSlot struct {
	key   int
	b     []byte
	dirty bool
}

// packable reports whether t can be packed: all it holds is in its
// fields, its list and its tail (none of its intervals, samples,
// scheduler times nor fold state in memory).
func packable(t *Thread) bool {
	return t.fold == nil && t.Intervals == nil && t.Samples == nil && t.Sched == nil
}

// packThread appends t packed to dst.
func packThread(dst []byte, t *Thread) []byte { return packRest(packHead(dst, t), t) }

// packHead appends the head of t's record: its fields up to its name and
// the name.
func packHead(dst []byte, t *Thread) []byte {
	f := uint64(t.StackMarks) << 8
	if t.Ended {
		f |= packEnded
	}
	if t.Virtual {
		f |= packVirtual
	}
	if t.tailOK {
		f |= packTailOK
	}
	if t.ivsUnsorted {
		f |= packIvsUnsorted
	}
	dst = binary.AppendUvarint(dst, f)
	dst = binary.AppendUvarint(dst, uint64(t.ID))
	dst = binary.AppendUvarint(dst, uint64(t.Parent))
	dst = binary.AppendVarint(dst, int64(t.Start))
	dst = binary.AppendVarint(dst, int64(t.End-t.Start))
	for _, d := range t.Time {
		dst = binary.AppendVarint(dst, int64(d))
	}
	dst = binary.AppendVarint(dst, int64(t.Events))
	dst = binary.AppendUvarint(dst, uint64(t.Carrier))
	for _, d := range [...]format.Time{t.Run.Running, t.Run.Ready, t.Run.Other, t.Run.Virtual, t.Run.Unsplit} {
		dst = binary.AppendVarint(dst, int64(d))
	}
	dst = binary.AppendUvarint(dst, uint64(t.StartedAt))
	dst = binary.AppendVarint(dst, int64(t.Carriers))
	dst = binary.AppendVarint(dst, int64(t.Pinned))
	dst = binary.AppendVarint(dst, int64(t.nSched))
	dst = binary.AppendUvarint(dst, uint64(len(t.Name)))
	return append(dst, t.Name...)
}

// packRest appends what packThread packs after t's name: what a reader
// changes (updateThread: the list, the tail and where it begins), so that
// packed again in place the bytes up to the name stay where they were.
func packRest(dst []byte, t *Thread) []byte {
	dst = binary.AppendUvarint(dst, uint64(t.spill.n))
	dst = append(dst, t.spill.bytes()...)
	dst = binary.AppendVarint(dst, int64(t.tailAt))
	dst = binary.AppendUvarint(dst, uint64(t.tailN))
	if t.tailN > 0 {
		dst = append(dst, unsafe.Slice(t.tail, t.tailN)...)
	}
	return dst
}

// unpackThread sets t to the Thread packed at the start of p
// (packThread): its name, list and tail in p.
func unpackThread(t *Thread, p []byte) {
	r := packReader(p)
	u, s := r.u, r.s
	raw := func() []byte {
		n := int(u())
		b := r[:n:n]
		r = r[n:]
		return b
	}
	*t = Thread{}
	f := u()
	t.Ended, t.Virtual, t.tailOK, t.StackMarks = f&packEnded != 0, f&packVirtual != 0, f&packTailOK != 0, uint8(f>>8)
	t.ivsUnsorted = f&packIvsUnsorted != 0
	t.ID = format.ThreadID(u())
	t.Parent = format.ThreadID(u())
	t.Start = format.Time(s())
	t.End = t.Start + format.Time(s())
	for i := range t.Time {
		t.Time[i] = format.Time(s())
	}
	t.Events = int(s())
	t.Carrier = format.ThreadID(u())
	for _, d := range [...]*format.Time{&t.Run.Running, &t.Run.Ready, &t.Run.Other, &t.Run.Virtual, &t.Run.Unsplit} {
		*d = format.Time(s())
	}
	t.StartedAt = StackID(u())
	t.Carriers = int32(s())
	t.Pinned = int32(s())
	t.nSched = int32(s())
	if name := raw(); len(name) > 0 {
		t.Name = unsafe.String(&name[0], len(name))
	}
	if l := raw(); len(l) > 0 {
		t.spill.set(l)
	}
	t.tailAt = int32(s())
	if tl := raw(); len(tl) > 0 {
		t.tail, t.tailN = &tl[0], uint32(len(tl))
	}
}

// add packs t at the end of the last block (a new one when it does not
// fit) and returns where, ok false when t is too long to pack.
func (tp *threadPack) add(t *Thread, scratch *[]byte) (loc uint32, ok bool) {
	*scratch = packThread((*scratch)[:0], t)
	n := len(*scratch)
	if n > packBlock {
		return 0, false
	}
	if len(tp.blocks) == 0 || cap(tp.blocks[len(tp.blocks)-1])-len(tp.blocks[len(tp.blocks)-1]) < n {
		if len(tp.blocks) >= 1<<16 {
			return 0, false
		}
		tp.spillLast()
		tp.blocks = append(tp.blocks, make([]byte, 0, packBlock))
	}
	k := len(tp.blocks) - 1
	at := len(tp.blocks[k])
	tp.blocks[k] = append(tp.blocks[k], *scratch...)
	return uint32(k)<<16 | uint32(at), true
}

// spillLast writes the last block, full, to the spill (sp), and lets go
// of it; it stays when the write fails.
func (tp *threadPack) spillLast() {
	k := len(tp.blocks) - 1
	if tp.sp == nil || k < 0 || tp.blocks[k] == nil {
		return
	}
	r, ok := tp.sp.putNow(tp.blocks[k])
	if !ok {
		return
	}
	for len(tp.spilt) <= k {
		tp.spilt = append(tp.spilt, ScratchRef{})
	}
	tp.spilt[k], tp.blocks[k] = r, nil
}

// at returns the bytes from the record at loc on: up to the end of its
// block, or, of a block in the spill, the record alone, a copy of its own
// (a Thread unpacked from it keeps no piece of the cache).
func (tp *threadPack) at(loc uint32) []byte {
	k, off := int(loc>>16), int(loc&0xffff)
	if b := tp.blocks[k]; b != nil {
		return b[off:len(b):len(b)]
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	// Its piece holds most records whole, read there (a copy to the
	// piece's end first was 2 kB an unpack on average, ~100 bytes a
	// record); a longer one is read to the end of its block.
	lo := off / packPiece * packPiece
	p := tp.piece(k, off/packPiece).b[off-lo:]
	n := packedLen(p)
	if n < 0 {
		p = tp.span(k, off, int(tp.spilt[k].len), nil)
		n = packedLen(p)
	}
	return bytes.Clone(p[:n])
}

// overwrite writes p over the bytes of the record at loc from its byte
// from on.
func (tp *threadPack) overwrite(loc uint32, from int, p []byte) {
	k, off := int(loc>>16), int(loc&0xffff)+from
	if b := tp.blocks[k]; b != nil {
		copy(b[off:], p)
		return
	}
	tp.mu.Lock()
	defer tp.mu.Unlock()
	tp.span(k, off, off+len(p), p)
}

// span copies the bytes [from, to) of block k, in the spill, through the
// cache: into tp.room, returned, when p is nil, else from p (the pieces
// changed). tp.mu is held.
func (tp *threadPack) span(k, from, to int, p []byte) []byte {
	if p == nil {
		tp.room = slices.Grow(tp.room[:0], to-from)[:to-from]
	}
	for at := from; at < to; {
		s := tp.piece(k, at/packPiece)
		lo := at / packPiece * packPiece
		var n int
		if p == nil {
			n = copy(tp.room[at-from:], s.b[at-lo:min(len(s.b), to-lo)])
		} else {
			n = copy(s.b[at-lo:], p[at-from:])
			s.dirty = true
		}
		at += n
	}
	return tp.room
}

// piece returns the slot holding the piece j of block k (its bytes [j *
// packPiece, +packPiece), to the block's end), read back when the slot
// holds another (written back first when changed). A failed read panics
// with its *SpillError (as spilledThread).
func (tp *threadPack) piece(k, j int) *packSlot {
	key := k<<16 | j
	if s, ok := tp.kept[key]; ok {
		return s
	}
	if tp.cache == nil {
		tp.cache = make([]packSlot, packCacheSlots)
	}
	// Slots in turn along a block and on to the next: a run of the
	// blocks read in order takes every slot.
	s := &tp.cache[(k*(packBlock/packPiece+1)+j)%len(tp.cache)]
	if s.key == key+1 {
		return s
	}
	tp.writeBack(s)
	r := tp.spilt[k]
	lo := j * packPiece
	n := min(packPiece, int(r.len)-lo)
	s.key, s.b = 0, slices.Grow(s.b[:0], n)[:n]
	if _, err := tp.sp.readAt(s.b, r.off+int64(lo)); err != nil {
		panic(&SpillError{err})
	}
	s.key = key + 1
	return s
}

// writeBack writes the slot's piece back to the spill when changed; when
// that fails, the piece is kept in memory from now on.
func (tp *threadPack) writeBack(s *packSlot) {
	if !s.dirty {
		return
	}
	key := s.key - 1
	at := tp.spilt[key>>16].off + int64(key&0xffff*packPiece)
	s.dirty = false
	if spillStats != nil {
		spillStats.noteWrite(len(s.b))
	}
	if _, err := tp.sp.f.WriteAt(s.b, at); err != nil {
		if tp.kept == nil {
			tp.kept = map[int]*packSlot{}
		}
		tp.kept[key] = &packSlot{key: s.key, b: s.b}
		s.key, s.b = 0, nil
	}
}

// packedLen returns the length of the record packed at the start of p
// (packThread), -1 when p holds only part of it.
func packedLen(p []byte) int {
	n := 0
	next := func() (uint64, bool) {
		v, w := binary.Uvarint(p[n:])
		if w <= 0 {
			return 0, false
		}
		n += w
		return v, true
	}
	raw := func() bool {
		l, ok := next()
		if ok && l <= uint64(len(p)-n) {
			n += int(l)
			return true
		}
		return false
	}
	// The fields up to the name: flags, ID, Parent, Start, End, Time,
	// Events, Carrier, Run's five, StartedAt, Carriers, Pinned, nSched.
	for range 5 + len(Thread{}.Time) + 2 + 5 + 4 {
		if _, ok := next(); !ok {
			return -1
		}
	}
	if !raw() || !raw() { // the name, the list
		return -1
	}
	if _, ok := next(); !ok || !raw() { // tailAt, the tail
		return -1
	}
	return n
}

// packThreads packs the ended Threads of m that can be (packable), once
// Threads is in its final order: Threads keeps nil in their place. The
// others are copied out of the Builder's slabs, so that no slab is kept
// for a few Threads.
func (m *Model) packThreads() {
	tp := m.packed
	if tp == nil {
		tp = &threadPack{sp: m.spill}
	}
	for len(tp.loc) < len(m.Threads) {
		tp.loc, tp.ids = append(tp.loc, 0), append(tp.ids, 0)
	}
	var scratch []byte
	for i, t := range m.Threads {
		if t == nil {
			continue // packed as it retired
		}
		if t.Ended && packable(t) {
			if loc, ok := tp.add(t, &scratch); ok {
				tp.loc[i], tp.ids[i], m.Threads[i] = loc, t.ID, nil
				continue
			}
		}
		c := new(Thread)
		*c = *t
		m.Threads[i] = c
	}
	m.packed = tp
}

// NumThreads returns how many threads m has: len(Threads), packed or not.
func (m *Model) NumThreads() int { return len(m.Threads) }

// ThreadAt returns the thread of index i of Threads: unpacked, a copy of
// its own for a packed one (changes to it are lost: updateThread).
func (m *Model) ThreadAt(i int) *Thread {
	if t := m.Threads[i]; t != nil {
		return t
	}
	if l := m.packed.lent.Load(); l != nil {
		if t := (*l)[i]; t != nil {
			return t
		}
	}
	t := new(Thread)
	unpackThread(t, m.packed.at(m.packed.loc[i]))
	return t
}

// Lend has ThreadAt (and Thread, AllThreads, View.At and All) give
// lent[i], one of its copies, for the packed thread of index i, until
// the func it returns is called: for a reader that sets some threads'
// Intervals and Samples for a while (the viewer's thread filter, as orca
// report --thread has them in memory), which the Model's readers then
// read as those of an unpacked thread. The packed record stays as it
// was; an index of an unpacked thread is left out (the Thread itself is
// given). Not to be called again before the func; ThreadAt may be called
// by other goroutines meanwhile.
func (m *Model) Lend(lent map[int]*Thread) (done func()) {
	tp := m.packed
	if tp == nil || len(lent) == 0 {
		return func() {}
	}
	own := make(map[int]*Thread, len(lent))
	for i, t := range lent {
		if m.Threads[i] == nil {
			own[i] = t
		}
	}
	tp.lent.Store(&own)
	return func() { tp.lent.Store(nil) }
}

// IndexOf returns the index in Threads of the thread id, -1 when the
// Model has none (Thread without the copy).
func (m *Model) IndexOf(id format.ThreadID) int {
	if m.byThread != nil || m.thIdx == nil {
		for i := range m.Threads {
			if m.ThreadIDAt(i) == id {
				return i
			}
		}
		return -1
	}
	return m.threadIndex(id)
}

// ThreadIDAt returns the ID of the thread of index i of Threads.
func (m *Model) ThreadIDAt(i int) format.ThreadID {
	if t := m.Threads[i]; t != nil {
		return t.ID
	}
	return m.packed.ids[i]
}

// AllThreads yields the threads in the order of Threads with their index,
// unpacked one at a time (ThreadAt).
func (m *Model) AllThreads() iter.Seq2[int, *Thread] {
	return func(yield func(int, *Thread) bool) {
		for i := range m.Threads {
			if !yield(i, m.ThreadAt(i)) {
				return
			}
		}
	}
}

// updateThread packs t again as the thread of index i, after a change
// (a packed one only; an unpacked one is t itself). In place when it is
// no longer (dropped blocks of its list, its tail let go).
func (m *Model) updateThread(i int, t *Thread) {
	if m.Threads[i] != nil {
		return
	}
	tp := m.packed
	scratch := packHead(nil, t)
	head := len(scratch)
	scratch = packRest(scratch, t)
	old := tp.at(tp.loc[i])
	if len(scratch) <= packedLen(old) && string(scratch[:head]) == string(old[:head]) {
		// The record is read field by field: what follows it is not
		// read. Its fields up to its name are the same bytes, so the name
		// a reader holds (NameOf's, a copy's from ThreadAt: strings into
		// the block) stays; the list and the tail are copied over
		// themselves or before them. A record whose head changed is
		// packed anew at the end, the old one left as it is: an ended
		// thread's name in the report lost its first letter and gained a
		// byte of the next field when LetGoTails shortened a field
		// before it.
		tp.overwrite(tp.loc[i], head, scratch[head:])
		return
	}
	if loc, ok := tp.add(t, &scratch); ok {
		tp.loc[i] = loc
		return
	}
	c := new(Thread)
	*c = *t
	m.Threads[i] = c
}

// dropBlame lets go of every thread's blame log and forgets its blocks in
// the spill (the holders' pass's, once done).
func (m *Model) dropBlame() {
	for i, t := range m.Threads {
		if t == nil {
			m.dropPacked(i, spillBlame)
			continue
		}
		if t.fold != nil {
			t.fold.blame = blameLog{}
			t.unfold()
		}
		t.spill.drop(spillBlame)
	}
}

// NameOf returns a pointer to the name of the thread id, nil when there is
// none: the Thread's own field, or for a packed one a string kept for
// the Model's life (one for each thread asked, not one for each ask: the
// report names each owner of each lock listed, each thread behind a
// chain). Nothing writes a name through it.
func (m *Model) NameOf(id format.ThreadID) *string {
	if m.packed == nil {
		if t := m.Thread(id); t != nil {
			return &t.Name
		}
		return nil
	}
	i := m.threadIndex(id)
	if i < 0 {
		return nil
	}
	if t := m.Threads[i]; t != nil {
		return &t.Name
	}
	tp := m.packed
	if tp.names == nil {
		tp.names = make([]string, len(m.Threads))
	}
	if tp.named || tp.names[i] != "" {
		return &tp.names[i]
	}
	// Asked by ID, the records are read a piece each, in no order: at
	// c5G-slow5 the report named 1.2 M owners, 5 GB of pieces read for a
	// pack of 0.33 GB. Once the records read for names are as many as the
	// blocks, every name is read in one pass, a block a read: at most
	// twice the fewest reads, whatever the order.
	if tp.nameReads++; tp.nameReads > len(tp.blocks) {
		tp.nameAll(m.Threads)
		return &tp.names[i]
	}
	if name := packedName(tp.at(tp.loc[i])); len(name) > 0 {
		tp.names[i] = string(name) // not the record's bytes
	}
	return &tp.names[i]
}

// nameAll sets names for every packed thread (Threads has nil there),
// their records read in the order they lie, each block of the spill in
// one read. The heads and names in the spill are never stale: a record
// is changed in place only after its name (Model.updateThread), one whose
// head changed is packed anew. The names of a block share one string's
// bytes.
func (tp *threadPack) nameAll(threads []*Thread) {
	var at []int32
	for i, t := range threads {
		if t == nil && tp.names[i] == "" {
			at = append(at, int32(i))
		}
	}
	slices.SortFunc(at, func(a, b int32) int { return cmp.Compare(tp.loc[a], tp.loc[b]) })
	var blk []byte
	for len(at) > 0 {
		k := int(tp.loc[at[0]] >> 16)
		n := 0
		for n < len(at) && int(tp.loc[at[n]]>>16) == k {
			n++
		}
		if b := tp.blocks[k]; b != nil {
			blk = b
		} else {
			r := tp.spilt[k]
			blk = slices.Grow(blk[:0], int(r.len))[:r.len]
			if _, err := tp.sp.readAt(blk, r.off); err != nil {
				panic(&SpillError{err}) // as piece
			}
		}
		var all []byte
		for _, i := range at[:n] {
			all = append(all, packedName(blk[tp.loc[i]&0xffff:])...)
		}
		s := string(all)
		for _, i := range at[:n] {
			w := len(packedName(blk[tp.loc[i]&0xffff:]))
			tp.names[i], s = s[:w], s[w:]
		}
		if tp.blocks[k] != nil {
			blk = nil // not to be read into
		}
		at = at[n:]
	}
	tp.named = true
}

// packedName returns the name in the record packed at the start of p
// (packHead): after the varints of its fields and its length.
func packedName(p []byte) []byte {
	r := packReader(p)
	for range packHeadFields {
		r.u()
	}
	n := int(r.u())
	return r[:n:n]
}

// packHeadFields is how many varints packHead writes before the name's
// length: flags, ID, Parent, Start, the length, the times by state,
// Events, Carrier, the five run times, StartedAt, Carriers, Pinned and
// nSched. TestThreadPack checks packedName against unpackThread.
const packHeadFields = 5 + NumStates + 2 + 5 + 4

// hasThread reports whether m has the thread id (Thread, without a copy
// of a packed one).
func (m *Model) hasThread(id format.ThreadID) bool {
	if m.byThread != nil || m.thIdx == nil {
		return m.Thread(id) != nil
	}
	return m.threadIndex(id) >= 0
}

// PackedThreads returns how many of the Threads are packed
// (Options.PackThreads).
func (m *Model) PackedThreads() int {
	n := 0
	if m.packed != nil {
		for _, t := range m.Threads {
			if t == nil {
				n++
			}
		}
	}
	return n
}

// dropPacked forgets the blocks of kind k of the packed thread of index
// i (spillRef.drop), its record packed again in place, and returns the
// thread (a copy).
func (m *Model) dropPacked(i int, k spillKind) *Thread {
	t := m.ThreadAt(i)
	if !t.spill.has(k) {
		return t
	}
	// Its list a copy of its own: drop writes it in place.
	t.spill.set(append([]byte(nil), t.spill.bytes()...))
	t.spill.drop(k)
	m.updateThread(i, t)
	return t
}

// foldThread returns ts's Thread in the fold: a packed one unpacked (a
// thread retired, packed as it retired: Builder.packRetired) into one of
// its own, which it is from now on, until packed again (Threads and ts
// point to it).
func (m *Model) foldThread(ts *tstate) *Thread {
	if ts.tp == nil {
		t := new(Thread)
		unpackThread(t, m.packed.at(m.packed.loc[ts.num]))
		ts.tp, m.Threads[ts.num] = t, t
		if x := m.foldTh; x != nil && x.byNum[ts.num] == nil {
			// Let go (Builder.letGo) and read through what still held
			// it: the fold's again, unpacked (Finalize reads byNum's).
			x.byNum[ts.num] = ts
		}
	}
	return ts.tp
}

// tOf is Model.foldThread.
func (b *Builder) tOf(ts *tstate) *Thread {
	if ts.tp == nil {
		return b.m.foldThread(ts)
	}
	return ts.tp
}

// packRetired packs the Thread of ts, which retire just finished, when
// it can be (packable): its events counted (Finalize's), Threads and ts
// keep nil in its place.
func (b *Builder) packRetired(ts *tstate) {
	t := ts.tp
	if !packable(t) {
		return
	}
	m := b.m
	if m.packed == nil {
		m.packed = &threadPack{sp: b.spill}
	}
	tp := m.packed
	for len(tp.loc) < len(m.Threads) {
		tp.loc, tp.ids = append(tp.loc, 0), append(tp.ids, 0)
	}
	t.Events = ts.events
	if loc, ok := tp.add(t, &b.packBuf); ok {
		tp.loc[ts.num], tp.ids[ts.num], m.Threads[ts.num], ts.tp = loc, t.ID, nil, nil
	}
}
