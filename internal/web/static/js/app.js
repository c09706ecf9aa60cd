// The viewer: loads the recording's summary, keeps the view state in the
// URL (so a view can be shared), and switches between the four views.

import { getJSON, onReading, threadRanges, threadRefs } from './api.js';
import { fmtDur, fmtCount, h, fill } from './format.js';
import { Timeline } from './timeline.js';
import { Locks } from './locks.js';
import { Deadlocks } from './deadlocks.js';
import { Flame } from './flame.js';
import { Panel } from './panel.js';

const VIEWS = ['timeline', 'locks', 'deadlocks', 'flame'];

// DEFAULTS are the state of a fresh page; the URL lists what differs.
const DEFAULTS = {
  view: 'timeline', t0: null, t1: null, y: 0, sel: null, selAt: null, selThread: null, lock: '', lockOnly: false,
  instant: null, sort: 'start', group: true, laneH: 18, filter: '',
  edges: { wake: false, owner: false, start: false, join: false, release: false, unpark: false },
  lockSel: '', lockSort: 'blocked:desc', dl: -1,
  fstates: 'blocked,waiting', fthread: '', flock: '', frange: false, fjdk: false, fcolor: 'state', fzoom: '', fkind: '',
};

// The URL's keys: short, stable, documented in docs/web.md.
function encode(st) {
  const p = new URLSearchParams();
  const d = DEFAULTS;
  p.set('v', st.view);
  if (st.t0 != null) p.set('r', `${Math.round(st.t0)},${Math.round(st.t1)}`);
  if (st.y) p.set('y', Math.round(st.y));
  if (st.sel) p.set('sel', `${st.sel.thread}.${st.sel.index}`);
  if (st.sel && st.selAt != null) p.set('sat', Math.round(st.selAt));
  if (st.selThread != null) p.set('thread', st.selThread);
  if (st.lock) p.set('lock', st.lock);
  if (st.lockOnly) p.set('only', '1');
  if (st.instant != null) p.set('t', Math.round(st.instant));
  if (st.sort !== d.sort) p.set('sort', st.sort);
  if (st.group !== d.group) p.set('group', st.group ? '1' : '0');
  if (st.laneH !== d.laneH) p.set('h', st.laneH);
  if (st.filter) p.set('q', st.filter);
  const edges = Object.entries(st.edges).filter(([, v]) => v).map(([k]) => k);
  if (edges.length) p.set('edges', edges.join(','));
  if (st.lockSel) p.set('lk', st.lockSel);
  if (st.lockSort !== d.lockSort) p.set('ls', st.lockSort);
  if (st.dl >= 0) p.set('dl', st.dl);
  if (st.fstates !== d.fstates) p.set('fs', st.fstates);
  if (st.fthread) p.set('ft', st.fthread);
  if (st.flock) p.set('fl', st.flock);
  if (st.frange) p.set('fr', '1');
  if (st.fjdk) p.set('fj', '1');
  if (st.fcolor !== d.fcolor) p.set('fc', st.fcolor);
  if (st.fzoom) p.set('fz', st.fzoom);
  if (st.fkind) p.set('fk', st.fkind);
  return p.toString();
}

function decode(hash) {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const st = structuredClone(DEFAULTS);
  const num = (k) => { const v = p.get(k); return v == null || v === '' || isNaN(+v) ? null : +v; };
  if (VIEWS.includes(p.get('v'))) st.view = p.get('v');
  const r = (p.get('r') || '').split(',').map(Number);
  if (r.length === 2 && r.every((x) => !isNaN(x)) && r[1] > r[0]) [st.t0, st.t1] = r;
  st.y = num('y') || 0;
  const sel = (p.get('sel') || '').split('.').map(Number);
  if (sel.length === 2 && sel.every((x) => Number.isInteger(x) && x >= 0)) st.sel = { thread: sel[0], index: sel[1] };
  if (st.sel) st.selAt = num('sat');
  if (num('thread') != null) st.selThread = num('thread');
  st.lock = /^[0-9A-Fa-f]{1,8}$/.test(p.get('lock') || '') ? p.get('lock').toUpperCase() : '';
  st.lockOnly = p.get('only') === '1';
  st.instant = num('t');
  if (['start', 'name', 'blocked'].includes(p.get('sort'))) st.sort = p.get('sort');
  if (p.has('group')) st.group = p.get('group') !== '0';
  if ([6, 12, 18, 24].includes(num('h'))) st.laneH = num('h');
  st.filter = p.get('q') || '';
  for (const k of (p.get('edges') || '').split(',')) if (k in st.edges) st.edges[k] = true;
  st.lockSel = p.get('lk') || '';
  if (p.get('ls')) st.lockSort = p.get('ls');
  if (num('dl') != null) st.dl = num('dl');
  if (p.get('fs')) st.fstates = p.get('fs');
  st.fthread = p.get('ft') || '';
  st.flock = p.get('fl') || '';
  st.frange = p.get('fr') === '1';
  st.fjdk = p.get('fj') === '1';
  if (p.get('fc') === 'package') st.fcolor = 'package';
  st.fzoom = p.get('fz') || '';
  st.fkind = ['cpu', 'wall', 'all'].includes(p.get('fk')) ? p.get('fk') : '';
  return st;
}

// MAX_ROWS: the most rows of threads one request asks (maxRows in layout.go).
const MAX_ROWS = 4096;

class App {
  constructor() {
    this.state = decode(location.hash);
    // lastHash is the address's hash as the page last wrote or applied it.
    this.lastHash = location.hash.replace(/^#/, '');
    this.toast = h('div', { class: 'toasts' });
    document.body.append(this.toast);
  }

  async start() {
    const main = document.getElementById('main');
    // Opened from its index, orca view reads the recording when a detail
    // asks it: the page says so while that detail waits.
    onReading((msg) => this.reading(msg));
    try {
      // Not every thread's row (/api/threads: c5G-slow5's 1.33 M threads,
      // 397 MB of JSON): the timeline asks the lanes' order of the server
      // and the rows of the threads it shows (loadThreads).
      const [summary, locks, groups, dls] = await Promise.all([
        getJSON('/api/summary'), getJSON('/api/locks'), getJSON('/api/groups'), getJSON('/api/deadlocks')]);
      this.summary = summary;
      this.threads = new Array(summary.threads); // the rows asked so far, by index
      this.locks = locks;
      this.groups = groups;
      // An object may be a monitor, a j.u.c. lock and a park's blocker at
      // once (an AQS sync): its first row, the one ranked first, stands
      // for it (the index keeps the first rows' details).
      this.lockIndex = new Map();
      for (const l of locks) if (!this.lockIndex.has(l.object)) this.lockIndex.set(l.object, l);
      this.dls = dls;
    } catch (e) {
      main.replaceChildren(h('div', { class: 'fatal' }, h('h2', null, 'Cannot load the recording'), h('p', null, e.message)));
      throw e;
    }
    this.header();
    this.panel = new Panel(this, document.getElementById('panel'));
    this.views = {};
    for (const v of VIEWS) this.views[v] = document.getElementById(`view-${v}`);
    this.timeline = new Timeline(this, this.views.timeline);
    this.lockView = new Locks(this, this.views.locks);
    this.dlView = new Deadlocks(this, this.views.deadlocks);
    this.flame = new Flame(this, this.views.flame);
    this.timeline.setData(this.summary, this.threads);
    this.lockView.setData(this.locks, this.groups);
    this.dlView.setData(this.dls);
    this.flame.setLocks(this.locks);
    await this.apply(this.state, true);
    const toAddress = () => {
      const hash = location.hash.replace(/^#/, '');
      if (hash === this.lastHash) return;
      this.lastHash = hash;
      clearTimeout(this.hashTimer);
      this.apply(decode(location.hash));
    };
    window.addEventListener('hashchange', toAddress);
    toAddress(); // an address changed while the page started, before anything listened
    window.addEventListener('keydown', (ev) => {
      const tag = (ev.target && ev.target.tagName) || '';
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || ev.ctrlKey || ev.metaKey || ev.altKey) return;
      const k = { 1: 'timeline', 2: 'locks', 3: 'deadlocks', 4: 'flame' }[ev.key];
      if (k) { this.show(k); ev.preventDefault(); }
      if (ev.key === '?') { this.help(); ev.preventDefault(); }
    });
    if (this.summary.follow) this.follow();
  }

  // follow asks /api/version every 2 s while orca view --follow reads a
  // recording that grows, and reloads the page when the server has a new
  // model of it: the view is in the URL, so the page comes back as it was,
  // with the new data. Not while the user is at it: after 3 s without
  // input (until then the header says new data waits).
  follow() {
    let last = 0;
    for (const ev of ['pointerdown', 'pointermove', 'keydown', 'wheel']) {
      window.addEventListener(ev, () => { last = Date.now(); }, { passive: true });
    }
    const gen = this.summary.generation;
    const tick = async () => {
      try {
        const v = await getJSON('/api/version');
        if (v.generation !== gen) {
          if (Date.now() - last >= 3000) {
            clearTimeout(this.hashTimer);
            history.replaceState(null, '', '#' + encode(this.state));
            location.reload();
            return;
          }
          const f = document.querySelector('#rec .follow');
          if (f) { f.textContent = '● new data'; f.classList.add('waiting'); }
        }
      } catch (e) { /* the server stopped, or is busy: ask again */ }
      setTimeout(tick, 2000);
    };
    setTimeout(tick, 2000);
  }

  // apply makes the page show a state (from a link or the back button).
  async apply(st, first) {
    const prevLock = this.state.lock;
    this.state = st;
    if (st.lock && (st.lock !== prevLock || first)) await this.loadLockThreads(st.lock);
    const tl = this.timeline;
    tl.syncControls();
    await tl.relayout();
    if (st.t0 == null) tl.fit(); else tl.setRange(st.t0, st.t1, true);
    tl.clampScroll();
    if (st.sel) tl.select(st.sel.thread, st.sel.index, { at: st.selAt });
    else if (st.selThread != null && st.selThread >= 0 && st.selThread < this.threads.length) this.panel.showThread(st.selThread);
    else this.panel.clear();
    if (tl.anyEdges()) tl.loadEdges();
    this.show(st.view, true);
  }

  header() {
    const s = this.summary;
    const stat = (v, k, cls) => h('span', { class: 'hstat ' + (cls || '') }, h('b', null, v), ` ${k}`);
    const warn = s.warnings.length ? h('span', { class: 'hwarn', title: s.warnings.join('\n') }, `⚠ ${s.warnings.length} warning${s.warnings.length > 1 ? 's' : ''}`) : null;
    fill(document.getElementById('rec'),
      h('span', { class: 'prefix', title: s.info.command ? `command: ${s.info.command}` : s.prefix }, s.prefix),
      stat(fmtDur(s.duration), ''), stat(fmtCount(s.threads), 'threads'), stat(fmtCount(s.events), 'events'),
      stat(fmtCount(s.contended), 'contended locks'),
      // An import from JFR cannot show a deadlock or a hang still going on at the end: "?", not 0.
      stat(s.deadlocks || !s.notVisible ? fmtCount(s.deadlocks) : '?', s.deadlocks === 1 ? 'deadlock' : 'deadlocks', s.deadlocks ? 'bad' : ''),
      stat(s.hangs || !s.notVisible ? fmtCount(s.hangs) : '?', s.hangs === 1 ? 'hang' : 'hangs', s.hangs ? 'warn' : ''),
      s.waitingAlone ? stat(fmtCount(s.waitingAlone), 'waiting alone') : null, warn,
      s.follow ? h('span', { class: 'follow', title: 'orca view --follow: the page reloads as the recording grows' }, '● following') : null);
    document.title = `${s.prefix} — orca`;
    const tabs = document.getElementById('tabs');
    const tab = (v, label, badge, cls) => h('button', { class: 'tab', dataset: { view: v }, onclick: () => this.show(v) }, label,
      badge ? h('span', { class: 'tab-badge ' + (cls || '') }, badge) : null);
    tabs.replaceChildren(
      tab('timeline', 'Timeline', fmtCount(s.threads)),
      tab('locks', 'Locks', s.contended ? fmtCount(s.contended) : null),
      tab('deadlocks', 'Deadlocks & hangs', s.deadlocks + s.hangs + s.potential || null, s.deadlocks ? 'bad' : s.hangs || s.potential ? 'warn' : ''),
      tab('flame', 'Flame graph'));
  }

  show(view, quiet) {
    this.state.view = view;
    for (const [k, el] of Object.entries(this.views)) el.hidden = k !== view;
    for (const b of document.querySelectorAll('#tabs .tab')) b.classList.toggle('active', b.dataset.view === view);
    document.body.dataset.view = view;
    if (view === 'timeline') { this.timeline.resize(); this.timeline.canvas.focus({ preventScroll: true }); }
    if (view === 'locks') this.lockView.render();
    if (view === 'deadlocks') this.dlView.render();
    if (view === 'flame') this.flame.render();
    if (!quiet) this.changed();
  }

  // changed records the state in the URL (a moment later, so dragging
  // does not flood the history). Not over an address the page has not
  // shown yet (a link or the back button while a change waited): its
  // hashchange, already queued, shows it, and writing the old state over
  // it first undid it (the page kept the old view: TestBrowserSamples).
  changed() {
    clearTimeout(this.hashTimer);
    this.hashTimer = setTimeout(() => {
      if (location.hash.replace(/^#/, '') !== this.lastHash) return;
      const hash = encode(this.state);
      if (hash !== this.lastHash) {
        this.lastHash = hash;
        history.replaceState(null, '', '#' + hash);
      }
    }, 150);
  }

  lockByObject(obj) { return this.lockIndex.get(obj); }

  // loadThreads asks the rows of the threads (indexes; -1 and those held
  // are skipped) not asked yet, in parts of MAX_ROWS, and resolves when
  // they are in this.threads. A row asked is asked once.
  loadThreads(list) {
    const want = [];
    const waits = new Set();
    this.rowsAsked = this.rowsAsked || new Map(); // index → Promise of its part
    for (const i of list) {
      if (i == null || i < 0 || i >= this.threads.length || this.threads[i]) continue;
      const p = this.rowsAsked.get(i);
      if (p) waits.add(p);
      else { want.push(i); this.rowsAsked.set(i, null); }
    }
    const uniq = [...new Set(want)].sort((a, b) => a - b);
    for (let k = 0; k < uniq.length; k += MAX_ROWS) {
      const part = uniq.slice(k, k + MAX_ROWS);
      const p = getJSON('/api/threads', { threads: threadRanges(part) }).then((rows) => {
        for (const r of rows) this.threads[r.i] = r;
      }).finally(() => { for (const i of part) this.rowsAsked.delete(i); });
      for (const i of part) this.rowsAsked.set(i, p);
      waits.add(p);
    }
    return Promise.all(waits);
  }

  async loadLockThreads(obj, kind) {
    const l = kind ? { kind } : this.lockIndex.get(obj);
    this.lockThreads = null;
    if (!l) return;
    try {
      const d = await getJSON(`/api/locks/${l.kind}/${obj}`);
      this.lockThreads = d.threads; // ranges of indexes, as /api/lanes' only takes them
    } catch (e) {
      this.error(e.message);
    }
  }

  // setLock highlights a lock's intervals on the timeline (null: none).
  // With span ([first, last] of its intervals) the timeline shows that range.
  // kind: the lock's whose threads the timeline shows (its detail's);
  // else the object's first row's.
  async setLock(obj, span, kind) {
    const st = this.state;
    st.lock = obj || '';
    if (obj) {
      st.lockOnly = true;
      await this.loadLockThreads(obj, kind);
    }
    this.timeline.updateLockChip();
    this.timeline.syncControls();
    this.timeline.relayout();
    this.show('timeline');
    if (span && span[1] > span[0]) {
      const pad = (span[1] - span[0]) * 0.04;
      this.timeline.setRange(span[0] - pad, span[1] + pad);
    }
  }

  showLock(kind, obj) {
    this.state.lockSel = `${kind}:${obj}`;
    this.show('locks');
  }

  async gotoThread(i) {
    const st = this.state;
    await this.loadThreads([i]);
    if (this.timeline.rowOf[i] < 0) { st.filter = ''; st.lockOnly = false; this.timeline.syncControls(); await this.timeline.relayout(); }
    this.show('timeline');
    st.sel = null;
    this.timeline.selDetail = null;
    st.selThread = i;
    this.timeline.reveal(i);
    this.panel.showThread(i);
  }

  // gotoInterval selects an interval (at: the instant its wait chain is
  // followed from, within it).
  async gotoInterval(thread, index, at) {
    const st = this.state;
    await this.loadThreads([thread]);
    if (this.timeline.rowOf[thread] < 0) { st.filter = ''; st.lockOnly = false; this.timeline.syncControls(); await this.timeline.relayout(); }
    this.show('timeline');
    this.timeline.select(thread, index, { reveal: true, at });
  }

  gotoNode(thread) { this.dlView.selectThread(thread); }

  // setInstant picks the instant of the wait-for graph (and, with go,
  // opens it).
  setInstant(t, go) {
    this.state.instant = t;
    this.state.dl = -1;
    this.changed();
    this.timeline.redraw();
    if (go) this.show('deadlocks');
    else this.note(`Instant set to ${(t / 1e9).toFixed(6)} s: the wait-for graph (key 3) shows it.`);
  }

  showInstantOnTimeline(t) {
    const st = this.state;
    st.instant = t;
    const w = st.t1 - st.t0;
    this.show('timeline');
    this.timeline.setRange(t - w / 2, t + w / 2);
  }

  // flameFor opens the flame graph of a thread (thread: its name or id)
  // or a lock; kind: samples of that kind ('cpu', 'wall', 'all'), else
  // blocking time; range: only the timeline's range.
  flameFor(f) {
    const st = this.state;
    st.fthread = f.thread || '';
    st.flock = f.lock || '';
    st.fkind = f.kind || '';
    if (f.range != null) st.frange = f.range;
    st.fzoom = '';
    this.show('flame');
  }

  // reading notes, every 5 s at most, that what was asked waits for the
  // recording to be read (the server's "still reading the recording: N %").
  reading(msg) {
    const now = Date.now();
    if (this.readingNoted && now - this.readingNoted < 5000) return;
    this.readingNoted = now;
    this.note(`${msg}: what you asked comes when it is read`);
  }

  error(msg) { this.message(msg, 'error'); }
  note(msg) { this.message(msg, 'note'); }

  message(msg, kind) {
    const el = h('div', { class: `toast ${kind}` }, msg);
    this.toast.append(el);
    setTimeout(() => el.remove(), kind === 'error' ? 8000 : 3500);
  }

  help() {
    const close = () => ov.remove();
    const row = (k, v) => h('tr', null, h('td', null, h('kbd', null, k)), h('td', null, v));
    const ov = h('div', { class: 'overlay', onclick: (e) => { if (e.target === ov) close(); } },
      h('div', { class: 'dialog' },
        h('h2', null, 'Keys and mouse'),
        h('table', { class: 'keys' },
          row('1 2 3 4', 'timeline, locks, deadlocks & hangs, flame graph'),
          row('drag, A D, ← →', 'pan in time (Shift: faster); drag also scrolls the lanes'),
          row('Ctrl+wheel, pinch, W S, + −', 'zoom at the mouse'),
          row('wheel, ↑ ↓, PgUp PgDn', 'scroll the lanes; Shift+wheel pans'),
          row('drag on the time axis', 'zoom to that range; a click there picks the instant for the wait-for graph'),
          row('drag on the strip above', 'jump to a range of the whole recording'),
          row('click', 'select an interval: its stack, lock, owner and edges in the panel'),
          row('double-click', 'zoom into an interval (or a merged run of them)'),
          row('0, Home', 'show the whole recording'),
          row('E', 'edges (wake, owner, start) on or off'),
          row('Esc', 'clear the selection')),
        h('p', { class: 'muted' }, 'The address bar keeps the view, range and selection: copy it to share this view of the same recording.'),
        h('button', { onclick: close }, 'Close')));
    document.body.append(ov);
  }
}

const app = new App();
window.orca = { app, ready: app.start().then(() => { window.orca.timeline = app.timeline; return true; }) };
