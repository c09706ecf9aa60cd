package jfr

import (
	"fmt"
	"strconv"
)

// Type is one class of a chunk's metadata: an event type, a constant-pool
// type (java.lang.Thread, jdk.types.StackTrace, …) or a primitive.
type Type struct {
	ID     int64
	Name   string // "jdk.JavaMonitorEnter", "java.lang.Thread", "long"
	Fields []Field
	prim   prim
	index  map[string]int // field name → index, for types with many fields
}

// Field is one field of a Type, in the order values are written.
type Field struct {
	Name         string
	Type         *Type
	ConstantPool bool // the value is a key into Type's constant pool
	Array        bool
	// Units from the field's annotations: jdk.jfr.Timespan ("TICKS",
	// "NANOSECONDS", "MILLISECONDS", …) and jdk.jfr.Timestamp ("TICKS",
	// "MILLISECONDS_SINCE_EPOCH"); "" when absent.
	Timespan, Timestamp string

	typeID int64      // until buildTypes resolves Type
	annos  []*element // until buildTypes reads the units
}

// FieldIndex returns the index of the field called name, or -1.
func (t *Type) FieldIndex(name string) int {
	if t.index != nil {
		if i, ok := t.index[name]; ok {
			return i
		}
		return -1
	}
	for i := range t.Fields {
		if t.Fields[i].Name == name {
			return i
		}
	}
	return -1
}

// indexFields makes FieldIndex constant-time for types with many fields
// (none of the JDK's has more than a dozen; damaged metadata may).
func (t *Type) indexFields() {
	if len(t.Fields) <= 16 {
		return
	}
	t.index = make(map[string]int, len(t.Fields))
	for i := len(t.Fields) - 1; i >= 0; i-- {
		t.index[t.Fields[i].Name] = i // the first of equal names wins, as in the scan
	}
}

// prim is how a type's values are encoded.
type prim uint8

const (
	primStruct prim = iota // fields, in order
	primBoolean
	primByte
	primChar
	primShort
	primInt
	primLong
	primFloat
	primDouble
	primString
)

var prims = map[string]prim{
	"boolean": primBoolean, "byte": primByte, "char": primChar, "short": primShort,
	"int": primInt, "long": primLong, "float": primFloat, "double": primDouble,
	"java.lang.String": primString,
}

// element is one node of the metadata event's tree.
type element struct {
	name     string
	attrs    []attr
	children []*element
}

type attr struct{ key, value string }

// attr returns the value of the attribute key, "" if absent.
func (e *element) attr(key string) string {
	for _, a := range e.attrs {
		if a.key == key {
			return a.value
		}
	}
	return ""
}

// The metadata tree is root > metadata > class > field > annotation; a
// deeper tree is damage, and the limit keeps recursion bounded.
const maxElementDepth = 8

// readMetadata decodes the metadata event at off: a string table, then a tree
// of elements whose class elements describe every type of the chunk.
func readMetadata(data []byte, off int64) (map[int64]*Type, error) {
	d := &decoder{b: data, pos: int(off), end: len(data)}
	v, err := d.varint()
	if err != nil {
		return nil, fmt.Errorf("metadata event size: %w", err)
	}
	// The size counts itself.
	if v > uint64(len(data))-uint64(off) || int(off)+int(v) <= d.pos {
		return nil, fmt.Errorf("metadata event size %d does not fit the chunk", v)
	}
	d.end = int(off) + int(v)
	typ, err := d.long()
	if err != nil {
		return nil, fmt.Errorf("metadata event: %w", err)
	}
	if typ != 0 {
		return nil, fmt.Errorf("metadata event has type %d, want 0", typ)
	}
	for _, what := range []string{"start time", "duration", "id"} {
		if _, err := d.long(); err != nil {
			return nil, fmt.Errorf("metadata event %s: %w", what, err)
		}
	}
	n, err := d.count(1)
	if err != nil {
		return nil, fmt.Errorf("metadata string table: %w", err)
	}
	strs := make([]string, n)
	for i := range strs {
		s, _, kind, err := d.str()
		if err == nil && kind == strPool {
			err = fmt.Errorf("refers to a constant pool")
		}
		if err != nil {
			return nil, fmt.Errorf("metadata string %d: %w", i, err)
		}
		strs[i] = s
	}
	root, err := readElement(d, strs, 0)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	return buildTypes(root)
}

func readElement(d *decoder, strs []string, depth int) (*element, error) {
	if depth > maxElementDepth {
		return nil, fmt.Errorf("elements nested deeper than %d", maxElementDepth)
	}
	str := func() (string, error) {
		i, err := d.varint()
		if err != nil {
			return "", err
		}
		if i >= uint64(len(strs)) {
			return "", fmt.Errorf("string index %d out of %d", i, len(strs))
		}
		return strs[i], nil
	}
	e := &element{}
	var err error
	if e.name, err = str(); err != nil {
		return nil, err
	}
	na, err := d.count(2)
	if err != nil {
		return nil, fmt.Errorf("element %s: attributes: %w", e.name, err)
	}
	if na > 0 {
		e.attrs = make([]attr, 0, na)
	}
	for range na {
		k, err := str()
		if err != nil {
			return nil, fmt.Errorf("element %s: %w", e.name, err)
		}
		v, err := str()
		if err != nil {
			return nil, fmt.Errorf("element %s: %w", e.name, err)
		}
		e.attrs = append(e.attrs, attr{k, v})
	}
	nc, err := d.count(3) // a child has at least a name, an attribute count, a child count
	if err != nil {
		return nil, fmt.Errorf("element %s: children: %w", e.name, err)
	}
	for range nc {
		c, err := readElement(d, strs, depth+1)
		if err != nil {
			return nil, err
		}
		e.children = append(e.children, c)
	}
	return e, nil
}

// buildTypes turns the class elements into Types, resolving field types and
// annotation units by id.
func buildTypes(root *element) (map[int64]*Type, error) {
	if root.name != "root" {
		return nil, fmt.Errorf("metadata: top element is %q, want root", root.name)
	}
	types := map[int64]*Type{}
	for _, m := range root.children {
		if m.name != "metadata" {
			continue // "region": locale and time zone
		}
		for _, c := range m.children {
			if c.name != "class" {
				continue
			}
			id, err := strconv.ParseInt(c.attr("id"), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("metadata: class %q: id %q", c.attr("name"), c.attr("id"))
			}
			if _, dup := types[id]; dup {
				return nil, fmt.Errorf("metadata: two classes with id %d", id)
			}
			t := &Type{ID: id, Name: c.attr("name")}
			t.prim = prims[t.Name]
			types[id] = t
			for _, f := range c.children {
				if f.name != "field" {
					continue // annotations and settings of the class
				}
				fid, err := strconv.ParseInt(f.attr("class"), 10, 64)
				if err != nil {
					return nil, fmt.Errorf("metadata: %s.%s: type id %q", t.Name, f.attr("name"), f.attr("class"))
				}
				dim := f.attr("dimension")
				if dim != "" && dim != "0" && dim != "1" {
					return nil, fmt.Errorf("metadata: %s.%s: dimension %s, want at most 1", t.Name, f.attr("name"), dim)
				}
				t.Fields = append(t.Fields, Field{
					Name:         f.attr("name"),
					ConstantPool: f.attr("constantPool") == "true",
					Array:        dim == "1",
					typeID:       fid,
					annos:        f.children,
				})
			}
		}
	}
	for _, t := range types {
		t.indexFields()
		for i := range t.Fields {
			f := &t.Fields[i]
			if f.Type = types[f.typeID]; f.Type == nil {
				return nil, fmt.Errorf("metadata: %s.%s: unknown type id %d", t.Name, f.Name, f.typeID)
			}
			for _, a := range f.annos {
				aid, err := strconv.ParseInt(a.attr("class"), 10, 64)
				if a.name != "annotation" || err != nil || types[aid] == nil {
					continue
				}
				switch types[aid].Name {
				case "jdk.jfr.Timespan":
					f.Timespan = a.attr("value")
				case "jdk.jfr.Timestamp":
					f.Timestamp = a.attr("value")
				}
			}
			f.annos = nil
		}
	}
	return types, nil
}
