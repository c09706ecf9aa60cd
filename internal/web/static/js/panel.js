// The side panel: what is selected (an interval, a thread, a node of the
// wait-for graph) with its stack.

import { getJSON, threadRefs } from './api.js';
import { STATES, STATE_COLORS, STATE_TITLES, EDGE_COLORS, RUN_PARTS, fmtDur, fmtCount, fmtTime, h, kindWord, ownerFacts, stateChip, stackEl, frameEl, pct, doingEl, runParts, fill } from './format.js';
import { smallFlame } from './flame.js';

export class Panel {
  constructor(app, el) {
    this.app = app;
    this.el = el;
    this.clear();
  }

  // set shows children; shown names what they are ("thread.index" of an
  // interval), in the panel's data-shown.
  set(...children) {
    this.el.replaceChildren(...children.flat().filter(Boolean));
    this.el.dataset.shown = this.shown || '';
    this.shown = null;
    this.el.scrollTop = 0;
  }

  clear() {
    this.set(h('div', { class: 'panel-empty' },
      h('h3', null, 'Nothing selected'),
      h('p', null, 'Click an interval on the timeline to see its stack, the lock it waited for and who held it or woke it up.'),
      h('p', null, 'Click a thread name for the thread; click the time axis to pick an instant for the wait-for graph.'),
      h('table', { class: 'keys' },
        keyRow('drag, A D ← →', 'pan'), keyRow('Ctrl+wheel, W S + −', 'zoom'), keyRow('wheel, ↑ ↓', 'scroll lanes'),
        keyRow('drag on the axis', 'zoom to a range'), keyRow('double-click', 'zoom into an interval'),
        keyRow('0', 'whole recording'), keyRow('E', 'edges on/off'), keyRow('Esc', 'clear selection'))));
  }

  threadLink(i, label) {
    if (i == null || i < 0) return h('span', { class: 'muted' }, label || 'unknown thread');
    const t = this.app.threads[i] || { name: `thread ${i}` };
    return h('a', { href: '#', class: 'thread-link', onclick: (e) => { e.preventDefault(); this.app.gotoThread(i); } }, label || t.name);
  }

  objectLine(obj, cls, kind) {
    return h('span', null, h('code', null, obj), cls ? h('span', { class: 'muted' }, ` ${cls}`) : null, ' ',
      h('a', { href: '#', class: 'small-link', title: 'Highlight the intervals on this lock in the timeline', onclick: (e) => { e.preventDefault(); this.app.setLock(obj); } }, 'highlight'),
      ' · ',
      h('a', { href: '#', class: 'small-link', onclick: (e) => { e.preventDefault(); this.app.showLock(kind, obj); } }, 'lock details'));
  }

  showInterval(d) {
    const t = this.app.threads[d.thread] || { name: `thread ${d.thread}`, id: '' };
    const rows = [];
    rows.push(['thread', this.threadLink(d.thread, t.name), h('span', { class: 'muted' }, ` ${t.id}`)]);
    rows.push(['from', `${fmtTime(d.start)} to ${fmtTime(d.end)}`]);
    if (d.since < d.start) rows.push(['since', `${fmtTime(d.since)} — ${fmtDur(d.end - d.since)} in this state; the owner changed`]);
    if (d.object) {
      const park = d.state === 'parked' || d.state === 'idle';
      const kind = d.state === 'acquiring' ? 'semaphore' : d.acquire ? 'juc' : park ? 'blocker' : 'monitor';
      rows.push([d.state === 'waiting' ? 'waited on' : park ? 'parked on' : kindWord(kind), this.objectLine(d.object, d.objectClass, kind)]);
    }
    for (const f of ownerFacts(d, this.app.summary.source)) {
      rows.push([f.label, f.who ? this.threadLink(f.who.thread, f.who.name) : null, f.note ? h('span', { class: 'muted' }, f.who ? ` (${f.note})` : f.note) : null]);
    }
    if (d.wake) rows.push(['wake', WAKES[d.wake] || d.wake]);
    const edges = d.edges.length ? h('div', { class: 'edges' }, d.edges.map((e) => this.edgeEl(e, d.thread))) : null;
    this.shown = `${d.thread}.${d.index}`;
    this.set(
      h('div', { class: 'panel-head' }, stateChip(d.state), h('span', { class: 'big' }, fmtDur(d.end - d.start)), d.open ? h('span', { class: 'badge warn' }, 'still at the end') : null),
      h('table', { class: 'facts' }, rows.map(([k, ...v]) => h('tr', null, h('th', null, k), h('td', null, ...v)))),
      CHAIN_STATES.has(d.state) ? this.chainEl(d) : null,
      d.holders ? this.holdersEl(d) : null,
      edges ? h('h4', null, 'Edges') : null, edges,
      h('h4', null, 'Stack ', h('span', { class: 'muted' }, `${d.frames.length} frames, innermost first`)),
      stackEl(d.frames),
      h('div', { class: 'actions' },
        h('button', { onclick: () => this.app.setInstant(d.start + Math.min((d.end - d.start) / 2, 1e6), true) }, 'Wait-for graph here'),
        h('button', { onclick: () => this.app.flameFor({ thread: t.name }) }, 'Flame graph of this thread')));
  }

  // chainEl shows the wait chain from interval d at the instant clicked
  // (the app state's selAt, within d; its middle when none), to its root:
  // the server's (/api/chain: analysis.ChainAt, what orca report --chains
  // follows), asked only now. Each thread of it is one click from its lane
  // at that instant.
  //
  // Asked lazily: an orca view reopened from its index, before it has
  // read the recording, answers 409 rather than start reading it for the
  // chain alone (the interval's detail came from its range): a button
  // then asks it, which reads the recording.
  chainEl(d) {
    const at = this.app.state.selAt;
    const params = at != null && at >= d.start && at < d.end ? { t: Math.round(at) } : {};
    const el = h('div', { class: 'chain', 'data-state': 'loading' }, h('h4', null, 'Wait chain'), h('div', { class: 'muted small' }, 'following it…'));
    const key = `${d.thread}.${d.index}`;
    const follow = (p) => getJSON(`/api/chain/${d.thread}/${d.index}`, p).then((c) => this.app.loadThreads(threadRefs(c)).then(() => c)).then((c) => {
      if (this.el.dataset.shown !== key) return;
      fill(el, ...this.chainParts(c));
      el.dataset.state = 'done';
    }, (e) => {
      if (e.status === 409) {
        fill(el, h('h4', null, 'Wait chain'), h('div', { class: 'muted small' }, `${e.message}. `,
          h('button', { class: 'read-chain', onclick: () => { fill(el, h('h4', null, 'Wait chain'), h('div', { class: 'muted small' }, 'following it…')); el.dataset.state = 'loading'; follow(params); } }, 'Read the recording and follow it')));
        el.dataset.state = 'lazy';
        return;
      }
      fill(el, h('h4', null, 'Wait chain'), h('div', { class: 'muted small' }, `could not follow it: ${e.message}`));
      el.dataset.state = 'error';
    });
    follow({ ...params, lazy: '1' });
    return el;
  }

  chainParts(c) {
    const t = c.t;
    // A thread of the chain: a link that shows its lane at t, its
    // interval then outlined, the instant marked.
    const who = (r, s, e, cls) => r.thread < 0 ? h('span', { class: 'muted' }, r.name || r.id)
      : h('a', { href: '#', class: `thread-link chain-thread ${cls || ''}`, 'data-thread': r.thread, title: `Show ${r.name}'s lane at ${fmtTime(t)}`,
        onclick: (ev) => { ev.preventDefault(); this.showChainStep(r.thread, s, e, t); } }, r.name);
    const lock = (l) => l.object ? [' on ', l.how === 'park' ? null : kindWord(l.lockKind) + ' ', h('code', null, l.object), l.class ? h('span', { class: 'muted' }, ` ${l.class}`) : null] : [];
    const by = { monitor: ', held by ', lock: ', held by ', join: ' ', wait: ', notified later by ', park: ', unparked later by ', semaphore: ', released later by ' };
    const r = c.root;
    // A thread's interval at t: its link's, or the root's (its runnable
    // stretch when it has no interval then).
    const span = (th) => c.links.find((l) => l.thread === th) || (th === r.thread ? (r.interval >= 0 ? r : r.run) : null) || { start: null, end: null };
    const items = c.links.map((l, i) => h('li', { class: 'chain-link', 'data-how': l.how },
      who(l, l.start, l.end), ' ', l.state ? stateChip(l.state) : l.how, ...lock(l), by[l.how] || ' ',
      who(l.to, span(l.to.thread).start, span(l.to.thread).end),
      i === c.links.length - 1 && r.state === 'cycle' ? [' ', h('span', { class: 'badge bad' }, 'back in the chain: a cycle')] : null));
    const top = r.frames.find((f) => !f.jdk) || r.frames[0];
    let what;
    if (r.state === 'cycle') what = [h('span', { class: 'badge bad' }, 'deadlock'), ' the chain came back to a thread of it: a cycle is its own root (its thread of smallest id)'];
    else if (r.state === 'ended') what = [h('span', { class: 'muted' }, 'had ended: the thread before it waited on')];
    else if (r.state === 'unknown') what = [h('span', { class: 'muted' }, 'a thread the recording never saw')];
    else if (r.state === 'not_started') what = [h('span', { class: 'muted' }, 'not started yet: the thread before it waited for a thread still to come')];
    else if (r.state === 'released') {
      what = [stateChip(r.shown || 'waiting'), h('span', { class: 'muted small chain-released' },
        r.object ? [' on ', h('code', null, r.object), r.class ? ` ${r.class}` : ''] : null,
        ': it had released the lock the thread before it waits on (Object.wait on that monitor, Condition.await on a condition of that lock), the hand-off to the next owner; the chain ends here')];
    }
    else {
      what = [stateChip(r.state)];
      if (r.interval >= 0 && r.since <= t) what.push(h('span', { class: 'muted small' }, ` for ${fmtDur(t - r.since)}`));
      if (r.object && ['waiting', 'parked', 'acquiring', 'blocked', 'idle'].includes(r.state)) {
        what.push(h('span', { class: 'muted small chain-ownerless' }, ' on ', h('code', null, r.object), r.class ? ` ${r.class}` : '',
          r.state === 'blocked' ? ': its owner then is not known' : ': no thread ended it (an ownerless wait)'));
      }
      if (r.run) {
        const run = r.run, all = run.running + run.ready + run.other + run.virtual + run.unsplit;
        what.push(h('div', { class: 'muted small chain-run' }, `its runnable stretch ${fmtTime(run.start)} → ${fmtTime(run.end)}: `,
          RUN_PARTS.filter((k) => run[k] > 0).map((k) => `${k} ${pct(run[k], all)}`).join(', ')));
      }
    }
    const rootS = span(r.thread).start ?? t, rootE = span(r.thread).end ?? t;
    return [
      h('h4', null, 'Wait chain at ', fmtTime(t), ' ', h('span', { class: 'muted' }, c.links.length ? `${c.links.length} ${c.links.length === 1 ? 'step' : 'steps'} to the root` : 'it waits for no thread: its own root')),
      c.links.length ? h('ol', { class: 'chain-links' }, items) : null,
      h('div', { class: 'chain-root', 'data-state': r.state }, 'root ', who(r, rootS, rootE, 'root'), ' ', ...what,
        top && r.state !== 'cycle' ? h('div', { class: 'small chain-frame' }, frameEl(top)) : null),
    ];
  }

  // showChainStep shows a thread of a wait chain: its lane at t, its
  // interval then (s to e) outlined dashed, the instant marked.
  showChainStep(thread, s, e, t) {
    const tl = this.app.timeline;
    this.app.state.instant = t;
    if (s != null) tl.holderSpan = { thread, s, e };
    tl.reveal(thread, t, t);
    tl.redraw();
  }

  // holdersEl says what the threads this contention waited for did
  // meanwhile (the interval's holders: the lock's fold over its spans),
  // and offers, per holder, its lane on the timeline over its span with
  // the flame graph of its samples in that span, in one click.
  holdersEl(d) {
    const hd = d.holders;
    const spans = hd.spans || [];
    const longest = spans.reduce((a, b) => (!a || b.end - b.start > a.end - a.start ? b : a), null);
    this.holderFlame = h('div', { class: 'holder-flame' });
    const spanRow = (sp) => h('div', { class: 'small' }, sp.thread >= 0 ? this.threadLink(sp.thread, sp.name) : h('span', { class: 'muted' }, sp.name || 'unknown holder'),
      ` ${fmtTime(sp.start)} → ${fmtTime(sp.end)} (${fmtDur(sp.end - sp.start)}) `,
      sp.thread >= 0 ? h('a', { href: '#', class: 'small-link', onclick: (e) => { e.preventDefault(); this.showHolder(sp); } }, 'what it did') : null);
    return h('div', { class: 'holders' },
      h('h4', null, `While it waited (${fmtDur(hd.while)}), ${spans.length > 1 ? 'its holders were' : 'the holder was'}`),
      doingEl(hd, (i, name) => this.threadLink(i, name)),
      spans.length > 1 ? h('div', { class: 'holder-spans' }, spans.slice(0, 8).map(spanRow), spans.length > 8 ? h('div', { class: 'muted small' }, `and ${spans.length - 8} more`) : null) : null,
      longest && longest.thread >= 0 ? h('div', { class: 'actions' }, h('button', { class: 'holder-button', title: "The holder's lane over this span on the timeline, and the flame graph of its samples in it", onclick: () => this.showHolder(longest) },
        `What ${longest.name || 'the holder'} did`)) : null,
      this.holderFlame);
  }

  // showHolder reveals a holder's lane over its span, marks the span, and
  // draws the flame graph of its samples (cpu and wall) in the span, with
  // its runnable time's split there.
  async showHolder(sp) {
    const tl = this.app.timeline;
    tl.holderSpan = { thread: sp.thread, s: sp.start, e: sp.end };
    tl.reveal(sp.thread, sp.start, sp.end);
    tl.redraw();
    const el = this.holderFlame;
    fill(el, h('div', { class: 'muted' }, 'loading…'));
    const params = { kind: 'all', thread: sp.id, t0: sp.start, t1: sp.end };
    try {
      const f = await getJSON('/api/flame/samples', params);
      const w = Math.max(200, (el.clientWidth || this.el.clientWidth || 300) - 4);
      el.dataset.holder = String(sp.thread);
      fill(el, h('h4', null, `${sp.name}'s samples, ${fmtTime(sp.start)} → ${fmtTime(sp.end)}`),
        f.samples ? [h('div', { class: 'muted small' }, `${fmtCount(f.samples)} samples for ${fmtDur(f.total)}; hottest stack in the tooltip`), smallFlame(f, w)]
          : h('div', { class: 'muted' }, 'no samples of it in this span (sampling off, or it was in recorded states)'),
        h('div', { class: 'actions' }, h('button', { onclick: () => { tl.setRange(sp.start, sp.end); this.app.flameFor({ thread: sp.id, kind: 'all', range: true }); } }, 'Open in the flame graph')));
    } catch (e) {
      fill(el, null);
      this.app.error(`loading the holder's samples: ${e.message}`);
    }
  }

  edgeEl(e, self) {
    const other = e.to === self ? e.from : e.to;
    const dir = e.to === self ? 'from' : 'to';
    const what = {
      wake: e.to === self ? 'woken by a notify of' : 'notified',
      owner: e.to === self ? 'waited for the owner' : 'owned the lock for',
      start: e.to === self ? 'started by' : 'started',
      join: e.to === self ? 'join returned when it ended:' : 'ended; its joiner',
      release: e.to === self ? 'let through by a release of' : 'released for',
    }[e.kind] || `${e.kind} ${dir}`;
    return h('div', { class: 'edge', style: { '--c': EDGE_COLORS[e.kind] } },
      h('span', { class: 'edge-kind' }, e.kind), ' ', what, ' ', this.threadLink(other), e.ambiguous ? h('span', { class: 'muted' }, ' (or another waiter)') : null,
      h('div', { class: 'muted small' }, `${fmtTime(e.fromTime)} → ${fmtTime(e.toTime)}`,
        ' ', h('a', { href: '#', class: 'small-link', onclick: (ev) => { ev.preventDefault(); this.app.timeline.reveal(other, e.fromTime, e.toTime); } }, 'show')));
  }

  async showThread(i) {
    await this.app.loadThreads([i]);
    const t = this.app.threads[i];
    if (!t) return;
    await this.app.loadThreads([t.parent]);
    const life = Math.max(t.end - t.start, 1);
    const bars = h('div', { class: 'state-bars' }, STATES.map((s, k) => t.time[k] > 0 ? h('div', { class: 'state-bar' },
      h('span', { class: 'chip', title: STATE_TITLES[s], style: { '--c': STATE_COLORS[k] } }, s),
      h('span', { class: 'bar' }, h('span', { style: { width: `${(100 * t.time[k]) / life}%`, background: STATE_COLORS[k] } })),
      h('span', { class: 'num' }, `${fmtDur(t.time[k])} · ${pct(t.time[k], life)}`)) : null),
      t.run ? h('div', { class: 'run-split' }, h('div', { class: 'muted small' }, 'runnable, split:'), runParts([t.run.running, t.run.ready, t.run.other, t.run.virtual, t.run.unsplit])) : null);
    const head = [h('div', { class: 'panel-head' }, h('span', { class: 'big' }, t.name)),
      h('table', { class: 'facts' },
        h('tr', null, h('th', null, 'id'), h('td', null, h('code', null, t.id))),
        h('tr', null, h('th', null, 'lived'), h('td', null, `${fmtTime(t.start)} to ${fmtTime(t.end)}${t.ended ? '' : ' (still alive at the end)'}`)),
        t.parent >= 0 ? h('tr', null, h('th', null, 'started by'), h('td', null, this.threadLink(t.parent))) : null,
        h('tr', null, h('th', null, 'intervals'), h('td', null, `${fmtCount(t.intervals)} (${fmtCount(t.events)} events)`))),
      bars];
    this.set(...head, h('div', { class: 'muted' }, 'loading…'));
    try {
      const d = await getJSON(`/api/threads/${i}`);
      this.set(...head, h('h4', null, 'Started at'), d.startedAt.length ? stackEl(d.startedAt) : h('div', { class: 'muted' }, 'no Thread.start recorded for it (it existed before the agent, or its start was not seen)'),
        h('div', { class: 'actions' }, h('button', { onclick: () => this.app.flameFor({ thread: t.name }) }, 'Flame graph of this thread')));
    } catch (e) {
      this.app.error(e.message);
    }
  }

  // showNode describes a node of the wait-for graph.
  async showNode(n, t) {
    if (n.kind !== 'thread') {
      this.set(h('div', { class: 'panel-head' }, h('span', { class: 'big' }, `${kindWord(n.kind)} ${n.object}`)),
        h('table', { class: 'facts' }, n.class ? h('tr', null, h('th', null, 'class'), h('td', null, n.class)) : null),
        h('div', { class: 'actions' }, h('button', { onclick: () => this.app.showLock(n.kind, n.object) }, 'Lock details'),
          h('button', { onclick: () => this.app.setLock(n.object) }, 'Highlight on the timeline')));
      return;
    }
    await this.app.loadThreads([n.thread]);
    const th = this.app.threads[n.thread];
    const rows = [['thread', this.threadLink(n.thread, th.name)], ['state', stateChip(n.state)]];
    if (n.since != null && n.state !== 'runnable' && n.state !== 'not alive') {
      // In it at the attach: when it began is not known (as the report says).
      rows.push(['since', n.beforeAttach ? `before the attach (at least ${fmtDur(t - n.since)} before this instant)` : `${fmtTime(n.since)} (${fmtDur(t - n.since)} before this instant)`]);
    }
    if (n.object) rows.push(['on', this.objectLine(n.object, n.class || '', n.lockKind || (n.state === 'acquiring' ? 'semaphore' : 'monitor'))]);
    const head = [h('div', { class: 'panel-head' }, h('span', { class: 'big' }, th.name), n.cycle ? h('span', { class: 'badge bad' }, 'in a cycle') : null),
      h('table', { class: 'facts' }, rows.map(([k, v]) => h('tr', null, h('th', null, k), h('td', null, v))))];
    const actions = h('div', { class: 'actions' }, n.interval >= 0 ? h('button', { onclick: () => this.app.gotoInterval(n.thread, n.interval) }, 'Show on the timeline') : null);
    if (!n.stack) { this.set(...head, actions); return; }
    try {
      const s = await getJSON(`/api/stacks/${n.stack}`);
      this.set(...head, h('h4', null, 'Stack'), stackEl(s.frames), actions);
    } catch (e) {
      this.app.error(e.message);
    }
  }
}

// CHAIN_STATES: the intervals that can wait for another thread, whose
// panel follows the wait chain (analysis.ChainAt's steps).
const CHAIN_STATES = new Set(['blocked', 'joining', 'waiting', 'parked', 'acquiring']);

const WAKES = {
  notify: 'notify()',
  notifyAll: 'notifyAll()',
  ambiguous: 'a notify() that could have woken another waiter',
  timeout: 'no notify or unpark: timed out (a wait: or interrupted or spurious)',
  spurious: 'no unpark seen: a spurious return, its own permit, or an unparker not recorded',
  interrupted: 'an interrupt of the thread (its park returned with the interrupt flag set)',
  never: 'never: still waiting when the recording ended',
  unpark: 'unpark() by another thread',
};

function keyRow(k, v) { return h('tr', null, h('td', null, h('kbd', null, k)), h('td', null, v)); }
