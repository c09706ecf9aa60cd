package report

import (
	"bytes"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/model"
)

// TestHoldersGiven: a report of every thread given what the holders did
// (Options.Holders, as orca view folds it for its locks' details: the
// whole View's HoldersDoingWith) is the report that folds it itself, byte
// for byte, text and JSON, at every golden case's option sets without a
// thread filter; and leaves the map given as it was (every lock each
// holder was blocked on, the viewer's, though the report lists only the
// first holdersTop: fails with the map trimmed, not a copy).
func TestHoldersGiven(t *testing.T) {
	compared := 0
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		for _, args := range append([]string{""}, argSets...) {
			opt := parseArgs(t, args)
			if opt.Thread != "" {
				continue
			}
			rec, res := load(t, name, ar)
			want := New(rec, res, opt)
			holders := res.Model.Filter(nil).HoldersDoingWith(nil)
			spans, ons := 0, 0
			for _, d := range holders {
				spans, ons = spans+len(d.Spans), ons+len(d.On)
			}
			opt.Holders = holders
			got := New(rec, res, opt)
			var a, b bytes.Buffer
			if err := want.WriteJSON(&a); err != nil {
				t.Fatal(err)
			}
			if err := got.WriteJSON(&b); err != nil {
				t.Fatal(err)
			}
			want.WriteText(&a)
			got.WriteText(&b)
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Errorf("%s %q: the report given the holders differs from its own:\n%s\n---\n%s", name, args, b.String(), a.String())
			}
			// A holder blocked on more locks than the report lists
			// (holdersTop): the report trims its copy, not the map given.
			for _, d := range holders {
				for len(d.On) < 2*holdersTop {
					d.On = append(d.On, model.HeldOn{})
				}
				break
			}
			ons = 0
			for _, d := range holders {
				ons += len(d.On)
			}
			New(rec, res, opt)
			s2, o2 := 0, 0
			for _, d := range holders {
				s2, o2 = s2+len(d.Spans), o2+len(d.On)
			}
			if s2 != spans || o2 != ons {
				t.Errorf("%s %q: the holders given changed: %d spans and %d locks blocked on, were %d and %d", name, args, s2, o2, spans, ons)
			}
			compared++
		}
	})
	if compared < 20 {
		t.Errorf("only %d reports compared", compared)
	}
}
