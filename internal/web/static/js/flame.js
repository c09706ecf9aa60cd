// Flame graph of blocked and waiting time by stack: the outermost frame at
// the top, each frame as wide as the time spent with it on the stack; or
// of samples (issue 33): cpu (on a CPU), wall (off a CPU in no recorded
// state: I/O, native code, the VM) or both, each frame as wide as the
// time its samples stand for, by thread and range or a lock's holders.

import { getJSON } from './api.js';
import { STATES, STATE_COLORS, RUN_COLORS, fmtDur, fmtCount, h, pct, fill } from './format.js';
import { UI_FONT } from './timeline.js';

const ROW = 18;
const PICKABLE = ['blocked', 'waiting', 'sleeping', 'joining', 'acquiring', 'parked', 'idle'];

// KINDS are what the graph shows: blocking time by state (/api/flame), or
// samples of a kind (/api/flame/samples).
const KINDS = [['', 'blocking'], ['cpu', 'CPU'], ['wall', 'wall (off CPU)'], ['all', 'CPU and wall']];

// KIND_COLORS colour a node of samples by its kind (index: 1 cpu, 2 wall),
// as the timeline draws running and other.
const KIND_COLORS = [RUN_COLORS[2], RUN_COLORS[0], RUN_COLORS[2]];
const KIND_WORDS = ['', 'running (cpu samples)', 'other (wall samples)'];

export class Flame {
  constructor(app, root) {
    this.app = app;
    const st = app.state;
    this.stateBoxes = PICKABLE.map((name) => {
      const b = h('input', { type: 'checkbox', onchange: () => this.filtersChanged() });
      b.dataset.state = name;
      return b;
    });
    this.kindSel = h('select', { title: 'Blocking time by state, or samples: on a CPU, off a CPU in no recorded state, or both', onchange: () => this.filtersChanged() },
      KINDS.map(([v, label]) => h('option', { value: v }, label)));
    this.kindSel.dataset.role = 'flame-kind';
    this.threadIn = h('input', { type: 'search', placeholder: 'thread name or id', class: 'filter', onchange: () => this.filtersChanged() });
    this.lockSel = h('select', { onchange: () => this.filtersChanged() });
    this.rangeBox = h('input', { type: 'checkbox', onchange: () => this.filtersChanged() });
    this.jdkBox = h('input', { type: 'checkbox', onchange: () => this.filtersChanged() });
    this.colorSel = h('select', { onchange: () => { st.fcolor = this.colorSel.value; app.changed(); this.paint(); } },
      h('option', { value: 'state' }, 'by state'), h('option', { value: 'package' }, 'by package'));
    this.search = h('input', { type: 'search', placeholder: 'Highlight frames…', class: 'filter', oninput: () => this.paint() });
    this.info = h('div', { class: 'flame-info' });
    this.canvas = h('canvas', { class: 'flame' });
    this.tip = h('div', { class: 'tooltip', hidden: true });
    this.wrap = h('div', { class: 'flame-wrap' }, this.canvas, this.tip);
    root.append(
      h('div', { class: 'toolbar' },
        h('label', null, 'Show ', this.kindSel),
        this.statesEl = h('span', null, h('span', { class: 'muted' }, 'States:'),
          PICKABLE.map((name, i) => h('label', { class: 'state-toggle', style: { '--c': STATE_COLORS[STATES.indexOf(name)] } }, this.stateBoxes[i], name))),
        h('span', { class: 'sep' }),
        h('label', null, 'Thread ', this.threadIn),
        h('label', null, 'Lock ', this.lockSel),
        h('label', { title: 'Only the time range shown on the timeline' }, this.rangeBox, ' timeline range only'),
        h('label', { title: 'Include the JDK\'s service threads (Finalizer, Reference Handler, …), which idle in Object.wait all run' }, this.jdkBox, ' JDK service threads'),
        h('span', { class: 'grow' }),
        h('label', null, 'Colour ', this.colorSel),
        this.search,
        h('button', { onclick: () => this.zoomTo(null) }, 'Reset zoom')),
      this.info, this.wrap);
    this.ctx = this.canvas.getContext('2d');
    new ResizeObserver(() => this.paint()).observe(this.wrap);
    this.bind();
  }

  setLocks(locks) {
    const top = [...locks].sort((a, b) => (b.blocked + b.waitTime) - (a.blocked + a.waitTime)).slice(0, 200);
    this.lockSel.replaceChildren(h('option', { value: '' }, 'any'),
      top.map((l) => h('option', { value: l.object }, `${l.object}${l.class ? ' ' + l.class : ''} (${fmtDur(l.blocked + l.waitTime)})`)));
  }

  syncControls() {
    const st = this.app.state;
    const want = new Set(st.fstates.split(','));
    for (const b of this.stateBoxes) b.checked = want.has(b.dataset.state);
    this.threadIn.value = st.fthread;
    if (st.flock && ![...this.lockSel.options].some((o) => o.value === st.flock)) this.lockSel.append(h('option', { value: st.flock }, st.flock));
    this.lockSel.value = st.flock;
    this.rangeBox.checked = st.frange;
    this.jdkBox.checked = st.fjdk;
    this.colorSel.value = st.fcolor;
    this.kindSel.value = st.fkind;
    this.statesEl.hidden = !!st.fkind;
    // A lock's holders' samples are those of the time others were
    // blocked on it: neither a thread nor a range applies.
    const holders = !!(st.fkind && st.flock);
    this.threadIn.disabled = this.rangeBox.disabled = holders;
  }

  filtersChanged() {
    const st = this.app.state;
    const states = this.stateBoxes.filter((b) => b.checked).map((b) => b.dataset.state);
    if (!states.length) { this.stateBoxes[0].checked = true; states.push('blocked'); }
    st.fstates = states.join(',');
    st.fthread = this.threadIn.value.trim();
    st.flock = this.lockSel.value;
    st.frange = this.rangeBox.checked;
    st.fjdk = this.jdkBox.checked;
    st.fkind = this.kindSel.value;
    st.fzoom = '';
    this.app.changed();
    this.render();
  }

  render() {
    this.syncControls();
    this.load();
  }

  async load() {
    const st = this.app.state;
    const params = samplesParams(st, this.app) || { states: st.fstates };
    const path = st.fkind ? '/api/flame/samples' : '/api/flame';
    if (!st.fkind) {
      if (st.fthread) params.thread = st.fthread;
      if (st.flock) params.lock = st.flock;
      if (st.fjdk) params.jdk = 1;
      if (st.frange) { params.t0 = Math.max(0, Math.floor(st.t0)); params.t1 = Math.max(params.t0, Math.ceil(st.t1)); }
    }
    const key = path + JSON.stringify(params);
    if (this.key === key) { this.paint(); return; }
    this.key = key;
    this.info.textContent = 'loading…';
    // Until the answer is in, nothing paints the old data under the new
    // filters' words (a resize as the view shows would).
    this.data = null;
    this.boxes = null;
    try {
      const d = await getJSON(path, params);
      if (this.key !== key) return;
      this.data = d;
      this.focus = null;
      if (st.fzoom) this.focus = this.findPath(st.fzoom);
      this.paint();
    } catch (e) {
      this.key = null;
      this.info.textContent = '';
      this.app.error(`loading the flame graph: ${e.message}`);
    }
  }

  // The zoom is kept in the URL as the path of frame names from the root.
  pathOf(node) {
    const p = [];
    for (let n = node; n && n.parent; n = n.parent) p.unshift(n.n);
    return p.join('.');
  }

  findPath(path) {
    let n = this.data.root;
    this.link(n);
    for (const k of path.split('.').map(Number)) {
      const c = (n.c || []).find((x) => x.n === k);
      if (!c) return null;
      n = c;
    }
    return n;
  }

  link(n) {
    if (n.linked) return;
    n.linked = true;
    for (const c of n.c || []) { c.parent = n; this.link(c); }
  }

  zoomTo(node) {
    this.focus = node && node.parent ? node : null;
    this.app.state.fzoom = this.focus ? this.pathOf(this.focus) : '';
    this.app.changed();
    this.paint();
  }

  paint() {
    const d = this.data;
    if (!d || this.app.state.view !== 'flame') return;
    this.link(d.root);
    const W = Math.max(200, this.wrap.clientWidth - 2);
    const focus = this.focus || d.root;
    // Ancestors of the focus take the full width, then its subtree.
    const chain = [];
    for (let n = focus; n; n = n.parent) chain.unshift(n);
    const boxes = [];
    let depth = 0;
    chain.forEach((n, i) => { boxes.push({ n, x: 0, w: W, d: i, anc: n !== focus }); depth = i; });
    const scale = W / Math.max(focus.v, 1);
    const walk = (n, x, dd) => {
      let cx = x;
      for (const c of n.c || []) {
        const w = c.v * scale;
        if (w >= 0.4) {
          boxes.push({ n: c, x: cx, w, d: dd });
          depth = Math.max(depth, dd);
          walk(c, cx, dd + 1);
        }
        cx += w;
      }
    };
    walk(focus, 0, chain.length);
    const H = Math.max(this.wrap.clientHeight - 2, (depth + 2) * ROW);
    const dpr = window.devicePixelRatio || 1;
    this.canvas.width = W * dpr;
    this.canvas.height = H * dpr;
    this.canvas.style.width = W + 'px';
    this.canvas.style.height = H + 'px';
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#0d1117';
    ctx.fillRect(0, 0, W, H);
    ctx.font = `11px ${UI_FONT}`;
    ctx.textBaseline = 'middle';
    const q = this.search.value.trim().toLowerCase();
    let matched = 0;
    const byState = this.app.state.fcolor !== 'package';
    for (const b of boxes) {
      const name = d.names[b.n.n];
      const hit = q && name.toLowerCase().includes(q);
      if (hit && !b.anc) matched += b.n.v;
      ctx.fillStyle = hit ? '#e879f9' : b.anc ? '#30363d' : color(b.n, name, d.jdk[b.n.n], byState, d.kind ? KIND_COLORS : STATE_COLORS);
      const y = b.d * ROW;
      ctx.fillRect(b.x, y, Math.max(b.w - 1, 0.6), ROW - 1);
      if (b.w > 36) {
        ctx.fillStyle = b.anc ? '#c9d1d9' : '#0d1117';
        ctx.fillText(fit(ctx, b.n.parent ? name : `all: ${fmtDur(d.total)}`, b.w - 8), b.x + 4, y + ROW / 2);
      }
    }
    this.boxes = boxes;
    const st = this.app.state;
    const states = st.fstates.split(',').join(' and ');
    const bits = d.kind ? [h('b', null, fmtDur(d.total)), ` in ${fmtCount(d.samples)} ${{ cpu: 'cpu', wall: 'wall', all: 'cpu and wall' }[d.kind]} samples`]
      : [h('b', null, fmtDur(d.total)), ` ${states} in ${fmtCount(d.intervals)} intervals of ${fmtCount(d.threads)} threads`];
    if (d.kind && st.flock) bits.push(`, of the holders of lock ${st.flock} while others were blocked on it`);
    else {
      if (st.fthread) bits.push(`, threads matching “${st.fthread}”`);
      if (st.flock) bits.push(`, lock ${st.flock}`);
      if (st.frange) bits.push(`, timeline range only`);
    }
    if (this.focus) bits.push(h('span', { class: 'muted' }, ` — zoomed into ${d.names[this.focus.n]} (${pct(this.focus.v, d.total)}); click the top row to zoom out`));
    if (q) bits.push(h('span', { class: 'match' }, ` — “${q}”: ${pct(matched, focus.v)} of the shown time`));
    if (!d.total) bits.push(h('div', { class: 'muted' }, d.kind ? 'No samples with these filters.' : 'No time in these states with these filters.'));
    fill(this.info, bits);
    this.canvas.dataset.nodes = String(boxes.length);
    this.canvas.dataset.top = d.root.c && d.root.c.length ? d.names[d.root.c[0].n] : '';
  }

  boxAt(x, y) {
    if (!this.boxes) return null;
    const d = Math.floor(y / ROW);
    for (const b of this.boxes) if (b.d === d && x >= b.x && x < b.x + b.w) return b;
    return null;
  }

  bind() {
    const pos = (ev) => { const r = this.canvas.getBoundingClientRect(); return { x: ev.clientX - r.left, y: ev.clientY - r.top }; };
    this.canvas.addEventListener('mousemove', (ev) => {
      const p = pos(ev);
      const b = this.boxAt(p.x, p.y);
      if (!b) { this.tip.hidden = true; return; }
      const d = this.data;
      const n = b.n;
      const self = n.v - (n.c || []).reduce((s, c) => s + c.v, 0);
      const parts = [h('div', { class: 'tip-title mono' }, n.parent ? d.names[n.n] : 'all stacks'),
        h('div', null, h('b', null, fmtDur(n.v)), ` · ${pct(n.v, d.total)} of all`, n.parent && n.parent.parent ? ` · ${pct(n.v, n.parent.v)} of its caller` : ''),
        self > 0 && n.c ? h('div', { class: 'muted' }, `${fmtDur(self)} with it as the innermost frame`) : null];
      if (n.s && d.kind) parts.push(h('div', { class: 'tip-states' }, h('div', { class: 'muted' }, `${fmtCount(n.k)} samples`),
        n.s.map((v, i) => v > 0 ? h('div', null, h('span', { class: 'chip', style: { '--c': KIND_COLORS[i] } }, KIND_WORDS[i]), ` ${fmtDur(v)}`) : null)));
      else if (n.s) parts.push(h('div', { class: 'tip-states' }, n.s.map((v, i) => v > 0 ? h('div', null, h('span', { class: 'chip', style: { '--c': STATE_COLORS[i] } }, STATES[i]), ` ${fmtDur(v)}`) : null)));
      parts.push(h('div', { class: 'muted small' }, 'click to zoom in'));
      fill(this.tip, parts);
      this.tip.hidden = false;
      const wr = this.wrap.getBoundingClientRect();
      const x = ev.clientX - wr.left + this.wrap.scrollLeft, y = ev.clientY - wr.top + this.wrap.scrollTop;
      const tw = this.tip.offsetWidth;
      this.tip.style.left = `${Math.min(x + 14, this.wrap.clientWidth - tw - 6)}px`;
      this.tip.style.top = `${y + 16}px`;
    });
    this.canvas.addEventListener('mouseleave', () => { this.tip.hidden = true; });
    this.canvas.addEventListener('click', (ev) => {
      const p = pos(ev);
      const b = this.boxAt(p.x, p.y);
      if (!b) return;
      this.zoomTo(b.anc ? b.n : b.n === this.focus ? b.n.parent : b.n);
    });
  }
}

function hash(s) {
  let x = 2166136261;
  for (let i = 0; i < s.length; i++) { x ^= s.charCodeAt(i); x = Math.imul(x, 16777619); }
  return x >>> 0;
}

// color: by state, the node's main state with a lightness that varies per
// frame so neighbours differ; by package, warm for application code and
// grey-blue for the JDK.
function color(n, name, jdk, byState, palette) {
  const v = hash(name);
  if (!n.parent) return '#6e7681';
  if (byState && n.s) {
    let best = 1;
    for (let i = 1; i < n.s.length; i++) if (n.s[i] > (n.s[best] || 0)) best = i;
    const base = palette[best];
    const k = 0.78 + ((v % 1000) / 1000) * 0.3;
    return shade(base, k);
  }
  if (jdk) return `hsl(${205 + (v % 20)}, 18%, ${50 + (v % 12)}%)`;
  return `hsl(${12 + (v % 36)}, 78%, ${56 + ((v >> 8) % 10)}%)`;
}

function shade(hex, k) {
  const n = parseInt(hex.slice(1), 16);
  const f = (c) => Math.max(0, Math.min(255, Math.round(c * k)));
  return `rgb(${f(n >> 16)},${f((n >> 8) & 255)},${f(n & 255)})`;
}

// fit shortens a frame to w pixels, dropping first the package, then the
// class, then the location: "Queue.take(Queue.java:42)" → "take(…)"; a
// native frame, "symbol [library]", drops its library, then cuts its
// symbol ("__write [libc.so.6]" → "__wri…", not "so.6]").
export function fit(ctx, text, w) {
  if (ctx.measureText(text).width <= w) return text;
  const lib = text.lastIndexOf(' [');
  if (lib > 0 && text.endsWith(']')) return cut(ctx, text.slice(0, lib), w);
  const open = text.lastIndexOf('(');
  const what = open > 0 ? text.slice(0, open) : text;
  const where = open > 0 ? text.slice(open) : '';
  const parts = what.split('.');
  const method = parts.pop();
  const cls = parts.pop();
  const cands = [];
  if (cls) cands.push(`${cls}.${method}${where}`, `${cls}.${method}`);
  cands.push(method);
  for (const c of cands) if (ctx.measureText(c).width <= w) return c;
  return cut(ctx, method, w);
}

// cut returns text within w pixels: whole, or its start and "…" ('' when
// not even two characters fit).
function cut(ctx, text, w) {
  if (ctx.measureText(text).width <= w) return text;
  let t = text;
  while (t.length > 1 && ctx.measureText(t + '…').width > w) t = t.slice(0, -1);
  return t.length > 1 ? t + '…' : '';
}

// samplesParams are the parameters of /api/flame/samples for the page's
// state (null when it shows blocking time): a lock's holders (its kind
// from the Locks list), or threads and a range.
export function samplesParams(st, app) {
  if (!st.fkind) return null;
  const p = { kind: st.fkind };
  if (st.flock) {
    const l = app.lockByObject(st.flock);
    p.lock = st.flock;
    p.lockKind = l && l.kind === 'juc' ? 'juc' : 'monitor';
    return p;
  }
  if (st.fthread) p.thread = st.fthread;
  if (st.fjdk) p.jdk = 1;
  if (st.frange) { p.t0 = Math.max(0, Math.floor(st.t0)); p.t1 = Math.max(p.t0, Math.ceil(st.t1)); }
  return p;
}

// smallFlame draws a flame graph of samples (of /api/flame/samples) w
// pixels wide on a new canvas, for the side panel: no zoom; its data
// attributes name the top frame and the hottest stack's leaf (for the
// tests), its tooltip the hottest stack.
export function smallFlame(d, w) {
  const row = 15;
  const boxes = [];
  let depth = 0;
  const walk = (n, x, dd, scale) => {
    let cx = x;
    for (const c of n.c || []) {
      const cw = c.v * scale;
      c.parent = n; // color() greys the root only
      if (cw >= 0.5) {
        boxes.push({ n: c, x: cx, w: cw, d: dd });
        depth = Math.max(depth, dd);
        walk(c, cx, dd + 1, scale);
      }
      cx += cw;
    }
  };
  walk(d.root, 0, 0, w / Math.max(d.root.v, 1));
  const H = (depth + 1) * row;
  const canvas = h('canvas', { class: 'small-flame' });
  const dpr = window.devicePixelRatio || 1;
  canvas.width = w * dpr;
  canvas.height = H * dpr;
  canvas.style.width = `${w}px`;
  canvas.style.height = `${H}px`;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.font = `10px ${UI_FONT}`;
  ctx.textBaseline = 'middle';
  for (const b of boxes) {
    const name = d.names[b.n.n];
    ctx.fillStyle = color(b.n, name, d.jdk[b.n.n], true, KIND_COLORS);
    ctx.fillRect(b.x, b.d * row, Math.max(b.w - 1, 0.5), row - 1);
    if (b.w > 30) {
      ctx.fillStyle = '#0d1117';
      ctx.fillText(fit(ctx, name, b.w - 6), b.x + 3, b.d * row + row / 2);
    }
  }
  const hot = [];
  for (let n = d.root; n.c && n.c.length; n = n.c[0]) hot.push(d.names[n.c[0].n]);
  canvas.dataset.top = hot[0] || '';
  canvas.dataset.leaf = hot[hot.length - 1] || '';
  canvas.title = hot.slice().reverse().join('\n');
  return canvas;
}
