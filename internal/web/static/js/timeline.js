// The timeline: one lane per thread, its state intervals as coloured bars,
// drawn on a canvas from tiles the server sends with level of detail (see
// tiles.go). Only the visible lanes and tiles are fetched and drawn, so the
// cost of a frame depends on the screen, not on the recording.

import { getTile, getJSON, getLanes, threadRefs } from './api.js';
import { STATES, STATE_COLORS, STATE_TITLES, RUN_PARTS, RUN_COLORS, RUN_TITLES, runParts, EDGE_COLORS, fmtDur, fmtCount, fmtTime, fmtTick, niceStep, h, pct, fill, breakable, ownerFacts } from './format.js';

const TILE_W = 1024;
const MAX_LEVEL = 40;
const LABEL_W = 250;
const AXIS_H = 26;
const GROUP_H = 22;
const FLAG_OPEN = 0x40;
const FLAG_HL = 0x80;
const MAX_CACHED_SEGMENTS = 4e6;
const MAX_INFLIGHT = 6;
const LANES_PER_REQUEST = 256;

const BG = '#0d1117';
const LANE_BG = ['#0f141b', '#121821'];
const GRID = 'rgba(139,148,158,0.10)';
const TEXT = '#e6edf3';
const MUTED = '#8b949e';

// dim makes a colour translucent (for segments outside the highlighted lock).
function alpha(hex, a) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${n >> 16},${(n >> 8) & 255},${n & 255},${a})`;
}

// VIRTUAL begins the group key of virtual threads (JDK 21+), by name with
// digits as N (the server's layout: layout.go).
const VIRTUAL = '\u0002v:';

// OVERVIEW_BUCKETS: the overview's bucket counts the server's index keeps
// (overviewBuckets in tiles.go).
const OVERVIEW_BUCKETS = [100, 200, 400, 800, 1600, 3200];

// overviewBuckets is the most of them whose bars are a pixel wide or more
// in a strip ow pixels wide.
function overviewBuckets(ow) {
  const w = Math.floor((ow || 1200) - LABEL_W);
  let n = OVERVIEW_BUCKETS[0];
  for (const b of OVERVIEW_BUCKETS) if (b <= w) n = b;
  return n;
}

export class Timeline {
  constructor(app, root) {
    this.app = app;
    this.root = root;
    this.cache = new Map(); // `${level}:${tile}:${lock}` → {lanes: Map, pending: Set, used, segs}
    this.inflight = 0;
    this.queue = [];
    this.frame = 0;
    this.cachedSegs = 0;
    this.details = new Map(); // `${thread}.${index}` → interval JSON (or a Promise)
    this.collapsed = new Set();
    this.expanded = new Set();   // groups of virtual threads, collapsed unless here
    this.hover = null;
    this.mouse = null;
    this.edgeData = null;
    this.selDetail = null;
    this.metrics = { firstDraw: 0, firstPaint: 0 };
    this.build();
  }

  // ---- DOM ---------------------------------------------------------------

  build() {
    const st = this.app.state;
    this.sortSel = h('select', { title: 'Order of the lanes', onchange: () => { st.sort = this.sortSel.value; this.relayout(); this.app.changed(); } },
      h('option', { value: 'start' }, 'by start'), h('option', { value: 'name' }, 'by name'), h('option', { value: 'blocked' }, 'by blocked'));
    this.groupBox = h('input', { type: 'checkbox', onchange: () => { st.group = this.groupBox.checked; this.relayout(); this.app.changed(); } });
    this.heightSel = h('select', { title: 'Lane height', onchange: () => { st.laneH = +this.heightSel.value; this.relayout(); this.app.changed(); } },
      [6, 12, 18, 24].map((v) => h('option', { value: v }, `${v} px`)));
    this.filterIn = h('input', { type: 'search', placeholder: 'Filter threads…', class: 'filter', oninput: () => { st.filter = this.filterIn.value; this.relayout(); this.app.changed(); } });
    this.edgeBoxes = {};
    const edgeToggles = ['wake', 'owner', 'start', 'join', 'release', 'unpark'].map((k) => {
      const b = h('input', { type: 'checkbox', onchange: () => { st.edges[k] = b.checked; this.edgeData = null; this.loadEdges(); this.app.changed(); this.redraw(); } });
      this.edgeBoxes[k] = b;
      return h('label', { class: 'edge-toggle', title: EDGE_TITLES[k], style: { '--c': EDGE_COLORS[k] } }, b, k);
    });
    this.lockChip = h('span', { class: 'lock-chip', hidden: true });
    // The parts of runnable time (issue 33) follow runnable, shown once
    // the recording has a thread whose runnable time is split (setData).
    this.runLegend = h('span', { class: 'run-legend', hidden: true }, '(', RUN_PARTS.slice(0, 3).map((s, i) =>
      h('span', { class: 'legend-item run-part', title: RUN_TITLES[s], style: { '--c': RUN_COLORS[i] } }, s)), ')');
    const legend = h('div', { class: 'legend' }, STATES.map((s, i) =>
      [h('span', { class: 'legend-item' + (i === 0 ? ' runnable' : ''), title: STATE_TITLES[s], style: { '--c': STATE_COLORS[i] } }, s), i === 0 ? this.runLegend : null]));
    this.toolbar = h('div', { class: 'toolbar' },
      h('label', null, 'Sort ', this.sortSel),
      h('label', { title: 'Group threads whose names differ only by a trailing number' }, this.groupBox, ' group'),
      h('label', { title: 'Lane height' }, '↕ ', this.heightSel),
      this.filterIn,
      h('span', { class: 'sep' }),
      h('span', { class: 'edge-toggles', title: 'Arrows between threads: who woke, blocked, started, joined or released whom' }, edgeToggles),
      this.lockChip,
      h('span', { class: 'grow' }),
      h('button', { class: 'icon', title: 'Zoom in (W, +)', onclick: () => this.zoomBy(0.5) }, '+'),
      h('button', { class: 'icon', title: 'Zoom out (S, −)', onclick: () => this.zoomBy(2) }, '−'),
      h('button', { title: 'Show the whole recording (0)', onclick: () => this.fit() }, 'Fit'),
      h('button', { class: 'icon', title: 'Keys and mouse', onclick: () => this.app.help() }, '?'));
    this.ovCanvas = h('canvas', { class: 'overview' });
    this.canvas = h('canvas', { class: 'timeline', tabindex: 0 });
    this.tip = h('div', { class: 'tooltip', hidden: true });
    this.status = h('div', { class: 'tl-status' });
    this.wrap = h('div', { class: 'tl-wrap' }, this.canvas, this.tip);
    const foot = h('div', { class: 'statusbar' }, legend, h('span', { class: 'grow' }), this.status,
      h('span', { class: 'muted hint' }, 'drag or A D to pan · Ctrl+wheel or W S to zoom · click for the stack · ? for keys'));
    this.root.append(this.toolbar, h('div', { class: 'ov-wrap' }, this.ovCanvas), this.wrap, foot);
    this.ctx = this.canvas.getContext('2d', { alpha: false });
    this.octx = this.ovCanvas.getContext('2d');
    new ResizeObserver(() => this.resize()).observe(this.wrap);
    this.bindMouse();
  }

  // syncControls puts the state (from a link) into the toolbar.
  syncControls() {
    const st = this.app.state;
    this.sortSel.value = st.sort;
    this.groupBox.checked = st.group;
    this.heightSel.value = String(st.laneH);
    if (this.filterIn.value !== st.filter) this.filterIn.value = st.filter;
    for (const [k, b] of Object.entries(this.edgeBoxes)) b.checked = !!st.edges[k];
    this.updateLockChip();
  }

  updateLockChip() {
    const st = this.app.state;
    const c = this.lockChip;
    c.replaceChildren();
    if (!st.lock) { c.hidden = true; return; }
    c.hidden = false;
    const l = this.app.lockByObject(st.lock);
    fill(c, h('span', { class: 'lock-dot' }), `lock ${st.lock}`, l && l.class ? h('span', { class: 'muted' }, ` ${l.class}`) : null,
      h('label', { title: 'Show only the threads that blocked on, waited on or held this lock' },
        h('input', { type: 'checkbox', checked: st.lockOnly, onchange: (e) => { st.lockOnly = e.target.checked; this.relayout(); this.app.changed(); } }), ' only its threads'),
      h('button', { class: 'icon small', title: 'Stop highlighting this lock', onclick: () => this.app.setLock(null) }, '×'));
  }

  // ---- data and layout ---------------------------------------------------

  setData(summary, threads) {
    this.summary = summary;
    this.threads = threads; // the rows asked so far (App.loadThreads)
    this.dur = Math.max(summary.duration, 1);
    this.rowOf = new Int32Array(threads.length).fill(-1);
    this.layouts = new Map(); // the lanes' layouts asked (layoutParams' key) → layout or its Promise
    this.layoutSeq = 0;
    this.loadOverview();
  }

  // layoutParams are the lanes' layout's parameters for the state.
  layoutParams() {
    const st = this.app.state;
    const p = { sort: st.sort, group: st.group ? '1' : '0' };
    if (st.filter) p.filter = st.filter;
    if (st.lock && st.lockOnly && this.app.lockThreads != null) p.only = this.app.lockThreads;
    return p;
  }

  // relayout orders and groups the lanes (after a sort, filter or lock
  // change): the server makes the order of every thread (/api/lanes, the
  // order timeline.js made when the page held every thread's row; its
  // layouts are kept, so a layout asked before is laid out at once), the
  // page its rows, with the groups collapsed or expanded. It resolves once
  // the rows are laid out.
  relayout() {
    const p = this.layoutParams();
    const key = new URLSearchParams(p).toString();
    const seq = ++this.layoutSeq;
    let lay = this.layouts.get(key);
    if (lay && !(lay instanceof Promise)) { this.layoutRows(lay); return Promise.resolve(); }
    if (!lay) {
      lay = getLanes(p).then((v) => {
        this.layouts.set(key, v);
        // A few kept: the first (the page's default) and the last ones.
        while (this.layouts.size > 8) this.layouts.delete([...this.layouts.keys()][1]);
        return v;
      }, (e) => { this.layouts.delete(key); throw e; });
      this.layouts.set(key, lay);
    }
    return lay.then((v) => { if (seq === this.layoutSeq) this.layoutRows(v); }, (e) => this.app.error(`laying out the lanes: ${e.message}`));
  }

  // layoutRows lays out the rows of a layout: a lane per thread, a group's
  // head and, unless it is collapsed, its lanes.
  layoutRows(lay) {
    const st = this.app.state;
    this.runLegend.hidden = !lay.run;
    const rows = [];
    const laneH = st.laneH;
    let y = 0;
    const o = lay.order, G = lay.groups;
    for (let k = 0; k < o.length;) {
      const v = o[k++];
      if (v >= 0) { rows.push({ kind: 'lane', thread: v, y, h: laneH, depth: 0 }); y += laneH; continue; }
      const g = -v - 1, key = G.key[g], count = G.count[g];
      // Virtual threads (often thousands): a group per name pattern, collapsed until expanded.
      const virtual = key.startsWith(VIRTUAL);
      const name = key === '\u0000jdk' ? 'JDK service threads' : virtual ? 'virtual ' + key.slice(VIRTUAL.length) : key;
      const collapsed = virtual ? !this.expanded.has(key) : this.collapsed.has(key);
      rows.push({ kind: 'group', key, name, count, collapsed, y, h: GROUP_H, blocked: G.blocked[g] });
      y += GROUP_H;
      if (!collapsed) {
        for (let j = 0; j < count; j++) { rows.push({ kind: 'lane', thread: o[k + j], y, h: laneH, depth: 1 }); y += laneH; }
      }
      k += count;
    }
    this.rows = rows;
    this.totalH = y;
    this.rowOf.fill(-1);
    let lanes = 0;
    rows.forEach((r, i) => { if (r.kind === 'lane') { this.rowOf[r.thread] = i; lanes++; } });
    this.canvas.dataset.lanes = String(lanes);
    this.canvas.dataset.rows = String(rows.length);
    this.clampScroll();
    this.redraw();
  }

  // ---- geometry ------------------------------------------------------------

  // resize fits the canvases to their boxes (the ResizeObserver's
  // callback, and App.show). A canvas given a size is cleared, and the
  // browser paints it right after this callback: so it is drawn here, at
  // once, as flame.js paints, not at the next animation frame. Drawn
  // there, the frame between showed the timeline black: headless
  // Chromium's --screenshot, which sets the page to its --window-size
  // just before it shoots, caught it (TestBrowserShot). A size that did
  // not change clears nothing.
  resize() {
    const r = this.wrap.getBoundingClientRect();
    const or = this.ovCanvas.getBoundingClientRect();
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(200, Math.floor(r.width)), hh = Math.max(100, Math.floor(r.height));
    const ow = Math.max(200, Math.floor(or.width)), oh = Math.max(20, Math.floor(or.height));
    const cleared = dpr !== this.dpr || w !== this.w || hh !== this.h || ow !== this.ow || oh !== this.oh;
    this.dpr = dpr;
    this.w = w;
    this.h = hh;
    this.ow = ow;
    this.oh = oh;
    if (cleared) {
      this.canvas.width = w * dpr;
      this.canvas.height = hh * dpr;
      this.canvas.style.width = w + 'px';
      this.canvas.style.height = hh + 'px';
      this.ovCanvas.width = ow * dpr;
      this.ovCanvas.height = oh * dpr;
    }
    if (this.ovData && this.ovData.buckets < overviewBuckets(ow)) this.loadOverview();
    this.clampScroll();
    if (!cleared) { this.redraw(); return; }
    if (this.rows && this.visible()) {
      if (this.raf) { cancelAnimationFrame(this.raf); this.raf = 0; }
      this.draw();
      return;
    }
    // Nothing to draw yet (the lanes' layout not here): the background, not black.
    this.ctx.fillStyle = BG;
    this.ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    this.redraw();
  }

  get laneW() { return this.w - LABEL_W; }
  get nsPerPx() { const s = this.app.state; return (s.t1 - s.t0) / this.laneW; }
  x(t) { const s = this.app.state; return LABEL_W + (t - s.t0) / this.nsPerPx; }
  tAt(x) { const s = this.app.state; return s.t0 + (x - LABEL_W) * this.nsPerPx; }

  clampScroll() {
    const st = this.app.state;
    const max = Math.max(0, (this.totalH || 0) - (this.h - AXIS_H) + 8);
    st.y = Math.min(Math.max(0, st.y || 0), max);
  }

  // setRange shows [t0, t1], kept inside the recording (with a margin) and
  // no narrower than 100 ns.
  setRange(t0, t1, quiet) {
    const st = this.app.state;
    const margin = this.dur * 0.02;
    let w = Math.min(Math.max(t1 - t0, 100), this.dur + 2 * margin);
    let a = t0;
    if (t1 - t0 !== w) a = (t0 + t1) / 2 - w / 2;
    a = Math.max(-margin, Math.min(a, this.dur + margin - w));
    st.t0 = a;
    st.t1 = a + w;
    if (!quiet) this.app.changed();
    this.viewChanged();
  }

  fit() { this.setRange(-this.dur * 0.005, this.dur * 1.005); }

  zoomBy(f, atX) {
    const st = this.app.state;
    const x = atX ?? LABEL_W + this.laneW / 2;
    const t = this.tAt(x);
    this.setRange(t - (t - st.t0) * f, t + (st.t1 - t) * f);
  }

  panBy(px) {
    const st = this.app.state;
    const d = px * this.nsPerPx;
    this.setRange(st.t0 + d, st.t1 + d);
  }

  scrollBy(dy) {
    this.app.state.y += dy;
    this.clampScroll();
    this.app.changed();
    this.viewChanged();
  }

  viewChanged() {
    if (this.edgeTimer) clearTimeout(this.edgeTimer);
    if (this.anyEdges()) this.edgeTimer = setTimeout(() => this.loadEdges(), 120);
    this.redraw();
  }

  rowAtY(y) {
    const yy = y - AXIS_H + this.app.state.y;
    const rows = this.rows;
    let lo = 0, hi = rows.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      if (rows[m].y + rows[m].h <= yy) lo = m + 1;
      else if (rows[m].y > yy) hi = m - 1;
      else return m;
    }
    return -1;
  }

  laneMid(thread) {
    const ri = this.rowOf[thread];
    if (ri < 0) return null;
    const r = this.rows[ri];
    return AXIS_H + r.y - this.app.state.y + r.h / 2;
  }

  // reveal scrolls a thread's lane into view and, unless it is visible,
  // centres time t.
  reveal(thread, t0, t1) {
    const st = this.app.state;
    const ri = this.rowOf[thread];
    if (ri >= 0) {
      const r = this.rows[ri];
      const top = st.y, bottom = st.y + this.h - AXIS_H;
      if (r.y < top || r.y + r.h > bottom) st.y = r.y - (this.h - AXIS_H) / 3;
      this.clampScroll();
    }
    if (t0 != null) {
      const end = t1 ?? t0;
      if (end < st.t0 || t0 > st.t1) {
        const w = st.t1 - st.t0;
        const mid = (t0 + end) / 2;
        this.setRange(mid - w / 2, mid + w / 2, true);
      }
    }
    this.app.changed();
    this.viewChanged();
  }

  // ---- tiles ------------------------------------------------------------------

  level() {
    return Math.min(MAX_LEVEL, Math.max(0, Math.ceil(Math.log2(Math.max(this.nsPerPx, 1)))));
  }

  lastTile(level) { return Math.floor(this.dur / (TILE_W * 2 ** level)); }

  // tileKey is a tile's key in the cache: of the lock shown, or of lock.
  tileKey(level, k, lock = this.app.state.lock || '') { return `${level}:${k}:${lock}`; }

  // lane returns a thread's segments for tile k of level, or those of a
  // coarser tile that covers it while the right one loads.
  lane(level, k, thread) {
    const t = this.cache.get(this.tileKey(level, k));
    if (t) {
      t.used = this.frame;
      const l = t.lanes.get(thread);
      if (l) return l;
    }
    for (let up = 1; up <= 10 && level + up <= MAX_LEVEL; up++) {
      const c = this.cache.get(this.tileKey(level + up, Math.floor(k / 2 ** up)));
      const l = c && c.lanes.get(thread);
      if (l) { c.used = this.frame; return l; }
    }
    // The lock's tiles wait for the model (an index alone answers 503):
    // the tile without the lock meanwhile (ask), drawn undimmed.
    if (t && t.reading) {
      const p = this.cache.get(this.tileKey(level, k, ''));
      const l = p && p.lanes.get(thread);
      if (l) { p.used = this.frame; return l; }
    }
    return null;
  }

  request(level, k, thread, lock = this.app.state.lock || '') {
    const key = this.tileKey(level, k, lock);
    let t = this.cache.get(key);
    if (!t) {
      t = { level, k, lock, lanes: new Map(), pending: new Set(), used: this.frame, segs: 0 };
      this.cache.set(key, t);
    }
    if (t.pending.has(thread) || t.lanes.has(thread)) return;
    if (t.retryAt && Date.now() < t.retryAt) {
      // Asked again then: stillReading's one timer can come first by a
      // little, or be another tile's (a lock's tiles whose 503s came
      // apart), and a tile passed by then was never asked again.
      this.retryLater(t.retryAt);
      return;
    }
    t.pending.add(thread);
    let q = this.queue.find((e) => e.key === key && e.threads.length < LANES_PER_REQUEST);
    if (!q) { q = { key, t, threads: [] }; this.queue.push(q); }
    q.threads.push(thread);
  }

  // retryLater redraws (asks) just after at, once for the earliest.
  retryLater(at) {
    if (this.retryTimer && this.retryTimerAt <= at) return;
    clearTimeout(this.retryTimer);
    this.retryTimerAt = at;
    this.retryTimer = setTimeout(() => { this.retryTimer = null; this.redraw(); }, Math.max(0, at - Date.now()) + 10);
  }

  pump() {
    while (this.inflight < MAX_INFLIGHT && this.queue.length) {
      const q = this.queue.shift();
      this.inflight++;
      getTile(q.t.level, q.t.k, q.threads, q.t.lock).then((lanes) => {
        q.t.reading = false;
        for (const [th, l] of lanes) {
          l.plain = !q.t.lock; // not dimmed: no lock asked of it
          q.t.lanes.set(th, l);
          q.t.segs += l.s.length;
          this.cachedSegs += l.s.length;
        }
      }).catch((e) => {
        // Asked again in a second, not at once: ask, called on each
        // answer, would ask a failing tile again and again.
        q.t.retryAt = Date.now() + 1000;
        if (e.status === 503) { q.t.reading = true; this.stillReading(e.message); }
        else this.app.error(`loading the timeline: ${e.message}`);
      }).finally(() => {
        for (const th of q.threads) q.t.pending.delete(th);
        this.inflight--;
        this.evict();
        this.redraw();
        this.pump();
      });
    }
  }

  // stillReading: the server answers from its index, and reads the
  // recording for what the index does not keep (503: a lock's
  // highlight). The tiles without are drawn meanwhile; the missing ones
  // are asked again every second, and a note says how far the reading
  // is, now and then.
  stillReading(msg) {
    this.app.reading(msg);
    if (!this.readingRetry) {
      this.readingRetry = setTimeout(() => { this.readingRetry = null; this.redraw(); }, 1000);
    }
  }

  evict() {
    if (this.cachedSegs <= MAX_CACHED_SEGMENTS) return;
    const entries = [...this.cache.entries()].filter(([, t]) => t.pending.size === 0).sort((a, b) => a[1].used - b[1].used);
    for (const [key, t] of entries) {
      if (this.cachedSegs <= MAX_CACHED_SEGMENTS * 0.7 || t.used >= this.frame - 1) break;
      this.cachedSegs -= t.segs;
      this.cache.delete(key);
    }
  }

  // ---- drawing ----------------------------------------------------------------

  // redraw draws at the next animation frame, and asks at once, not
  // then, for what the screen lacks (ask): a frame can come late or not
  // at all (a slow machine, a tab in the background, headless Chromium's
  // virtual time, which ran the page's timers and answers on to its end
  // with a draw still waiting for a frame), and each round trip of the
  // first screen (the lanes, then their rows and tiles) waited for one.
  redraw() {
    if (!this.rows) return;
    if (!this.askQueued) {
      this.askQueued = true;
      queueMicrotask(() => { this.askQueued = false; this.ask(); });
    }
    if (this.raf) return;
    this.raf = requestAnimationFrame(() => { this.raf = 0; if (this.visible()) this.draw(); });
  }

  // ask asks for the rows and the tiles of the lanes on screen that are
  // not here, and, once all are, for those around the screen (prefetch);
  // it returns how many are missing. The one place that decides what the
  // timeline fetches: draw paints what is here.
  ask() {
    const st = this.app.state;
    if (!this.rows || !this.visible() || st.t0 == null) return 0;
    const level = this.level();
    const span = TILE_W * 2 ** level;
    const k0 = Math.max(0, Math.floor(st.t0 / span));
    const k1 = Math.min(this.lastTile(level), Math.floor(st.t1 / span));
    const bottom = st.y + this.h - AXIS_H;
    const first = Math.max(0, this.rowAtY(AXIS_H));
    const rows = this.rows;
    const rowsMissing = [];
    let missing = 0;
    for (let ri = first; ri < rows.length && rows[ri].y < bottom; ri++) {
      const r = rows[ri];
      if (r.kind !== 'lane') continue;
      // A lane whose row is not here yet has its tiles asked meanwhile.
      if (!this.threads[r.thread]) rowsMissing.push(r.thread);
      for (let k = k0; k <= k1; k++) {
        const t = this.cache.get(this.tileKey(level, k));
        if (t && t.lanes.has(r.thread)) continue;
        missing++;
        this.request(level, k, r.thread);
        if (t && t.reading) this.request(level, k, r.thread, '');
      }
    }
    if (rowsMissing.length) this.wantRows(rowsMissing, first);
    this.pump();
    missing += rowsMissing.length;
    if (!missing) this.prefetch(level, k0, k1, first, bottom);
    return missing;
  }

  visible() { return this.app.state.view === 'timeline' && this.w > 0; }

  draw() {
    const t0 = performance.now();
    this.frame++;
    const st = this.app.state;
    const ctx = this.ctx;
    const W = this.w, H = this.h, dpr = this.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = BG;
    ctx.fillRect(0, 0, W, H);
    const nspp = this.nsPerPx;
    const level = this.level();
    const span = TILE_W * 2 ** level;
    const last = this.lastTile(level);
    const k0 = Math.max(0, Math.floor(st.t0 / span));
    const k1 = Math.min(last, Math.floor(st.t1 / span));
    const top = st.y;
    const bottom = top + H - AXIS_H;
    let first = this.rowAtY(AXIS_H);
    if (first < 0) first = 0;
    const rows = this.rows;
    const toX = (t) => LABEL_W + (t - st.t0) / nspp;

    // Buckets of rectangles per colour: the states × (plain, mixed, dimmed).
    // After them: the runnable bar, then one per part of runnable time.
    const nb = STATES.length * 3;
    if (!this.buckets) this.buckets = Array.from({ length: nb + 1 + RUN_PARTS.length }, () => []);
    const B = this.buckets;
    for (const b of B) b.length = 0;
    const dimming = !!st.lock;
    // runW: per lane, the pixels drawn of each part of runnable time (the
    // browser test reads them: their widths are the model's figures).
    const runW = {};
    const labels = [];

    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, AXIS_H, W - LABEL_W, H - AXIS_H);
    ctx.clip();
    for (let ri = first; ri < rows.length && rows[ri].y < bottom; ri++) {
      const r = rows[ri];
      const y = AXIS_H + r.y - top;
      if (r.kind === 'group') {
        ctx.fillStyle = '#161b22';
        ctx.fillRect(LABEL_W, y, W - LABEL_W, r.h);
        continue;
      }
      ctx.fillStyle = LANE_BG[ri & 1];
      ctx.fillRect(LABEL_W, y, W - LABEL_W, r.h);
      const th = this.threads[r.thread];
      // Its row not here yet (asked: ask): drawn when it comes.
      if (!th) continue;
      const pad = r.h >= 12 ? 2 : r.h >= 6 ? 1 : 0;
      const bh = r.h - 2 * pad;
      // Runnable: a thin bar over the thread's life; or, where the model
      // splits it (th.run), its stretches in the tiles, each drawn as its
      // parts side by side, running first, as wide as their time.
      const xa = Math.max(toX(th.start), LABEL_W), xb = Math.min(toX(th.end), W);
      const rh = Math.max(1, Math.round(bh * (th.run ? 0.45 : 0.3)));
      const ry = y + pad + (bh - rh) / 2;
      if (xb > xa && !th.run) B[nb].push(xa, ry, Math.max(1, xb - xa), rh);
      for (let k = k0; k <= k1; k++) {
        const l = this.lane(level, k, r.thread);
        if (!l) continue;
        const ta = Math.max(k * span, st.t0), tb = Math.min((k + 1) * span, st.t1);
        if (th.run) runRects(l, ta, tb, toX, ry, rh, B, nb + 1, runW[r.thread] || (runW[r.thread] = RUN_PARTS.map(() => 0)));
        const s = l.s, e = l.e, n = l.n, sts = l.st;
        // First segment ending after ta.
        let lo = 0, hi = s.length;
        while (lo < hi) { const m = (lo + hi) >> 1; if (e[m] <= ta) lo = m + 1; else hi = m; }
        for (let i = lo; i < s.length && s[i] < tb; i++) {
          const x0 = Math.round(toX(Math.max(s[i], ta)));
          const x1 = Math.round(toX(Math.min(e[i], tb)));
          const w = Math.max(1, x1 - x0);
          const code = sts[i];
          const state = code & 15;
          if (state === 0) {
            // Intervals narrower than a pixel, mostly runnable between
            // them (tiles.go): a thread's runnable bar, not split.
            B[nb].push(x0, ry, w, rh);
            continue;
          }
          const variant = dimming && !l.plain && !(code & FLAG_HL) ? 2 : n[i] > 1 ? 1 : 0;
          B[state * 3 + variant].push(x0, y + pad, w, bh);
          // A label once per segment, in the tile where its visible part starts.
          const vs = Math.max(s[i], st.t0);
          if (n[i] === 1 && r.h >= 16 && vs >= ta && vs < tb) {
            const lx = toX(vs), lw = toX(Math.min(e[i], st.t1)) - lx;
            if (lw >= 80) labels.push(lx, y + r.h / 2, lw, state, e[i] - s[i]);
          }
        }
      }
    }
    // Fill the buckets, one colour at a time.
    ctx.fillStyle = alpha(STATE_COLORS[0], 0.55);
    const rb = B[nb];
    for (let i = 0; i < rb.length; i += 4) ctx.fillRect(rb[i], rb[i + 1], rb[i + 2], rb[i + 3]);
    for (let p = 0; p < RUN_PARTS.length; p++) {
      const b = B[nb + 1 + p];
      ctx.fillStyle = RUN_COLORS[p];
      for (let i = 0; i < b.length; i += 4) ctx.fillRect(b[i], b[i + 1], b[i + 2], b[i + 3]);
    }
    this.runWidths = runW;
    for (let s = 1; s < STATES.length; s++) {
      for (let v = 0; v < 3; v++) {
        const b = B[s * 3 + v];
        if (!b.length) continue;
        ctx.fillStyle = v === 0 ? STATE_COLORS[s] : v === 1 ? alpha(STATE_COLORS[s], 0.7) : alpha(STATE_COLORS[s], 0.16);
        for (let i = 0; i < b.length; i += 4) ctx.fillRect(b[i], b[i + 1], b[i + 2], b[i + 3]);
      }
    }
    // Labels inside wide segments.
    if (labels.length) {
      ctx.font = '11px ' + UI_FONT;
      ctx.textBaseline = 'middle';
      ctx.fillStyle = '#0d1117';
      for (let i = 0; i < labels.length; i += 5) {
        const x = labels[i], y = labels[i + 1], w = labels[i + 2];
        const text = `${STATES[labels[i + 3]]} ${fmtDur(labels[i + 4])}`;
        const cx = Math.max(x, LABEL_W) + 5;
        const room = x + w - cx - 4;
        if (room > 30) ctx.fillText(ellipsize(ctx, text, room), cx, y + 0.5);
      }
    }
    this.drawGrid(ctx);
    this.drawSelection(ctx, toX);
    this.drawEdges(ctx, toX);
    if (st.instant != null) {
      const x = toX(st.instant);
      ctx.strokeStyle = '#39c5cf';
      ctx.setLineDash([4, 3]);
      ctx.beginPath();
      ctx.moveTo(Math.round(x) + 0.5, AXIS_H);
      ctx.lineTo(Math.round(x) + 0.5, H);
      ctx.stroke();
      ctx.setLineDash([]);
    }
    if (this.mouse && this.mouse.x > LABEL_W && !this.drag) {
      ctx.strokeStyle = 'rgba(230,237,243,0.25)';
      ctx.beginPath();
      ctx.moveTo(Math.round(this.mouse.x) + 0.5, AXIS_H);
      ctx.lineTo(Math.round(this.mouse.x) + 0.5, H);
      ctx.stroke();
    }
    ctx.restore();
    this.drawAxis(ctx);
    this.drawLabels(ctx, first, bottom);
    this.drawScrollbar(ctx);
    this.drawOverview();
    const missing = this.ask();
    const dt = performance.now() - t0;
    this.lastDraw = dt;
    if (!this.metrics.firstDraw) this.metrics.firstDraw = performance.now();
    if (!missing && !this.metrics.firstPaint) {
      this.metrics.firstPaint = performance.now();
      this.canvas.dataset.painted = '1';
    }
    this.status.textContent = missing ? 'loading…' : '';
  }

  // wantRows asks the rows of lanes on screen not here yet, and those of
  // a screen's lanes below, and draws again when they come.
  wantRows(list, first) {
    const more = [];
    const n = Math.ceil(this.h / Math.max(this.app.state.laneH, 1));
    for (let ri = first; ri < this.rows.length && more.length < 2 * n; ri++) {
      const r = this.rows[ri];
      if (r.kind === 'lane' && !this.threads[r.thread]) more.push(r.thread);
    }
    this.rowsWaiting = (this.rowsWaiting || 0) + 1;
    this.app.loadThreads(list.concat(more)).then(() => this.redraw(), (e) => this.app.error(`loading the threads' rows: ${e.message}`))
      .finally(() => { this.rowsWaiting--; });
  }

  // prefetch asks for the tiles of a screen's lanes below the view, for
  // scrolling and for a window made taller (headless Chromium's
  // --screenshot makes it so just before it shoots: the lanes it showed
  // were drawn empty, their tiles not asked yet), then those either side
  // of the view, for panning. wantRows asks those lanes' rows.
  prefetch(level, k0, k1, first, bottom) {
    const last = this.lastTile(level);
    const below = bottom + this.h - AXIS_H;
    for (let ri = first; ri < this.rows.length && this.rows[ri].y < below; ri++) {
      const r = this.rows[ri];
      if (r.kind !== 'lane' || r.y < bottom) continue;
      for (let k = k0; k <= k1; k++) {
        const t = this.cache.get(this.tileKey(level, k));
        if (!t || !t.lanes.has(r.thread)) this.request(level, k, r.thread);
      }
    }
    for (const k of [k0 - 1, k1 + 1]) {
      if (k < 0 || k > last) continue;
      for (let ri = first; ri < this.rows.length && this.rows[ri].y < bottom; ri++) {
        const r = this.rows[ri];
        if (r.kind === 'lane') {
          const t = this.cache.get(this.tileKey(level, k));
          if (!t || !t.lanes.has(r.thread)) this.request(level, k, r.thread);
        }
      }
    }
    this.pump();
  }

  // tickStep is the step between the time axis's labelled ticks: a round
  // one, at least 90 px, and wide enough for its labels (deep in a long
  // recording they have many decimals).
  tickStep(ctx) {
    const st = this.app.state;
    const key = `${this.nsPerPx} ${st.t0} ${st.t1}`;
    if (this.stepKey === key) return this.step;
    ctx.save();
    ctx.font = '11px ' + UI_FONT;
    let step = niceStep(this.nsPerPx * 90);
    for (let i = 0; i < 8; i++) {
      const w = textWidth(ctx, fmtTick(st.t1, step, st.t1)) + 16;
      if (w <= step / this.nsPerPx) break;
      step = niceStep(step * 1.01);
    }
    ctx.restore();
    this.stepKey = key;
    this.step = step;
    return step;
  }

  drawGrid(ctx) {
    const st = this.app.state;
    const step = this.tickStep(ctx);
    ctx.strokeStyle = GRID;
    ctx.beginPath();
    for (let t = Math.ceil(st.t0 / step) * step; t <= st.t1; t += step) {
      const x = Math.round(this.x(t)) + 0.5;
      ctx.moveTo(x, AXIS_H);
      ctx.lineTo(x, this.h);
    }
    ctx.stroke();
  }

  drawAxis(ctx) {
    const st = this.app.state;
    const W = this.w;
    ctx.fillStyle = '#161b22';
    ctx.fillRect(0, 0, W, AXIS_H);
    ctx.fillStyle = '#30363d';
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    const step = this.tickStep(ctx);
    const max = Math.max(Math.abs(st.t0), Math.abs(st.t1));
    ctx.font = '11px ' + UI_FONT;
    ctx.textBaseline = 'middle';
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, W - LABEL_W, AXIS_H);
    ctx.clip();
    this.ticks = [];
    // tickRects: where each label was drawn (for the browser tests). A
    // label is drawn right of its tick; one that would pass the right edge
    // (the last, at the recording's end) goes left of its tick instead, or,
    // with no room there, is left out: a label cut in half reads wrong.
    this.tickRects = [];
    let prevRight = LABEL_W;
    for (let t = Math.ceil(st.t0 / step) * step; t <= st.t1; t += step) {
      const x = Math.round(this.x(t)) + 0.5;
      ctx.fillStyle = '#30363d';
      ctx.fillRect(x - 0.5, AXIS_H - 7, 1, 6);
      ctx.fillStyle = MUTED;
      const label = fmtTick(t, step, max);
      const tw = ctx.measureText(label).width;
      let left = x + 4;
      if (left + tw > W - 2) left = x - 4 - tw;
      if (left < prevRight + 4 || left + tw > W - 2) continue;
      this.ticks.push(label);
      this.tickRects.push({ label, left, right: left + tw });
      ctx.fillText(label, left, AXIS_H / 2);
      prevRight = left + tw;
    }
    // Minor ticks.
    ctx.fillStyle = '#30363d';
    for (let t = Math.ceil(st.t0 / (step / 5)) * (step / 5); t <= st.t1; t += step / 5) {
      ctx.fillRect(Math.round(this.x(t)), AXIS_H - 4, 1, 3);
    }
    if (this.brush) {
      const a = Math.min(this.brush.x0, this.brush.x1), b = Math.max(this.brush.x0, this.brush.x1);
      ctx.fillStyle = 'rgba(57,197,207,0.25)';
      ctx.fillRect(a, 0, b - a, AXIS_H);
    }
    if (st.instant != null) {
      const x = this.x(st.instant);
      ctx.fillStyle = '#39c5cf';
      ctx.beginPath();
      ctx.moveTo(x - 5, 0); ctx.lineTo(x + 5, 0); ctx.lineTo(x, 7); ctx.fill();
    }
    if (this.mouse && this.mouse.x > LABEL_W) {
      const t = this.tAt(this.mouse.x);
      const text = fmtTime(t, this.nsPerPx);
      const tw = ctx.measureText(text).width + 10;
      const x = Math.min(this.mouse.x + 1, W - tw);
      ctx.fillStyle = '#30363d';
      ctx.fillRect(x, 3, tw, AXIS_H - 7);
      ctx.fillStyle = TEXT;
      ctx.fillText(text, x + 5, AXIS_H / 2 - 1);
    }
    ctx.restore();
    // The corner: range shown.
    ctx.fillStyle = MUTED;
    ctx.fillText(`${fmtDur(st.t1 - st.t0)} shown`, 10, AXIS_H / 2);
  }

  drawLabels(ctx, first, bottom) {
    const st = this.app.state;
    const H = this.h;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, AXIS_H, LABEL_W, H - AXIS_H);
    ctx.clip();
    ctx.fillStyle = '#11161d';
    ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
    ctx.textBaseline = 'middle';
    const rows = this.rows;
    this.laneLabels = new Map(); // thread → the label drawn (for tests)
    for (let ri = first; ri < rows.length && rows[ri].y < bottom; ri++) {
      const r = rows[ri];
      const y = AXIS_H + r.y - st.y;
      if (r.kind === 'group') {
        ctx.fillStyle = '#161b22';
        ctx.fillRect(0, y, LABEL_W, r.h);
        ctx.fillStyle = '#21262d';
        ctx.fillRect(0, y + r.h - 1, this.w, 1);
        ctx.fillStyle = MUTED;
        ctx.font = '10px ' + UI_FONT;
        ctx.fillText(r.collapsed ? '▶' : '▼', 8, y + r.h / 2);
        const g = groupLabel(ctx, r.name, r.count);
        ctx.font = '600 12px ' + UI_FONT;
        ctx.fillStyle = TEXT;
        ctx.fillText(g.name, 24, y + r.h / 2);
        ctx.font = '11px ' + UI_FONT;
        ctx.fillStyle = MUTED;
        ctx.textAlign = 'right';
        ctx.fillText(g.count, LABEL_W - 10, y + r.h / 2);
        ctx.textAlign = 'left';
        continue;
      }
      const th = this.threads[r.thread];
      if (!th) continue; // its row comes (wantRows)
      const sel = (st.sel && st.sel.thread === r.thread) || st.selThread === r.thread;
      if (sel) {
        ctx.fillStyle = '#1f2a37';
        ctx.fillRect(0, y, LABEL_W, r.h);
        ctx.fillStyle = '#39c5cf';
        ctx.fillRect(0, y, 3, r.h);
      } else if (this.hoverRow === ri) {
        ctx.fillStyle = '#161d27';
        ctx.fillRect(0, y, LABEL_W, r.h);
      }
      if (r.h >= 10) {
        const fs = r.h >= 16 ? 12 : 10;
        ctx.font = `${fs}px ${UI_FONT}`;
        const indent = 10 + r.depth * 14;
        // Blocked share of the thread's life, right-aligned.
        const life = Math.max(th.end - th.start, 1);
        const bl = th.time[1] + th.time[5];
        let right = LABEL_W - 8;
        if (bl > 0 && r.h >= 14) {
          const p = pct(bl, life);
          ctx.font = `10px ${UI_FONT}`;
          ctx.fillStyle = bl / life > 0.25 ? STATE_COLORS[1] : MUTED;
          ctx.textAlign = 'right';
          ctx.fillText(p, right, y + r.h / 2);
          ctx.textAlign = 'left';
          right -= textWidth(ctx, p) + 8;
          ctx.font = `${fs}px ${UI_FONT}`;
        }
        ctx.fillStyle = th.jdk ? MUTED : TEXT;
        const label = ellipsize(ctx, th.name, right - indent, true);
        this.laneLabels.set(r.thread, label);
        ctx.fillText(label, indent, y + r.h / 2 + 0.5);
      }
    }
    ctx.restore();
    ctx.fillStyle = '#30363d';
    ctx.fillRect(LABEL_W - 1, 0, 1, H);
  }

  drawScrollbar(ctx) {
    const viewH = this.h - AXIS_H;
    if (this.totalH <= viewH) { this.thumb = null; return; }
    const st = this.app.state;
    const th = Math.max(24, viewH * viewH / this.totalH);
    const y = AXIS_H + (viewH - th) * (st.y / Math.max(1, this.totalH - viewH + 8));
    this.thumb = { y, h: th };
    ctx.fillStyle = 'rgba(139,148,158,0.35)';
    roundRect(ctx, this.w - 8, y + 2, 6, th - 4, 3);
    ctx.fill();
  }

  drawSelection(ctx, toX) {
    const st = this.app.state;
    // The holder's span of the selected contention (Panel.showHolder):
    // dashed, on the holder's lane.
    const hs = this.holderSpan;
    if (hs && st.sel) {
      const mid = this.laneMid(hs.thread);
      if (mid != null) {
        const r = this.rows[this.rowOf[hs.thread]];
        const x0 = toX(hs.s), x1 = toX(hs.e);
        ctx.strokeStyle = '#39c5cf';
        ctx.setLineDash([5, 3]);
        ctx.lineWidth = 2;
        ctx.strokeRect(Math.round(x0) - 1, mid - r.h / 2 + 1, Math.max(2, Math.round(x1 - x0) + 2), r.h - 2);
        ctx.setLineDash([]);
        ctx.lineWidth = 1;
      }
    }
    const d = this.selDetail;
    if (!st.sel || !d || d.thread !== st.sel.thread || d.index !== st.sel.index) return;
    const mid = this.laneMid(d.thread);
    if (mid == null) return;
    const r = this.rows[this.rowOf[d.thread]];
    const x0 = toX(d.start), x1 = toX(d.end);
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2;
    ctx.strokeRect(Math.round(x0) - 1, mid - r.h / 2 + 1, Math.max(2, Math.round(x1 - x0) + 2), r.h - 2);
    ctx.lineWidth = 1;
  }

  drawEdges(ctx, toX) {
    const list = [];
    if (this.edgeData && this.anyEdges()) for (const e of this.edgeData.edges) list.push([e, false]);
    const d = this.selDetail;
    const st = this.app.state;
    if (d && st.sel && d.thread === st.sel.thread && d.index === st.sel.index) for (const e of d.edges) list.push([e, true]);
    if (!list.length) return;
    for (const [e, strong] of list) {
      if (e.from < 0 || e.to < 0) continue;
      const y1 = this.laneMid(e.from), y2 = this.laneMid(e.to);
      if (y1 == null || y2 == null) continue;
      if ((y1 < AXIS_H && y2 < AXIS_H) || (y1 > this.h && y2 > this.h)) continue;
      const x1 = toX(e.fromTime), x2 = toX(e.toTime);
      if ((x1 < LABEL_W && x2 < LABEL_W) || (x1 > this.w && x2 > this.w)) continue;
      const c = EDGE_COLORS[e.kind] || '#ccc';
      // An owner edge says who held the monitor when the thread blocked:
      // a vertical arrow at that moment. The others go from the cause
      // (notify, start, end, release) to the effect.
      const vertical = e.kind === 'owner' || Math.abs(x2 - x1) < 3;
      const xa = x1, xb = vertical ? x1 : x2;
      const path = () => {
        ctx.beginPath();
        ctx.moveTo(xa, y1);
        if (vertical) ctx.lineTo(xb, y2);
        else {
          const dx = Math.max(24, Math.abs(xb - xa) * 0.4);
          ctx.bezierCurveTo(xa + dx * (xb >= xa ? 0.5 : -0.5), y1, xb - dx * 0.5, y2, xb, y2);
        }
      };
      // A dark halo keeps the edge visible over bars of its own colour.
      ctx.lineWidth = strong ? 4.5 : 3.5;
      ctx.strokeStyle = 'rgba(13,17,23,0.85)';
      path();
      ctx.stroke();
      ctx.lineWidth = strong ? 2 : 1.3;
      ctx.strokeStyle = c;
      if (e.kind === 'owner') ctx.setLineDash([5, 3]);
      path();
      ctx.stroke();
      ctx.setLineDash([]);
      const dir = vertical ? Math.atan2(y2 - y1, 0) : 0; // the curve ends heading right
      ctx.fillStyle = c;
      ctx.beginPath();
      ctx.moveTo(xb, y2);
      ctx.lineTo(xb - 8 * Math.cos(dir - 0.45), y2 - 8 * Math.sin(dir - 0.45));
      ctx.lineTo(xb - 8 * Math.cos(dir + 0.45), y2 - 8 * Math.sin(dir + 0.45));
      ctx.closePath();
      ctx.strokeStyle = 'rgba(13,17,23,0.85)';
      ctx.lineWidth = 1.5;
      ctx.stroke();
      ctx.fill();
      ctx.beginPath();
      ctx.arc(xa, y1, 3, 0, 2 * Math.PI);
      ctx.stroke();
      ctx.fill();
      ctx.lineWidth = 1;
    }
  }

  // ---- overview ------------------------------------------------------------------

  // loadOverview asks the overview in as many buckets as overviewBuckets
  // says: one of the counts the server's index keeps (tiles.go), so that
  // orca view opened from its index draws it without reading the
  // recording.

  async loadOverview() {
    if (!this.summary) return;
    const n = overviewBuckets(this.ow);
    try {
      this.ovData = await getJSON('/api/overview', { buckets: n });
      this.ovImage = null;
      this.redraw();
    } catch (e) {
      this.app.error(`loading the overview: ${e.message}`);
    }
  }

  drawOverview() {
    const ctx = this.octx;
    const W = this.ow, H = this.oh, dpr = this.dpr;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#11161d';
    ctx.fillRect(0, 0, W, H);
    ctx.fillStyle = MUTED;
    ctx.font = '11px ' + UI_FONT;
    ctx.textBaseline = 'middle';
    ctx.fillText('Threads by state', 10, H / 2 - 7);
    ctx.fillStyle = '#6e7681';
    ctx.fillText(`${fmtDur(this.dur)} recorded`, 10, H / 2 + 8);
    const ov = this.ovData;
    const lw = W - LABEL_W;
    const ox = (t) => LABEL_W + (t / this.dur) * lw;
    if (ov) {
      // The bars change only with the data or the size: drawn once, then copied.
      const key = `${W}x${H}@${dpr}:${ov.buckets}`;
      if (!this.ovImage || this.ovImage.key !== key) {
        const img = document.createElement('canvas');
        img.width = W * dpr;
        img.height = H * dpr;
        const ic = img.getContext('2d');
        ic.setTransform(dpr, 0, 0, dpr, 0, 0);
        const nb = ov.buckets;
        let maxTotal = 1;
        for (let b = 0; b < nb; b++) {
          let sum = 0;
          for (let k = 0; k < ov.threads.length; k++) sum += ov.threads[k][b];
          maxTotal = Math.max(maxTotal, sum);
        }
        const order = [1, 5, 2, 4, 3, 0]; // blocked at the bottom, runnable on top
        const bw = lw / nb;
        for (let b = 0; b < nb; b++) {
          let y = H - 1;
          for (const k of order) {
            const v = ov.threads[k][b];
            if (v <= 0) continue;
            const hh = (v / maxTotal) * (H - 4);
            ic.fillStyle = k === 0 ? alpha(STATE_COLORS[0], 0.35) : STATE_COLORS[k];
            ic.fillRect(LABEL_W + b * bw, y - hh, Math.max(bw, 1), hh);
            y -= hh;
          }
        }
        img.key = key;
        this.ovImage = img;
      }
      ctx.setTransform(1, 0, 0, 1, 0, 0);
      ctx.drawImage(this.ovImage, 0, 0);
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    }
    const st = this.app.state;
    const a = ox(Math.max(0, st.t0)), b = ox(Math.min(this.dur, st.t1));
    ctx.fillStyle = 'rgba(13,17,23,0.55)';
    ctx.fillRect(LABEL_W, 0, Math.max(0, a - LABEL_W), H);
    ctx.fillRect(b, 0, Math.max(0, W - b), H);
    ctx.strokeStyle = '#39c5cf';
    ctx.lineWidth = 1;
    ctx.strokeRect(Math.round(a) + 0.5, 0.5, Math.max(2, Math.round(b - a) - 1), H - 1);
    if (st.instant != null) {
      ctx.fillStyle = '#39c5cf';
      ctx.fillRect(Math.round(ox(st.instant)), 0, 1, H);
    }
    if (this.ovBrush) {
      const x0 = Math.min(this.ovBrush.x0, this.ovBrush.x1), x1 = Math.max(this.ovBrush.x0, this.ovBrush.x1);
      ctx.fillStyle = 'rgba(57,197,207,0.25)';
      ctx.fillRect(x0, 0, x1 - x0, H);
    }
    ctx.fillStyle = '#30363d';
    ctx.fillRect(LABEL_W - 1, 0, 1, H);
  }

  // ---- edges -----------------------------------------------------------------

  anyEdges() { return Object.values(this.app.state.edges).some(Boolean); }

  async loadEdges() {
    const st = this.app.state;
    if (!this.anyEdges()) { this.edgeData = null; this.edgeKey = null; this.redraw(); return; }
    const kinds = Object.entries(st.edges).filter(([, v]) => v).map(([k]) => k).join(',');
    const t0 = Math.max(0, Math.floor(st.t0)), t1 = Math.max(t0, Math.ceil(st.t1));
    const key = `${kinds}:${t0}:${t1}`;
    if (this.edgeData && this.edgeData.key === key) return;
    this.edgeKey = key;
    try {
      // Asked again until the recording is read (getJSON): a later view's
      // edges asked meanwhile win.
      const res = await getJSON('/api/edges', { t0, t1, kinds, limit: 4000 });
      if (this.edgeKey !== key) return;
      this.edgeData = { key, edges: res.edges, truncated: res.truncated };
      if (res.truncated) this.app.note('More than 4000 edges in view: zoom in to see them all.');
      this.redraw();
    } catch (e) {
      if (this.edgeKey === key) this.app.error(`loading edges: ${e.message}`);
    }
  }

  // ---- picking --------------------------------------------------------------------

  // segmentAt returns the segment under (x, y): {thread, s, e, first, n, state, open}.
  segmentAt(x, y) {
    const ri = this.rowAtY(y);
    if (ri < 0 || x < LABEL_W) return null;
    const r = this.rows[ri];
    if (r.kind !== 'lane') return null;
    const level = this.level();
    const span = TILE_W * 2 ** level;
    const t = this.tAt(x);
    const slack = 3 * this.nsPerPx;
    const k = Math.floor(t / span);
    if (k < 0 || k > this.lastTile(level)) return { thread: r.thread, row: ri, t };
    const l = this.lane(level, k, r.thread);
    let best = null, bestD = Infinity;
    if (l) {
      let lo = 0, hi = l.s.length;
      while (lo < hi) { const m = (lo + hi) >> 1; if (l.e[m] <= t - slack) lo = m + 1; else hi = m; }
      for (let i = lo; i < l.s.length && l.s[i] <= t + slack; i++) {
        const d = t < l.s[i] ? l.s[i] - t : t > l.e[i] ? t - l.e[i] : 0;
        if (d < bestD) { bestD = d; best = i; }
      }
    }
    if (best == null) return { thread: r.thread, row: ri, t };
    return {
      thread: r.thread, row: ri, t, s: l.s[best], e: l.e[best], first: l.f[best], n: l.n[best],
      state: l.st[best] & 15, open: !!(l.st[best] & FLAG_OPEN),
    };
  }

  // runAt returns the stretch of runnable time of thread at t drawn now
  // (its start, end and parts), null when none.
  runAt(thread, t) {
    const level = this.level();
    const l = this.lane(level, Math.floor(t / (TILE_W * 2 ** level)), thread);
    if (!l) return null;
    for (let i = 0; i < l.rs.length; i++) {
      if (l.rs[i] <= t && t < l.re[i]) return { s: l.rs[i], e: l.re[i], parts: l.run.map((c) => c[i]) };
    }
    return null;
  }

  detail(thread, index) {
    const key = `${thread}.${index}`;
    let d = this.details.get(key);
    if (!d) {
      // With the rows of the threads it names (its owner, notifier, edges).
      d = getJSON(`/api/intervals/${thread}/${index}`).then((v) => this.app.loadThreads(threadRefs(v)).then(() => v));
      this.details.set(key, d);
      d.then((v) => this.details.set(key, v), () => this.details.delete(key));
      if (this.details.size > 2000) this.details.delete(this.details.keys().next().value);
    }
    return Promise.resolve(d);
  }

  // select makes an interval the selection: outlined, its edges drawn, its
  // stack in the side panel.
  async select(thread, index, opts = {}) {
    const st = this.app.state;
    st.sel = { thread, index };
    st.selAt = opts.at ?? null;
    st.selThread = null;
    this.holderSpan = null;
    this.app.changed();
    this.redraw();
    try {
      const d = await this.detail(thread, index);
      if (!st.sel || st.sel.thread !== thread || st.sel.index !== index) return;
      this.selDetail = d;
      if (opts.reveal) this.reveal(thread, d.start, d.end);
      this.app.panel.showInterval(d);
      this.redraw();
    } catch (e) {
      this.app.error(`loading interval ${index} of thread ${thread}: ${e.message}`);
    }
  }

  clearSelection() {
    const st = this.app.state;
    st.sel = null;
    st.selThread = null;
    this.selDetail = null;
    this.app.panel.clear();
    this.app.changed();
    this.redraw();
  }

  // ---- mouse and keys ---------------------------------------------------------------

  bindMouse() {
    const c = this.canvas;
    const pos = (ev) => { const r = c.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; };
    c.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      const p = pos(ev);
      const unit = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? this.h : 1;
      const dx = ev.deltaX * unit, dy = ev.deltaY * unit;
      if (ev.ctrlKey || ev.metaKey || ev.altKey) {
        this.zoomBy(Math.exp(dy * 0.002), Math.max(p.x, LABEL_W));
      } else if (ev.shiftKey) {
        this.panBy(dy || dx);
      } else {
        if (Math.abs(dx) > Math.abs(dy)) this.panBy(dx);
        else this.scrollBy(dy);
      }
    }, { passive: false });
    c.addEventListener('mousedown', (ev) => {
      if (ev.button !== 0) return;
      const p = pos(ev);
      c.focus();
      if (this.thumb && p.x >= this.w - 10 && p.y > AXIS_H) {
        this.drag = { kind: 'thumb', y: p.y, sy: this.app.state.y };
      } else if (p.y < AXIS_H && p.x > LABEL_W) {
        this.brush = { x0: p.x, x1: p.x };
        this.drag = { kind: 'brush', x: p.x, y: p.y };
      } else {
        const st = this.app.state;
        this.drag = { kind: p.x < LABEL_W ? 'label' : 'pan', x: p.x, y: p.y, t0: st.t0, t1: st.t1, sy: st.y, moved: false };
      }
      ev.preventDefault();
    });
    window.addEventListener('mousemove', (ev) => {
      const p = pos(ev);
      const d = this.drag;
      if (d) {
        if (d.kind === 'thumb') {
          const viewH = this.h - AXIS_H;
          this.app.state.y = d.sy + (p.y - d.y) * (this.totalH / viewH);
          this.clampScroll();
          this.app.changed();
          this.viewChanged();
        } else if (d.kind === 'brush') {
          this.brush.x1 = Math.max(LABEL_W, Math.min(this.w, p.x));
          this.redraw();
        } else {
          const dx = p.x - d.x, dy = p.y - d.y;
          if (Math.abs(dx) + Math.abs(dy) > 3) d.moved = true;
          if (d.moved) {
            if (d.kind === 'pan') {
              const shift = -dx * ((d.t1 - d.t0) / this.laneW);
              this.setRange(d.t0 + shift, d.t1 + shift);
            }
            this.app.state.y = d.sy - dy;
            this.clampScroll();
            this.viewChanged();
          }
        }
        this.hideTip();
        return;
      }
      if (ev.target !== c) {
        if (this.mouse) { this.mouse = null; this.hideTip(); this.redraw(); }
        return;
      }
      this.mouse = p;
      this.onHover(p, ev);
      this.redraw();
    });
    window.addEventListener('mouseup', (ev) => {
      const d = this.drag;
      if (!d) return;
      this.drag = null;
      const p = pos(ev);
      if (d.kind === 'brush') {
        const a = Math.min(this.brush.x0, this.brush.x1), b = Math.max(this.brush.x0, this.brush.x1);
        this.brush = null;
        if (b - a > 4) this.setRange(this.tAt(a), this.tAt(b));
        else this.app.setInstant(Math.round(this.tAt(p.x)));
        this.redraw();
      } else if ((d.kind === 'pan' || d.kind === 'label') && !d.moved) {
        this.onClick(p, ev);
      } else if (d.moved) {
        this.app.changed();
      }
    });
    c.addEventListener('mouseleave', () => { if (!this.drag) { this.mouse = null; this.hoverRow = -1; this.hideTip(); this.redraw(); } });
    c.addEventListener('dblclick', (ev) => {
      const p = pos(ev);
      if (p.x < LABEL_W || p.y < AXIS_H) return;
      const seg = this.segmentAt(p.x, p.y);
      if (seg && seg.s != null && (seg.e - seg.s) / this.nsPerPx < this.laneW * 0.9) {
        const pad = (seg.e - seg.s) * 0.15 + 50;
        this.setRange(seg.s - pad, seg.e + pad);
      } else {
        this.zoomBy(0.5, p.x);
      }
    });
    // Ctrl-drag on a canvas outside the page is not needed: keys instead.
    window.addEventListener('keydown', (ev) => this.onKey(ev));
    // Overview strip: click to centre, drag to choose a range.
    const ov = this.ovCanvas;
    const opos = (ev) => { const r = ov.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; };
    const ot = (x) => ((x - LABEL_W) / (this.ow - LABEL_W)) * this.dur;
    ov.addEventListener('mousedown', (ev) => {
      const p = opos(ev);
      if (p.x < LABEL_W) return;
      this.ovBrush = { x0: p.x, x1: p.x };
      const up = (e2) => {
        window.removeEventListener('mousemove', move);
        window.removeEventListener('mouseup', up);
        const a = Math.min(this.ovBrush.x0, this.ovBrush.x1), b = Math.max(this.ovBrush.x0, this.ovBrush.x1);
        this.ovBrush = null;
        if (b - a > 3) this.setRange(ot(a), ot(b));
        else {
          const st = this.app.state, w = st.t1 - st.t0, t = ot(p.x);
          this.setRange(t - w / 2, t + w / 2);
        }
      };
      const move = (e2) => { this.ovBrush.x1 = Math.max(LABEL_W, Math.min(this.ow, opos(e2).x)); this.redraw(); };
      window.addEventListener('mousemove', move);
      window.addEventListener('mouseup', up);
      ev.preventDefault();
    });
  }

  onKey(ev) {
    if (!this.visible()) return;
    const tag = (ev.target && ev.target.tagName) || '';
    if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA') return;
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    const big = ev.shiftKey ? 4 : 1;
    const pan = this.laneW * 0.1 * big;
    const at = this.mouse && this.mouse.x > LABEL_W ? this.mouse.x : undefined;
    switch (ev.key) {
      case 'w': case 'W': case '+': case '=': this.zoomBy(ev.shiftKey && ev.key === 'W' ? 0.4 : 0.7, at); break;
      case 's': case 'S': case '-': case '_': this.zoomBy(ev.shiftKey && ev.key === 'S' ? 2.5 : 1 / 0.7, at); break;
      case 'a': case 'A': case 'ArrowLeft': this.panBy(-pan); break;
      case 'd': case 'D': case 'ArrowRight': this.panBy(pan); break;
      case 'ArrowUp': this.scrollBy(-this.app.state.laneH * 3 * big); break;
      case 'ArrowDown': this.scrollBy(this.app.state.laneH * 3 * big); break;
      case 'PageUp': this.scrollBy(-(this.h - AXIS_H) * 0.9); break;
      case 'PageDown': this.scrollBy((this.h - AXIS_H) * 0.9); break;
      case '0': case 'Home': this.fit(); break;
      case 'Escape': this.clearSelection(); break;
      case 'e': case 'E': {
        const st = this.app.state;
        const on = !this.anyEdges();
        for (const k of ['wake', 'owner', 'start']) st.edges[k] = on;
        this.syncControls();
        this.edgeData = null;
        this.loadEdges();
        this.app.changed();
        break;
      }
      default: return;
    }
    ev.preventDefault();
  }

  onHover(p, ev) {
    const ri = this.rowAtY(p.y);
    if (ri !== this.hoverRow) this.hoverRow = ri;
    if (p.y < AXIS_H) { this.hideTip(); return; }
    if (p.x < LABEL_W) {
      const r = ri >= 0 ? this.rows[ri] : null;
      if (r && r.kind === 'lane' && this.threads[r.thread]) {
        const t = this.threads[r.thread];
        this.showTip(p, [h('div', { class: 'tip-title' }, t.name), h('div', { class: 'muted' }, `thread ${t.id}`),
          tipStates(t)]);
      } else if (r) {
        this.showTip(p, [h('div', { class: 'tip-title' }, r.name), h('div', { class: 'muted' }, `${fmtCount(r.count)} threads — click to ${r.collapsed ? 'expand' : 'collapse'}`)]);
      } else this.hideTip();
      return;
    }
    const seg = this.segmentAt(p.x, p.y);
    if (!seg) { this.hideTip(); return; }
    const th = this.threads[seg.thread];
    if (!th) { this.hideTip(); return; }
    if (seg.s == null) {
      const alive = seg.t >= th.start && seg.t <= th.end;
      const run = alive ? this.runAt(seg.thread, seg.t) : null;
      this.showTip(p, [h('div', { class: 'tip-title' }, th.name),
        alive ? h('div', null, h('span', { class: 'chip', style: { '--c': STATE_COLORS[0] } }, 'runnable')) : h('div', { class: 'muted' }, seg.t < th.start ? 'not started yet' : 'ended'),
        run ? [h('div', { class: 'muted' }, `${fmtDur(run.e - run.s)} runnable here, from ${fmtTime(run.s)}:`), runParts(run.parts)] : null]);
      return;
    }
    if (seg.n > 1) {
      this.showTip(p, [h('div', { class: 'tip-title' }, th.name),
        h('div', null, h('span', { class: 'chip', style: { '--c': STATE_COLORS[seg.state] } }, `${fmtCount(seg.n)} intervals`), ' mostly ', STATES[seg.state]),
        h('div', { class: 'muted' }, `${fmtDur(seg.e - seg.s)} — double-click to zoom in`)]);
      return;
    }
    const key = `${seg.thread}.${seg.first}`;
    this.tipKey = key;
    const base = [h('div', { class: 'tip-title' }, th.name),
      h('div', null, h('span', { class: 'chip', style: { '--c': STATE_COLORS[seg.state] } }, STATES[seg.state]), ' ', h('b', null, fmtDur(seg.e - seg.s)), seg.open ? ' (still at the end)' : '')];
    const d = this.details.get(key);
    if (d && !(d instanceof Promise)) { this.showTip(p, base.concat(tipDetail(d, this.threads, this.app.summary.source))); return; }
    this.showTip(p, base);
    this.detail(seg.thread, seg.first).then((v) => {
      if (this.tipKey === key && !this.tip.hidden) this.showTip(this.mouse || p, base.concat(tipDetail(v, this.threads, this.app.summary.source)));
    }, () => {});
  }

  showTip(p, content) {
    const t = this.tip;
    fill(t, content);
    t.hidden = false;
    const tw = t.offsetWidth, th = t.offsetHeight;
    let x = p.x + 16, y = p.y + 16;
    if (x + tw > this.w - 4) x = p.x - tw - 12;
    if (y + th > this.h - 4) y = p.y - th - 12;
    t.style.left = `${Math.max(4, x)}px`;
    t.style.top = `${Math.max(4, y)}px`;
  }

  hideTip() { this.tip.hidden = true; this.tipKey = null; }

  onClick(p) {
    const ri = this.rowAtY(p.y);
    if (ri < 0) { this.clearSelection(); return; }
    const r = this.rows[ri];
    if (r.kind === 'group') {
      const set = r.key.startsWith(VIRTUAL) ? this.expanded : this.collapsed;
      if (set.has(r.key)) set.delete(r.key); else set.add(r.key);
      this.relayout();
      return;
    }
    if (p.x < LABEL_W) {
      const st = this.app.state;
      st.sel = null;
      this.selDetail = null;
      st.selThread = r.thread;
      this.app.panel.showThread(r.thread);
      this.app.changed();
      this.redraw();
      return;
    }
    const seg = this.segmentAt(p.x, p.y);
    if (!seg || seg.s == null) { this.clearSelection(); return; }
    if (seg.n > 1) {
      const pad = (seg.e - seg.s) * 0.1 + 50;
      this.setRange(seg.s - pad, seg.e + pad);
      return;
    }
    // The instant clicked: the wait chain of the interval is followed
    // from there (Panel.chainEl).
    this.select(seg.thread, seg.first, { at: Math.round(this.tAt(p.x)) });
  }

  // ---- hooks for tests and the benchmark -------------------------------------------

  // locate zooms to an interval and returns the page coordinates of its middle.
  async locate(thread, index) {
    const d = await this.detail(thread, index);
    const st = this.app.state;
    if (this.rowOf[thread] < 0) { st.filter = ''; st.lockOnly = false; this.syncControls(); await this.relayout(); }
    const w = Math.max(d.end - d.start, 1000);
    this.setRange(d.start - w, d.end + w);
    this.reveal(thread);
    await this.idle();
    const r = this.canvas.getBoundingClientRect();
    return { x: r.left + (this.x(d.start) + this.x(d.end)) / 2, y: r.top + this.laneMid(thread) };
  }

  // idle resolves once a frame has been drawn with every visible tile loaded.
  idle() {
    return new Promise((resolve) => {
      const check = () => {
        if (!this.raf && !this.inflight && !this.queue.length && !this.rowsWaiting && this.status.textContent === '') resolve();
        else setTimeout(check, 20);
      };
      this.redraw();
      setTimeout(check, 30);
    });
  }

  // benchPan pans by px per frame for ms milliseconds and reports the frame
  // times (from one animation frame to the next) and the drawing times.
  benchPan(ms = 3000, px = 12) {
    return new Promise((resolve) => {
      const frames = [], draws = [];
      let dir = 1, last = 0;
      const start = performance.now();
      const step = (now) => {
        if (last) frames.push(now - last);
        last = now;
        const st = this.app.state;
        if ((dir > 0 && st.t1 >= this.dur) || (dir < 0 && st.t0 <= 0)) dir = -dir;
        this.panBy(dir * px);
        if (this.raf) { cancelAnimationFrame(this.raf); this.raf = 0; }
        this.draw();
        draws.push(this.lastDraw);
        if (now - start < ms) requestAnimationFrame(step);
        else {
          const sorted = [...frames].sort((a, b) => a - b);
          const sum = frames.reduce((a, b) => a + b, 0);
          const dsum = draws.reduce((a, b) => a + b, 0);
          resolve({
            frames: frames.length, fps: (1000 * frames.length) / sum,
            meanFrameMs: sum / frames.length, p95FrameMs: sorted[Math.floor(sorted.length * 0.95)],
            meanDrawMs: dsum / draws.length, maxDrawMs: Math.max(...draws),
          });
        }
      };
      requestAnimationFrame(step);
    });
  }
}

const EDGE_TITLES = {
  wake: 'notify → the wait it ended',
  unpark: 'unpark → the park it ended',
  owner: 'the owner of a monitor → the thread blocked on it',
  start: 'Thread.start → the new thread',
  join: 'a thread’s end → the join it returned',
  release: 'Semaphore.release → the acquire it let through',
};

// groupLabel lays out a group's row label: its name from x 24, cut in the
// middle to end before its count, which ends at LABEL_W - 10 ("virtual
// http-nio-N…-virt-N 22,107 threads": a fixed width for the name let a
// count of five digits overlap it). Leaves ctx's font as it was.
export function groupLabel(ctx, name, count) {
  const font = ctx.font;
  ctx.font = '11px ' + UI_FONT;
  const c = ` ${fmtCount(count)} threads`;
  const countLeft = LABEL_W - 10 - textWidth(ctx, c);
  ctx.font = '600 12px ' + UI_FONT;
  const n = ellipsize(ctx, name, countLeft - 6 - 24, true);
  const nameRight = 24 + textWidth(ctx, n);
  ctx.font = font;
  return { name: n, count: c, nameRight, countLeft };
}

export const UI_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif';

// ellipsize cuts text to fit w pixels in the context's font (cached: the
// same names are drawn every frame).
const fitCache = new Map();
// ellipsize fits text into w px, cut at its end, or with middle in its
// middle: a thread's name keeps its start and its end, which tells pool
// workers apart (ForkJoinPoo…commonPool-worker-3).
function ellipsize(ctx, text, w, middle) {
  if (w <= 0) return '';
  const key = ctx.font + '\u0000' + Math.floor(w) + '\u0000' + (middle ? 'm' : '') + text;
  let v = fitCache.get(key);
  if (v === undefined) {
    v = (middle ? ellipsizeMiddle : ellipsizeNow)(ctx, text, Math.floor(w));
    if (fitCache.size > 20000) fitCache.clear();
    fitCache.set(key, v);
  }
  return v;
}

const widthCache = new Map();
function textWidth(ctx, text) {
  const key = ctx.font + '\u0000' + text;
  let v = widthCache.get(key);
  if (v === undefined) {
    v = ctx.measureText(text).width;
    if (widthCache.size > 20000) widthCache.clear();
    widthCache.set(key, v);
  }
  return v;
}

function ellipsizeNow(ctx, text, w) {
  if (ctx.measureText(text).width <= w) return text;
  let lo = 0, hi = text.length;
  while (lo < hi) {
    const m = (lo + hi + 1) >> 1;
    if (ctx.measureText(text.slice(0, m) + '…').width <= w) lo = m; else hi = m - 1;
  }
  return text.slice(0, lo) + '…';
}

// ellipsizeMiddle keeps as many characters as fit, 60% of them from the
// end.
function ellipsizeMiddle(ctx, text, w) {
  if (ctx.measureText(text).width <= w) return text;
  const cut = (k) => {
    const tail = Math.min(k, Math.ceil(k * 0.6));
    return text.slice(0, k - tail) + '…' + text.slice(text.length - tail);
  };
  let lo = 0, hi = text.length - 1;
  while (lo < hi) {
    const m = (lo + hi + 1) >> 1;
    if (ctx.measureText(cut(m)).width <= w) lo = m; else hi = m - 1;
  }
  return cut(lo);
}

function roundRect(ctx, x, y, w, hh, r) {
  ctx.beginPath();
  ctx.moveTo(x + r, y);
  ctx.arcTo(x + w, y, x + w, y + hh, r);
  ctx.arcTo(x + w, y + hh, x, y + hh, r);
  ctx.arcTo(x, y + hh, x, y, r);
  ctx.arcTo(x, y, x + w, y, r);
  ctx.closePath();
}

// runRects puts a lane's pieces of runnable time within [ta, tb) into
// the buckets from B[b0] on, one per part (RUN_PARTS): each piece's parts
// side by side in its span, running first, each as wide as its time.
function runRects(l, ta, tb, toX, y, rh, B, b0, widths) {
  const rs = l.rs, re = l.re;
  for (let i = 0; i < rs.length; i++) {
    if (re[i] <= ta || rs[i] >= tb) continue;
    let total = 0;
    for (const c of l.run) total += c[i];
    if (total <= 0) continue;
    let at = rs[i];
    const scale = (re[i] - rs[i]) / total;
    for (let p = 0; p < l.run.length; p++) {
      const v = l.run[p][i];
      if (v <= 0) continue;
      const a = Math.max(at, ta), b = Math.min(at + v * scale, tb);
      at += v * scale;
      if (b <= a) continue;
      const x0 = toX(a), x1 = toX(b);
      B[b0 + p].push(x0, y, Math.max(0.5, x1 - x0), rh);
      widths[p] += x1 - x0;
    }
  }
}

function tipStates(t) {
  const life = Math.max(t.end - t.start, 1);
  return h('div', { class: 'tip-states' }, STATES.map((s, i) => t.time[i] > 0 ?
    h('div', null, h('span', { class: 'chip', style: { '--c': STATE_COLORS[i] } }, s), ` ${fmtDur(t.time[i])} (${pct(t.time[i], life)})`) : null));
}

function tipDetail(d, threads, source) {
  const out = [];
  const what = d.state === 'acquiring' ? 'semaphore' : d.acquire ? 'lock' : d.state === 'parked' || d.state === 'idle' ? 'parked on' : d.state === 'blocked' ? 'monitor' : 'object';
  if (d.object) out.push(h('div', null, h('span', { class: 'muted' }, `${what} `), d.object, d.objectClass ? h('span', { class: 'muted' }, ` ${d.objectClass}`) : null));
  for (const f of ownerFacts(d, source)) {
    out.push(h('div', null, h('span', { class: 'muted' }, `${f.label} `), f.who ? (f.who.thread >= 0 && threads[f.who.thread] ? threads[f.who.thread].name : f.who.name) : null,
      f.note ? h('span', { class: 'muted' }, f.who ? ` (${f.note})` : f.note) : null));
  }
  if (d.wake) out.push(h('div', { class: 'muted' }, `ended by ${d.wake}`));
  if (d.pinned) out.push(h('div', null, h('b', null, 'pinned'), h('span', { class: 'muted' }, ' to its carrier: this virtual thread could not unmount and parked it')));
  if (d.since < d.start) out.push(h('div', { class: 'muted' }, `in this state since ${fmtTime(d.since)} (${fmtDur(d.end - d.since)} in all)`));
  out.push(h('div', { class: 'muted' }, `${fmtTime(d.start)} → ${fmtTime(d.end)}`));
  const top = d.frames.find((f) => !f.jdk) || d.frames[0];
  if (top) out.push(h('div', { class: 'tip-frame' }, breakable(top.frame)));
  out.push(h('div', { class: 'muted small' }, 'click for the stack'));
  return out;
}
