// Deadlocks and hangs: the list, and the wait-for graph at the selected
// instant or deadlock, laid out left (waiters) to right (owners), cycles in red.

import { getJSON, threadRefs } from './api.js';
import { STATES, STATE_COLORS, fmtDur, fmtCount, fmtTime, h, kindWord, stateChip, stackEl } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
const COL_W = 250;
const ROW_H = 76;
const NODE_W = 196;
const NODE_H = 42;
const LOCK_W = 160; // the least: a lock's box widens to its label
const LOCK_MAX_W = COL_W - 16;
const LOCK_H = 30;
const LOCK_CHAR_W = 6.8; // 11 px monospace, a little over its advance
// MIN_SCALE: a graph wider than its view is drawn smaller to fit, down to
// this; wider still, it scrolls.
const MIN_SCALE = 0.6;
const MAX_NODES = 400;

function s(tag, attrs, ...kids) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v != null) el.setAttribute(k, v);
  for (const k of kids.flat()) if (k != null) el.append(k instanceof Node ? k : document.createTextNode(String(k)));
  return el;
}

export class Deadlocks {
  constructor(app, root) {
    this.app = app;
    this.list = h('div', { class: 'dl-list' });
    this.graphHead = h('div', { class: 'graph-head' });
    this.graph = h('div', { class: 'graph-wrap' });
    root.append(h('div', { class: 'dl-view' }, this.list, h('div', { class: 'dl-main' }, this.graphHead, this.graph)));
    new ResizeObserver(() => this.fit()).observe(this.graph);
  }

  // fit draws the graph as large as its view allows: whole, at its size or
  // smaller (down to MIN_SCALE), so that a deadlock's cycle is never cut at
  // the right edge (at 1280 px half of it was, issue 31 item 9).
  fit() {
    const svg = this.svg;
    if (!svg || !svg.isConnected) return;
    const W = +svg.dataset.w, H = +svg.dataset.h;
    const room = this.graph.clientWidth;
    const scale = room > 0 ? Math.max(MIN_SCALE, Math.min(1, room / W)) : 1;
    svg.setAttribute('width', Math.floor(W * scale));
    svg.setAttribute('height', Math.ceil(H * scale));
    svg.dataset.scale = scale.toFixed(3);
  }

  setData(d) {
    this.data = d;
  }

  render() {
    const app = this.app;
    const st = app.state;
    const d = this.data;
    const threads = app.threads;
    if (st.instant == null) {
      st.instant = d.deadlocks.length ? this.instantOf(d.deadlocks[0]) : app.summary.duration;
      if (d.deadlocks.length) st.dl = 0;
    }
    // The threads it names: their rows asked, then drawn again.
    const missing = threadRefs(d).filter((i) => i >= 0 && i < threads.length && !threads[i]);
    if (missing.length) this.app.loadThreads(missing).then(() => this.render(), (e) => this.app.error(e.message));
    const name = (i) => (i >= 0 ? (threads[i] ? threads[i].name : `thread ${i}`) : 'unknown');
    const items = [];
    items.push(h('h3', null, 'Deadlocks ', h('span', { class: 'count' + (d.deadlocks.length ? ' bad' : '') }, d.deadlocks.length || !app.summary.notVisible ? fmtCount(d.deadlocks.length) : '?')));
    if (!d.deadlocks.length && app.summary.notVisible) {
      items.push(h('p', { class: 'muted' }, 'Not visible in this recording: JFR writes a state when it ends, and a deadlocked or hung thread never leaves its own.'));
    } else if (!d.deadlocks.length) items.push(h('p', { class: 'muted' }, 'No cycle of threads each waiting for the next.'));
    d.deadlocks.forEach((dl, k) => {
      items.push(h('div', { class: 'dl-card' + (st.dl === k ? ' selected' : ''), onclick: () => { st.dl = k; st.instant = this.instantOf(dl); app.changed(); this.render(); } },
        h('div', { class: 'dl-title' }, `Deadlock ${k + 1}: ${dl.threads.length} threads`),
        // Already there at the attach: when it formed is not known, its length a lower bound (as the report says it).
        h('div', { class: 'muted small' }, dl.beforeAttach
          ? `already deadlocked when orca attached; ${dl.atEnd ? `still intact at the end (≥ ${fmtDur(dl.lasted)})` : `broke at ${fmtTime(dl.resolved)} (after ≥ ${fmtDur(dl.lasted)})`}`
          : `formed at ${fmtTime(dl.at)}${initSeenLate(app, dl) ? ' or up to two walker rounds earlier' : ''}; ${dl.atEnd ? `still intact at the end, ${fmtDur(dl.lasted)} later` : `broke after ${fmtDur(dl.lasted)}`}`),
        h('ol', { class: 'cycle' }, dl.threads.map((t, i) => h('li', null, h('b', null, name(t)), dl.objects[i] ? (dl.classes && dl.classes[i] && dl.classes[i].startsWith(INIT)
          // The JVM's init lock of a class: its owner runs the class's initialiser (orca report's words).
          ? ` waits for the ${lockClass(dl.classes[i])} (${dl.objects[i]}), run by `
          : ` waits on ${dl.classes && dl.classes[i] ? lockClass(dl.classes[i]) + ' ' : ''}${dl.objects[i]} held by `) : ' joins ', name(dl.threads[(i + 1) % dl.threads.length]))))));
    });
    const appHangs = d.hangs.filter((hg) => !hg.jdk && !hg.alone), jdkHangs = d.hangs.filter((hg) => hg.jdk);
    const alone = d.hangs.filter((hg) => !hg.jdk && hg.alone);
    items.push(h('h3', null, 'Hangs ', h('span', { class: 'count' + (appHangs.length ? ' warn' : '') }, appHangs.length || !app.summary.notVisible ? fmtCount(appHangs.length) : '?')));
    items.push(h('p', { class: 'muted small' }, 'Threads still blocked, waiting, joining, acquiring or parked when the recording ended, longest first. Click one for its place in the graph at the end.'));
    const hangRow = (hg) => h('tr', { class: 'hang' + (hg.jdk ? ' jdk' : ''), onclick: () => { st.dl = -1; st.instant = app.summary.duration; app.changed(); this.render(); app.gotoNode(hg.thread); } },
      h('td', null, name(hg.thread)), h('td', null, stateChip(hg.state), hg.callLabel ? h('span', { class: 'muted small', title: hg.call }, ' ' + hg.callLabel) : null), h('td', { class: 'num', title: hg.beforeAttach ? 'in this state since before orca attached: at least this long' : null }, (hg.beforeAttach ? '≥ ' : '') + fmtDur(app.summary.duration - hg.since)));
    if (appHangs.length) items.push(h('table', { class: 'grid compact' }, h('tbody', null, appHangs.map(hangRow))));
    if (alone.length) {
      items.push(h('h3', null, 'Waiting alone ', h('span', { class: 'count' }, fmtCount(alone.length))));
      items.push(h('p', { class: 'muted small' }, 'Stuck as long, but for no thread in particular and with none behind them, while other threads ran on (a server\'s main until its end, a forgotten latch): not hangs.'));
      items.push(h('table', { class: 'grid compact alone' }, h('tbody', null, alone.map(hangRow))));
    }
    if (jdkHangs.length) {
      items.push(h('details', { class: 'jdk-hangs' }, h('summary', { class: 'muted small' }, `${fmtCount(jdkHangs.length)} JDK service ${jdkHangs.length === 1 ? 'thread' : 'threads'} idle at the end (not hangs)`),
        h('table', { class: 'grid compact' }, h('tbody', null, jdkHangs.map(hangRow)))));
    }
    items.push(...this.potentialItems(d));
    items.push(h('h3', null, 'Instant'));
    const input = h('input', { type: 'text', class: 'instant', value: st.instant != null ? (st.instant / 1e9).toFixed(6) : '', title: 'seconds since the recording started' });
    const go = () => {
      const v = parseFloat(input.value);
      if (!isNaN(v)) { st.instant = Math.max(0, Math.min(app.summary.duration, Math.round(v * 1e9))); st.dl = -1; app.changed(); this.render(); }
    };
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') go(); });
    items.push(h('div', { class: 'instant-row' }, input, h('span', { class: 'muted' }, 's'), h('button', { onclick: go }, 'Show'),
      h('button', { title: 'The end of the recording', onclick: () => { st.instant = app.summary.duration; st.dl = -1; app.changed(); this.render(); } }, 'End')));
    items.push(h('p', { class: 'muted small' }, 'Click the time axis of the timeline to pick an instant there.'));
    this.list.replaceChildren(...items);
    this.loadGraph(st.instant);
  }

  // potentialItems lists the potential deadlocks (orca report's: cycles
  // of the lock-order graph of a recording made with --lock-order), each
  // edge a thread holding one lock and wanting the next, with both stacks;
  // or the report's line saying there are none, or that they were not
  // looked for; nothing when the recording does not say.
  potentialItems(d) {
    const list = d.potential || [];
    if (!list.length && !d.potentialNote) return [];
    const app = this.app;
    const items = [h('h3', { class: 'potential-head' }, 'Potential deadlocks ', h('span', { class: 'count' + (list.length ? ' warn' : '') }, fmtCount(list.length)))];
    if (!list.length) {
      items.push(h('p', { class: 'muted small potential-note' }, d.potentialNote));
      return items;
    }
    items.push(h('p', { class: 'muted small' }, 'Lock-order inversions: none deadlocked, but these nestings would if they ran at once. Each thread held a lock and wanted the next thread\u2019s.'));
    // mode: a java.util.concurrent lock's, as orca report words it.
    const modes = { shared: ' (shared: a read lock)', exclusive: ' (exclusive)' };
    const lockEl = (obj, cls, bySite, mode) => [h('code', null, obj), cls ? h('span', { class: 'muted' }, ` ${lockClass(cls)}`) : null,
      modes[mode] ? h('span', { class: 'pd-mode' }, modes[mode]) : null,
      bySite ? h('span', { class: 'muted', title: 'a lock seen in one nesting only: the node is its class and the site that took it' }, ' (or another taken there)') : null];
    list.forEach((p, k) => {
      items.push(h('div', { class: 'pd-card' },
        h('div', { class: 'dl-title' }, `Potential deadlock ${k + 1}: ${p.edges.length} threads`),
        h('ol', { class: 'pd-edges' }, p.edges.map((e) => h('li', { class: 'pd-edge' },
          e.thread >= 0 ? h('a', { href: '#', class: 'thread-link', onclick: (ev) => { ev.preventDefault(); app.gotoThread(e.thread); } }, h('b', null, e.name)) : h('b', null, e.name || e.id),
          h('span', { class: 'muted small' }, ` ${e.id}`),
          ' held ', ...lockEl(e.held, e.heldClass, e.heldBySite, e.heldMode), ' and wanted ', ...lockEl(e.wanted, e.wantedClass, e.wantedBySite, e.wantedMode),
          h('span', { class: 'muted small' }, ` at ${fmtTime(e.at)}${e.count > 1 ? `, ${fmtCount(e.count)} times` : ''}`),
          h('details', { class: 'pd-stacks' }, h('summary', { class: 'small' }, 'stacks'),
            h('div', { class: 'muted small' }, 'held it in:'), e.heldStack.length ? stackEl(e.heldStack) : h('div', { class: 'muted small' }, '(' + (e.heldStackNote || 'not known') + ')'),
            h('div', { class: 'muted small' }, 'wanted it at:'), stackEl(e.wantedStack)))))));
    });
    return items;
  }

  // instantOf picks when to draw a deadlock: the end of the recording if
  // it was still there (every thread caught in it shows), else the middle
  // of the time it stood.
  instantOf(dl) {
    return dl.atEnd ? this.app.summary.duration : Math.round((dl.at + dl.resolved) / 2);
  }

  async loadGraph(t) {
    const key = `${t}`;
    if (this.graphKey === key) return;
    this.graphKey = key;
    this.graphHead.replaceChildren(h('span', { class: 'muted' }, 'loading…'));
    try {
      const g = await getJSON('/api/waitfor', { t: Math.round(t) });
      if (this.graphKey !== key) return;
      this.draw(g);
    } catch (e) {
      this.graphKey = null;
      this.app.error(`loading the wait-for graph: ${e.message}`);
    }
  }

  draw(g) {
    const app = this.app;
    // A thread waits when an edge leaves it (its holders have none).
    const waits = (n) => n.kind === 'thread' && g.edges.some((e) => e.from === n.id);
    const waiting = g.nodes.filter(waits).length;
    this.graphHead.replaceChildren(
      h('span', { class: 'graph-title' }, 'Wait-for graph at ', h('b', null, fmtTime(g.t, 1e3))),
      h('span', { class: 'muted' }, ` ${waiting} threads waiting`),
      ...cycleBadges(g),
      h('span', { class: 'grow' }),
      h('span', { class: 'legend' },
        h('span', { class: 'legend-item', style: { '--c': STATE_COLORS[1] } }, 'blocked → monitor or lock → owner'),
        h('span', { class: 'legend-item', style: { '--c': STATE_COLORS[2] } }, 'waiting'),
        h('span', { class: 'legend-item', style: { '--c': STATE_COLORS[4] } }, 'joining'),
        h('span', { class: 'legend-item', style: { '--c': STATE_COLORS[5] } }, 'acquiring'),
        h('span', { class: 'legend-item', style: { '--c': STATE_COLORS[6] } }, 'parked → park')),
      h('button', { onclick: () => app.showInstantOnTimeline(g.t) }, 'Show this instant on the timeline'));
    if (!g.nodes.some((n) => !n.jdk && n.kind === 'thread') && !this.showJDK) {
      // The JDK's threads that wait, not their holders (a SIGTERM
      // handler holding the shutdown's lock).
      const jdk = g.nodes.filter((n) => n.jdk && waits(n)).length;
      this.graph.replaceChildren(h('div', { class: 'graph-empty' }, h('h3', null, 'Nobody waits at this instant'),
        h('p', { class: 'muted' }, 'Every live thread of the program is runnable or sleeping. Pick another instant, a deadlock or a hang.'),
        jdk ? h('p', null, h('label', { class: 'muted' }, h('input', { type: 'checkbox', onchange: () => { this.showJDK = true; this.draw(g); } }), ` show the ${jdk} waiting JDK service ${jdk === 1 ? 'thread' : 'threads'} (idle in Object.wait, or in the JVM's shutdown)`)) : ''));
      return;
    }
    const { nodes, edges, hidden, jdkHidden } = layout(g, this.showJDK);
    const byId = new Map(nodes.map((n) => [n.id, n]));
    let W = 0, H = 0;
    for (const n of nodes) { W = Math.max(W, n.x + n.w + 16); H = Math.max(H, n.y + n.h + 24); }
    const svg = s('svg', { width: W, height: H, viewBox: `0 0 ${W} ${H}`, class: 'graph', 'data-w': W, 'data-h': H });
    const defs = s('defs');
    for (const [id, c] of [['a-norm', '#8b949e'], ['a-cycle', '#f0565c']]) {
      defs.append(s('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' },
        s('path', { d: 'M0,0 L10,5 L0,10 z', fill: c })));
    }
    svg.append(defs);
    for (const e of edges) {
      const a = byId.get(e.from), b = byId.get(e.to);
      if (!a || !b) continue;
      let d, lx, ly;
      if (b.x > a.x + a.w / 2) {
        const x1 = a.x + a.w, y1 = a.y + a.h / 2, x2 = b.x, y2 = b.y + b.h / 2;
        const dx = (x2 - x1) / 2;
        d = `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
        lx = (x1 + x2) / 2; ly = (y1 + y2) / 2 - 6;
      } else if (b.x + b.w / 2 < a.x) {
        const x1 = a.x, y1 = a.y + a.h / 2, x2 = b.x + b.w, y2 = b.y + b.h / 2;
        const dx = (x1 - x2) / 2;
        d = `M${x1},${y1} C${x1 - dx},${y1} ${x2 + dx},${y2} ${x2},${y2}`;
        lx = (x1 + x2) / 2; ly = (y1 + y2) / 2 - 6;
      } else {
        const x = a.x + a.w / 2, down = b.y > a.y;
        const y1 = down ? a.y + a.h : a.y, y2 = down ? b.y : b.y + b.h;
        d = `M${x},${y1} L${x},${y2}`;
        lx = x + 30; ly = (y1 + y2) / 2 + 3;
      }
      const color = e.cycle ? '#f0565c' : EDGE_STROKE[e.kind] || '#8b949e';
      svg.append(s('path', { d, class: 'g-edge' + (e.cycle ? ' cycle' : ''), stroke: color, 'marker-end': `url(#${e.cycle ? 'a-cycle' : 'a-norm'})` }));
      if (e.kind === 'owner' || e.kind === 'joining') svg.append(s('text', { x: lx, y: ly, class: 'g-label' }, e.kind === 'owner' ? 'held by' : 'joins'));
    }
    for (const n of nodes) {
      const grp = s('g', { class: 'g-node' + (n.cycle ? ' cycle' : '') + (n.kind === 'thread' ? ' thread' : ' lock'), transform: `translate(${n.x},${n.y})`, 'data-id': n.id });
      if (n.kind === 'thread') {
        const si = STATES.indexOf(n.state);
        const c = si >= 0 ? STATE_COLORS[si] : '#6e7681';
        grp.append(s('rect', { width: n.w, height: n.h, rx: 6, class: 'g-box' }),
          s('rect', { width: 5, height: n.h, rx: 2, fill: c }),
          s('text', { x: 14, y: 17, class: 'g-name' }, clip(n.name, 26)),
          s('text', { x: 14, y: 33, class: 'g-sub', fill: c }, n.state + (n.since != null && n.state !== 'runnable' && n.state !== 'not alive' ? ` · ${n.beforeAttach ? '≥ ' : ''}${fmtDur(g.t - n.since)}` : '')));
      } else {
        grp.append(s('rect', { width: n.w, height: n.h, rx: 12, class: 'g-lockbox' }),
          ...n.label.map((line, i) => s('text', { x: n.w / 2, y: n.label.length === 1 ? 19 : 16 + 14 * i, class: 'g-lock' + (i ? ' g-cls' : ''), 'text-anchor': 'middle' }, line)));
      }
      grp.append(s('title', null, n.kind === 'thread' ? `${n.name} — ${n.state}` : `${kindWord(n.kind)} ${n.object} ${n.class || ''}`));
      grp.addEventListener('click', () => {
        for (const el of svg.querySelectorAll('.g-node.selected')) el.classList.remove('selected');
        grp.classList.add('selected');
        app.panel.showNode(n, g.t);
      });
      svg.append(grp);
    }
    const kids = [svg];
    if (hidden) kids.unshift(h('div', { class: 'view-note' }, `${fmtCount(hidden)} more nodes in smaller groups without cycles are not drawn.`));
    if (jdkHidden || this.showJDK) {
      kids.unshift(h('div', { class: 'view-note' }, h('label', null,
        h('input', { type: 'checkbox', checked: !!this.showJDK, onchange: (e) => { this.showJDK = e.target.checked; this.draw(g); } }),
        ` show the JDK's service threads (${jdkHidden ? fmtCount(jdkHidden) + ' not drawn' : 'all'}: idle in Object.wait, or in the JVM's shutdown)`)));
    }
    this.graph.replaceChildren(...kids);
    this.svg = svg;
    this.fit();
    if (this.pendingNode != null) { this.selectThread(this.pendingNode); this.pendingNode = null; }
  }

  selectThread(thread) {
    if (!this.svg) { this.pendingNode = thread; return; }
    const el = this.svg.querySelector(`.g-node[data-id="t${thread}"]`);
    if (el) { el.dispatchEvent(new MouseEvent('click')); el.scrollIntoView({ block: 'center', inline: 'center' }); }
  }
}

// The wait-for graph's edge kinds: a waiting thread's state (coloured as
// the state), owner from a lock (TestViewerConstants checks the keys).
const stateColor = (st) => STATE_COLORS[STATES.indexOf(st)];
const EDGE_STROKE = { blocked: stateColor('blocked'), owner: '#8b949e', waiting: stateColor('waiting'), joining: stateColor('joining'), acquiring: stateColor('acquiring'), parked: stateColor('parked') };

// cycleBadges says how many cycles the graph has: each is a deadlock of
// the list (g.deadlocks, its index there), or one that stood too short to
// be reported as one.
function cycleBadges(g) {
  if (!g.cycles.length) return [h('span', { class: 'badge ok' }, 'no cycle')];
  const dl = g.deadlocks.filter((k) => k >= 0).length, brief = g.cycles.length - dl;
  const out = [];
  if (dl) out.push(h('span', { class: 'badge bad cycles', title: `deadlock ${g.deadlocks.filter((k) => k >= 0).map((k) => k + 1).join(', ')} of the list` }, `${dl} deadlock${dl > 1 ? 's' : ''}`));
  if (brief) out.push(h('span', { class: 'badge warn', title: 'a cycle that broke before it stood 100 ms: an owner the recording no longer knew, not a deadlock' }, `${brief} brief cycle${brief > 1 ? 's' : ''}`));
  return out;
}

function clip(t, n) { return t.length > n ? t.slice(0, n - 1) + '…' : t; }
function shortClass(c) { const i = c.lastIndexOf('.'); return i >= 0 ? c.slice(i + 1) : c; }

// lockClass is a lock's class as the graph names it: without its package,
// the JVM's lock of a class being initialised in its words (the API's
// "class initialisation of com.example.Foo", Model.ClassName), and a
// java.lang.Class object as the class it is (the API's "java.lang.Class
// (com.example.Foo.class)": a synchronized static method's lock) as
// "Foo.class".
const INIT = 'class initialisation of ';

// initSeenLate: the deadlock dl waits for a class's initialisation that the
// agent's walker found still open (.info class_init_open): HotSpot posts no
// event when such a wait begins, the walker writes it at its round, up to
// two rounds (200 ms each by default) after it began (orca report says so).
function initSeenLate(app, dl) {
  return app.summary.info.class_init_open === 'yes' && (dl.classes || []).some((c) => c && c.startsWith(INIT));
}
const CLASS_OBJECT = /^java\.lang\.Class \((.+)\.class\)$/;
function lockClass(c) {
  if (c.startsWith(INIT)) return INIT + shortClass(c.slice(INIT.length));
  const co = CLASS_OBJECT.exec(c);
  return co ? shortClass(co[1]) + '.class' : shortClass(c);
}

// layout places each weakly connected component in layers by longest path
// from its waiters (cycles broken by a depth-first search), components
// with cycles first, then the largest.
export function layout(g, showJDK) {
  const nodes = g.nodes.map((n) => {
    if (n.kind === 'thread') return { ...n, w: NODE_W, h: NODE_H };
    // A lock's box is as wide as its label, which is cut only past the
    // column's width: a label wider than its box spilled under the
    // arrowheads at both ends.
    // Two lines: what and which, then its class.
    const most = Math.floor((LOCK_MAX_W - 24) / LOCK_CHAR_W);
    const label = [`${kindWord(n.kind)} ${n.object}`];
    if (n.class) label.push(clip(lockClass(n.class), most));
    const w = Math.max(LOCK_W, Math.ceil(Math.max(...label.map((l) => l.length)) * LOCK_CHAR_W) + 24);
    return { ...n, label, w, h: label.length === 1 ? LOCK_H : LOCK_H + 12 };
  });
  const idx = new Map(nodes.map((n, i) => [n.id, i]));
  const out = nodes.map(() => []), und = nodes.map(() => []);
  for (const e of g.edges) {
    const a = idx.get(e.from), b = idx.get(e.to);
    out[a].push(b);
    und[a].push(b);
    und[b].push(a);
  }
  // Components.
  const comp = new Array(nodes.length).fill(-1);
  const comps = [];
  for (let i = 0; i < nodes.length; i++) {
    if (comp[i] >= 0) continue;
    const members = [];
    const stack = [i];
    comp[i] = comps.length;
    while (stack.length) {
      const v = stack.pop();
      members.push(v);
      for (const w of und[v]) if (comp[w] < 0) { comp[w] = comps.length; stack.push(w); }
    }
    comps.push({ members, cycle: members.some((v) => nodes[v].cycle) });
  }
  comps.sort((a, b) => b.cycle - a.cycle || b.members.length - a.members.length);
  let shown = 0, hidden = 0, jdkHidden = 0;
  const keep = [];
  for (const c of comps) {
    const threads = c.members.filter((v) => nodes[v].kind === 'thread');
    if (!showJDK && !c.cycle && threads.length && threads.every((v) => nodes[v].jdk)) { jdkHidden += threads.length; continue; }
    if (shown + c.members.length > MAX_NODES && !c.cycle && shown > 0) { hidden += c.members.length; continue; }
    keep.push(c);
    shown += c.members.length;
  }
  // Break cycles: drop edges to nodes on the DFS stack.
  const state = new Array(nodes.length).fill(0);
  const dag = nodes.map(() => []);
  const dfs = (v) => {
    state[v] = 1;
    for (const w of out[v]) {
      if (state[w] === 1) continue;
      dag[v].push(w);
      if (state[w] === 0) dfs(w);
    }
    state[v] = 2;
  };
  const indeg = new Array(nodes.length).fill(0);
  for (const e of g.edges) indeg[idx.get(e.to)]++;
  for (let i = 0; i < nodes.length; i++) if (indeg[i] === 0 && state[i] === 0) dfs(i);
  for (let i = 0; i < nodes.length; i++) if (state[i] === 0) dfs(i);
  // Longest path layers.
  const layer = new Array(nodes.length).fill(0);
  const order = [];
  const seen = new Array(nodes.length).fill(false);
  const topo = (v) => { seen[v] = true; for (const w of dag[v]) if (!seen[w]) topo(w); order.push(v); };
  for (let i = 0; i < nodes.length; i++) if (!seen[i]) topo(i);
  order.reverse();
  for (const v of order) for (const w of dag[v]) layer[w] = Math.max(layer[w], layer[v] + 1);
  let y0 = 20;
  const placed = [];
  for (const c of keep) {
    const pos = c.cycle ? ringLayout(c, nodes, out, idx) : layered(c, nodes, dag, layer);
    let minCol = Infinity, rows = 0;
    for (const [, p] of pos) { minCol = Math.min(minCol, p.col); rows = Math.max(rows, p.row + 1); }
    for (const [v, p] of pos) {
      const n = nodes[v];
      n.x = 16 + (LOCK_MAX_W - NODE_W) / 2 + (p.col - minCol) * COL_W + (NODE_W - n.w) / 2;
      n.y = y0 + p.row * ROW_H + (NODE_H - n.h) / 2;
      placed.push(n);
    }
    y0 += rows * ROW_H + 40;
  }
  const ids = new Set(placed.map((n) => n.id));
  return { nodes: placed, edges: g.edges.filter((e) => ids.has(e.from) && ids.has(e.to)), hidden, jdkHidden };
}

// layered places a component without cycles: a column per layer, each
// column ordered by the mean row of its predecessors.
function layered(c, nodes, dag, layer) {
  const cols = new Map();
  for (const v of c.members) {
    if (!cols.has(layer[v])) cols.set(layer[v], []);
    cols.get(layer[v]).push(v);
  }
  const preds = new Map();
  for (const v of c.members) for (const w of dag[v]) { if (!preds.has(w)) preds.set(w, []); preds.get(w).push(v); }
  const pos = new Map();
  for (const k of [...cols.keys()].sort((a, b) => a - b)) {
    const col = cols.get(k);
    const bary = (v) => { const p = preds.get(v); return p && p.length ? p.reduce((s2, u) => s2 + (pos.get(u)?.row ?? 0), 0) / p.length : 0; };
    col.sort((a, b) => bary(a) - bary(b) || nodes[a].name.localeCompare(nodes[b].name));
    let last = -1;
    for (const v of col) {
      const row = Math.max(last + 1, Math.round(bary(v)));
      pos.set(v, { col: k, row });
      last = row;
    }
  }
  return pos;
}

// ringLayout draws a component's cycle as a loop on two rows (left to
// right on top, back on the bottom) and the threads waiting on it in
// columns to its left, by their distance to the loop.
function ringLayout(c, nodes, out, idx) {
  const inC = new Set(c.members);
  const start = c.members.find((v) => nodes[v].cycle && nodes[v].kind === 'thread') ?? c.members.find((v) => nodes[v].cycle);
  const ring = [start];
  const onRing = new Set(ring);
  for (let v = start; ;) {
    const w = out[v].find((x) => nodes[x].cycle && inC.has(x));
    if (w == null || onRing.has(w)) break;
    ring.push(w);
    onRing.add(w);
    v = w;
  }
  const pos = new Map();
  const k = Math.ceil(ring.length / 2);
  ring.forEach((v, i) => pos.set(v, i < k ? { col: i, row: 0 } : { col: ring.length - 1 - i, row: 1 }));
  // Other cycle members (a second loop in the same component) and the
  // waiters: to the left, by distance to the ring.
  const dist = new Map(ring.map((v) => [v, 0]));
  let changed = true;
  while (changed) {
    changed = false;
    for (const v of c.members) {
      if (onRing.has(v)) continue;
      for (const w of out[v]) {
        if (!dist.has(w)) continue;
        const cand = dist.get(w) + 1;
        if (!dist.has(v) || cand < dist.get(v)) { dist.set(v, cand); changed = true; }
      }
    }
  }
  const used = new Map();
  const place = (v, col) => {
    const row = used.get(col) ?? (col >= 0 && col < k ? 2 : 0);
    pos.set(v, { col, row });
    used.set(col, row + 1);
  };
  const rest = c.members.filter((v) => !pos.has(v)).sort((a, b) => (dist.get(a) ?? 99) - (dist.get(b) ?? 99) || nodes[a].name.localeCompare(nodes[b].name));
  for (const v of rest) {
    if (dist.has(v)) place(v, -dist.get(v));
    else place(v, k); // downstream of the ring: to its right
  }
  return pos;
}
