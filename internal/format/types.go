package format

import "fmt"

// ThreadID is the identity hash code of a java.lang.Thread.
type ThreadID uint32

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
func Hex(v uint32) string { return fmt.Sprintf("%08X", v) }

func (t ThreadID) String() string { return Hex(uint32(t)) }
func (o ObjectID) String() string { return Hex(uint32(o)) }
func (m MethodID) String() string { return Hex(uint32(m)) }
func (c ClassID) String() string  { return Hex(uint32(c)) }

// Frame is one stack frame: a method and a bytecode location
// (NoLocation for native frames).
type Frame struct {
	Method   MethodID
	Location uint32
}
