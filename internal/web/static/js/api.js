// Fetching from the orca view server (docs/web.md describes every call).

export class APIError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function check(res) {
  if (res.ok) return res;
  let msg = res.statusText;
  try {
    const body = await res.json();
    if (body && body.error) msg = body.error;
  } catch (e) { /* not JSON */ }
  throw new APIError(res.status, msg);
}

// readingHook is told the server's message ("still reading the
// recording: N %") each time it answers 503: orca view opened from its
// index reads the recording only when a detail asks it.
let readingHook = null;
export function onReading(f) { readingHook = f; }

// getJSON asks the server; an answer that waits for the recording to be
// read (503) is asked again every second until it comes.
export async function getJSON(path, params) {
  const url = params ? path + '?' + new URLSearchParams(params) : path;
  for (;;) {
    try {
      const res = await check(await fetch(url));
      return await res.json();
    } catch (e) {
      if (!(e instanceof APIError) || e.status !== 503) throw e;
      if (readingHook) readingHook(e.message);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

// threadRanges writes thread indexes as "0-5,9,12-14".
export function threadRanges(list) {
  const s = [...list].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i < s.length;) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    out.push(j > i ? `${s[i]}-${s[j]}` : `${s[i]}`);
    i = j + 1;
  }
  return out.join(',');
}

// threadRefs lists the thread indexes an answer names (its fields
// thread, threads, topOwner, waiters, parent, carrier, from, to, other,
// at any depth), for App.loadThreads: the page holds only the rows it
// asked.
const REF_KEYS = new Set(['thread', 'threads', 'topOwner', 'waiters', 'parent', 'carrier', 'from', 'to', 'other']);
export function threadRefs(v, out = [], depth = 0) {
  if (v == null || typeof v !== 'object' || depth > 12 || out.length > 100000) return out;
  if (Array.isArray(v)) { for (const x of v) threadRefs(x, out, depth + 1); return out; }
  for (const [k, x] of Object.entries(v)) {
    if (REF_KEYS.has(k)) {
      if (Number.isInteger(x)) out.push(x);
      else if (Array.isArray(x)) for (const y of x) if (Number.isInteger(y)) out.push(y);
    }
    if (x != null && typeof x === 'object') threadRefs(x, out, depth + 1);
  }
  return out;
}

const LANES_MAGIC = 0x4c43524f;

// getLanes asks the lanes' layout (/api/lanes: docs/web.md): {lanes, run,
// groups: {key, count, blocked}, order: Int32Array}, where order holds a
// lane's thread index, or -(g+1) for the head of group g, whose count
// lanes follow.
export async function getLanes(params) {
  // only (a lock's threads, ranges of indexes) goes in a form body: at
  // millions of threads it was longer than a URL may be.
  const { only, ...rest } = params;
  const url = '/api/lanes?' + new URLSearchParams(rest);
  const init = only == null ? undefined : { method: 'POST', body: new URLSearchParams({ only }) };
  for (;;) {
    const res = await fetch(url, init);
    if (res.status === 503) { await new Promise((r) => setTimeout(r, 1000)); continue; }
    const buf = await (await check(res)).arrayBuffer();
    const dv = new DataView(buf);
    if (dv.getUint32(0, true) !== LANES_MAGIC) throw new Error('not a layout');
    const head = dv.getUint32(8, true), n = dv.getUint32(12, true);
    const lay = JSON.parse(new TextDecoder().decode(new Uint8Array(buf, 16, head)));
    lay.order = new Int32Array(buf, 16 + head, n);
    return lay;
  }
}

const TILE_MAGIC = 0x5443524f;

// getTile fetches one tile and returns Map(thread → lane), where a lane is
// columns over the same segments: s, e (Float64Array, ns), f, n (Uint32Array:
// first interval index and intervals merged), st (Uint8Array: state | flags);
// and over its pieces of runnable time (version 2; none for a thread whose
// runnable time is not split): rs, re (ns), and the split of each, ns:
// run[part] for part in RUN_PARTS' order (running, ready, other, virtual,
// unsplit).
export async function getTile(level, tile, threads, lock) {
  const params = { level, tile, threads: threadRanges(threads) };
  if (lock) params.lock = lock;
  const res = await check(await fetch('/api/tiles?' + new URLSearchParams(params)));
  return decodeTile(await res.arrayBuffer());
}

export function decodeTile(buf) {
  const dv = new DataView(buf);
  if (dv.getUint32(0, true) !== TILE_MAGIC) throw new Error('not a tile');
  const lanes = dv.getUint32(8, true);
  const nseg = dv.getUint32(12, true);
  const head = (16 + 8 * lanes + 7) & ~7;
  const threads = new Uint32Array(buf, 16, lanes);
  const counts = new Uint32Array(buf, 16 + 4 * lanes, lanes);
  let p = head;
  const s = new Float64Array(buf, p, nseg); p += 8 * nseg;
  const e = new Float64Array(buf, p, nseg); p += 8 * nseg;
  const f = new Uint32Array(buf, p, nseg); p += 4 * nseg;
  const n = new Uint32Array(buf, p, nseg); p += 4 * nseg;
  const st = new Uint8Array(buf, p, nseg); p += nseg;
  const version = dv.getUint32(4, true);
  const empty = new Float64Array(0);
  let runCounts = null, rcols = null;
  if (version >= 2) {
    p = (p + 7) & ~7;
    runCounts = new Uint32Array(buf, p, lanes);
    p = (p + 4 * lanes + 7) & ~7;
    let nrun = 0;
    for (let i = 0; i < lanes; i++) nrun += runCounts[i];
    rcols = [];
    for (let c = 0; c < 7; c++) { rcols.push(new Float64Array(buf, p, nrun)); p += 8 * nrun; }
  }
  const out = new Map();
  let off = 0, roff = 0;
  for (let i = 0; i < lanes; i++) {
    const c = counts[i];
    const lane = {
      s: s.subarray(off, off + c), e: e.subarray(off, off + c),
      f: f.subarray(off, off + c), n: n.subarray(off, off + c), st: st.subarray(off, off + c),
      rs: empty, re: empty, run: [],
    };
    const rc = runCounts ? runCounts[i] : 0;
    if (rc) {
      lane.rs = rcols[0].subarray(roff, roff + rc);
      lane.re = rcols[1].subarray(roff, roff + rc);
      lane.run = rcols.slice(2).map((col) => col.subarray(roff, roff + rc));
      roff += rc;
    }
    out.set(threads[i], lane);
    off += c;
  }
  return out;
}
