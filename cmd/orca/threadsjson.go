package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"orca/internal/termjson"
)

// writeJSON writes v as encoding/json's Encoder does (one line, not
// indented: 100 000 virtual threads' ids make megabytes, jq indents; HTML
// characters escaped), but the lists of threads of the chains and the
// groups (100 000 virtual threads: their ids and names, 8 MB) go straight
// to w: encoding/json builds the whole output in one buffer grown by
// doubling (a quarter of orca threads' time in the view's JSON, most of it
// clearing the grown buffers). The rest is encoding/json's: each list is
// left out (nil: "null", a key that only the field writes unquoted) and
// written in its place.
func (v *threadsView) writeJSON(w io.Writer) error {
	// The names are the JVM's: C1 control characters escaped too, for a
	// terminal (termjson).
	tw := termjson.NewWriter(w)
	bw := bufio.NewWriter(tw)
	chains, groups := v.Chains, v.Groups
	if chains == nil || groups == nil {
		// (The view makes neither nil.)
		if err := json.NewEncoder(tw).Encode(v); err != nil {
			return err
		}
		return tw.Flush()
	}
	short := *v
	short.Chains, short.Groups, short.List = nil, nil, nil
	// An Encoder hands its whole output to one Write, not copied (as
	// json.Marshal's is: 10 000 platform threads' stacks, megabytes); its
	// buffer goes back to encoding/json's pool when Encode returns, so the
	// lists are spliced in during that Write.
	var err error
	if e := json.NewEncoder(writeFunc(func(top []byte) { err = spliceLists(bw, top, chains, v.List, groups) })).Encode(&short); e != nil {
		return e
	}
	if err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return tw.Flush()
}

// spliceLists writes top, the view's JSON with "chains",
// "platform_threads" and "virtual_threads" null, with chains, list (nil:
// left null) and groups in their places: each thread of the list encoded
// alone (10 000 platform threads' stacks are 8 MB, which encoding/json
// would build in one buffer grown by doubling: 180 ms of orca threads'
// 1 s, most of it clearing fresh memory).
func spliceLists(bw *bufio.Writer, top []byte, chains []nowChain, list []*nowThread, groups []*nowGroup) error {
	rest := splice(bw, top, `"chains":null`, `"chains":[`)
	for i := range chains {
		if i > 0 {
			bw.WriteByte(',')
		}
		c := chains[i]
		refs := c.Threads
		c.Threads = nil
		b, err := json.Marshal(&c)
		if err != nil {
			return err
		}
		writeWithRefs(bw, b, refs)
	}
	bw.WriteByte(']')
	if list != nil {
		rest = splice(bw, rest, `"platform_threads":null`, `"platform_threads":[`)
		var one bytes.Buffer
		enc := json.NewEncoder(&one)
		for i, t := range list {
			if i > 0 {
				bw.WriteByte(',')
			}
			one.Reset()
			if err := enc.Encode(t); err != nil {
				return err
			}
			bw.Write(bytes.TrimSuffix(one.Bytes(), []byte("\n")))
		}
		bw.WriteByte(']')
	}
	rest = splice(bw, rest, `"virtual_threads":null`, `"virtual_threads":[`)
	for i, g := range groups {
		if i > 0 {
			bw.WriteByte(',')
		}
		short := *g
		short.Threads = nil
		b, err := json.Marshal(&short)
		if err != nil {
			return err
		}
		writeWithRefs(bw, b, g.Threads)
	}
	bw.WriteByte(']')
	bw.Write(rest) // with the Encoder's newline
	return nil
}

// writeFunc is an io.Writer that hands each Write's bytes to a function,
// which must not keep them.
type writeFunc func([]byte)

func (f writeFunc) Write(b []byte) (int, error) {
	f(b)
	return len(b), nil
}

// splice writes b up to the key and value at, then with, and returns the
// rest of b after at.
func splice(bw *bufio.Writer, b []byte, at, with string) []byte {
	i := bytes.Index(b, []byte(at))
	if i < 0 {
		panic("threads JSON: no " + at)
	}
	bw.Write(b[:i])
	bw.WriteString(with)
	return b[i+len(at):]
}

// writeWithRefs writes b, an object whose "threads" is null, with refs in
// its place.
func writeWithRefs(bw *bufio.Writer, b []byte, refs []nowRef) {
	if refs == nil {
		bw.Write(b) // encoding/json's of a nil list (the view makes none)
		return
	}
	b = splice(bw, b, `"threads":null`, `"threads":[`)
	for i, r := range refs {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString(`{"id":`)
		writeJSONString(bw, r.ID)
		bw.WriteString(`,"name":`)
		writeJSONString(bw, r.Name)
		bw.WriteByte('}')
	}
	bw.WriteByte(']')
	bw.Write(b)
}

// writeJSONString writes s as encoding/json does: as it is when every byte
// is printable ASCII it leaves alone, else by encoding/json.
func writeJSONString(bw *bufio.Writer, s string) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s)
			bw.Write(b)
			return
		}
	}
	bw.WriteByte('"')
	bw.WriteString(s)
	bw.WriteByte('"')
}
