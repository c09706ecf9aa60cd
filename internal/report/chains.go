package report

import (
	"fmt"
	"strings"

	"orca/internal/analysis"
	"orca/internal/model"
)

// Chain is one root of the wait chains (analysis.Chain): a thread others
// waited behind, directly or through threads that waited themselves, and
// the time they spent behind it.
type Chain struct {
	Root     string  `json:"root"`
	RootName *string `json:"root_name"`
	// RootState: what the root did for most of that time ("runnable",
	// "sleeping", "waiting", "parked", "idle", "blocked" with no owner
	// known; "cycle" for a deadlock's root; "ended", "not_started" (not started yet), "unknown"; "released":
	// the holder blamed had released that very lock, in Object.wait or
	// Condition.await on it).
	RootState string `json:"root_state"`
	// Depth: the longest chain to the root (1: all waited for it
	// directly).
	Depth int `json:"depth"`
	// Links: the steps with most time, at most 10; LinksTotal: how many.
	Links      []ChainLink   `json:"links"`
	LinksTotal int           `json:"links_total"`
	Threads    []ChainThread `json:"threads"`
	// S: the sum of the seconds the threads spent behind the root.
	S float64 `json:"s"`
}

// ChainLink is a step of the chains to a root: from waited for to.
type ChainLink struct {
	From ChainThread `json:"from"`
	To   ChainThread `json:"to"`
	// How: "monitor", "lock" (a java.util.concurrent lock), "join",
	// "wait", "park" or "semaphore".
	How    string  `json:"how"`
	Object *string `json:"object"` // null for a join
	Class  *string `json:"class,omitempty"`
	// ClassInit: Object is the JVM's init lock of this class (a "monitor"
	// step): From waits for its initialisation, which To runs.
	ClassInit *string `json:"class_init,omitempty"`
	// S: the seconds of the threads behind the root that went through
	// this step.
	S float64 `json:"s"`
}

// ChainThread is a thread: one behind a root, or an end of a link.
type ChainThread struct {
	ID   string  `json:"id"`
	Name *string `json:"name"`
}

// chainLinks is how many links a chain lists, most time first (a root
// behind which thousands of threads waited has as many).
const chainLinks = 10

// chains lists the roots of the matching threads' waits (--thread: the
// chains of the threads it keeps), most time first, the first n of them
// (0: all), and their number. Asked before what the holders did, both
// come from one read of the intervals (analysis.HoldersAndChainList).
// With Options.Streamed the rows are not made but listed by chainRows,
// each made as it is written.
func (b *builder) chains(n int) ([]Chain, *chainRows, int) {
	var l *analysis.ChainList
	var total int
	if b.doing == nil && !b.opt.NoHolders {
		var doing map[model.LockRef]*model.Doing
		doing, l, total = analysis.HoldersAndChainList(b.v, n, chainLinks)
		b.setDoing(doing)
	} else {
		l, total = analysis.ChainListOf(b.v, n, chainLinks)
	}
	rows := &chainRows{b: b.lean(), l: l}
	if b.opt.Streamed {
		return nil, rows, total
	}
	out := make([]Chain, 0, l.Len())
	rows.all(func(c *Chain) { out = append(out, *c) })
	return out, nil, total
}

// chainRows makes the report's wait chains from the analysis' ChainList as
// they are written (Options.Streamed): with --top 0 every root's is
// listed, made all at once 0.92 GB of c1G's report at its peak.
type chainRows struct {
	b *builder
	l *analysis.ChainList
}

// all yields the rows in order, each made then.
func (cr *chainRows) all(yield func(*Chain)) {
	for k := range cr.l.Len() {
		c := cr.b.chainRow(cr.l.At(k))
		yield(&c)
	}
}

// chainRow is the report's row of c.
func (b *builder) chainRow(c analysis.Chain) Chain {
	if madeRow != nil {
		madeRow("chains")
	}
	r := Chain{Root: c.Root.String(), RootName: b.name(c.Root), RootState: c.RootState, Depth: c.Depth, S: sec(c.Time),
		Links: []ChainLink{}, LinksTotal: c.LinksTotal, Threads: []ChainThread{}}
	if len(c.Links) > chainLinks {
		c.Links = c.Links[:chainLinks]
	}
	for _, l := range c.Links {
		cl := ChainLink{From: ChainThread{l.From.String(), b.name(l.From)}, To: ChainThread{l.To.String(), b.name(l.To)}, How: l.How, S: sec(l.Time)}
		if l.Object != 0 {
			cl.Object = idPtr(l.Object.String(), true)
			cl.Class = b.class(l.Object)
			if l.How == "monitor" {
				cl.ClassInit = b.initOf(l.Object)
			}
		}
		r.Links = append(r.Links, cl)
	}
	for _, th := range c.Threads {
		r.Threads = append(r.Threads, ChainThread{ID: th.String(), Name: b.name(th)})
	}
	return r
}

// madeRow, when set (tests), is called with the list's JSON key as each
// row of the wait chains or the threads is made.
var madeRow func(list string)

// chainList yields the report's wait chains: Chains, or with
// Options.Streamed each made as it is asked for.
func (r *Report) chainList(yield func(*Chain)) {
	if r.chainRows != nil {
		r.chainRows.all(yield)
		return
	}
	for i := range r.Chains {
		yield(&r.Chains[i])
	}
}

// chainSection shows the roots that threads waited behind through other
// waiting threads (depth 2 or more): a root that was only waited for
// directly is its lock's owner to blame in CONTENTION already.
func (r *Report) chainSection(t *textWriter) {
	// Each written as it is made (with Options.Streamed, --top 0: every
	// root's), none held.
	deep := 0
	r.chainList(func(c *Chain) {
		if c.Depth < 2 {
			return
		}
		if deep++; deep == 1 {
			t.section("WAIT CHAINS: threads waiting behind threads that waited themselves, by their root")
		}
		t.printf("  #%d %s, %s: %s, %s behind it\n", deep, t.label(c.Root, c.RootName), rootDoing(c.RootState),
			count(len(c.Threads), "thread", "threads"), dur(c.S))
		for _, l := range c.Links {
			t.printf("      %s %s %s  %s\n", t.label(l.From.ID, l.From.Name), t.linkWord(l), t.label(l.To.ID, l.To.Name), dur(l.S))
		}
	})
	if deep > 0 {
		// A step's time is not its thread's wait (Chain3, docs/perf/2026-12-03-unseen-programs.md):
		// "b blocked on C held by c  1.78 s" when b waited 597 ms and two threads waited behind it.
		t.printf("  (a step's time: the time of the threads behind the root that went through it, its\n" +
			"  thread's own wait and the waits of the threads behind that thread, summed: more than\n" +
			"  its thread waited when others waited behind it)\n")
	}
	if deep == 0 && r.ChainsTotal != nil {
		// Looked for (not --chains=false), and none deeper than the
		// owners CONTENTION blames.
		t.section("No wait chains of two steps or more: each thread waited directly for the root it was behind (the owners CONTENTION blames).")
	}
}

// rootDoing says a root's state in words.
func rootDoing(state string) string {
	switch state {
	case "runnable":
		return "running, ready or in native code"
	case "cycle":
		return "in a deadlock"
	case "ended":
		return "ended"
	case "unknown":
		return "not recorded"
	case "not_started":
		return "not started yet"
	case "blocked":
		return "blocked, owner unknown"
	case "released":
		return "had released the lock (Object.wait or Condition.await on it)"
	case "waiting":
		return "waiting, no thread notified it"
	case "parked":
		return "parked, no thread unparked it"
	case "acquiring":
		return "acquiring a semaphore, no thread released it"
	}
	return state
}

// linkWord says how a step waited: "blocked on monitor X behind".
func (t *textWriter) linkWord(l ChainLink) string {
	obj := ""
	if l.Object != nil {
		obj = " " + t.named(*l.Object, l.Class, "")
	}
	switch l.How {
	case "monitor":
		if c, ok := t.initOf(l.Object); ok {
			return initWait(*l.Object, c) + ", run by"
		}
		return "blocked on monitor" + obj + " held by"
	case "lock":
		return "blocked on lock" + obj + " held by"
	case "join":
		return "joining"
	case "wait":
		return fmt.Sprintf("waiting on%s, notified by", obj)
	case "park":
		return strings.TrimSpace("parked"+obj) + ", unparked by"
	case "semaphore":
		return "acquiring semaphore" + obj + ", released by"
	}
	return l.How
}
