package reader

import (
	"bytes"
	"io"
	"testing"

	"orca/internal/format"
)

// genEvents returns n event lines shaped like a real recording: every kind
// in turn, stacks of 1 to 16 frames (the agent's default depth), a few
// quoted thread names.
func genEvents(n int) []byte {
	var b bytes.Buffer
	t := format.Time(1_000_000_000_000)
	for i := 0; i < n; i++ {
		k := format.Kind(1 + i%int(format.NumKinds-1))
		t += format.Time(1000 + i%7919)
		ev := Event{Time: t, Kind: k, Thread: format.ThreadID(0x1000 + i%61)}
		if k.Has(format.FObject) {
			ev.Object = format.ObjectID(0x7F000000 + i%997)
		}
		if k.Has(format.FTarget) {
			ev.Target = format.ThreadID(0x1000 + (i+1)%61)
		}
		if k.Has(format.FOwner) {
			ev.Owner = format.ThreadID(0x1000 + (i+2)%61)
		}
		if k.Has(format.FName) {
			ev.Name = "pool-1-thread-7"
			if i%5 == 0 {
				ev.Name = `worker "A", the first`
			}
		}
		if k.Has(format.FStack) {
			ev.Stack = make([]format.Frame, 1+i%16)
			for j := range ev.Stack {
				ev.Stack[j] = format.Frame{Method: format.MethodID(1 + (i+j)%500), Location: uint32(j * 13)}
			}
			ev.Stack[0].Location = format.NoLocation
		}
		b.Write(encodeEvent(ev))
	}
	return b.Bytes()
}

// BenchmarkEvents measures decoding throughput; the goal is 250 MB/s per core.
func BenchmarkEvents(b *testing.B) {
	data := genEvents(200_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		evs := NewEvents(bytes.NewReader(data), "bench.orca")
		for {
			_, err := evs.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
