// Units, colours and small DOM helpers shared by the views.

export const STATES = ['runnable', 'blocked', 'waiting', 'sleeping', 'joining', 'acquiring', 'parked', 'idle'];

// Colours per state (index as in STATES); runnable is drawn as a thin bar.
// blocked (a contended monitor, or a park to acquire a j.u.c. lock) is red;
// parked (any other LockSupport.park: conditions, latches, futures, queues)
// is orange; idle (a pool's worker waiting for work) a quiet grey.
export const STATE_COLORS = ['#3fb96f', '#f0565c', '#f2b63d', '#5a9cf8', '#b48cf2', '#2cc7b4', '#f0883e', '#6e7681'];

export const EDGE_COLORS = {
  wake: '#f2b63d', owner: '#f0565c', start: '#9aa5b1', join: '#b48cf2', release: '#2cc7b4', unpark: '#f0883e',
};

// RUN_PARTS split runnable time (the model's RunSplit, issue 33), in the
// order the tiles and /api/threads' run send them; the timeline draws
// them in place of one runnable bar, side by side in each stretch of
// runnable time. unsplit is runnable time no scheduler times nor samples
// cover, drawn as runnable was.
export const RUN_PARTS = ['running', 'ready', 'other', 'virtual', 'unsplit'];
export const RUN_COLORS = ['#3fb96f', '#f778ba', '#8e99a6', '#a5e6b8', 'rgba(63,185,111,0.55)'];
export const RUN_TITLES = {
  running: 'on a CPU (the scheduler\'s figure; placed by the cpu samples)',
  ready: 'runnable, waiting for a CPU (the scheduler\'s figure)',
  other: 'in no recorded state and neither on a CPU nor waiting for one: I/O, native code, the VM',
  virtual: 'a carrier on a CPU running virtual threads (their time, not its own)',
  unsplit: 'runnable time no scheduler times nor samples cover (not split)',
};

// STATE_TITLES say what each state is, in orca report's words (its
// THREADS legend): a park in a java.util.concurrent lock's acquire is
// blocked, as a contended monitor enter; parked is any other park.
export const STATE_TITLES = {
  runnable: 'in none of the recorded states: running, or blocked in a way not recorded, such as I/O',
  blocked: 'blocked on a monitor or a java.util.concurrent lock (ReentrantLock, a read-write lock): a contention',
  waiting: 'in Object.wait',
  sleeping: 'in Thread.sleep',
  joining: 'in Thread.join',
  acquiring: "waiting for a semaphore's permit",
  parked: 'parked (LockSupport.park) other than to acquire a lock: a condition, a latch, a future, a queue',
  idle: "parked waiting for work: a pool's idle worker, a queue's consumer",
};

// kindWord is orca report's word for a lock kind of the API (the
// report's kindWord): a java.util.concurrent lock (juc) is a "lock", the
// blocker of another park a "park".
export function kindWord(kind) {
  return { juc: 'lock', blocker: 'park' }[kind] || kind;
}

// ownerFacts says, once, who held the lock of an interval (of
// /api/intervals), for the side panel and the tooltip alike: for a
// contention (a monitor's or a java.util.concurrent lock's) the owner when
// the thread blocked and, if another, who held it later; "unknown", and
// why, only when the recording names no owner then. For another state, the
// thread it names (unparker, notifier, joined thread). source is the
// recorder of an import ("JFR"), absent for the agent's recordings. Each
// fact is { label, who: { thread, id, name } or null, note }.
export function ownerFacts(d, source) {
  const first = d.firstOwner || null;
  const last = d.otherId ? { thread: d.other, id: d.otherId, name: d.otherName } : null;
  const unknown = `unknown (${source ? `${source} did not record it` : 'the agent could not read it'})`;
  const out = [];
  // An owner that had ended holding the lock (/api/intervals' leftLocked):
  // the lock was left locked, as the report's "left locked" says.
  const ll = d.leftLocked;
  const left = (f) => {
    if (ll && f.who && f.who.id === ll.id) f.note = `ended at ${fmtTime(ll.ended)} holding it: left locked, never released`;
    return f;
  };
  if (d.state === 'blocked') {
    if (first && last && first.id === last.id) return [left({ label: 'owner', who: first })];
    out.push(first ? left({ label: 'owner when it blocked', who: first }) : { label: last ? 'owner when it blocked' : 'owner', who: null, note: unknown });
    if (last) out.push(left({ label: 'then held by', who: last, note: d.open ? null : 'its release let this thread in' }));
    return out;
  }
  if (first) out.push({ label: 'owner when it parked', who: first });
  if (last) out.push({ label: { joining: 'joined', waiting: 'woken by', parked: 'unparked by', idle: 'unparked by' }[d.state] || 'other', who: last });
  return out;
}

// fmtDur renders a duration in ns with 3 or 4 significant digits.
export function fmtDur(ns) {
  if (ns == null || isNaN(ns)) return '';
  const a = Math.abs(ns);
  if (a < 1e3) return `${Math.round(ns)} ns`;
  if (a < 1e6) return `${trim(ns / 1e3)} µs`;
  if (a < 1e9) return `${trim(ns / 1e6)} ms`;
  if (a < 60e9) return `${trim(ns / 1e9)} s`;
  const m = Math.floor(a / 60e9);
  return `${ns < 0 ? '-' : ''}${m} min ${(a / 1e9 - m * 60).toFixed(1)} s`;
}

function trim(v) {
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(1) : a >= 10 ? v.toFixed(2) : v.toFixed(3);
}

// fmtTime renders an instant (ns since the recording's start) in seconds,
// precise enough for the given resolution (ns).
export function fmtTime(ns, res = 1e3) {
  const digits = Math.max(0, Math.min(9, Math.ceil(-Math.log10(Math.max(res, 1) / 1e9))));
  return `${(ns / 1e9).toFixed(digits)} s`;
}

// niceStep returns a tick step (1, 2 or 5 × 10^k ns) of at least minNs.
export function niceStep(minNs) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(minNs, 1))));
  for (const m of [1, 2, 5, 10]) if (m * p >= minNs) return m * p;
  return 10 * p;
}

// fmtTick labels an axis tick at ns, given the step between ticks and the
// largest instant the axis shows. One unit for the whole axis, the largest
// that keeps that instant's number under 1000 (s from a second on), with the
// decimals the step needs: 800.0005 ms, never 800000500 ns. ns and µs are
// for the first millisecond only; deeper zooms show more decimals.
export function fmtTick(ns, step, max) {
  const [unit, name] = tickUnit(Math.max(Math.abs(max ?? ns), Math.abs(ns)));
  const d = Math.max(0, Math.ceil(-Math.log10(step / unit) - 1e-9));
  let v = ns / unit;
  if (Math.abs(v) < 0.5 * 10 ** -d) v = 0; // no "-0.000"
  return `${v.toFixed(d)} ${name}`;
}

function tickUnit(a) {
  if (a >= 1e9) return [1e9, 's'];
  if (a >= 1e6) return [1e6, 'ms'];
  if (a >= 1e3) return [1e3, 'µs'];
  return [1, 'ns'];
}

// fmtCount renders a count with thousands separators (12,345), the same in
// every view whatever the browser's locale.
export function fmtCount(n) {
  return n == null || isNaN(n) ? '' : Number(n).toLocaleString('en-US');
}

// breakable returns text as nodes with a line-break opportunity after each
// '.', '$', '/' and '-' and before each '(': a class, frame or thread name
// wraps between its parts, never inside a word.
export function breakable(text) {
  const out = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    const at = c === '(' ? i : '.$/-'.includes(c) ? i + 1 : -1;
    if (at > from && at < text.length) {
      out.push(text.slice(from, at), document.createElement('wbr'));
      from = at;
    }
  }
  out.push(text.slice(from));
  return out;
}

export function pct(part, whole) {
  if (!whole) return '0%';
  const p = (100 * part) / whole;
  return p >= 10 || p === 0 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}

// h builds a DOM element: h('div', {class: 'x', onclick: f}, child, 'text', …).
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.className = v;
      else if (k === 'style' && typeof v === 'object') {
        for (const [sk, sv] of Object.entries(v)) {
          if (sk.startsWith('--')) el.style.setProperty(sk, sv);
          else el.style[sk] = sv;
        }
      }
      else if (k === 'dataset') Object.assign(el.dataset, v);
      else el.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const c of children.flat(Infinity)) {
    if (c == null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

export function stateChip(state) {
  const i = STATES.indexOf(state);
  return h('span', { class: 'chip', title: STATE_TITLES[state], style: { '--c': STATE_COLORS[i] || '#888' } }, state);
}

// frameEl renders "pkg.Class.method(File.java:12)" with the location set
// off. A frame wider than its box wraps only between names (after a '.' or
// '$', before the '('), never inside one; a name wider than the box
// scrolls with the stack.
export function frameEl(fr) {
  const text = fr.frame;
  const open = text.lastIndexOf('(');
  const where = open >= 0 ? text.slice(open) : '';
  const what = open >= 0 ? text.slice(0, open) : text;
  const dot = what.lastIndexOf('.');
  return h('div', { class: 'frame' + (fr.jdk ? ' jdk' : ''), title: text },
    h('span', { class: 'cls' }, breakable(what.slice(0, dot + 1))), h('wbr'),
    h('span', { class: 'meth' }, breakable(what.slice(dot + 1))), where ? h('wbr') : null,
    h('span', { class: 'loc' }, breakable(where)));
}

export function stackEl(frames) {
  if (!frames || frames.length === 0) return h('div', { class: 'stack empty' }, 'no stack recorded');
  return h('div', { class: 'stack' }, frames.map(frameEl));
}

// natural compares strings with digit runs as numbers ("t-2" < "t-10").
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });
export const natural = (a, b) => collator.compare(a, b);

// fill replaces an element's children, skipping null and false.
export function fill(el, ...children) {
  el.replaceChildren(...children.flat(Infinity).filter((c) => c != null && c !== false));
  return el;
}

// runParts lists a split of runnable time (ns by RUN_PARTS), its shares.
export function runParts(parts) {
  const total = parts.reduce((a, b) => a + b, 0);
  return h('div', { class: 'tip-states' }, RUN_PARTS.map((name, i) => parts[i] > 0 ?
    h('div', null, h('span', { class: 'chip', title: RUN_TITLES[name], style: { '--c': RUN_COLORS[i] } }, name === 'unsplit' ? 'runnable' : name), ` ${fmtDur(parts[i])} (${pct(parts[i], total)})`) : null));
}

// DOING_COLORS colour what a lock's holder did (the report's
// holders_doing names): the parts of runnable time as the timeline draws
// them, the recorded states as theirs.
function doingColor(name) {
  const run = { running: 0, ready: 1, other: 2, running_virtual: 3, runnable: 4 }[name];
  if (run != null) return RUN_COLORS[run];
  const st = STATES.indexOf(name);
  return st >= 0 ? STATE_COLORS[st] : '#6e7681';
}

const DOING_WORDS = {
  other: 'other (I/O, native, VM)', running_virtual: 'running virtual threads',
  runnable: 'runnable (not split)', unknown: 'holder unknown',
  released: 'released (in Object.wait or Condition.await on it, or unparked the next owner; the next owner not in yet)',
};

// doingEl shows what holders did while others were blocked (a lock's or
// a contention's holders: /api/locks/… and /api/intervals/… holders): a
// bar of the parts, then each with its time and share, most first, and
// the locks they were blocked on.
export function doingEl(d, threadLink) {
  const parts = Object.entries(d.doing).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const bar = h('div', { class: 'doing-bar' }, parts.map(([name, v]) =>
    h('span', { title: `${DOING_WORDS[name] || name} ${fmtDur(v)}`, 'data-part': name, style: { width: `${(100 * v) / Math.max(d.while, 1)}%`, background: doingColor(name) } })));
  const rows = parts.map(([name, v]) => h('div', { class: 'state-bar doing-part', 'data-part': name },
    h('span', { class: 'chip', title: RUN_TITLES[name] || STATE_TITLES[name] || '', style: { '--c': doingColor(name) } }, DOING_WORDS[name] || name),
    h('span', { class: 'num' }, `${fmtDur(v)} · ${pct(v, d.while)}`)));
  const on = (d.blockedOn || []).map((b) => h('div', { class: 'muted small' }, `blocked on ${kindWord(b.kind)} ${b.object}${b.class ? ' ' + b.class : ''}`,
    b.id ? [' held by ', threadLink ? threadLink(b.holder, b.name) : b.name] : null, ` (${fmtDur(b.time)})`));
  // The API lists the first maxHeldOn (api.go) of blockedOnTotal.
  const more = (d.blockedOnTotal || 0) - on.length;
  if (more > 0) on.push(h('div', { class: 'muted small' }, `… and blocked on ${fmtCount(more)} more ${more === 1 ? 'lock' : 'locks'}, for less time each`));
  return h('div', { class: 'doing' }, bar, rows, on);
}
