package format

import "fmt"

// ThreadID names a thread of a recording: the identity hash code of its
// java.lang.Thread in the low 32 bits (Hash), and above them its rank
// among the threads of the recording with that hash (Rank: 0 for the first,
// 1 for the second, …). Two threads can share an identity hash (31 bits: a
// recording of 100 000 virtual threads had two pairs); the agent tells them
// apart and the compact encoding carries the rank (docs/format.md, "Thread
// aliases"). The seed's text writes the hash alone.
type ThreadID uint64

// NewThreadID returns the ID of the thread of identity hash h and rank n.
func NewThreadID(h uint32, n uint32) ThreadID { return ThreadID(uint64(n)<<32 | uint64(h)) }

// Hash returns the thread's identity hash.
func (t ThreadID) Hash() uint32 { return uint32(t) }

// Rank returns the thread's rank among the threads of its hash (0: the first).
func (t ThreadID) Rank() uint32 { return uint32(t >> 32) }

// ObjectID is the identity hash code of a monitor or semaphore object.
type ObjectID uint32

// MethodID is the agent's compact method number (not a jmethodID).
type MethodID uint32

// ClassID is the identity hash code of a java.lang.Class.
type ClassID uint32

// Time is nanoseconds since the recording's monotonic origin
// (the file's seconds with 10 decimals, of which the last is always 0).
type Time int64

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e9 }

// Hex formats an identity the way the files do: 8 uppercase hex digits.
func Hex(v uint32) string {
	// fmt.Sprintf("%08X", v), without fmt: an OTLP push formats the id of
	// every lock and thread in it (BenchmarkPushLoop).
	const digits = "0123456789ABCDEF"
	var b [8]byte
	for i := len(b) - 1; i >= 0; i-- {
		b[i] = digits[v&0xF]
		v >>= 4
	}
	return string(b[:])
}

// String returns the hash as the files write it, followed for a thread
// that is not the first of its hash by "#" and its number among them
// ("5CDA6869#2" for the second).
func (t ThreadID) String() string {
	if t.Rank() == 0 {
		return Hex(t.Hash())
	}
	return fmt.Sprintf("%08X#%d", t.Hash(), uint64(t.Rank())+1)
}

func (o ObjectID) String() string { return Hex(uint32(o)) }
func (m MethodID) String() string { return Hex(uint32(m)) }
func (c ClassID) String() string  { return Hex(uint32(c)) }

// Frame is one stack frame: a method and a bytecode location
// (NoLocation for native frames).
type Frame struct {
	Method   MethodID
	Location uint32
}
