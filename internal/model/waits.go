package model

import (
	"orca/internal/format"
	"orca/internal/reader"
)

// token is a notify or notifyAll that can end waits.
type token struct {
	seq        int
	all        bool
	by         format.ThreadID
	at         format.Time
	candidates threadSet // waiters when it was sent, less those whose wait ended since
	used       bool
}

// notify folds a notify or notifyAll on ls: a token that can end the
// waits of the threads waiting on it now.
func (b *Builder) notify(ls *lstate, ev *reader.Event) {
	all := ev.Kind == format.ObjectNotifyAll
	if all {
		ls.l.NotifyAlls++
		if !b.noLockFigures { // its bursts: a lock's figure
			ls.storm = append(ls.storm, ev.Time)
			i := 0
			for i < len(ls.storm) && ev.Time-ls.storm[i] > NotifyAllStormWindow {
				i++
			}
			ls.storm = ls.storm[i:]
			if len(ls.storm) > ls.l.MaxNotifyAllBurst {
				ls.l.MaxNotifyAllBurst = len(ls.storm)
			}
		}
	} else {
		ls.l.Notifies++
	}
	cands := ls.waiting.without(ev.Thread)
	if len(cands) == 0 {
		ls.l.NotifiesWokeNobody++
		return
	}
	ls.tokens = append(ls.tokens, token{seq: ls.nextSeq, all: all, by: ev.Thread, at: ev.Time, candidates: cands})
	ls.nextSeq++
}

// endWaiting ends a wait at at: how it ended, and who woke it.
func (b *Builder) endWaiting(ts *tstate, o *openIv, at format.Time, how ending) {
	th := ts.id
	ls := o.ls
	ls.waiting.remove(th)
	switch how {
	case endOpen:
		o.iv.Wake = WakeNever
	case endForced:
		b.unwait(ls, th)
		o.iv.Wake = WakeTimeout
	default:
		var tokAt format.Time
		o.iv.Wake, o.iv.Other, tokAt = b.wake(ls, th, o.seq, at)
		if o.iv.Other != 0 {
			b.edges.add(Edge{Kind: EdgeWake, From: o.iv.Other, To: th, FromTime: tokAt, ToTime: at,
				Object: o.iv.Object, Ambiguous: o.iv.Wake == WakeAmbiguous})
		}
	}
}

// wake decides which notify ended the wait of th (begun at token sequence
// seq) at at: the first one sent since, to a set of waiters th was in.
func (b *Builder) wake(ls *lstate, th format.ThreadID, seq int, at format.Time) (Wake, format.ThreadID, format.Time) {
	for i := range ls.tokens {
		tk := &ls.tokens[i]
		if tk.used || tk.seq < seq || !tk.candidates.has(th) || tk.at > at {
			continue
		}
		w := WakeNotifyAll
		if !tk.all {
			w = WakeNotify
			if len(tk.candidates) > 1 {
				w = WakeAmbiguous
			}
			tk.used = true
		}
		by, tokAt := tk.by, tk.at
		b.unwait(ls, th)
		return w, by, tokAt
	}
	b.unwait(ls, th)
	return WakeTimeout, 0, 0
}

// unwait removes th, whose wait ended, from the waiters every pending
// notify could still wake, and forgets the notifies that can wake nobody.
func (b *Builder) unwait(ls *lstate, th format.ThreadID) {
	k := 0
	for _, tk := range ls.tokens {
		tk.candidates.remove(th)
		if !tk.used && len(tk.candidates) > 0 {
			ls.tokens[k] = tk
			k++
		}
	}
	clear(ls.tokens[k:])
	ls.tokens = ls.tokens[:k]
}
