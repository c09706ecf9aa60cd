package format

import (
	"encoding/binary"
	"hash/crc32"
)

// The wire of the compact encoding (docs/format.md, "The compact encoding
// as a contract"): each field's wire type, once, here. The Go writer and
// reader encode and decode a kind's fields by these types, in the order of
// its Spec; the agent's header (agent/core/events.h) carries each kind's
// descriptor, made by KindDescriptor from the same table.

// Wire is how a field's value is written in a compact record.
type Wire uint8

// The wire types. A reader can step over a value of any of them without
// knowing its field, so a record of a kind it does not know is skipped by
// its descriptor (TagDescriptor). A new type needs a new version.
const (
	WireNone Wire = iota
	WireUV        // an unsigned LEB128 varint
	WireSV        // a zigzag signed varint
	WireU32       // 4 bytes little-endian
	WireByte      // one byte
	WireText      // a uv byte length and that many bytes (UTF-8)
	NumWires
)

// FieldWire is each field's wire type: a thread index, a stack id and a
// timeout (nanoseconds + 1, 0: none) are uv; an object and a thread field
// naming another thread (its hash or alias key) u32; a name and a class
// text; how and mode a byte. Every event record begins with its time as an
// sv delta, before its fields.
var FieldWire = [...]Wire{
	FThread:  WireUV,
	FObject:  WireU32,
	FTarget:  WireU32,
	FOwner:   WireU32,
	FName:    WireText,
	FStack:   WireUV,
	FTimeout: WireUV,
	FHow:     WireByte,
	FClass:   WireText,
	FMode:    WireByte,
	FSampled: WireByte,
	FWeight:  WireUV,
	FCPU:     WireUV,
	FReady:   WireUV,
	FDepth:   WireUV, // depth + 1, 0: not known
	FLock:    WireU32,
}

// KindDescriptor returns the descriptor record of kind k (TagDescriptor):
// the kind, its name, and per field its code (Field) and wire type. A
// chunk of version 3 holds it before the first record of the kind.
func KindDescriptor(k Kind) []byte {
	s := &Specs[k]
	b := []byte{TagDescriptor}
	b = binary.AppendUvarint(b, uint64(k))
	b = binary.AppendUvarint(b, uint64(len(s.Name)))
	b = append(b, s.Name...)
	b = binary.AppendUvarint(b, uint64(len(s.Fields)))
	for _, f := range s.Fields {
		b = append(b, byte(f), byte(FieldWire[f]))
	}
	return b
}

// Castagnoli is the CRC-32C table of the chunks' checksums (the trailer's,
// TagTrailer): the agent computes the same with the SSE 4.2 instruction.
var Castagnoli = crc32.MakeTable(crc32.Castagnoli)
