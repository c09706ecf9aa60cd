package reader

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"testing"

	"orca/internal/format"
	"orca/internal/synth"
)

// decodeAll returns what Events.Next makes of data, with the fast path on
// or off: every event and error in order, whether the file was truncated,
// and the events of each kind.
func decodeAll(t *testing.T, data []byte, fast bool) (seq []Event, errs []string, truncated bool, kinds [format.NumKinds]int) {
	t.Helper()
	defer func(v bool) { compactFast = v }(compactFast)
	compactFast = fast
	evs := NewEvents(bytes.NewReader(data), "f.orca")
	if evs.cp == nil || evs.cp.slow == fast {
		t.Fatal("not read as compact, or not as asked")
	}
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			return seq, errs, evs.Truncated(), kinds
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("before event %d: %v", len(seq), err))
			continue
		}
		kinds[ev.Kind]++
		seq = append(seq, ev)
	}
}

// eachAll is decodeAll by EachEventAt, with stacks numbered (the stack
// cache's path) and small chunks read by two workers.
func eachAll(t *testing.T, data []byte, fast bool) (seq []Event, errs []string, truncated bool) {
	t.Helper()
	defer func(v bool) { compactFast = v }(compactFast)
	compactFast = fast
	opt := EachOptions{Workers: 2, ChunkSize: 256 << 10, Stacks: NewStackTable(),
		Malformed: func(pe *ParseError) { errs = append(errs, fmt.Sprintf("before event %d: %v", len(seq), pe)) }}
	truncated, err := EachEventAt(bytes.NewReader(data), int64(len(data)), "f.orca", opt, func(ev *Event) error {
		seq = append(seq, *ev) // its Stack is the table's: it stays
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return seq, errs, truncated
}

// sameEvents fails t at the first event that differs in any field.
func sameEvents(t *testing.T, what string, got, want []Event, gotErrs, wantErrs []string) {
	t.Helper()
	for i := range min(len(got), len(want)) {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Fatalf("%s: event %d:\nfast %+v\nslow %+v", what, i, got[i], want[i])
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, the slow decoder's %d", what, len(got), len(want))
	}
	if !reflect.DeepEqual(gotErrs, wantErrs) {
		t.Fatalf("%s: errors\n%q\nthe slow decoder's\n%q", what, gotErrs, wantErrs)
	}
}

// TestCompactFastSame checks the fast path (decodeOwn, the stack cache's
// look-up by a stack's bytes) against decodeEvent and the stack's decoding,
// event by event and field by field: on orca-gen's mix with every kind, as
// the 128 MB synthetic recording has it but smaller; cut at the end; and
// with bytes spoiled (malformed records, reported the same at the same
// offsets).
func TestCompactFastSame(t *testing.T) {
	size := int64(6 << 20)
	if testing.Short() {
		size = 1 << 20
	}
	var b bytes.Buffer
	if _, err := synth.New(synth.Options{Size: size, Encoding: format.EncodingCompact, LockOrder: true, Conditions: true}).WriteEvents(&b); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	fast, fastErrs, _, kinds := decodeAll(t, data, true)
	slow, slowErrs, _, _ := decodeAll(t, data, false)
	sameEvents(t, "Next", fast, slow, fastErrs, slowErrs)
	if len(fastErrs) > 0 {
		t.Fatalf("errors in orca-gen's recording: %q", fastErrs)
	}
	for k := format.Kind(1); k < format.NumKinds; k++ {
		if kinds[k] == 0 {
			t.Errorf("no %s in the recording: its decoder is not tested", k)
		}
	}
	fast, fastErrs, _ = eachAll(t, data, true)
	slow, slowErrs, _ = eachAll(t, data, false)
	sameEvents(t, "EachEvent", fast, slow, fastErrs, slowErrs)

	// Cut: the last record, whole or not, and one cut inside a stack.
	for _, cut := range []int{1, 2, 5, 17, 40, 1000} {
		d := data[:len(data)-cut]
		fast, fastErrs, ft, _ := decodeAll(t, d, true)
		slow, slowErrs, st, _ := decodeAll(t, d, false)
		sameEvents(t, fmt.Sprintf("cut %d bytes", cut), fast, slow, fastErrs, slowErrs)
		if ft != st {
			t.Fatalf("cut %d bytes: truncated %v, the slow decoder's %v", cut, ft, st)
		}
	}

	// Spoiled: a few bytes of the first 512 KB changed, 40 times over.
	rng := rand.New(rand.NewPCG(1, 34))
	part := data[:512<<10]
	for round := range 40 {
		d := bytes.Clone(part)
		for range 1 + round%4 {
			i := len(format.CompactHeader) + rng.IntN(len(d)-len(format.CompactHeader))
			switch rng.IntN(3) {
			case 0:
				d[i] ^= byte(1 << rng.IntN(8))
			case 1:
				d[i] = 0xFF
			default:
				d[i] = byte(rng.IntN(0x80))
			}
		}
		fast, fastErrs, _, _ := decodeAll(t, d, true)
		slow, slowErrs, _, _ := decodeAll(t, d, false)
		sameEvents(t, fmt.Sprintf("spoiled, round %d", round), fast, slow, fastErrs, slowErrs)
		fast, fastErrs, _ = eachAll(t, d, true)
		slow, slowErrs, _ = eachAll(t, d, false)
		sameEvents(t, fmt.Sprintf("spoiled, round %d, EachEvent", round), fast, slow, fastErrs, slowErrs)
	}
}

// TestVarintsEnd checks varintsEnd against decoding the varints.
func TestVarintsEnd(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		n := 1 + rng.IntN(40)
		var b []byte
		for range rng.IntN(3) {
			b = append(b, 0x80|byte(rng.IntN(0x80))) // bytes before i
		}
		i := len(b)
		for range n {
			b = format.AppendUvarint(b, rng.Uint64()>>rng.IntN(64))
		}
		end := len(b)
		b = append(b, make([]byte, rng.IntN(12))...)
		if got := varintsEnd(b, i, n); got != end {
			t.Fatalf("varintsEnd(%x, %d, %d) = %d, want %d", b, i, n, got, end)
		}
		if got := varintsEnd(b[:end-1], i, n); got != -1 {
			t.Fatalf("varintsEnd of a cut %x = %d, want -1", b[:end-1], got)
		}
	}
}

// TestUV3 checks uv3 against encoding/binary on values of every length,
// whatever bytes follow them: the value and length of 1–3 bytes, 4 for a
// longer one (then uvLong decodes it).
func TestUV3(t *testing.T) {
	for _, v := range []uint64{0, 1, 0x7F, 0x80, 300, 1<<14 - 1, 1 << 14, 1<<21 - 1, 1 << 21, 1 << 28, 1<<63 + 5} {
		var b [16]byte
		n := binary.PutUvarint(b[:], v)
		for _, after := range []byte{0, 0x7F, 0x80, 0xFF} {
			for j := n; j < len(b); j++ {
				b[j] = after
			}
			got, m := uv3(binary.LittleEndian.Uint32(b[:]))
			if n <= 3 && (got != v || m != n) || n > 3 && m != 4 {
				t.Fatalf("uv3 of %x (%d, %d bytes) = %d, %d bytes", b[:n], v, n, got, m)
			}
		}
	}
}
