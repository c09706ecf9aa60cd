package report

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// TestSitesTop: the first n call sites are those of the whole ranking,
// in its order (time, then contentions, then the locks' order and each
// lock's), whether kept as they come (n ≤ sitesKeepMax) or all sorted;
// ties are many (times and counts from a few values).
func TestSitesTop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var locks []Lock
	for i := range 40 {
		l := Lock{Object: fmt.Sprint(i)}
		for j := range r.IntN(12) {
			l.Sites = append(l.Sites, LockSite{Frames: []string{fmt.Sprintf("f%d.%d", i, j)},
				Contentions: r.IntN(3), BlockedS: float64(r.IntN(4)) / 2, Open: r.IntN(2), OpenS: float64(r.IntN(2))})
		}
		locks = append(locks, l)
	}
	b := &builder{}
	all, total := b.sites(locks, 0)
	if len(all) != total || total < 100 {
		t.Fatalf("%d sites of %d", len(all), total)
	}
	for i := 1; i < len(all); i++ {
		x, y := all[i-1], all[i]
		if x.BlockedS+x.OpenS < y.BlockedS+y.OpenS || x.BlockedS+x.OpenS == y.BlockedS+y.OpenS && x.Contentions+x.Open < y.Contentions+y.Open {
			t.Fatalf("site %d ranked before %d: %+v, %+v", i-1, i, x, y)
		}
	}
	for _, km := range []int{256, 0} {
		sitesKeepMax = km
		for n := 1; n <= total+1; n++ {
			got, gotTotal := b.sites(locks, n)
			if want := all[:min(n, total)]; gotTotal != total || !reflect.DeepEqual(got, want) {
				t.Fatalf("sitesKeepMax %d, top %d: %d sites of %d, not the first of the whole ranking", km, n, len(got), gotTotal)
			}
		}
	}
	sitesKeepMax = 256
}
