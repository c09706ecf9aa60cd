// Package jfrtest writes small JFR chunks for tests: a metadata event
// describing the given classes, one checkpoint with constant pools, and
// events, all encoded as the JDK does (compressed integers, UTF-8 strings).
package jfrtest

import (
	"encoding/binary"
	"strconv"
)

// Class is one class of the metadata.
type Class struct {
	ID     int64
	Name   string
	Fields []Field
}

// Field is one field of a Class.
type Field struct {
	Name     string
	Type     int64
	Pool     bool   // constantPool="true"
	Array    bool   // dimension="1"
	Timespan string // a jdk.jfr.Timespan annotation's value, if not empty
}

// Chunk builds one chunk.
type Chunk struct {
	Classes        []Class
	StartNanos     int64 // header: wall clock at the start
	StartTicks     int64
	TicksPerSecond int64 // 0: 1e9
	events         [][]byte
	pools          map[int64][][]byte // type id → entries (key then value)
	poolOrder      []int64
}

// Varint encodes v as JFR's compressed integer.
func Varint(v int64) []byte {
	u := uint64(v)
	var b []byte
	for i := 0; i < 8; i++ {
		if u < 0x80 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

// String encodes s as a UTF-8 string value.
func String(s string) []byte {
	return append(append([]byte{3}, Varint(int64(len(s)))...), s...)
}

// Bool encodes a boolean.
func Bool(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

// Cat concatenates encoded values.
func Cat(parts ...[]byte) []byte {
	var b []byte
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// Event adds an event of type typ whose fields are encoded in fields.
func (c *Chunk) Event(typ int64, fields ...[]byte) {
	c.events = append(c.events, Frame(typ, Cat(fields...)))
}

// Constant adds key → value to the constant pool of type typ.
func (c *Chunk) Constant(typ, key int64, value ...[]byte) {
	if c.pools == nil {
		c.pools = map[int64][][]byte{}
	}
	if _, ok := c.pools[typ]; !ok {
		c.poolOrder = append(c.poolOrder, typ)
	}
	c.pools[typ] = append(c.pools[typ], Cat(Varint(key), Cat(value...)))
}

// Frame prefixes an event body with its size (which counts itself) and type.
func Frame(typ int64, body []byte) []byte {
	rest := append(Varint(typ), body...)
	for n := 1; ; n++ {
		if s := Varint(int64(n + len(rest))); len(s) == n {
			return append(s, rest...)
		}
	}
}

// Bytes returns the chunk: header, events, metadata, checkpoint.
func (c *Chunk) Bytes() []byte {
	tps := c.TicksPerSecond
	if tps == 0 {
		tps = 1e9
	}
	b := make([]byte, 68)
	for _, e := range c.events {
		b = append(b, e...)
	}
	meta := len(b)
	b = append(b, c.metadata()...)
	cp := len(b)
	b = append(b, c.checkpoint()...)
	copy(b, "FLR\x00")
	binary.BigEndian.PutUint16(b[4:], 2)
	binary.BigEndian.PutUint16(b[6:], 1)
	binary.BigEndian.PutUint64(b[8:], uint64(len(b)))
	binary.BigEndian.PutUint64(b[16:], uint64(cp))
	binary.BigEndian.PutUint64(b[24:], uint64(meta))
	binary.BigEndian.PutUint64(b[32:], uint64(c.StartNanos))
	binary.BigEndian.PutUint64(b[48:], uint64(c.StartTicks))
	binary.BigEndian.PutUint64(b[56:], uint64(tps))
	b[67] = 3 // compressed integers, last chunk
	return b
}

func (c *Chunk) checkpoint() []byte {
	body := Cat(Varint(0), Varint(0), Varint(0), []byte{0}, Varint(int64(len(c.poolOrder))))
	for _, typ := range c.poolOrder {
		body = append(body, Varint(typ)...)
		body = append(body, Varint(int64(len(c.pools[typ])))...)
		for _, e := range c.pools[typ] {
			body = append(body, e...)
		}
	}
	return Frame(1, body)
}

// element is a metadata tree node.
type element struct {
	name     string
	attrs    [][2]string
	children []element
}

const timespanID = 1 << 20 // the id given to jdk.jfr.Timespan

func (c *Chunk) metadata() []byte {
	var classes []element
	for _, cl := range c.Classes {
		e := element{name: "class", attrs: [][2]string{{"id", itoa(cl.ID)}, {"name", cl.Name}}}
		for _, f := range cl.Fields {
			fe := element{name: "field", attrs: [][2]string{{"name", f.Name}, {"class", itoa(f.Type)}}}
			if f.Pool {
				fe.attrs = append(fe.attrs, [2]string{"constantPool", "true"})
			}
			if f.Array {
				fe.attrs = append(fe.attrs, [2]string{"dimension", "1"})
			}
			if f.Timespan != "" {
				fe.children = append(fe.children, element{name: "annotation",
					attrs: [][2]string{{"class", itoa(timespanID)}, {"value", f.Timespan}}})
			}
			e.children = append(e.children, fe)
		}
		classes = append(classes, e)
	}
	classes = append(classes, element{name: "class", attrs: [][2]string{{"id", itoa(timespanID)}, {"name", "jdk.jfr.Timespan"}}})
	root := element{name: "root", children: []element{
		{name: "metadata", children: classes},
		{name: "region", attrs: [][2]string{{"locale", "en_US"}}},
	}}
	strs := map[string]int{}
	var table []string
	var enc func(e element) []byte
	idx := func(s string) []byte {
		i, ok := strs[s]
		if !ok {
			i = len(table)
			strs[s] = i
			table = append(table, s)
		}
		return Varint(int64(i))
	}
	enc = func(e element) []byte {
		b := Cat(idx(e.name), Varint(int64(len(e.attrs))))
		for _, a := range e.attrs {
			b = Cat(b, idx(a[0]), idx(a[1]))
		}
		b = append(b, Varint(int64(len(e.children)))...)
		for _, ch := range e.children {
			b = append(b, enc(ch)...)
		}
		return b
	}
	tree := enc(root)
	body := Cat(Varint(0), Varint(0), Varint(1), Varint(int64(len(table))))
	for _, s := range table {
		body = append(body, String(s)...)
	}
	return Frame(0, append(body, tree...))
}

func itoa(v int64) string { return strconv.FormatInt(v, 10) }
