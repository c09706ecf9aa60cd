package jfr

// Obj is a value with its type and chunk, so fields can be looked up by
// name through constant-pool references: ev.Field("eventThread").Field("javaName").Str().
// The zero Obj stands for an absent or null value; every method works on it.
type Obj struct {
	c     *Chunk
	t     *Type
	f     *Field // the field that holds the value (units); nil for events and pool entries
	v     Value
	array bool
	ok    bool
	key   int64 // the constant-pool key the value was found by
	ref   bool
}

// Obj returns the event as an Obj.
func (c *Chunk) Obj(e Event) Obj {
	return Obj{c: c, t: e.Type, v: Value{Elems: e.Fields}, ok: true}
}

// Valid reports whether the value exists (present, not null, resolved).
func (o Obj) Valid() bool { return o.ok }

// Type returns the value's type, nil for the zero Obj.
func (o Obj) Type() *Type { return o.t }

// Field returns the field called name of a struct value, resolved through
// its constant pool; the zero Obj if there is no such field or it is null.
func (o Obj) Field(name string) Obj {
	if !o.ok || o.array || o.t == nil || o.t.prim != primStruct {
		return Obj{}
	}
	i := o.t.FieldIndex(name)
	if i < 0 || i >= len(o.v.Elems) {
		return Obj{}
	}
	f := &o.t.Fields[i]
	return o.c.wrap(f, f.Array, o.v.Elems[i])
}

func (c *Chunk) wrap(f *Field, array bool, v Value) Obj {
	key, ref := v.Int, v.Ref
	if !array {
		var ok bool
		if v, ok = c.Resolve(f.Type, v); !ok || v.Null {
			return Obj{}
		}
	}
	return Obj{c: c, t: f.Type, f: f, v: v, array: array, ok: true, key: key, ref: ref}
}

// Ref returns the constant-pool key the value was looked up by; ok is false
// for a value written inline. Equal keys within a chunk mean equal values.
func (o Obj) Ref() (key int64, ok bool) { return o.key, o.ok && o.ref }

// Len returns the number of elements of an array value (0 otherwise).
func (o Obj) Len() int {
	if !o.ok || !o.array {
		return 0
	}
	return len(o.v.Elems)
}

// Index returns element i of an array value.
func (o Obj) Index(i int) Obj {
	if !o.ok || !o.array || i < 0 || i >= len(o.v.Elems) {
		return Obj{}
	}
	return o.c.wrap(o.f, false, o.v.Elems[i])
}

// Int returns an integral or boolean value (0 for the zero Obj).
func (o Obj) Int() int64 {
	if !o.ok || o.array {
		return 0
	}
	return o.v.Int
}

// Bool returns a boolean value.
func (o Obj) Bool() bool { return o.Int() != 0 }

// Str returns a string value ("" for the zero Obj).
func (o Obj) Str() string {
	if !o.ok || o.array {
		return ""
	}
	return o.v.Str
}

// IsString reports whether the value is a java.lang.String.
func (o Obj) IsString() bool { return o.ok && !o.array && o.t.prim == primString }

// Timespan returns the unit of a duration field ("NANOSECONDS", "TICKS", …), "" if none.
func (o Obj) Timespan() string {
	if o.f == nil {
		return ""
	}
	return o.f.Timespan
}

// Nanos converts a duration value to nanoseconds by its field's Timespan
// unit; ok is false for an unknown unit.
func (o Obj) Nanos() (ns int64, ok bool) {
	v := o.Int()
	switch o.Timespan() {
	case "NANOSECONDS":
		return v, true
	case "MICROSECONDS":
		return v * 1e3, true
	case "MILLISECONDS":
		return v * 1e6, true
	case "SECONDS":
		return v * 1e9, true
	case "TICKS":
		return o.c.Header.TicksToNanos(v), true
	}
	return 0, false
}
