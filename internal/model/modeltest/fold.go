package modeltest

import (
	"io"
	"strings"
	"testing"

	"orca/internal/model"
	"orca/internal/reader"
)

// Fold folds event lines ("time,Kind,fields…"; ids are hex, short ones
// allowed), a test's recording written in its text, into a model, which
// must pass Validate with no problems.
func Fold(t testing.TB, lines string) *model.Model {
	t.Helper()
	b := model.New()
	Feed(t, b, lines)
	m := b.Finalize()
	for _, e := range Validate(m) {
		t.Errorf("invalid model: %v", e)
	}
	for _, p := range m.Problems {
		t.Errorf("problem: %s", p)
	}
	return m
}

// Feed gives b the events of lines, as Fold does.
func Feed(t testing.TB, b *model.Builder, lines string) {
	t.Helper()
	evs := reader.NewEvents(strings.NewReader(strings.TrimSpace(lines)+"\n"), "test.orca")
	for {
		ev, err := evs.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		b.Event(&ev)
	}
}
