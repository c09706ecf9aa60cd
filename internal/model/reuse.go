package model

import (
	"unsafe"

	"orca/internal/format"
)

// Reuse is memory a series of builds hands out again (Options.Reuse):
// the pushes of one orca record --otlp, each of which folds a few MB of
// chunk files into a model that export.OTLP reads and drops before the
// next. The model built before with it must be dead (none of its
// intervals nor locks read again) when the next build starts: their
// memory is the next one's. The threads' interval blocks, joined into
// each thread's Intervals at Finalize, and a Lock with its fold state
// for every object a state names were half of a push's allocations
// (docs/perf/2026-11-30-issue-35-lean-push.md). Not safe for concurrent
// use.
type Reuse struct {
	ivs   slab[Interval]
	locks slab[lockMem]
	objs  slab[objFold]
	// The builder's objects and the Model's locks by object, emptied
	// for the next build (their tables kept: a push's grew from empty).
	objsBy   *probeTab[*objFold]
	byObject map[lockKey]*Lock
	used     bool
	// ivsWas: each thread's intervals at the last build's end, ivsNow:
	// at this one's (swapped at start). A thread's first block is made
	// the size it had then (ivList.hint): a pool's worker has thousands
	// a push, in blocks of up to maxIvBlock joined at Finalize, a copy
	// of each read back from memory (2 % of a push's CPU); made the
	// size of the last, they are mostly one block, not copied.
	ivsWas, ivsNow map[format.ThreadID]int
	// byNum: the last build's Model.byNum, whose memory the next one
	// takes (Finalize puts it here).
	byNum []*objFold
}

// lockMem is a Lock and its fold state, allocated together (st unused
// by a blocker's).
type lockMem struct {
	l  Lock
	ls lstate
	st lockState
}

// start readies r for a build, whose builder b takes its memory.
func (r *Reuse) start(b *Builder) {
	if r.ivs.size == 0 {
		r.ivs.size, r.locks.size, r.objs.size = 32768, 256, 1024
		r.objsBy, r.byObject = b.objs, b.m.byObject
	}
	if r.used {
		r.objsBy.reset()
		clear(r.byObject)
		r.ivs.reset()
		r.locks.reset()
		r.objs.reset()
	}
	r.used = true
	r.ivsWas, r.ivsNow = r.ivsNow, r.ivsWas
	if r.ivsNow == nil {
		r.ivsNow = map[format.ThreadID]int{}
	}
	clear(r.ivsNow)
	b.ivsWas, b.ivsNow = r.ivsWas, r.ivsNow
	b.objs, b.m.byObject, b.m.objs, b.m.foldObjs = r.objsBy, r.byObject, r.objsBy, r.objsBy
	b.ivSlab, b.lockSlab, b.objSlab = &r.ivs, &r.locks, &r.objs
	b.ivFree = nil
	clear(r.byNum)
	b.m.byNum, b.reused = append(r.byNum[:0], nil), r // numbered from 1
}

// freeList holds what the fold let go and nothing points at any more, for
// the next of its kind (issue 34): an hour of a loaded Tomcat parks on
// ~5 M objects once each, and their Locks, fold states, aggregates and
// objects' entries made new were 5.5 GB of its report's 13 GB allocated,
// the collector's cycles as many (docs/perf/2026-12-06-blocker-reuse.md).
// taken counts those taken again (the tests).
type freeList[T any] struct {
	s     []*T
	taken int
}

func (f *freeList[T]) put(x *T) { f.s = append(f.s, x) }

// take returns one let go, cleared, or a new one.
func (f *freeList[T]) take() *T {
	n := len(f.s)
	if n == 0 {
		return new(T)
	}
	x := f.s[n-1]
	f.s[n-1] = nil
	f.s = f.s[:n-1]
	var zero T
	*x = zero
	f.taken++
	return x
}

// slab hands out slices of T from blocks of size it keeps, up to
// slabKeep bytes of them: reset hands them out again from the first. The
// slices are not cleared: zero (take's) does it where T needs it.
type slab[T any] struct {
	size   int
	blocks [][]T
	next   int // blocks[next:] not handed out since reset
	cur    []T
}

// slabKeep bounds the memory a slab keeps from one build to the next:
// past it, blocks are made for one build and left to the collector.
const slabKeep = 48 << 20

// take returns a slice of length n; zero clears it (a block handed out
// again holds the last build's).
func (s *slab[T]) take(n int, zero bool) []T {
	if len(s.cur) < n {
		if n > s.size/2 {
			return make([]T, n) // large: made for it, not kept
		}
		if s.next < len(s.blocks) {
			s.cur = s.blocks[s.next]
			s.next++
		} else {
			s.cur = make([]T, s.size)
			var t T
			if (len(s.blocks)+1)*s.size*int(unsafe.Sizeof(t)) <= slabKeep {
				s.blocks = append(s.blocks, s.cur)
				s.next++
			}
			zero = false
		}
	}
	out := s.cur[:n:n]
	s.cur = s.cur[n:]
	if zero {
		clear(out)
	}
	return out
}

func (s *slab[T]) reset() { s.next, s.cur = 0, nil }
