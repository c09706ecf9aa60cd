// Locks: the contention ranking, and per lock its owners, waiters and sites.
// The short-lived objects of a group (/api/groups, as orca report groups
// them) are one row, their objects listed in its detail.

import { getJSON, threadRefs } from './api.js';
import { STATE_COLORS, fmtDur, fmtCount, fmtTime, breakable, h, kindWord, stackEl, fill, doingEl } from './format.js';

// The columns. Every figure of /api/locks has one, so that no row is blank
// whatever its only activity (a park, a notify, an uncontended acquire).
// A blocker's parks are its waits (the model counts them so): one pair of
// columns says both, as the row's kind tells which. Headers wrap at their
// spaces, so that the table fits beside the detail at 1280 px.
const COLUMNS = [
  { key: 'object', label: 'Lock', cmp: (a, b) => a.object.localeCompare(b.object) },
  { key: 'kind', label: 'Kind', cmp: (a, b) => a.kind.localeCompare(b.kind) },
  { key: 'contentions', label: 'Conten\u00adtions', num: true, title: 'Contended enters (monitors, j.u.c. locks) or acquires a release let through (semaphores)' },
  // Sorted by the model's rank, orca report's CONTENTION order: the time
  // of contentions still going on at the end (a deadlock's) counts too.
  { key: 'blocked', label: 'Blocked', num: true, dur: true, title: 'Time threads were blocked on it (sorted as orca report ranks locks: with the time of those still blocked at the end)', cmp: (a, b) => b.rank - a.rank },
  { key: 'maxBlocked', label: 'Longest', num: true, dur: true, title: 'The longest contention' },
  { key: 'openBlocked', label: 'Still blocked', num: true, dur: true, title: 'Contentions still going on at the end (a deadlock, a hang): their time added up, and how many threads' },
  { key: 'waiters', label: 'Threads blocked', num: true },
  { key: 'topOwner', label: 'Most blamed owner', cmp: null, title: 'The owner that held it longest while others were blocked' },
  { key: 'waits', label: 'Waits\u00a0/ parks', num: true, title: 'Object.wait calls on a monitor; LockSupport.park calls on a park object' },
  { key: 'waitTime', label: 'Waited\u00a0/ parked', num: true, dur: true, title: 'Their time' },
  { key: 'notifies', label: 'Notifies', num: true, title: 'notify and notifyAll calls' },
  { key: 'acquires', label: 'Acquires', num: true, title: 'Semaphore acquires, contended or not' },
];

// stillBlocked says the time of the contentions still going on at the end,
// added up, and by how many threads ("8.682 s, 2 threads": "2× 8.682 s"
// read as two contentions of that length each).
const stillBlocked = (open, ns) => `${fmtDur(ns)}, ${fmtCount(open)} ${open === 1 ? 'thread' : 'threads'}`;

// isPark tells a row whose waits are parks (a blocker, or a group of them).
const isPark = (l) => l.kind.startsWith('blocker');

// kindLabel is a row's kind in orca report's words: "lock" for a
// java.util.concurrent lock (juc), "park" for another park's blocker, also
// in a group's ("park group").
const kindLabel = (k) => k.replace(/^\w+/, kindWord);

// ROWS_STEP is how many rows of locks the table shows at first, and how
// many more each click of its button.
const ROWS_STEP = 500;

export class Locks {
  constructor(app, root) {
    this.rowsShown = ROWS_STEP;
    this.app = app;
    this.root = root;
    this.tbody = h('tbody');
    this.head = h('tr');
    this.table = h('table', { class: 'grid locks' }, h('thead', null, this.head), this.tbody);
    this.detail = h('div', { class: 'lock-detail' });
    this.note = h('div', { class: 'view-note' });
    // Where the table is wider than its view (a narrow window), a fade at
    // the right edge and a button say that more columns are to the right.
    // The button sits in the note's row above the table: over the table it
    // covered a column's header (issue 31, item 9).
    this.wrap = h('div', { class: 'table-wrap', onscroll: () => this.cue() }, this.table);
    this.cueEl = h('button', { class: 'scroll-cue', hidden: true, title: 'More columns to the right',
      onclick: () => this.wrap.scrollBy({ left: this.wrap.clientWidth * 0.8, behavior: 'smooth' }) }, 'more columns →');
    root.append(h('div', { class: 'locks-view' },
      h('div', { class: 'locks-main' }, h('div', { class: 'note-row' }, this.note, this.cueEl), h('div', { class: 'table-box' }, this.wrap)),
      this.detail));
    new ResizeObserver(() => this.cue()).observe(this.wrap);
  }

  // cue shows the scroll cue while columns lie beyond the right edge.
  cue() {
    const w = this.wrap;
    const more = w.scrollWidth - w.clientWidth - w.scrollLeft > 1;
    this.cueEl.hidden = !more;
    w.parentElement.classList.toggle('more-right', more);
  }

  setData(locks, groups) {
    this.groups = groups || [];
    const rows = locks.filter((l) => l.group == null);
    this.groups.forEach((g, i) => rows.push({
      object: `${fmtCount(g.objects)} objects`, kind: `${g.kind} group`, class: g.class, group: i,
      contentions: 0, blocked: 0, maxBlocked: 0, open: 0, openBlocked: 0, waiters: 0, topOwner: -1, rank: locks.length + i,
      waits: g.waits, waitTime: g.waitTime, notifies: g.notifies, notifyAlls: g.notifyAlls, acquires: 0,
    }));
    this.locks = rows;
    // A loop, not Math.max(...rows): an hour of a server has hundreds of
    // thousands of rows, more arguments than a call takes (a RangeError
    // that left the whole page blank).
    this.maxBlocked = 1;
    this.maxWait = 1;
    for (const l of rows) {
      this.maxBlocked = Math.max(this.maxBlocked, l.blocked);
      this.maxWait = Math.max(this.maxWait, l.waitTime);
    }
    // The model decides (Lock.Contended), as for orca report.
    const contended = rows.filter((l) => l.contended).length;
    const grouped = this.groups.reduce((n, g) => n + g.objects, 0);
    const inGroups = grouped ? ` (${fmtCount(grouped)} short-lived objects of one class and call site in ${fmtCount(this.groups.length)} ${this.groups.length === 1 ? 'group' : 'groups'})` : '';
    // A group's members are in locks (group set) when the model keeps
    // them as Locks, and only counted in the group when it keeps them as
    // records (model.Group.Members).
    const all = locks.filter((l) => l.group == null).length + grouped;
    this.note.textContent = `${fmtCount(all)} monitors, semaphores and objects that were contended, waited on, notified, parked on or acquired${inGroups}; ${fmtCount(contended)} contended. Click a column to sort, a row for its owners, waiters and call sites.`;
  }

  // rowID is a row's selection id: kind:object, or group:index.
  rowID(l) { return l.group == null ? `${l.kind}:${l.object}` : `group:${l.group}`; }

  render() {
    const st = this.app.state;
    const [key, dir] = (st.lockSort || 'blocked:desc').split(':');
    this.head.replaceChildren(...COLUMNS.map((c) => h('th', {
      class: (c.num ? 'num ' : '') + (c.key === key ? 'sorted ' + dir : '') + (c.cmp === null ? '' : ' sortable'), title: c.title,
      onclick: c.cmp === null ? null : () => {
        st.lockSort = `${c.key}:${c.key === key && dir === 'desc' ? 'asc' : c.key === key ? 'desc' : c.num ? 'desc' : 'asc'}`;
        this.rowsShown = ROWS_STEP;
        this.app.changed();
        this.render();
      },
    }, c.label)));
    const col = COLUMNS.find((c) => c.key === key) || COLUMNS[3];
    const cmp = col.cmp || ((a, b) => a[col.key] - b[col.key]);
    const rows = [...this.locks].sort((a, b) => (dir === 'asc' ? cmp(a, b) : cmp(b, a)) || b.blocked - a.blocked || a.object.localeCompare(b.object));
    // The first rowsShown rows, then a button for more, then the selected
    // row when it is past them (a shared URL's): a table of every lock of
    // an hour of a server (171 414 of Tomcat's) is more rows than a page
    // draws.
    const n = Math.min(rows.length, this.rowsShown);
    const shown = rows.slice(0, n);
    const at = st.lockSel ? rows.findIndex((l) => this.rowID(l) === st.lockSel) : -1;
    if (at >= n) shown.push(rows[at]);
    const threads = this.app.threads;
    // The top owners' names: their rows asked, then drawn again.
    const missing = shown.filter((l) => l.topOwner >= 0 && !threads[l.topOwner]).map((l) => l.topOwner);
    if (missing.length) this.app.loadThreads(missing).then(() => this.render(), (e) => this.app.error(e.message));
    const trs = shown.map((l) => {
      const id = this.rowID(l);
      const [kind, object] = id.split(':');
      return h('tr', { class: id === st.lockSel ? 'selected' : '', dataset: { lock: id }, onclick: () => this.select(kind, object) },
        h('td', { class: 'lock-name' }, h('code', null, l.object), l.class ? h('div', { class: 'muted cls' }, breakable(l.class)) : null,
          l.callLabel ? h('div', { class: 'muted cls', title: l.call }, l.callLabel) : null,
          l.leftLocked ? h('div', { class: 'left-locked cls', title: leftLockedTitle(l.leftLocked) }, `left locked by ${l.leftLocked.map((x) => x.name).join(', ')}`) : null),
        h('td', { class: 'kind' }, kindLabel(l.kind)),
        h('td', { class: 'num' }, l.contentions ? fmtCount(l.contentions) : ''),
        h('td', { class: 'num barcell' }, h('span', { class: 'cellbar', style: { width: `${(100 * l.blocked) / this.maxBlocked}%`, background: STATE_COLORS[1] } }), l.blocked ? fmtDur(l.blocked) : ''),
        h('td', { class: 'num' }, l.maxBlocked ? fmtDur(l.maxBlocked) : ''),
        h('td', { class: 'num' }, l.open ? stillBlocked(l.open, l.openBlocked) : ''),
        h('td', { class: 'num' }, l.waiters ? fmtCount(l.waiters) : ''),
        h('td', { class: 'owner' }, l.topOwner >= 0 && threads[l.topOwner] ? breakable(threads[l.topOwner].name) : ''),
        h('td', { class: 'num', title: l.waits ? `${fmtCount(l.waits)} ${isPark(l) ? 'parks' : 'waits'}` : null }, l.waits ? fmtCount(l.waits) : ''),
        h('td', { class: 'num barcell' }, h('span', { class: 'cellbar', style: { width: `${(100 * l.waitTime) / this.maxWait}%`, background: STATE_COLORS[isPark(l) ? 6 : 2] } }), l.waitTime ? fmtDur(l.waitTime) : ''),
        h('td', { class: 'num' }, l.notifies + l.notifyAlls ? fmtCount(l.notifies + l.notifyAlls) : ''),
        h('td', { class: 'num' }, l.acquires ? fmtCount(l.acquires) : ''));
    });
    if (n < rows.length) {
      const more = Math.min(ROWS_STEP, rows.length - n);
      trs.splice(n, 0, h('tr', { class: 'more-rows' }, h('td', { colspan: COLUMNS.length },
        h('button', { onclick: () => { this.rowsShown = n + more; this.render(); } }, `Show ${fmtCount(more)} more`),
        h('span', { class: 'muted' }, ` ${fmtCount(n)} of ${fmtCount(rows.length)} shown`))));
    }
    // Appended one at a time: as many arguments as rows to one call
    // would fail as Math.max did.
    this.tbody.replaceChildren();
    for (const tr of trs) this.tbody.append(tr);
    this.cue();
    if (st.lockSel) this.loadDetail(st.lockSel);
    else this.detail.replaceChildren(h('div', { class: 'panel-empty' }, h('h3', null, 'No lock selected'), h('p', null, 'Pick a lock in the table to see who held it while others waited, who waited, and where.')));
  }

  select(kind, object) {
    this.app.state.lockSel = `${kind}:${object}`;
    this.app.changed();
    for (const tr of this.tbody.children) tr.classList.toggle('selected', tr.dataset.lock === this.app.state.lockSel);
    this.loadDetail(this.app.state.lockSel);
  }

  async loadDetail(id) {
    if (this.shown === id && this.detail.firstChild) return;
    const [kind, object] = id.split(':');
    this.shown = id;
    if (kind === 'group') {
      const g = this.groups[+object];
      if (!g) {
        this.shown = null;
        this.app.error(`no group ${object} in this recording`);
        return;
      }
      await this.app.loadThreads(threadRefs(g));
      if (this.app.state.lockSel !== id) return;
      fill(this.detail, this.groupEls(g));
      const tr = this.tbody.querySelector(`tr[data-lock="${id}"]`);
      if (tr) tr.scrollIntoView({ block: 'nearest' });
      return;
    }
    // Until it comes (orca view opened from its index reads the
    // recording for it first), the old lock's detail is not shown as this one's.
    fill(this.detail, h('div', { class: 'muted' }, 'loading…'));
    try {
      const d = await getJSON(`/api/locks/${kind}/${object}`);
      await this.app.loadThreads(threadRefs(d));
      if (this.app.state.lockSel !== id) return;
      fill(this.detail, this.detailEls(d));
      const tr = this.tbody.querySelector(`tr[data-lock="${id}"]`);
      if (tr) tr.scrollIntoView({ block: 'nearest' });
    } catch (e) {
      this.shown = null;
      this.app.error(`loading lock ${id}: ${e.message}`);
    }
  }

  // groupEls shows a group of short-lived objects: its sums, who ended its
  // waits, its call sites and its costliest objects (each opens its own
  // detail).
  groupEls(g) {
    const app = this.app;
    const park = g.kind === 'blocker';
    const waits = park ? 'parks' : 'waits';
    const n = fmtCount;
    const stats = [['objects', n(g.objects)], ['threads', n(g.threads)], [waits, n(g.waits)], ['time', fmtDur(g.waitTime)],
      ['longest', fmtDur(g.maxWait)], [`most ${waits} on one`, n(g.maxWaits)]];
    if (g.notified) stats.push([park ? 'unparked' : 'notified', n(g.notified)]);
    if (g.timedOut) stats.push([park ? 'not unparked (timeout…)' : 'not notified (timeout…)', n(g.timedOut)]);
    if (g.interrupted) stats.push(['of those, interrupted', n(g.interrupted)]);
    if (g.spurious) stats.push(['of those, no unpark seen (spurious…)', n(g.spurious)]);
    if (g.stillWaiting) stats.push([park ? 'still parked at the end' : 'still waiting at the end', n(g.stillWaiting)]);
    if (g.idle) stats.push(['of idle pool workers', n(g.idle)]);
    if (g.notifies || g.notifyAlls) stats.push(['notify / notifyAll', `${n(g.notifies)} / ${n(g.notifyAlls)}`]);
    const out = [
      h('div', { class: 'panel-head' }, h('span', { class: 'big' }, `${n(g.objects)} objects `), g.class ? h('span', { class: 'muted' }, breakable(g.class)) : null),
      h('p', { class: 'muted small' }, `A group: short-lived ${g.kind === 'blocker' ? 'objects of LockSupport.park' : 'objects of Object.wait'} of one class and call site, summed.`),
      h('div', { class: 'stat-row' }, stats.map(([k, v]) => h('div', { class: 'stat' }, h('div', { class: 'stat-v' }, String(v)), h('div', { class: 'stat-k' }, k)))),
    ];
    const link = (i, name) => i >= 0 ? h('a', { href: '#', class: 'thread-link', onclick: (e) => { e.preventDefault(); app.gotoThread(i); } }, breakable(app.threads[i].name)) : h('span', { class: 'muted' }, name);
    if (g.unparkedBy.length) {
      out.push(h('h4', null, 'Unparked by ', h('span', { class: 'muted' }, 'the threads whose unpark ended the parks')),
        h('table', { class: 'grid compact owners' }, h('tbody', null, g.unparkedBy.slice(0, 25).map((u) => h('tr', null,
          h('td', { class: 'name' }, link(u.thread, u.id)),
          h('td', { class: 'num' }, `${n(u.parks)}×`),
          h('td', { class: 'num' }, fmtDur(u.time)))))));
    }
    out.push(h('h4', null, park ? 'Where threads parked' : 'Where threads waited'));
    for (const s of g.sites.slice(0, 20)) {
      out.push(h('div', { class: 'site' }, h('div', { class: 'site-head' }, h('b', null, fmtDur(s.waitTime)), ` in ${n(s.waits)} ${waits}`), stackEl(s.frames)));
    }
    out.push(h('h4', null, 'Objects ', h('span', { class: 'muted' }, g.members.length < g.objects ? `the ${n(g.members.length)} costliest of ${n(g.objects)}` : 'costliest first')),
      h('table', { class: 'grid compact members' }, h('tbody', null, g.members.map((o) => h('tr', null,
        h('td', null, h('a', { href: '#', onclick: (e) => { e.preventDefault(); this.select(g.kind, o.object); } }, h('code', null, o.object))),
        h('td', { class: 'num' }, `${n(o.waits)}×`),
        h('td', { class: 'num' }, fmtDur(o.waitTime)))))));
    return out;
  }

  detailEls(d) {
    const app = this.app;
    const link = (i, name) => i >= 0 ? h('a', { href: '#', class: 'thread-link', onclick: (e) => { e.preventDefault(); app.gotoThread(i); } }, breakable(app.threads[i].name)) : h('span', { class: 'muted' }, name);
    const n = fmtCount;
    const park = isPark(d);
    const stats = [];
    if (d.contentions || d.blocked) stats.push(['contentions', n(d.contentions)], ['blocked in all', fmtDur(d.blocked)], ['longest', fmtDur(d.maxBlocked)]);
    if (d.open) stats.push(['still blocked at the end', stillBlocked(d.open, d.openBlocked)]);
    if (d.ownerUnknown) stats.push(['owner unknown', n(d.ownerUnknown)]);
    // As the report says them: no release let them in (a tryLock's timeout, an interrupt).
    if (d.noUnpark) stats.push(["ended by no release's unpark (tryLock timeout, interrupt)", n(d.noUnpark)]);
    if (d.noUnparkInterrupted) stats.push(['of those, interrupted', n(d.noUnparkInterrupted)]);
    if (d.noUnparkSpurious) stats.push(['of those, no unpark seen (spurious…)', n(d.noUnparkSpurious)]);
    // As the report says them: begun before the events (an attach's gap), their length not recorded.
    if (d.beforeEvents) stats.push(['begun before the events (length not recorded)', n(d.beforeEvents)]);
    if (d.beforeAttach) stats.push(['blocked since before the attach (at least as long)', n(d.beforeAttach)]);
    if (d.waitsBeforeAttach) stats.push([`${park ? 'parked' : 'waiting'} since before the attach (at least as long)`, n(d.waitsBeforeAttach)]);
    if (d.waits) stats.push([park ? 'parks' : 'waits', n(d.waits)], [park ? 'parked' : 'wait time', fmtDur(d.waitTime)]);
    if (d.notifies || d.notifyAlls) stats.push(['notify / notifyAll', `${n(d.notifies)} / ${n(d.notifyAlls)}`]);
    if (d.wokeNobody) stats.push(['notifies that woke nobody', n(d.wokeNobody)]);
    if (d.acquires || d.releases) stats.push(['acquires / releases', `${n(d.acquires)} / ${n(d.releases)}`]);
    const blamed = Math.max(1, d.blamedTotal); // of every owner, the first listed
    // Contentions that ended, and those still going on at the end, apart.
    const contentions = (o) => o.open ? `${n(o.contentions)}×, ${n(o.open)} still blocked` : `${n(o.contentions)}×`;
    const out = [
      h('div', { class: 'panel-head' }, h('span', { class: 'big' }, `${kindWord(d.kind)} `, h('code', null, d.object)), d.class ? h('span', { class: 'muted' }, breakable(d.class)) : null,
        d.callLabel ? h('span', { class: 'muted', title: d.call }, ' ' + d.callLabel) : null),
      h('div', { class: 'stat-row' }, stats.map(([k, v]) => h('div', { class: 'stat' }, h('div', { class: 'stat-v' }, String(v)), h('div', { class: 'stat-k' }, k)))),
      // A thread that ended holding it (the report's "left locked").
      ...(d.leftLocked || []).map((x) => h('div', { class: 'left-locked' }, 'left locked: ', link(x.thread, x.name),
        ` ended at ${fmtTime(x.ended)} holding it, and ${n(x.parks)} ${x.parks === 1 ? 'park' : 'parks'} named it the owner after (it never released it)`)),
      h('div', { class: 'actions' },
        h('button', { class: 'primary', onclick: () => app.setLock(d.object, [d.first, d.last], d.kind) }, 'Show on the timeline'),
        h('button', { onclick: () => app.flameFor({ lock: d.object }) }, 'Flame graph of this lock')),
    ];
    if (d.owners.length) {
      out.push(h('h4', null, 'Owners blamed ', h('span', { class: 'muted' }, 'time others spent blocked while each held it')),
        h('table', { class: 'grid compact owners' }, h('tbody', null, d.owners.slice(0, 25).map((o) => h('tr', null,
          h('td', { class: 'name' }, link(o.thread, o.id)),
          h('td', { class: 'num' }, contentions(o)),
          // The share as orca report prints it (the API's share).
          h('td', { class: 'num barcell wide' }, h('span', { class: 'cellbar', style: { width: `${(100 * o.blamed) / blamed}%`, background: STATE_COLORS[1] } }), `${fmtDur(o.blamed)} · ${o.share}`))))));
      if (d.ownersTotal > 25) out.push(h('div', { class: 'muted small' }, `… and ${n(d.ownersTotal - 25)} more owners`));
    }
    // What the holders did while others were blocked (the report's
    // holders_doing and holders_frames).
    if (d.holders) {
      const hd = d.holders;
      out.push(h('div', { class: 'holders' },
        h('h4', null, `While others were blocked (${fmtDur(hd.while)}), ${d.owners.length > 1 ? 'its holders were' : 'its holder was'}`),
        // As orca report's text says under its contention list.
        d.kind === 'monitor' ? h('div', { class: 'muted small' }, "A monitor's exit is not recorded: the hand-off, from the holder's exit to the next owner's entry, is told as what the holder did then.") : null,
        doingEl(hd, link),
        hd.frames && hd.frames.length ? h('table', { class: 'grid compact holder-frames' }, h('tbody', null, hd.frames.slice(0, 10).map((f) => h('tr', null,
          // A JDK leaf with the program's frame that led to it, as the report says it.
          h('td', { class: 'mono' }, f.caller ? [breakable(f.caller), ' → '] : null, breakable(f.frame)), h('td', null, f.state), h('td', { class: 'num' }, `${n(f.samples)}`), h('td', { class: 'num' }, fmtDur(f.s * 1e9)))))) : null,
        hd.frames && hd.frames.length ? h('div', { class: 'actions' },
          h('button', { class: 'holders-flame', onclick: () => app.flameFor({ lock: d.object, kind: 'all' }) }, "Flame graph of the holders' samples")) : null));
    }
    if (d.waiters.length) {
      out.push(h('h4', null, 'Threads that blocked ', h('span', { class: 'muted' }, `${n(d.waitersTotal)}, in order of first block`)),
        h('div', { class: 'chips' }, d.waiters.slice(0, 60).map((i) => i >= 0 ? h('a', { href: '#', class: 'thread-chip', onclick: (e) => { e.preventDefault(); app.gotoThread(i); } }, app.threads[i].name) : null)));
    }
    if (d.waitersTotal > 60) out.push(h('div', { class: 'muted small' }, `… and ${n(d.waitersTotal - 60)} more`));
    if (d.sites.length) {
      out.push(h('h4', null, 'Where threads blocked ', h('span', { class: 'muted' }, `${n(d.sitesTotal)} call sites${d.sitesTotal > 20 ? ', the 20 costliest' : ''}`)));
      for (const s of d.sites.slice(0, 20)) {
        const head = [h('b', null, fmtDur(s.blocked + s.openBlocked)), ` in ${n(s.contentions)} contentions`];
        if (s.open) head.push(`, ${n(s.open)} still blocked at the end`);
        out.push(h('div', { class: 'site' }, h('div', { class: 'site-head' }, ...head), stackEl(s.frames)));
      }
    }
    if (d.heldAt.length) {
      out.push(h('h4', null, 'Where owners entered it ', h('span', { class: 'muted' }, 'when they themselves had to wait for it')));
      for (const s of d.heldAt.slice(0, 10)) out.push(h('div', { class: 'site' }, stackEl(s.frames)));
    }
    if (!d.owners.length && !d.sites.length && !d.waiters.length) {
      out.push(h('p', { class: 'muted' }, park ? 'No thread blocked on it: threads parked on it (LockSupport.park), for an unpark.'
        : 'No thread blocked on it: it was only waited on, notified or acquired without contention.'));
    }
    return out;
  }
}

// leftLockedTitle says in a tooltip who left a lock locked (/api/locks'
// leftLocked), as the report's "left locked" lines.
function leftLockedTitle(ls) {
  return ls.map((x) => `${x.name} ended at ${fmtTime(x.ended)} holding it; ${fmtCount(x.parks)} ${x.parks === 1 ? 'park' : 'parks'} named it the owner after (it never released it)`).join('\n');
}
