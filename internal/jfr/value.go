package jfr

import "fmt"

// Value is one decoded value, of the type its Field names.
type Value struct {
	Int   int64   // integers, chars, booleans (0 or 1), float and double bits; the key of a reference
	Str   string  // a string
	Elems []Value // an array's elements, or a struct's fields in Type.Fields order
	Ref   bool    // Int is a constant-pool key (for a string, into the java.lang.String pool)
	Null  bool    // a null string
}

// maxDepth bounds how deeply structs nest inline. The JDK's deepest is 2
// (StackTrace > StackFrame); a type containing itself inline would otherwise
// recurse without consuming a byte.
const maxDepth = 16

// field decodes the value of f.
func field(d *decoder, f *Field, depth int) (Value, error) {
	if !f.Array {
		return scalar(d, f.Type, f.ConstantPool, depth)
	}
	// Every value takes at least one byte (scalar refuses empty structs),
	// so the count is bounded by what is left.
	n, err := d.count(1)
	if err != nil {
		return Value{}, err
	}
	// Grown as elements decode, so memory follows the bytes really read.
	vs := make([]Value, 0, min(n, 64))
	for range n {
		v, err := scalar(d, f.Type, f.ConstantPool, depth+1)
		if err != nil {
			return Value{}, err
		}
		vs = append(vs, v)
	}
	return Value{Elems: vs}, nil
}

func scalar(d *decoder, t *Type, pooled bool, depth int) (Value, error) {
	if pooled {
		k, err := d.long()
		return Value{Int: k, Ref: true}, err
	}
	switch t.prim {
	case primBoolean:
		b, err := d.byte()
		return Value{Int: int64(min(b, 1))}, err
	case primByte:
		b, err := d.byte()
		return Value{Int: int64(int8(b))}, err
	case primChar:
		v, err := d.varint()
		return Value{Int: int64(uint16(v))}, err
	case primShort:
		v, err := d.varint()
		return Value{Int: int64(int16(v))}, err
	case primInt:
		v, err := d.varint()
		return Value{Int: int64(int32(v))}, err
	case primLong:
		v, err := d.varint()
		return Value{Int: int64(v)}, err
	case primFloat:
		v, err := d.float32bits()
		return Value{Int: int64(v)}, err
	case primDouble:
		v, err := d.float64bits()
		return Value{Int: int64(v)}, err
	case primString:
		s, key, kind, err := d.str()
		if kind == strPool {
			return Value{Int: key, Ref: true}, err
		}
		return Value{Str: s, Null: kind == strNull}, err
	}
	if len(t.Fields) == 0 {
		return Value{}, fmt.Errorf("type %s has no fields and cannot be a value", t.Name)
	}
	if depth >= maxDepth {
		return Value{}, fmt.Errorf("values nested deeper than %d (type %s)", maxDepth, t.Name)
	}
	vs := make([]Value, len(t.Fields))
	for i := range t.Fields {
		v, err := field(d, &t.Fields[i], depth+1)
		if err != nil {
			return Value{}, fmt.Errorf("%s.%s: %w", t.Name, t.Fields[i].Name, err)
		}
		vs[i] = v
	}
	return Value{Elems: vs}, nil
}
