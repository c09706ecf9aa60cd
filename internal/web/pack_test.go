package web

import (
	"path/filepath"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// TestModelPacksThreads: the model orca view builds (ModelOptions) keeps
// every ended thread's Thread packed, as orca report's (~100 bytes, not
// 304: 1.33 M of them at 5 GB), on the hand-written cases of the report
// and a synthetic recording; the handlers read them through the model's
// accessors (TestSpillAnswers: the same answers).
func TestModelPacksThreads(t *testing.T) {
	prefixes, _ := filepath.Glob("../report/testdata/*.txtar")
	for i, path := range prefixes {
		prefixes[i] = testrec.Files(t, path)
	}
	prefixes = append(prefixes, synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix)
	allEnded, allPacked := 0, 0
	for _, prefix := range prefixes {
		rec, err := reader.Open(prefix)
		if err != nil {
			continue // a case of a recording that cannot be read
		}
		res, err := model.Build(rec, ModelOptions(rec))
		if err != nil {
			continue
		}
		m := res.Model
		ended := 0
		for _, th := range m.AllThreads() {
			if th.Ended {
				ended++
			}
		}
		if p := m.PackedThreads(); p != ended {
			t.Errorf("%s: %d of %d threads packed, %d ended: an ended thread's Thread kept whole", filepath.Base(prefix), p, m.NumThreads(), ended)
		}
		allEnded += ended
		allPacked += m.PackedThreads()
	}
	if allPacked == 0 || allEnded < 20 {
		t.Errorf("%d threads packed of %d ended: the test checks little", allPacked, allEnded)
	}
	t.Logf("%d threads packed of %d ended in %d recordings", allPacked, allEnded, len(prefixes))
}
