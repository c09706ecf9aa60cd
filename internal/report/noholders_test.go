package report

import (
	"bytes"
	"fmt"
	"testing"

	"golang.org/x/tools/txtar"

	"orca/internal/model"
)

// TestNoHolders: a report made with Options.NoHolders is the report made
// without, byte for byte, text and JSON, but for each lock's holders_doing,
// holders_while_s, holders_blocked_on and holders_frames, at every golden
// case's option sets; its holders' fold is not made (no progress step of
// it; fails if it is). And HoldersFrames, of the whole View's
// HoldersDoingWith (what orca view's lock detail folds), gives each lock
// the report's holders_frames.
func TestNoHolders(t *testing.T) {
	compared, frames := 0, 0
	eachCase(t, func(name string, ar *txtar.Archive, argSets []string) {
		for _, args := range append([]string{""}, argSets...) {
			opt := parseArgs(t, args)
			rec, res := load(t, name, ar)
			folds := func(o Options) int {
				n := 0
				o.Progress = func(step string, _, _ int) {
					if step == model.StepHoldersThreads || step == model.StepHoldersSpans {
						n++
					}
				}
				New(rec, res, o)
				return n
			}
			want := New(rec, res, opt)
			if opt.Thread == "" {
				doing := res.Model.Filter(nil).HoldersDoingWith(nil)
				for _, l := range want.Locks {
					ml := lockNamed(t, res.Model, l.Kind, l.Object)
					got := HoldersFrames(rec, res.Model, doing[model.LockRef{Object: ml.Object, Kind: ml.Kind}])
					if fmt.Sprint(got) != fmt.Sprint(l.HoldersFrames) || (got == nil) != (l.HoldersFrames == nil) {
						t.Errorf("%s %q: lock %s %s: HoldersFrames %v, the report's %v", name, args, l.Kind, l.Object, got, l.HoldersFrames)
					}
					frames += len(got)
				}
			}
			for i := range want.Locks {
				l := &want.Locks[i]
				l.HoldersDoing, l.HoldersWhileS, l.HoldersBlockedOn, l.HoldersFrames = nil, 0, nil, nil
			}
			o := opt
			o.NoHolders = true
			got := New(rec, res, o)
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
				t.Errorf("%s %q: the report without the holders differs from the one with them cleared:\n%s\n---\n%s", name, args, b.String(), a.String())
			}
			if n := folds(o); n != 0 {
				t.Errorf("%s %q: NoHolders: the holders' fold ran (%d progress steps)", name, args, n)
			}
			if opt.Top == 0 && folds(opt) == 0 && hasContended(res.Model) {
				t.Errorf("%s %q: no progress step of the holders' fold without NoHolders: the test sees nothing", name, args)
			}
			compared++
		}
	})
	t.Logf("%d reports compared, %d frames", compared, frames)
	if compared < 20 || frames == 0 {
		t.Errorf("only %d reports compared, %d frames", compared, frames)
	}
}

// hasContended reports whether m has a contended monitor or j.u.c. lock.
func hasContended(m *model.Model) bool {
	for _, l := range m.Locks {
		if l.Contended() && (l.Kind == model.Monitor || l.Kind == model.JUCLock) {
			return true
		}
	}
	return false
}

// lockNamed is m's lock of the kind and object the report names.
func lockNamed(t *testing.T, m *model.Model, kind, object string) *model.Lock {
	t.Helper()
	for _, l := range m.Locks {
		if l.Kind.String() == kind && l.Object.String() == object {
			return l
		}
	}
	t.Fatalf("no %s %s in the model", kind, object)
	return nil
}
