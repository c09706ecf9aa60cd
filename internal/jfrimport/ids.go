package jfrimport

import (
	"hash/fnv"

	"orca/internal/format"
)

// JFR names threads by their java.lang.Thread id and monitors by class and
// address; Orca wants 8-hex-digit identity hashes. Each distinct key gets a
// hash of itself, probed upward past collisions (and past 0, which means
// "unknown"), so ids are stable for a file and as stable as possible across
// files of the same program.

// idSpace hands out distinct non-zero 32-bit ids to keys.
type idSpace[K comparable] struct {
	byKey map[K]uint32
	used  map[uint32]bool
}

func newIDSpace[K comparable]() idSpace[K] {
	return idSpace[K]{byKey: map[K]uint32{}, used: map[uint32]bool{}}
}

// get returns k's id, assigning h (or the next free value) at first sight.
func (s *idSpace[K]) get(k K, h uint32) (id uint32, isNew bool) {
	if id, ok := s.byKey[k]; ok {
		return id, false
	}
	for h == 0 || s.used[h] {
		h++
	}
	s.byKey[k] = h
	s.used[h] = true
	return h, true
}

// fmix32 and fmix64 are MurmurHash3's finalizers: bijective mixes, so
// distinct thread ids below 2^32 never collide.
func fmix32(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

func fnv64(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// threadKey identifies a JFR thread: by its Java id, or for a thread
// without one (javaThreadId 0: a JVM-internal thread) by its OS id.
type threadKey struct {
	java, os int64
}

func (k threadKey) hash() uint32 {
	if k.java != 0 {
		return fmix32(uint32(k.java)) ^ uint32(uint64(k.java)>>32)
	}
	return fmix32(uint32(k.os)^0x9E3779B9) ^ uint32(uint64(k.os)>>32)
}

// objectKey identifies a monitor or park blocker: its class and the address
// JFR gives (the inflated monitor's for monitors, the object's for parks).
type objectKey struct {
	class   string
	address int64
}

func (k objectKey) hash() uint32 {
	h := fmix64(uint64(k.address) ^ fnv64(k.class))
	return uint32(h) ^ uint32(h>>32)
}

func classHash(sig string) uint32 {
	h := fnv64(sig)
	return uint32(h) ^ uint32(h>>32)
}

// methodKey identifies a method across chunks: JFR's method ids are only
// valid within a chunk.
type methodKey struct {
	class, name, descriptor string
}

// method is one .methods line in the making.
type method struct {
	id     format.MethodID
	key    methodKey
	class  format.ClassID
	first  format.Time       // first seen
	lines  map[uint32]uint32 // bytecode index → line, as seen in stack frames
	native bool
	// atLine: line → the location first written for it (lineLocation).
	atLine map[uint32]uint32
}

// lineLocation returns the location of a frame of m at line whose
// bytecode index JFR does not give (-1): a compiled frame at a
// synchronized method's entry, where the interpreter says bci 0. It is
// not native (its line is known): the first location seen at that line
// (the interpreted frames' own, so one call site stays one frame), else
// one past every bytecode index (a method's code is under 64 KiB:
// 0x10000 + line), whose line-table entry gives the line and no real
// index resolves to.
func (m *method) lineLocation(line uint32) uint32 {
	if loc, ok := m.atLine[line]; ok {
		return loc
	}
	loc := 0x10000 + line
	m.note(loc, line)
	return loc
}

// note records that location loc of m is at line.
func (m *method) note(loc, line uint32) {
	if _, seen := m.lines[loc]; !seen {
		m.lines[loc] = line
	}
	if m.atLine == nil {
		m.atLine = map[uint32]uint32{}
	}
	if _, seen := m.atLine[line]; !seen {
		m.atLine[line] = loc
	}
}

// class is one .classtable line in the making.
type class struct {
	id    format.ClassID
	sig   string
	first format.Time
}

// thread is what the import knows of a thread.
type thread struct {
	id        format.ThreadID
	name      string
	java, os  int64
	announced bool // its ThreadStarted has been written
	ended     bool // its ThreadEnded has been written
	virtual   bool // a virtual thread (JFR's Thread.virtual, or its VirtualThread* events)
}
