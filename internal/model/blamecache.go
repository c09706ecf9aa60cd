package model

// blameCache is a write-combining cache in front of the locks' tables of
// owners (lockAgg.owners): a lock's blame of an owner is added to in a
// slot of the cache, and goes to the table's log (sumTab.at) only when
// another lock and owner take the slot, or at the end (flush). Each record
// of a log costs ~400 instructions at 32 MB, its merges' moves and its
// radix passes (docs/perf/2026-12-04-seal-cut.md); a hit of the cache, a
// probe. A seal's threads, fed one after another, are blamed on the owners
// each lock had in the seal's span of time, so a lock and owner repeats
// across the threads of one seal (c128: 3.19 M records of the owners'
// logs, 1.83 M distinct a seal), while a thread's own contentions seldom
// repeat a lock and owner (2.39 M distinct a thread: summing a thread's
// own first, and giving them to the locks once a thread, saves little).
// The sites' and wait sites' tables have no such cache: their records
// repeat less in a seal (c128: 1.94 M records, 1.59 M distinct a seal), and
// one cost more instructions than it saved. A blame is sums, the same
// whatever the order and the pieces it is added in.
type blameCache struct {
	slots []blameSlot
}

// blameSlot is a slot of the blameCache: the blame of owner on the lock of
// number n-1 (lockAgg.n; 0: none), summed so far. A number, not a pointer:
// the slots hold none, so the collector neither scans them nor has a write
// barrier at each slot taken (as pointers, +26 instructions an event of
// the collector's at 32 MB).
type blameSlot struct {
	owner uint64
	n     int32
	bl    blameAgg
}

// blameCacheBits: the cache has 1<<blameCacheBits slots (640 KB).
const blameCacheBits = 14

// make makes the cache's slots.
func (c *blameCache) make() { c.slots = make([]blameSlot, 1<<blameCacheBits) }

// slot returns the slot of the lock of number n-1 and owner. Their blame
// is there if the slot's n and owner are theirs (addBlame looks, in place:
// a method that also took the slot was not inlined); else take gives it to
// them.
func (c *blameCache) slot(n int32, owner uint64) *blameSlot {
	return &c.slots[(owner^uint64(n)<<32)*0x9e3779b97f4a7c15>>(64-blameCacheBits)]
}

// take gives the slot s to the lock of number n-1 and owner, its blame
// before added to its lock's table, the locks ag's.
func (c *blameCache) take(s *blameSlot, ag *aggregator, n int32, owner uint64) {
	if s.n != 0 {
		putOwner(*ag.byN.at(s.n - 1), s.owner, &s.bl)
	}
	*s = blameSlot{owner: owner, n: n}
}

// flush adds every blame of the cache to its lock's table, the locks ag's,
// and empties it.
func (c *blameCache) flush(ag *aggregator) {
	for i := range c.slots {
		if s := &c.slots[i]; s.n != 0 {
			putOwner(*ag.byN.at(s.n - 1), s.owner, &s.bl)
		}
	}
	clear(c.slots)
}
