package termjson

import (
	"bytes"
	"encoding/json"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// hasC1 reports whether b holds a C1 control character raw (C2 80 to C2 9F).
func hasC1(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == 0xc2 && b[i+1] >= 0x80 && b[i+1] < 0xa0 {
			return true
		}
	}
	return false
}

// TestEscapeC1: JSON of strings holding every C1 control character, next to
// others of two bytes (U+00A0, U+00C2, é) and C0, written through Writer cut
// at every byte between two writes: the output has no C1 raw, is valid JSON
// and decodes to the same strings. encoding/json alone writes them raw.
func TestEscapeC1(t *testing.T) {
	var c1 strings.Builder
	for r := rune(0x80); r < 0xa0; r++ {
		c1.WriteRune(r)
	}
	in := []string{"plain", "csi\u009b1m\u0085nel", c1.String(), "nbsp\u00a0 Â\u00c2 é \x1b[2J \u2028", "\u00c2\u009b", "end\u009f"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !hasC1(raw) {
		t.Fatalf("encoding/json escaped C1 itself: %q", raw)
	}
	for cut := 0; cut <= len(raw); cut++ {
		var b bytes.Buffer
		w := NewWriter(&b)
		if n, err := w.Write(raw[:cut]); n != cut || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
		if n, err := w.Write(raw[cut:]); n != len(raw)-cut || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
		w.Flush()
		out := b.Bytes()
		if hasC1(out) || !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("cut at %d: %q", cut, out)
		}
		var got []string
		if err := json.Unmarshal(out, &got); err != nil || !slices.Equal(got, in) {
			t.Fatalf("cut at %d: decodes to %q, %v; want %q", cut, got, err, in)
		}
		if !bytes.Contains(out, []byte(`csi\u009b1m\u0085nel`)) {
			t.Fatalf("cut at %d: %s", cut, out)
		}
	}
	// Text without C1 passes unchanged.
	plain := []byte(`{"a":"é\u00a0Â x"}`)
	var b bytes.Buffer
	w := NewWriter(&b)
	w.Write(plain[:8])
	w.Write(plain[8:])
	w.Flush()
	if !bytes.Equal(b.Bytes(), plain) {
		t.Errorf("%q became %q", plain, b.Bytes())
	}
}

// TestEscapeRandom: random strings of characters near C1, written in random
// pieces, decode to themselves.
func TestEscapeRandom(t *testing.T) {
	rnd := rand.New(rand.NewSource(1))
	alphabet := []rune{'a', '"', '\\', 0x1b, 0x7f, 0x80, 0x9b, 0x9f, 0xa0, 0xc2, 0xff, 0x100, 0x2028, 0x10000}
	for i := 0; i < 2000; i++ {
		var in []string
		for j := rnd.Intn(4); j >= 0; j-- {
			var s []rune
			for k := rnd.Intn(12); k > 0; k-- {
				s = append(s, alphabet[rnd.Intn(len(alphabet))])
			}
			in = append(in, string(s))
		}
		raw, _ := json.Marshal(in)
		var b bytes.Buffer
		w := NewWriter(&b)
		for p := raw; len(p) > 0; {
			n := min(1+rnd.Intn(5), len(p))
			w.Write(p[:n])
			p = p[n:]
		}
		w.Flush()
		var got []string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil || hasC1(b.Bytes()) || !slices.Equal(got, in) {
			t.Fatalf("%q: wrote %q, decodes to %q, %v", in, b.Bytes(), got, err)
		}
	}
}
