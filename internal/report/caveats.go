package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"orca/internal/analysis"
)

// A headline entry is one thing the report's headline says besides its
// counts, in its lines as the text prints them. The text prints every
// entry; the caveats (flagged or not) are also the JSON's caveats and the
// viewer's warnings (Report.Caveats), so the three say the same words.
type headEntry struct {
	kind  headKind
	lines []string
	// seps[i] joins lines[i+1] to the text before it, as one sentence.
	seps []string
}

type headKind uint8

const (
	// flagged: the figures are incomplete ("!!" in the text).
	flagged headKind = iota
	// caveat: it qualifies the figures (an attach, deleted chunks, a
	// recording still running, owners not known).
	caveat
	// note: a plain fact, the text's alone.
	note
)

// add appends an entry of kind k whose first line is f with args.
func add(es []headEntry, k headKind, f string, args ...any) []headEntry {
	return append(es, headEntry{kind: k, lines: []string{fmt.Sprintf(f, args...)}})
}

// more appends a line to the last entry, which sep joins to the line
// before it in the entry's text (caveats): " " within a sentence, "; " for
// a clause of its own.
func more(es []headEntry, sep, f string, args ...any) {
	e := &es[len(es)-1]
	e.lines = append(e.lines, fmt.Sprintf(f, args...))
	e.seps = append(e.seps, sep)
}

// entries prints es: a flagged one after "  !! " with its further
// lines indented under its text, the others indented by two.
func (t *textWriter) entries(es []headEntry) {
	for _, e := range es {
		for i, l := range e.lines {
			switch {
			case e.kind != flagged:
				t.printf("  %s\n", l)
			case i == 0:
				t.printf("  !! %s\n", l)
			default:
				t.printf("     %s\n", l)
			}
		}
	}
}

// caveats returns the texts of the caveats of es, each one's lines joined
// into a sentence.
func caveats(es ...[]headEntry) []string {
	out := []string{}
	for _, e := range slices.Concat(es...) {
		if e.kind == note {
			continue
		}
		text := e.lines[0]
		for i, l := range e.lines[1:] {
			text += e.seps[i] + l
		}
		out = append(out, text)
	}
	return out
}

// headEntries are what the headline says about the recording before its
// counts: a bounded recording's kept span, an attach.
func (r *Report) headEntries() []headEntry {
	var es []headEntry
	if b := r.Bounded; b != nil {
		var bounds []string
		if b.MaxSizeBytes > 0 {
			bounds = append(bounds, fmt.Sprintf("--max-size %.4g MiB", float64(b.MaxSizeBytes)/(1<<20)))
		}
		if b.MaxAgeS > 0 {
			bounds = append(bounds, "--max-age "+dur(b.MaxAgeS))
		}
		if b.ChunksDeleted > 0 {
			es = add(es, caveat, "bounded recording (%s): kept the last %s of %s recorded (chunk files %s);", strings.Join(bounds, ", "),
				dur(b.keptS), dur(b.RecordedS), b.ChunksKept)
			more(es, " ", "the first %s (%s) were deleted: what threads were doing then", dur(b.DeletedS),
				count(int(b.ChunksDeleted), "chunk file", "chunk files"))
			more(es, " ", "is known only as their state at the kept span's start")
		} else {
			es = add(es, note, "bounded recording (%s): nothing deleted, all %s kept", strings.Join(bounds, ", "), dur(b.RecordedS))
		}
	}
	if a := r.Attached; a != nil {
		end := "it ended with the JVM"
		if a.Stopped {
			end = "stopped while the JVM went on"
			if a.StoppedBy == "lease" {
				end += " (by its lease: the orca record --pid that started it was gone)"
			}
		} else if r.Complete != nil && !*r.Complete {
			end = "still recording, or the JVM was killed"
		}
		es = add(es, caveat, "attached to the running JVM (orca record --pid): %s alive at the attach begin there",
			count(int(a.AliveAtAttach), "thread", "threads"))
		more(es, " ", "(what happened before it is not recorded); %s", end)
		if a.Unread > 0 {
			its := "its"
			if a.Unread > 1 {
				its = "their"
			}
			es = add(es, caveat, "%s blocked on a monitor or waiting at the attach whose monitor could not be read: %s state then is not recorded",
				count(int(a.Unread), "thread", "threads"), its)
		}
	}
	return es
}

// tailEntries are what the headline says after its counts: anything that
// makes the numbers incomplete is flagged; then who owned what is not
// known, and whether the agent dropped events.
func (r *Report) tailEntries() []headEntry {
	var es []headEntry
	if c := r.Cut; c != nil {
		es = add(es, flagged, "recording CUT at %s: %s; the events after it are lost", at(c.AtS), c.Reason)
		if c.WriteErrors != nil && *c.WriteErrors > 0 {
			more(es, " ", "(%s)", count(int(*c.WriteErrors), "failed write", "failed writes"))
		}
		more(es, "; ", "it ends there: %s blocked, waiting, joining or acquiring at the cut,", count(len(c.UnknownAfter), "thread", "threads"))
		more(es, " ", "not hangs: what they did after it is unknown (a wait-for cycle that had stood")
		more(es, " ", "%s by then is a deadlock all the same: monitor cycles do not break)", dur(analysis.MinCycle.Seconds()))
		if c.EventsAfter > 0 {
			more(es, " ", "(%s after the cut, from a later write, skipped)", count(c.EventsAfter, "event", "events"))
		}
	}
	if r.DroppedEvents != nil && *r.DroppedEvents > 0 {
		es = add(es, flagged, "%d events DROPPED by the agent%s (buffer full): counts and times are lower bounds;", *r.DroppedEvents, r.whole())
		more(es, " ", "record again with a larger --buffer or a shorter --flush")
		if r.DroppedAtExit != nil && *r.DroppedAtExit > 0 {
			more(es, " ", "(%d of them at exit: the final flush had to be bounded)", *r.DroppedAtExit)
		}
	}
	if n := r.UnattributedEvents; n != nil && *n > 0 {
		var kinds []string
		for _, k := range slices.Sorted(maps.Keys(r.Unattributed)) {
			if r.Unattributed[k] > 0 {
				kinds = append(kinds, fmt.Sprintf("%s %d", k, r.Unattributed[k]))
			}
		}
		es = add(es, flagged, "%s of virtual threads not attributed (not recorded)%s", count(int(*n), "event", "events"), r.whole())
		if len(kinds) > 0 {
			more(es, ": ", "%s", strings.Join(kinds, ", "))
		}
	}
	if n := r.VirtualThreads; n != nil && *n > 0 {
		es = add(es, note, "%s started while recording%s", count(int(*n), "virtual thread", "virtual threads"), r.whole())
	}
	if n := r.PinnedTotal; n > 0 {
		var who []string
		for _, p := range r.Pinned[:min(len(r.Pinned), 3)] {
			who = append(who, fmt.Sprintf("%s %d", label(p.Thread, &p.Name), p.Pinned))
		}
		if k := r.PinnedThreads - len(who); k > 0 {
			who = append(who, "and "+count(k, "more thread", "more threads"))
		}
		what := "1 park or sleep of a virtual thread pinned its carrier thread"
		if n > 1 {
			what = fmt.Sprintf("%d parks and sleeps of virtual threads pinned their carrier threads", n)
		}
		es = add(es, note, "%s (VirtualThreadPinned: it could not unmount, the carrier blocked with it): %s", what, strings.Join(who, ", "))
	}
	if r.ParseErrors > 0 {
		es = add(es, flagged, "%s skipped; the first:", count(r.ParseErrors, "malformed line", "malformed lines"))
		more(es, " ", "%s", first(r.ParseErrorSamples))
	}
	if r.Truncated {
		es = add(es, flagged, "the last record of %s is cut short (%s) and was skipped", r.lastEvents(), r.TruncatedWhy)
	}
	if r.Unclosed && !r.Live {
		// A recording still written ends so: the live caveat says it.
		es = add(es, caveat, "the last chunk of %s has no trailer: the file ends where its writing stopped (a kill, or a copy of a file being written); what was read of it is the recording", r.lastEvents())
	}
	switch {
	case r.Live:
		// Not flagged: nothing is wrong, the events go on.
		es = add(es, caveat, "live: the JVM is still recording (it holds the lock on %s.orca): the events up to now", r.Prefix)
	case r.Complete == nil || *r.Complete:
	case r.Sight != nil:
		es = add(es, flagged, "incomplete import (complete=false): part of the %s file could not be read", r.Sight.sourceName())
	default:
		es = add(es, flagged, "incomplete recording (complete=false): the JVM did not exit normally (killed or crashed)")
	}
	es = r.sightEntries(es)
	if r.Problems > 0 {
		es = add(es, flagged, "%s could not be placed in a thread's timeline; the first:", count(r.Problems, "event", "events"))
		more(es, " ", "%s", first(r.ProblemSamples))
	}
	for _, w := range r.Warnings {
		es = add(es, flagged, "%s", w)
	}
	es = r.lostEntry(es)
	if r.WrittenLate > 0 {
		es = add(es, caveat, "%s written out of time order, behind later ones (the agent's thread kept from its buffer past the writer's hold-back: a loaded machine); there an end may have been read before its cause (an unpark after the park it ended)",
			count(int(r.WrittenLate), "event line", "event lines"))
	}
	if r.OwnerUnknown > 0 {
		why := unknownWhy(r.OwnerUnknownWhy, r.Sight, r.jucOwnerUnknown)
		if r.partial() && len(r.OwnerUnknownWhy) > 0 {
			why = r.partialUnknownWhy()
		}
		es = add(es, caveat, "owner unknown for %s, %s of %s blocked (%s)%s", count(r.OwnerUnknown, "contention", "contentions"),
			dur(r.OwnerUnknownS), dur(r.BlockedS+r.OpenS), share(r.OwnerUnknownS, r.BlockedS+r.OpenS), why)
	}
	flags := 0
	for _, e := range es {
		if e.kind == flagged {
			flags++
		}
	}
	switch {
	case r.DroppedEvents == nil && !r.hasInfo:
		es = add(es, caveat, "(no %s.info: whether the agent dropped events is unknown)", r.Prefix)
	case r.DroppedEvents == nil:
		es = add(es, caveat, "(%s.info does not say whether events were dropped)", r.Prefix)
	case flags == 0:
		es = add(es, note, "no events dropped, no malformed lines")
	}
	return es
}

// partialUnknownWhy is unknownWhy for a partial report: the agent's
// counts are of its whole run (a bounded recording's kept span said 13
// contentions, "released (110)"), said so; the owners the fold took for
// unknown because they had ended (owner_ended, model.Model.OwnerEnded)
// are the part's own, said after them.
func (r *Report) partialUnknownWhy() string {
	agent := maps.Clone(r.OwnerUnknownWhy)
	delete(agent, "owner_ended")
	var parts []string
	if len(agent) > 0 {
		parts = append(parts, "in the whole recording, "+strings.TrimPrefix(unknownWhy(agent, r.Sight, r.jucOwnerUnknown), ": "))
	}
	if n := r.OwnerUnknownWhy["owner_ended"]; n > 0 {
		ended := strings.TrimPrefix(unknownWhy(map[string]int64{"owner_ended": n}, nil, false), ": ")
		if len(agent) > 0 {
			ended = "in this report, " + ended
		}
		parts = append(parts, ended)
	}
	return ": " + strings.Join(parts, "; ")
}

// whole is " in the whole recording" where the report is partial: what
// .info counts (events dropped, samples lost) is of the agent's whole run,
// and may have happened outside the part reported.
func (r *Report) whole() string {
	if r.partial() {
		return " in the whole recording"
	}
	return ""
}

// partial reports whether the report covers part of what the agent
// recorded: a time range, a thread filter, or a bounded recording whose
// first chunks were deleted. .info's counts are of the whole.
func (r *Report) partial() bool {
	return r.Range != nil || r.Filter != nil || r.Bounded != nil && r.Bounded.ChunksDeleted > 0
}

// lastEvents names the file the recording's last events are in:
// PREFIX.orca, or a bounded recording's last chunk file.
func (r *Report) lastEvents() string {
	if r.lastFile != "" {
		return r.lastFile
	}
	return r.Prefix + ".orca"
}
