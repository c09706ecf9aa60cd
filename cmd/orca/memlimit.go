package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// The memory limit of orca report, view, export and push (docs/streaming.md,
// "The memory limit"). Go's collector lets the heap grow to twice what was live after the last
// collection (GOGC=100): a report whose live heap peaks at 1.1 GB (1 GB of
// compact events) reached 2.6 GB of RSS for 1.5 GB that was garbage. A soft
// limit (runtime/debug.SetMemoryLimit) makes the collector run before that:
// memFloor, or, once the live heap is larger, the live heap and a part of
// it (1/memHeadroom) again, followed after each collection. So the limit is
// never under what is live, where the collector would run without end (a
// fixed 1 GiB made c1G's report 2.7 times the CPU); at a small recording's
// live heap (c128: 0.3 GB) it never binds, and the collector is Go's as
// before. A user's GOMEMLIMIT or GOGC decides instead (Go reads them; orca
// sets no limit then). The floor was 1 GiB until the live heap of c1G's
// report fell to ~0.6 GB: then the floor alone set its peak RSS (1.06 GB);
// at 768 MiB it is 0.80 GB, the same output, +8 % CPU in one pair at
// different loads (docs/streaming.md).
const (
	memFloor    = 768 << 20
	memHeadroom = 4
)

// boundMemory sets the limit and follows the live heap, unless the user
// set GOMEMLIMIT or GOGC.
func boundMemory() {
	boundOnce.Do(func() {
		if userSetsMemory(os.LookupEnv) {
			return
		}
		debug.SetMemoryLimit(memFloor)
		go followLive()
	})
}

var boundOnce sync.Once

// userSetsMemory reports whether the environment sets the collector's
// GOMEMLIMIT or GOGC.
func userSetsMemory(lookup func(string) (string, bool)) bool {
	for _, k := range []string{"GOMEMLIMIT", "GOGC"} {
		if _, ok := lookup(k); ok {
			return true
		}
	}
	return false
}

// memLimit is the limit for a live heap of live bytes, and other bytes
// the limit counts that are neither the heap's objects nor its free room
// (the room unused in its spans, stacks, the collector's own): the heap's
// headroom is a quarter of what is live above all of that. Without other,
// a live heap of ~0.6 GB under the floor's 0.8 GB left the collector no
// room, and it ran without end (an hour of a loaded Tomcat's report: 337
// collections, 41 of them in a row at 644 MB live and goal alike, 52 of
// its 158 CPU-s).
func memLimit(live, other uint64) uint64 { return max(memFloor, other+live+live/memHeadroom) }

// followLive raises the limit, after each collection, to the live heap
// and its headroom, when that is above memFloor; lowers it back as the
// live heap falls.
func followLive() {
	tick := gcTicks()
	ms := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"}, {Name: "/memory/classes/heap/free:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"}}
	var set uint64 = memFloor
	for range tick {
		metrics.Read(ms)
		live, total := ms[0].Value.Uint64(), ms[1].Value.Uint64()
		heap := ms[2].Value.Uint64() + ms[3].Value.Uint64() + ms[4].Value.Uint64()
		want := memLimit(live, total-min(heap, total))
		if want != set {
			debug.SetMemoryLimit(int64(want))
			set = want
		}
	}
}

// gcTicks returns a channel that receives a tick after each garbage
// collection (one at most waiting).
func gcTicks() <-chan struct{} {
	tick := make(chan struct{}, 1)
	var arm func()
	arm = func() {
		// A finalizer runs after the collection that found its object
		// unreachable: one tick a collection.
		runtime.SetFinalizer(new([16]byte), func(*[16]byte) {
			select {
			case tick <- struct{}{}:
			default:
			}
			arm()
		})
	}
	arm()
	return tick
}
