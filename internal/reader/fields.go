package reader

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"

	"orca/internal/format"
)

// Field decoders. They work on []byte and return a message instead of an
// error so the hot path allocates nothing unless a line is bad.

// hexVal maps a byte to its hex value, or 0xFF.
var hexVal = func() (t [256]byte) {
	for i := range t {
		t[i] = 0xFF
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = byte(c - '0')
	}
	for c := 'a'; c <= 'f'; c++ {
		t[c] = byte(c-'a') + 10
		t[c-'a'+'A'] = byte(c-'a') + 10
	}
	return t
}()

// parseHex decodes an identity or location: 1 to 8 hex digits, either case
// (the agent writes exactly 8 uppercase ones; people editing files do not).
func parseHex(b []byte) (uint32, bool) {
	if len(b) == 0 || len(b) > 8 {
		return 0, false
	}
	var v uint32
	for _, c := range b {
		d := hexVal[c]
		if d == 0xFF {
			return 0, false
		}
		v = v<<4 | uint32(d)
	}
	return v, true
}

const maxSeconds = math.MaxInt64 / 1_000_000_000

// parseTime decodes seconds with up to 10 decimals into nanoseconds with
// integer arithmetic: floats would round 12345.6789012340 off by a
// nanosecond. The 10th decimal (always 0 from the agent) is below the clock's
// resolution and ignored.
func parseTime(b []byte) (format.Time, bool) {
	i := 0
	var sec int64
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		if sec > maxSeconds {
			return 0, false
		}
		sec = sec*10 + int64(b[i]-'0')
	}
	if i == 0 {
		return 0, false
	}
	var ns int64
	digits := 0
	if i < len(b) {
		if b[i] != '.' || i+1 == len(b) {
			return 0, false
		}
		for _, c := range b[i+1:] {
			if c-'0' > 9 {
				return 0, false
			}
			if digits < 9 {
				ns = ns*10 + int64(c-'0')
			}
			digits++
		}
		if digits > 10 {
			return 0, false
		}
	}
	for ; digits < 9; digits++ {
		ns *= 10
	}
	if sec > (math.MaxInt64-ns)/1e9 {
		return 0, false
	}
	return format.Time(sec*1e9 + ns), true
}

// parseCount decodes a stack depth or line-table count: decimal, at most
// 9 digits so it cannot overflow, with a '-' only where signed is true.
func parseCount(b []byte, signed bool) (int, bool) {
	neg := false
	if signed && len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// cutSemi splits b at its first ';'.
func cutSemi(b []byte) (head, tail []byte) {
	if i := bytes.IndexByte(b, ';'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// scanHex decodes the hex number at the start of b, up to a ';' or the end,
// and returns how many bytes it took. A hand-rolled scan: stacks are most
// of a line, and calling IndexByte per 8-digit number costs more than it saves.
func scanHex(b []byte) (v uint32, n int, ok bool) {
	if len(b) >= 8 && (len(b) == 8 || b[8] == ';') {
		// The agent's 8 digits: decode without a branch per digit.
		b := b[:8]
		d0, d1, d2, d3 := hexVal[b[0]], hexVal[b[1]], hexVal[b[2]], hexVal[b[3]]
		d4, d5, d6, d7 := hexVal[b[4]], hexVal[b[5]], hexVal[b[6]], hexVal[b[7]]
		if (d0|d1|d2|d3|d4|d5|d6|d7)&0xF0 == 0 {
			return uint32(d0)<<28 | uint32(d1)<<24 | uint32(d2)<<20 | uint32(d3)<<16 |
				uint32(d4)<<12 | uint32(d5)<<8 | uint32(d6)<<4 | uint32(d7), 8, true
		}
	}
	for ; n < len(b) && b[n] != ';'; n++ {
		d := hexVal[b[n]]
		if d == 0xFF || n == 8 {
			return 0, n, false
		}
		v = v<<4 | uint32(d)
	}
	return v, n, n > 0
}

// parseStack decodes depth;methodID;location;… into a slice of exactly depth
// frames (nil for depth 0). depth is checked against the field's length
// before allocating, so a bogus one cannot allocate more than the line holds.
func parseStack(b []byte) ([]format.Frame, string) { return parseStackIn(b, nil) }

// arenaFrames is the size of the blocks an arena hands frames out of.
const arenaFrames = 64 << 10

// parseStackIn is parseStack taking the frames from *arena when it is not
// nil: one allocation per block of stacks instead of one per stack.
func parseStackIn(b []byte, arena *[]format.Frame) ([]format.Frame, string) {
	d, rest := cutSemi(b)
	depth, ok := parseCount(d, false)
	if !ok {
		return nil, fmt.Sprintf("stack depth %s: want a decimal number", show(d))
	}
	if depth == 0 && len(d) == len(b) {
		return nil, ""
	}
	// A frame takes at least 4 bytes: ";m;l" (rest lacks the first ';').
	if depth == 0 || 4*depth > len(rest)+1 {
		return nil, stackCountMsg(b, depth)
	}
	var frames []format.Frame
	if arena == nil {
		frames = make([]format.Frame, depth)
	} else {
		a := *arena
		if cap(a)-len(a) < depth {
			// Blocks grow from 1 Ki frames to arenaFrames: small inputs
			// (most recordings' stacks, tests) allocate little.
			a = make([]format.Frame, 0, max(min(2*cap(a), arenaFrames), 1<<10, depth))
			*arena = a
		}
		// Taken from the arena only once the stack decoded (below).
		frames = a[len(a) : len(a)+depth : len(a)+depth]
	}
	p := rest
	for i := range frames {
		mid, n, ok := scanHex(p)
		if !ok || n == len(p) {
			return nil, frameMsg(b, depth, i, "method id", p, n)
		}
		p = p[n+1:]
		loc, n, ok := scanHex(p)
		if !ok || (n < len(p) && i == depth-1) || (n == len(p) && i < depth-1) {
			return nil, frameMsg(b, depth, i, "location", p, n)
		}
		if n < len(p) {
			p = p[n+1:]
		}
		frames[i] = format.Frame{Method: format.MethodID(mid), Location: loc}
	}
	if arena != nil {
		*arena = (*arena)[:len(*arena)+depth]
	}
	return frames, ""
}

// frameMsg explains why frame i of stack b did not decode: the count of
// numbers is wrong, or the number at p is not hex.
func frameMsg(b []byte, depth, i int, what string, p []byte, n int) string {
	if bytes.Count(b, []byte{';'}) != 2*depth {
		return stackCountMsg(b, depth)
	}
	end := bytes.IndexByte(p, ';')
	if end < 0 {
		end = len(p)
	}
	return fmt.Sprintf("stack frame %d: %s %s: want 1-8 hex digits", i, what, show(p[:end]))
}

func stackCountMsg(b []byte, depth int) string {
	nums := bytes.Count(b, []byte{';'})
	return fmt.Sprintf("stack depth %d but %d numbers follow, want %d", depth, nums, 2*depth)
}

// parseLineTable decodes count;location;line;… (count decimal, the rest
// hex, location first) sorted by location, so lookups can binary-search.
// A count <= 0 or an empty field means no table.
func parseLineTable(b []byte) ([]LineEntry, string) {
	if len(b) == 0 {
		return nil, ""
	}
	c, rest := cutSemi(b)
	count, ok := parseCount(c, true)
	if !ok {
		return nil, fmt.Sprintf("line table count %s: want a decimal number", show(c))
	}
	want := 2 * max(count, 0)
	if nums := bytes.Count(b, []byte{';'}); nums != want {
		return nil, fmt.Sprintf("line table count %d but %d numbers follow, want %d", count, nums, want)
	}
	if count <= 0 {
		return nil, ""
	}
	lines := make([]LineEntry, count)
	for i := range lines {
		var s, l []byte
		s, rest = cutSemi(rest)
		l, rest = cutSemi(rest)
		start, ok1 := parseHex(s)
		line, ok2 := parseHex(l)
		if !ok1 || !ok2 {
			return nil, fmt.Sprintf("line table entry %d: %s;%s: want two 1-8 digit hex numbers", i, show(s), show(l))
		}
		lines[i] = LineEntry{Start: start, Line: line}
	}
	// Stable, so among equal starts the first written stays first: HotSpot
	// reports that one too.
	slices.SortStableFunc(lines, func(a, b LineEntry) int {
		switch {
		case a.Start < b.Start:
			return -1
		case a.Start > b.Start:
			return 1
		}
		return 0
	})
	return lines, ""
}

// show quotes a field for an error message, cut to a readable length.
func show(b []byte) string {
	const max = 40
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "…"
	}
	return strconv.Quote(string(b))
}
