package model

import (
	"cmp"
	"slices"
)

// sumTab is a table of records summed by key, for the seal's aggregator
// (issue 34): a lock's blamed owners and call sites, each added to at
// every contention, nearly every key a new one or one met long before.
// A table probed in place was a miss of the cache at each addition (the
// locks' tables of c1G: ~60 MB, out of the 32 MB cache; 13.5 of its
// ~86 CPU-s in the aggregation). Here an addition is appended to a log,
// its tail in the cache; once the log is as long as the table, it is
// sorted by key and merged into the table, itself sorted by key: both
// read and written in order, the log sorted by its keys' bytes (sortKeys).
// A record is summed from its additions in any order (add): counts, times,
// flags set.
type sumTab[E any, P sumRec[E]] struct {
	log  []sumEnt[E] // the additions since, in order
	ents []sumEnt[E] // sorted by key, each key once
}

// sumRec is a record of a sumTab: add sums another of its key into it.
type sumRec[E any] interface {
	*E
	add(*E)
}

// sumEnt is a record with its key.
type sumEnt[E any] struct {
	key uint64
	e   E
}

// sumLogMin is the fewest additions a table's log holds before it is
// merged: a table of few keys is merged no more often than that. A merge
// moves the whole table and pays the radix passes' 256-bucket sums
// whatever the log's length: at 64, the owners' merges at 32 MB were
// 93 % of logs under 256 records into tables of under 1 024, ~8 moves a
// record. At 128 the model costs 26 instructions an event less (of
// 2 493, docs/perf/2026-12-04-seal-cut.md) for at most 64 records more a
// table under 512 keys (c1G: 640 locks, < 7 MB); at 256, 46 less, but
// c1G's peak RSS 409 -> 443 MB.
const sumLogMin = 128

// at returns the record of key to add to, in the log: valid until the
// next at. Consecutive additions to one key are one record of the log.
// The log is merged once a quarter as long as the table: each of its
// records then costs the moves of five in the merge, in order, and the
// log's room is a quarter of the table's (c1G: the sites' logs as half
// the table, 15 MB of the fold's peak).
func (t *sumTab[E, P]) at(key uint64) *E {
	if n := len(t.log); n > 0 && t.log[n-1].key == key {
		return &t.log[n-1].e
	}
	if t.full() {
		t.merge()
	}
	t.log = append(t.log, sumEnt[E]{key: key})
	return &t.log[len(t.log)-1].e
}

// full reports whether the log is due to be merged.
func (t *sumTab[E, P]) full() bool {
	return len(t.log) >= max(sumLogMin, len(t.ents)/4)
}

// merge sums the log into the table, and empties it.
func (t *sumTab[E, P]) merge() {
	if len(t.log) == 0 {
		return
	}
	log := t.log
	m := len(t.ents)
	// The table's room grown by the log's, where the log is sorted first.
	ents := slices.Grow(t.ents, len(log))
	sortKeys(log, ents[m:m+len(log)])
	// The log's records of one key summed into its first.
	n := 0
	for i := range log {
		if n > 0 && log[n-1].key == log[i].key {
			P(&log[n-1].e).add(&log[i].e)
			continue
		}
		log[n] = log[i]
		n++
	}
	log = log[:n]
	// Merged from the ends, into the table's room: a key in both takes
	// one place, so the records end up from k on.
	ents = ents[:m+n]
	i, j, k := m-1, n-1, m+n
	for j >= 0 {
		k--
		switch {
		case i >= 0 && ents[i].key > log[j].key:
			ents[k] = ents[i]
			i--
		case i >= 0 && ents[i].key == log[j].key:
			ents[k] = ents[i]
			P(&ents[k].e).add(&log[j].e)
			i--
			j--
		default:
			ents[k] = log[j]
			j--
		}
	}
	if k > i+1 {
		// Keys in both: the ones left of the table (0..i, in place) and
		// the merged ones (k..) are apart by k-i-1.
		ents = append(ents[:i+1], ents[k:]...)
	}
	clear(t.log)
	t.ents, t.log = ents, t.log[:0]
}

// sorted merges the log and returns the records, sorted by key.
func (t *sumTab[E, P]) sorted() []sumEnt[E] {
	t.merge()
	return t.ents
}

// len is the count of keys, the log merged.
func (t *sumTab[E, P]) len() int {
	t.merge()
	return len(t.ents)
}

// lookup returns the record of key, the log merged; nil when none.
func (t *sumTab[E, P]) lookup(key uint64) *E {
	ents := t.sorted()
	i, ok := slices.BinarySearchFunc(ents, key, func(e sumEnt[E], k uint64) int { return cmp.Compare(e.key, k) })
	if !ok {
		return nil
	}
	return &ents[i].e
}

// sortKeys sorts s by key, tmp its room (as long): an LSD radix sort, a
// pass per byte in which the keys differ (a lock's owners and sites:
// thread and stack ids of two or three bytes). A sort by comparisons of
// the logs was most of their merges' time.
func sortKeys[E any](s, tmp []sumEnt[E]) {
	if len(s) < 32 {
		for i := 1; i < len(s); i++ {
			for j := i; j > 0 && s[j].key < s[j-1].key; j-- {
				s[j], s[j-1] = s[j-1], s[j]
			}
		}
		return
	}
	var diff uint64
	for i := range s {
		diff |= s[i].key ^ s[0].key
	}
	src, dst := s, tmp[:len(s)]
	for shift := uint(0); shift < 64; shift += 8 {
		if (diff>>shift)&0xff == 0 {
			continue
		}
		var c [256]int32
		for i := range src {
			c[byte(src[i].key>>shift)]++
		}
		prefixSums(&c)
		for i := range src {
			b := byte(src[i].key >> shift)
			dst[c[b]] = src[i]
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// prefixSums sets each count of c to the sum of those before it: four a
// step, 4.25 instructions a count, not 7 (a pass of a log of ~130
// records paid ~1 800 for its 256 sums, 16 instructions an event at
// 32 MB).
func prefixSums(c *[256]int32) {
	sum := int32(0)
	for b := 0; b < len(c); b += 4 {
		q := (*[4]int32)(c[b : b+4])
		c0, c1, c2, c3 := q[0], q[1], q[2], q[3]
		q[0], q[1], q[2], q[3] = sum, sum+c0, sum+c0+c1, sum+c0+c1+c2
		sum += c0 + c1 + c2 + c3
	}
}

// signedKey is x's place among int64s as a uint64: in the same order.
func signedKey(x int64) uint64 { return uint64(x) ^ 1<<63 }
