package report

import (
	"bufio"
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

// TestAppendJSON: an owner's row appended by its own appendJSON is the
// encoder's bytes, at every depth, for floats of every magnitude and
// names with and without what the encoder escapes; where it says it
// cannot (ok false), the encoder writes the row.
func TestAppendJSON(t *testing.T) {
	name := func(s string) *string { return &s }
	names := []*string{nil, name(""), name("pool-1-thread-3"), name(`say "hi"`), name(`back\slash`), name("tab\there"),
		name("ü-worker"), name("<html> & co"), name("\u2028"), name("bad \xff utf-8"), name("c1 \u0085")}
	floats := []float64{0, 1, -1, 0.5, 1e-6, 9.99e-7, 1e-7, 1.5e-9, 1e20, 1e21, 1.2345e22, 123456789.123456789,
		0.295787539, math.SmallestNonzeroFloat64, math.MaxFloat64, -1e-8, math.NaN(), math.Inf(1)}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		floats = append(floats, math.Float64frombits(r.Uint64()), r.Float64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	plain, fellBack := 0, 0
	for i, f := range floats {
		for _, d := range []int{0, 1, 4, 20} {
			e := Owner{Thread: "62C908ED", Name: names[i%len(names)], Contentions: i * 7, Open: -i, BlamedS: f, Pct: floats[(i+1)%len(floats)]}
			if n := names[(i/5)%len(names)]; i%5 == 0 && n != nil {
				e.Thread = *n
			}
			var want bytes.Buffer
			o := newJSONOut(bufio.NewWriter(&want))
			o.value(&e, d)
			o.w.Flush()
			got, ok := e.appendJSON(nil, d)
			if !ok {
				fellBack++
				if o.err == nil && isPlain(&e) {
					t.Errorf("%+v at %d: not appended, the encoder wrote %s", e, d, want.Bytes())
				}
				continue
			}
			plain++
			if o.err != nil {
				t.Fatalf("%+v: appended, the encoder refused it: %v", e, o.err)
			}
			if !bytes.Equal(got, want.Bytes()) {
				t.Fatalf("%+v at depth %d:\n%s\nwant\n%s", e, d, got, want.Bytes())
			}
		}
	}
	if plain == 0 || fellBack == 0 {
		t.Fatalf("%d rows appended, %d by the encoder: both ways not tried", plain, fellBack)
	}
}

// isPlain reports whether every string of e is one plainString writes
// and every float one jsonFloat does.
func isPlain(e *Owner) bool {
	_, a := plainString(nil, e.Thread)
	b := e.Name == nil
	if !b {
		_, b = plainString(nil, *e.Name)
	}
	_, c := jsonFloat(nil, e.BlamedS)
	_, d := jsonFloat(nil, e.Pct)
	return a && b && c && d
}
