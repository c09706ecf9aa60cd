package web

import (
	"net/http/httptest"
	"strconv"
	"testing"

	"orca/internal/model"
	"orca/internal/synth"
	"orca/internal/testrec"
)

// oldRelayout is timeline.js relayout as it was when the page held every
// thread's row (before the server laid out the lanes: layout.go), kept
// here as the reference: the order of the lanes and groups, each lane its
// thread's index, each group "g:key:count:blocked".
const oldRelayout = `
const natural = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' }).compare;
const VIRTUAL = '\u0002v:';
function groupKey(name) {
  const m = /^(.*?)(\d+)$/.exec(name);
  return m && m[1] !== '' ? m[1] + '#' : null;
}
function oldRelayout(th, st, onlyList) {
  let list = th;
  const f = (st.filter || '').toLowerCase();
  if (f) list = list.filter((t) => t.name.toLowerCase().includes(f) || t.id.toLowerCase() === f);
  if (onlyList) {
    const only = new Set(onlyList);
    list = list.filter((t) => only.has(t.i));
  }
  const cmp = {
    start: (a, b) => a.start - b.start || a.i - b.i,
    name: (a, b) => natural(a.name, b.name) || a.i - b.i,
    blocked: (a, b) => b.time[1] - a.time[1] || (b.time[5] - a.time[5]) || (b.time[2] - a.time[2]) || a.i - b.i,
  }[st.sort] || ((a, b) => a.i - b.i);
  list = [...list].sort(cmp);
  const out = [];
  if (!st.group) {
    for (const t of list) out.push(t.i);
    return out;
  }
  const groups = new Map();
  const order = [];
  for (const t of list) {
    const key = t.jdk ? '\u0000jdk' : t.virtual ? VIRTUAL + t.name.replace(/\d+/g, 'N') : groupKey(t.name) || '\u0001' + t.i;
    let g = groups.get(key);
    if (!g) { g = { key, members: [] }; groups.set(key, g); order.push(g); }
    g.members.push(t);
  }
  const agg = (g) => g.members.reduce((s, t) => s + t.time[1], 0);
  const gcmp = {
    start: (a, b) => a.members[0].start - b.members[0].start,
    name: (a, b) => natural(a.members[0].name, b.members[0].name),
    blocked: (a, b) => agg(b) - agg(a),
  }[st.sort] || (() => 0);
  order.sort((a, b) => (a.key === '\u0000jdk') - (b.key === '\u0000jdk') || gcmp(a, b));
  for (const g of order) {
    if (g.members.length === 1 && g.key !== '\u0000jdk') { out.push(g.members[0].i); continue; }
    out.push('g:' + g.key + ':' + g.members.length + ':' + agg(g));
    for (const t of g.members) out.push(t.i);
  }
  return out;
}
`

// TestBrowserLanes: the page draws its first screen without asking every
// thread's row (/api/threads), only the lanes' layout and the rows of the
// lanes it shows; and the server's layouts (/api/lanes) are the order the
// page made when it held every row (oldRelayout, run in the page on the
// whole /api/threads): every order, grouped or not, with filters and a
// lock's threads, on a synthetic recording (names with numbers: groups)
// and the report's cases with virtual threads, JDK service threads and an
// import.
func TestBrowserLanes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser")
	}
	prefixes := []string{synthetic(t, "small", synth.Options{Threads: 40, Monitors: 20, Semaphores: 4, Size: 2 << 20}).prefix}
	for _, f := range []string{"split", "cut", "import", "contention"} {
		prefixes = append(prefixes, testrec.Files(t, "../report/testdata/"+f+".txtar"))
	}
	ctx := newBrowser(t, 1280, 800)
	for _, prefix := range prefixes {
		rec, res := testrec.OpenWith(t, prefix, model.Options{})
		ts := httptest.NewServer(New(rec, res, Options{}))
		open(t, ctx, ts.URL+"/")
		waitJS(t, ctx, "the first paint", `!!(window.orca && window.orca.timeline && orca.timeline.metrics.firstPaint)`)
		if eval[bool](t, ctx, `performance.getEntriesByType('resource').some((e) => new URL(e.name).pathname === '/api/threads' && !new URL(e.name).search)`) {
			t.Errorf("%s: the page asked every thread's row", prefix)
		}
		// The labels on screen are the threads' names.
		if bad := eval[string](t, ctx, `orca.timeline.idle().then(() => [...orca.timeline.laneLabels].filter(([i, label]) => !orca.app.threads[i] || !label.replace('…', '').split('').every((c) => orca.app.threads[i].name.includes(c))).map(([i, l]) => i + ' ' + l).join('; '))`); bad != "" {
			t.Errorf("%s: labels not their threads' names: %s", prefix, bad)
		}
		n := len(res.Model.Threads)
		mism := eval[string](t, ctx, oldRelayout+`
(async () => {
  const th = await (await fetch('/api/threads')).json();
  if (th.length !== `+strconv.Itoa(n)+`) return 'threads: ' + th.length;
  const { getLanes, threadRanges } = await import('/static/js/api.js');
  const filters = ['', 'a', '1', 'Thread', 'WORK', 'main', th[th.length - 1].id, th[th.length >> 1].name.slice(1, -1).toUpperCase(), 'no such thread'];
  const only = [th.length - 1, ...th.slice(0, (th.length >> 1) + 1).map((t) => t.i)];
  const bad = [];
  let n = 0;
  for (const sort of ['start', 'name', 'blocked']) {
    for (const group of [false, true]) {
      for (const [filter, ol] of filters.map((f) => [f, null]).concat([['', only], ['a', only]])) {
        const want = oldRelayout(th, { sort, group, filter }, ol);
        const p = { sort, group: group ? '1' : '0' };
        if (filter) p.filter = filter;
        if (ol) p.only = threadRanges(ol);
        const lay = await getLanes(p);
        const got = [];
        for (let k = 0; k < lay.order.length; k++) {
          const v = lay.order[k];
          if (v >= 0) { got.push(v); continue; }
          const g = -v - 1;
          got.push('g:' + lay.groups.key[g] + ':' + lay.groups.count[g] + ':' + lay.groups.blocked[g]);
        }
        n++;
        if (JSON.stringify(got) !== JSON.stringify(want) || lay.lanes !== want.filter((x) => typeof x === 'number').length) {
          let k = 0;
          while (k < got.length && JSON.stringify(got[k]) === JSON.stringify(want[k])) k++;
          bad.push(JSON.stringify(p) + ': at ' + k + ' got ' + JSON.stringify(got.slice(k, k + 3)) + ' want ' + JSON.stringify(want.slice(k, k + 3)) + ' (' + got.length + ' and ' + want.length + ' rows)');
        }
      }
    }
  }
  return n === 66 ? bad.join('\n') : 'compared ' + n;
})()`)
		if mism != "" {
			t.Errorf("%s: the server's layouts differ from the page's before:\n%s", prefix, mism)
		}
		ts.Close()
	}
}
