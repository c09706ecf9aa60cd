package jfr

import "testing"

func TestMUTF8String(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"Žluť-線程", "Žluť-線程"},
		{"\xED\xA0\xBD\xED\xB0\x8B", "🐋"},          // U+1F40B as two surrogate halves
		{"a\xC0\x80b", "a\x00b"},                   // modified UTF-8 NUL
		{"x\xED\xA0\xBDy", "x\uFFFD\uFFFD\uFFFDy"}, // a lone half stays invalid
	} {
		if got := mutf8String([]byte(c.in)); got != c.want {
			t.Errorf("mutf8String(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
