package model

import "iter"

// numTab is a table by a number that grows by one with every lock the
// fold makes (lockAgg.n), in chunks of numChunk entries: growing it copies
// nothing and never holds a dropped array beside its new one. As slices
// grown by append, the aggregator's three such tables (byN, recOf,
// firstIdx) were 87 MB of the 1.16 GB that ten minutes of a loaded
// Tomcat's report allocated, a lock per object parked on once, copied at
// each doubling (docs/streaming.md).
type numTab[T any] struct {
	chunks [][]T // each numChunk long; entries from n on are zero
	n      int32
}

// numChunkBits: a numTab's chunk has 1<<numChunkBits entries (32 KB of
// pointers).
const numChunkBits = 12

const numChunk = 1 << numChunkBits

// len returns the number of entries.
func (t *numTab[T]) len() int32 { return t.n }

// at returns entry i, which is below len.
func (t *numTab[T]) at(i int32) *T { return &t.chunks[i>>numChunkBits][i&(numChunk-1)] }

// push adds v as entry len and returns its number.
func (t *numTab[T]) push(v T) int32 {
	i := t.n
	t.reach(i + 1)
	*t.at(i) = v
	return i
}

// reach makes len at least n, the entries added zero.
func (t *numTab[T]) reach(n int32) {
	for int(n) > len(t.chunks)<<numChunkBits {
		t.chunks = append(t.chunks, make([]T, numChunk))
	}
	t.n = max(t.n, n)
}

// all yields the entries in order.
func (t *numTab[T]) all() iter.Seq[T] {
	return func(yield func(T) bool) {
		left := t.n
		for _, c := range t.chunks {
			for _, v := range c[:min(left, numChunk)] {
				if !yield(v) {
					return
				}
			}
			if left -= numChunk; left <= 0 {
				return
			}
		}
	}
}
