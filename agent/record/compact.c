#include <stdlib.h>
#include <string.h>
#include "core/crc32c.h"
#include "core/events.h"
#include "record/compact.h"
#include "record/tkeys.h"

// The tables' first sizes: an empty table always has room for one more
// entry, and an empty arena for the deepest stack, so a failed growth only
// begins a new chunk early.
#define TH_CAP0 64
#define ST_CAP0 256
#define ARENA_CAP0 1024   // frames: more than the deepest stack (256) with its count
#define TS_CAP0 64
#define TEXTS_CAP0 256
// Distinct class texts kept at most (then classes are not restated).
#define TEXTS_MAX (1u << 20)

static size_t put_uv(char *o, uint64_t v) {
  size_t n = 0;
  while (v >= 0x80) {
    o[n++] = (char)(v | 0x80);
    v >>= 7;
  }
  o[n++] = (char)v;
  return n;
}

static size_t put_sv(char *o, int64_t v) {
  return put_uv(o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static size_t put_u32(char *o, uint32_t v) {
  o[0] = (char)v;
  o[1] = (char)(v >> 8);
  o[2] = (char)(v >> 16);
  o[3] = (char)(v >> 24);
  return 4;
}

const char *compact_init(compact_enc *e) {
  memset(e, 0, sizeof *e);
  e->chunk_max = COMPACT_CHUNK_BYTES;
  e->th_hash = calloc(TH_CAP0, sizeof *e->th_hash);
  e->th_idx = calloc(TH_CAP0, sizeof *e->th_idx);
  e->st = calloc(ST_CAP0, sizeof *e->st);
  e->arena = malloc(ARENA_CAP0 * sizeof *e->arena);
  e->ts = calloc(TS_CAP0, sizeof *e->ts);
  e->ts_idx = calloc(TS_CAP0, sizeof *e->ts_idx);
  e->fact_obj = calloc(COMPACT_FACTS, sizeof *e->fact_obj);
  e->facts = calloc(COMPACT_FACTS, sizeof *e->facts);
  e->texts = calloc(TEXTS_CAP0, sizeof *e->texts);
  if (!e->th_hash || !e->th_idx || !e->st || !e->arena || !e->ts || !e->ts_idx || !e->fact_obj || !e->facts || !e->texts) {
    compact_free(e);
    return "out of memory for the compact encoding's tables";
  }
  e->th_cap = TH_CAP0;
  e->st_cap = ST_CAP0;
  e->arena_cap = ARENA_CAP0;
  e->ts_cap = e->ts_room = TS_CAP0;
  e->texts_cap = TEXTS_CAP0;
  return NULL;
}

static void drop_keep(compact_keep *k) {
  free(k->r);
  k->r = NULL;
  k->ref = NULL;
  k->cap = 0;
}

static void drop_thread(compact_thread *t) {
  drop_keep(&t->name);
  drop_keep(&t->mount);
  for (int i = 0; i < COMPACT_OPEN_MAX; i++) {
    drop_keep(&t->open[i]);
    drop_keep(&t->extra[i]);
  }
  t->nopen = 0;
}

void compact_free(compact_enc *e) {
  free(e->th_hash);
  free(e->th_idx);
  free(e->st);
  free(e->arena);
  for (uint32_t i = 0; e->ts && i < e->ts_n; i++) drop_thread(&e->ts[i]);
  free(e->ts);
  free(e->ts_idx);
  free(e->fact_obj);
  free(e->facts);
  for (uint32_t i = 0; e->texts && i < e->texts_cap; i++) free(e->texts[i]);
  free(e->texts);
  free(e->pend);
  free(e->snap);
  free(e->alias_seq);
  free(e->defs);
  free(e->def_text);
  memset(e, 0, sizeof *e);
}

// keep copies r into k (NULL r: empties k); 0 when out of memory (k
// empty then).
static int keep(compact_keep *k, const orca_rec *r) {
  k->ref = NULL;
  if (!r) {
    if (k->r) k->r->kind = 0;
    return 1;
  }
  if (k->cap < r->size) {
    orca_rec *n = realloc(k->r, r->size);
    if (!n) {
      drop_keep(k);
      return 0;
    }
    k->r = n;
    k->cap = r->size;
  }
  memcpy(k->r, r, r->size);
  return 1;
}

static inline const orca_rec *kept(const compact_keep *k) {
  return k->ref ? k->ref : k->r && k->r->kind ? k->r : NULL;
}

// hold keeps r in k, a keep of thread t: a ref until compact_settle (t
// listed in e->pend), else (out of memory for the list) a copy now; 0
// when out of memory.
static int hold(compact_enc *e, compact_thread *t, compact_keep *k, const orca_rec *r) {
  if (!t->refs) {
    if (e->pend_n == e->pend_cap) {
      uint32_t cap = e->pend_cap ? 2 * e->pend_cap : 64;
      uint32_t *p = realloc(e->pend, cap * sizeof *p);
      if (!p) return keep(k, r);
      e->pend = p;
      e->pend_cap = cap;
    }
    e->pend[e->pend_n++] = t->hash;
    t->refs = 1;
  }
  k->ref = r;
  return 1;
}

static inline uint32_t th_slot(uint32_t hash, uint32_t cap) {
  return (uint32_t)((hash * 0x9E3779B97F4A7C15ULL) >> 32) & (cap - 1);
}

static uint64_t stack_hash(const orca_frame *fr, int n) {
  uint64_t h = (uint64_t)n * 0x9E3779B97F4A7C15ULL;
  for (int i = 0; i < n; i++) {
    h ^= ((uint64_t)fr[i].location << 32 | fr[i].method);
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h;
}

// grow doubles a table while the chunk holds more than half its slots
// used; 0 when out of memory (the caller begins a new chunk instead).
static int grow_threads(compact_enc *e) {
  if (2 * (e->th_n + 1) <= e->th_cap) return 1;
  uint32_t cap = e->th_cap * 2;
  uint32_t *h = calloc(cap, sizeof *h), *x = calloc(cap, sizeof *x);
  if (!h || !x) {
    free(h);
    free(x);
    return 0;
  }
  for (uint32_t i = 0; i < e->th_cap; i++) {
    if (!e->th_idx[i]) continue;
    uint32_t s = th_slot(e->th_hash[i], cap);
    while (x[s]) s = (s + 1) & (cap - 1);
    h[s] = e->th_hash[i];
    x[s] = e->th_idx[i];
  }
  free(e->th_hash);
  free(e->th_idx);
  e->th_hash = h;
  e->th_idx = x;
  e->th_cap = cap;
  return 1;
}

static int grow_stacks(compact_enc *e, int nframes) {
  if (e->arena_len + (size_t)nframes > e->arena_cap) {
    size_t cap = e->arena_cap * 2;
    while (cap < e->arena_len + (size_t)nframes) cap *= 2;
    orca_frame *a = realloc(e->arena, cap * sizeof *a);
    if (!a) return 0;
    e->arena = a;
    e->arena_cap = cap;
  }
  if (2 * (e->st_n + 1) <= e->st_cap) return 1;
  uint32_t cap = e->st_cap * 2;
  struct compact_stack *t = calloc(cap, sizeof *t);
  if (!t) return 0;
  for (uint32_t i = 0; i < e->st_cap; i++) {
    if (!e->st[i].id) continue;
    uint32_t s = (uint32_t)e->st[i].h & (cap - 1);
    while (t[s].id) s = (s + 1) & (cap - 1);
    t[s] = e->st[i];
  }
  free(e->st);
  e->st = t;
  e->st_cap = cap;
  return 1;
}

static size_t begin_chunk(compact_enc *e, char *o, int64_t ts) {
  memset(e->th_idx, 0, e->th_cap * sizeof *e->th_idx);
  memset(e->st, 0, e->st_cap * sizeof *e->st);
  e->th_n = e->st_n = 0;
  e->arena_len = 0;
  e->bytes = 0;
  e->prev = ts < 0 ? 0 : ts;
  e->records = 0;
  e->lo = INT64_MAX;
  e->hi = INT64_MIN;
  e->crc = 0;
  size_t n = sizeof COMPACT_MARK - 1;
  memcpy(o, COMPACT_MARK, n);
  o[n++] = COMPACT_CHUNK;
  n += put_uv(o + n, ++e->seq);
  n += put_uv(o + n, (uint64_t)e->prev);
  return n;
}

// def_slot returns the slot of key in e->defs: its entry, or the empty
// slot where it goes (the table has one: defs_cap is 0 or more than twice
// defs_n).
static struct compact_def *def_slot(compact_enc *e, uint64_t key) {
  if (!e->defs_cap) return NULL;
  uint32_t s = (uint32_t)((key * 0x9E3779B97F4A7C15ULL) >> 32) & (e->defs_cap - 1);
  while (e->defs[s].key && e->defs[s].key != key) s = (s + 1) & (e->defs_cap - 1);
  return &e->defs[s];
}

static inline uint64_t def_key(uint32_t id, int cls) { return ((uint64_t)id << 1 | (uint64_t)(cls != 0)) + 1; }

// hex reads the hex digits at p (up to end) until a comma; 0 when none.
static int hex(const char *p, const char *end, uint32_t *v, const char **after) {
  uint32_t x = 0;
  int n = 0;
  for (; p < end && *p != ','; p++, n++) {
    int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 : -1;
    if (d < 0 || n == 8) return 0;
    x = x << 4 | (uint32_t)d;
  }
  if (!n || p == end) return 0;
  *v = x;
  *after = p + 1;
  return 1;
}

// field skips the CSV field at p (fmt_text: quoted when it holds a comma),
// returning the byte after its comma, NULL when the line ends first.
static const char *field(const char *p, const char *end) {
  if (p < end && *p == '"') {
    for (p++; p < end; p++)
      if (*p == '"') {
        if (p + 1 < end && p[1] == '"') p++;
        else break;
      }
    if (p < end) p++;
  }
  while (p < end && *p != ',') p++;
  return p < end ? p + 1 : NULL;
}

// add_def keeps one line (no line break): its id is its second field, a
// method's class its fifth.
static void add_def(compact_enc *e, int cls, const char *p, const char *end) {
  uint32_t id = 0, cid = 0;
  const char *q = field(p, end);
  if (!q || !hex(q, end, &id, &q) || (size_t)(end - p) > COMPACT_DEFS_MAX - 16) return;
  if (!cls && (!(q = field(q, end)) || !(q = field(q, end)) || !hex(q, end, &cid, &q))) return;
  if (2 * (e->defs_n + 1) > e->defs_cap) {
    uint32_t cap = e->defs_cap ? 2 * e->defs_cap : 1024;
    struct compact_def *t = calloc(cap, sizeof *t), *old = e->defs;
    if (!t) return;
    uint32_t n = e->defs_cap;
    e->defs = t;
    e->defs_cap = cap;
    for (uint32_t i = 0; i < n; i++)
      if (old[i].key) *def_slot(e, old[i].key) = old[i];
    free(old);
  }
  size_t len = (size_t)(end - p);
  if (e->def_len + len > e->def_cap) {
    size_t cap = e->def_cap ? 2 * e->def_cap : 1 << 16;
    while (cap < e->def_len + len) cap *= 2;
    char *t = realloc(e->def_text, cap);
    if (!t) return;
    e->def_text = t;
    e->def_cap = cap;
  }
  if (e->def_len + len > UINT32_MAX) return;
  struct compact_def *d = def_slot(e, def_key(id, cls));
  if (!d->key) e->defs_n++;
  // A later line of an id replaces it (a class reloaded), as readers do.
  *d = (struct compact_def){def_key(id, cls), 0, (uint32_t)e->def_len, (uint32_t)len, cid};
  memcpy(e->def_text + e->def_len, p, len);
  e->def_len += len;
}

void compact_meta(compact_enc *e, int which, const char *buf, size_t len) {
  const char *p = buf, *end = buf + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl) nl = end;
    add_def(e, which, p, nl);
    p = nl + 1;
  }
}

// put_def writes definition d (tag: ORCA_TAG_METHOD or ORCA_TAG_CLASS) at
// o, marked as the chunk's.
static size_t put_def(compact_enc *e, struct compact_def *d, int tag, char *o) {
  size_t n = 0;
  d->seq = e->seq;
  o[n++] = (char)tag;
  n += put_uv(o + n, d->len);
  memcpy(o + n, e->def_text + d->off, d->len);
  return n + d->len;
}

// define writes at o the definitions of the methods of frames fr the chunk
// has not defined, each after its class's (at most COMPACT_DEFS_MAX bytes);
// returns the bytes written. Only for a stack new in the chunk: the frames
// of a stack defined already are.
static size_t define(compact_enc *e, const orca_frame *fr, int nf, char *o) {
  size_t n = 0;
  if (!e->defs_n) return 0;
  for (int i = 0; i < nf; i++) {
    struct compact_def *m = def_slot(e, def_key(fr[i].method, 0));
    if (!m->key || m->seq == e->seq) continue;
    struct compact_def *c = def_slot(e, def_key(m->cls, 1));
    size_t need = m->len + 6 + (c->key && c->seq != e->seq ? c->len + 6 : 0);
    if (n + need > COMPACT_DEFS_MAX) break;   // defined before a later stack
    if (c->key && c->seq != e->seq) n += put_def(e, c, ORCA_TAG_CLASS, o + n);
    n += put_def(e, m, ORCA_TAG_METHOD, o + n);
  }
  return n;
}

// thread_index returns the chunk's index of thread hash h, writing its
// definition at o (*n advanced) the first time.
static uint32_t thread_index(compact_enc *e, uint32_t h, char *o, size_t *n) {
  uint32_t s = th_slot(h, e->th_cap);
  for (; e->th_idx[s]; s = (s + 1) & (e->th_cap - 1))
    if (e->th_hash[s] == h) return e->th_idx[s];
  e->th_hash[s] = h;
  e->th_idx[s] = ++e->th_n;
  o[(*n)++] = COMPACT_THREAD;
  *n += put_uv(o + *n, e->th_n);
  *n += put_u32(o + *n, h);
  return e->th_n;
}

// alias writes at o the definition of thread key k when it is an alias
// (tkeys.h) that the chunk has not defined; returns the bytes written (at
// most 14). Out of memory for its note (or a number no registry gives), it
// is defined again (harmless).
static size_t alias(compact_enc *e, uint32_t k, char *o) {
  if (!(k & TKEY_ALIAS)) return 0;
  uint32_t i = k & ~TKEY_ALIAS;
  if (i >= e->alias_cap && i < (1u << 24)) {
    uint32_t cap = e->alias_cap ? e->alias_cap : 64;
    while (cap <= i) cap *= 2;
    uint64_t *a = realloc(e->alias_seq, cap * sizeof *a);
    if (a) {
      memset(a + e->alias_cap, 0, (cap - e->alias_cap) * sizeof *a);
      e->alias_seq = a;
      e->alias_cap = cap;
    }
  }
  if (i < e->alias_cap) {
    if (e->alias_seq[i] == e->seq) return 0;
    e->alias_seq[i] = e->seq;
  }
  uint32_t rank;
  uint32_t h = tkey_hash(k, &rank);
  size_t n = 0;
  o[n++] = COMPACT_ALIAS;
  n += put_u32(o + n, k);
  n += put_u32(o + n, h);
  n += put_uv(o + n, rank);
  return n;
}

// stack_id: the same for a stack (id 0 for none).
static uint32_t stack_id(compact_enc *e, const orca_frame *fr, int nf, char *o, size_t *n) {
  if (!nf) return 0;
  uint64_t h = stack_hash(fr, nf);
  uint32_t s = (uint32_t)h & (e->st_cap - 1);
  for (; e->st[s].id; s = (s + 1) & (e->st_cap - 1)) {
    const struct compact_stack *x = &e->st[s];
    // The frame count is the one before the frames in the arena.
    if (x->h == h && e->arena[x->off].method == (uint32_t)nf && !memcmp(e->arena + x->off + 1, fr, (size_t)nf * sizeof *fr))
      return x->id;
  }
  e->st[s].h = h;
  e->st[s].id = ++e->st_n;
  e->st[s].off = (uint32_t)e->arena_len;
  e->arena[e->arena_len++] = (orca_frame){(uint32_t)nf, 0};
  memcpy(e->arena + e->arena_len, fr, (size_t)nf * sizeof *fr);
  e->arena_len += (size_t)nf;
  *n += define(e, fr, nf, o + *n);
  o[(*n)++] = COMPACT_STACK;
  *n += put_uv(o + *n, e->st_n);
  *n += put_uv(o + *n, (uint64_t)nf);
  for (int i = 0; i < nf; i++) {
    *n += put_uv(o + *n, fr[i].method);
    *n += put_uv(o + *n, (uint32_t)(fr[i].location + 1));   // native (FFFFFFFF): 0
  }
  return e->st_n;
}

// put_fields writes r's fields at o by its kind's layout l (core/events.h,
// orca_layouts: the format's table): each field's value, written as its
// wire type; th and st: its thread index and stack id. Inlined a kind at a
// time (event), where l is a constant: no table is read per event.
static inline __attribute__((always_inline)) size_t put_fields(const orca_layout *l, char *o, const orca_rec *r,
                                                                const char *text, uint32_t th, uint32_t st) {
  size_t n = 0;
#pragma GCC unroll 8
  for (int f = 0; f < l->n; f++) {
    uint64_t v = 0;
    switch (l->f[f][0]) {
    case ORCA_FIELD_THREAD: v = th; break;
    case ORCA_FIELD_OBJECT:
    case ORCA_FIELD_TARGET: v = r->object; break;
    case ORCA_FIELD_OWNER:
    case ORCA_FIELD_LOCK: v = r->owner; break;   // a lock: an object's hash, no thread key
    case ORCA_FIELD_STACK: v = st; break;
    case ORCA_FIELD_NAME:
    case ORCA_FIELD_CLASS: v = r->namelen; break;   // the text's length, then its bytes
    case ORCA_FIELD_DEPTH:     // a held monitor's frame depth, decimal, empty when unknown: + 1, 0 for unknown
    case ORCA_FIELD_TIMEOUT:   // decimal nanoseconds in the record, empty for none: + 1, 0 for none
      for (int i = 0; i < r->namelen && text[i] >= '0' && text[i] <= '9'; i++) v = v * 10 + (uint64_t)(text[i] - '0');
      v = r->namelen ? v + 1 : 0;
      break;
    case ORCA_FIELD_CPU:     // ThreadCPU: the record's text is "CPU,READY" in decimal (record/tcpu.h)
    case ORCA_FIELD_READY: {
      int i = 0;
      if (l->f[f][0] == ORCA_FIELD_READY)
        while (i < r->namelen && text[i++] != ',') {
        }
      for (; i < r->namelen && text[i] >= '0' && text[i] <= '9'; i++) v = v * 10 + (uint64_t)(text[i] - '0');
      break;
    }
    case ORCA_FIELD_HOW: {
      static const char *const hows[] = ORCA_HOW_NAMES;
      for (int i = 1; i < (int)(sizeof hows / sizeof hows[0]); i++)
        if (strlen(hows[i]) == r->namelen && !memcmp(hows[i], text, r->namelen)) v = (uint64_t)i;
      break;
    }
    case ORCA_FIELD_MODE: {
      static const char *const modes[] = ORCA_MODE_NAMES;
      v = r->mode < sizeof modes / sizeof modes[0] ? r->mode : 0;
      break;
    }
    case ORCA_FIELD_SAMPLED: {
      static const char *const kinds[] = ORCA_SAMPLED_NAMES;
      v = r->mode < sizeof kinds / sizeof kinds[0] ? r->mode : 0;
      break;
    }
    case ORCA_FIELD_WEIGHT: v = rec_weight(r); break;
    }
    switch (l->f[f][1]) {
    case ORCA_W_UV: n += put_uv(o + n, v); break;
    case ORCA_W_SV: n += put_sv(o + n, (int64_t)v); break;
    case ORCA_W_U32: n += put_u32(o + n, (uint32_t)v); break;
    case ORCA_W_BYTE: o[n++] = (char)v; break;
    case ORCA_W_TEXT:
      n += put_uv(o + n, v);
      memcpy(o + n, text, v);
      n += v;
      break;
    }
  }
  return n;
}

// event writes r's event record at o with time ts (its thread and stack
// defined first when the chunk has not, its kind's descriptor before its
// first record in the chunk), preceded by the carried tag when carried,
// its fields by its kind's layout (put_fields).
static size_t event(compact_enc *e, char *o, const orca_rec *r, int64_t ts, int carried) {
  const orca_event_spec *spec = &orca_events[r->kind];
  const orca_frame *fr = (const orca_frame *)(r + 1);
  const char *text = (const char *)(fr + r->nframes);
  int nf = spec->fields & ORCA_F_STACK ? r->nframes : 0;
  size_t n = 0;
  // The aliases of its threads first (the thread, a target, an owner).
  if (spec->fields & ORCA_F_THREAD) n += alias(e, r->thread, o + n);
  if (spec->fields & ORCA_F_TARGET) n += alias(e, r->object, o + n);
  if (spec->fields & ORCA_F_OWNER) n += alias(e, r->owner, o + n);
  uint32_t th = spec->fields & ORCA_F_THREAD ? thread_index(e, r->thread, o, &n) : 0;
  uint32_t st = stack_id(e, fr, nf, o, &n);
  if (e->described[r->kind] != e->seq) {
    e->described[r->kind] = e->seq;
    memcpy(o + n, orca_descriptors[r->kind].bytes, orca_descriptors[r->kind].len);
    n += orca_descriptors[r->kind].len;
  }
  if (carried) o[n++] = COMPACT_CARRIED;
  o[n++] = (char)(COMPACT_EVENT + r->kind);
  n += put_sv(o + n, ts - e->prev);
  e->prev = ts;
  switch (r->kind) {   // a case a kind: its layout a constant, the loop unrolled
#define PUT_KIND(k) \
  case k: n += put_fields(&orca_layouts[k], o + n, r, text, th, st); break;
    ORCA_EV_EACH(PUT_KIND)
#undef PUT_KIND
  }
  e->records++;
  if (ts < e->lo) e->lo = ts;
  if (ts > e->hi) e->hi = ts;
  return n;
}

// The state of live threads, kept across chunks: a dense array (a
// thread's state is 248 bytes: a table of them by hash, at most a quarter
// full after a chunk's rebuild, zeroed 130 MB at each chunk's start for
// 100 000 virtual threads), found by a table of indexes by hash (open
// addressing; a thread that ended stays until the next chunk's rebuild).
static inline uint32_t ts_slot(uint32_t hash, uint32_t cap) { return th_slot(hash, cap); }

// index_states makes x, zeroed, of cap slots, the table of indexes of ts.
static void index_states(compact_enc *e, uint32_t *x, uint32_t cap) {
  for (uint32_t i = 0; i < e->ts_n; i++) {
    uint32_t s = ts_slot(e->ts[i].hash, cap);
    while (x[s]) s = (s + 1) & (cap - 1);
    x[s] = i + 1;
  }
  free(e->ts_idx);
  e->ts_idx = x;
  e->ts_cap = cap;
}

static compact_thread *thread_state(compact_enc *e, uint32_t h, int create) {
  uint32_t s = ts_slot(h, e->ts_cap);
  for (; e->ts_idx[s]; s = (s + 1) & (e->ts_cap - 1))
    if (e->ts[e->ts_idx[s] - 1].hash == h) return &e->ts[e->ts_idx[s] - 1];
  if (!create) return NULL;   // out of memory below: counted as unrestated
  if (e->ts_n == e->ts_room) {
    compact_thread *t = realloc(e->ts, 2 * (size_t)e->ts_room * sizeof *t);
    if (!t) return NULL;
    e->ts = t;
    e->ts_room *= 2;
  }
  if (2 * (e->ts_n + 1) > e->ts_cap) {
    uint32_t *x = calloc(2 * (size_t)e->ts_cap, sizeof *x);
    if (!x) return NULL;
    index_states(e, x, 2 * e->ts_cap);
    for (s = ts_slot(h, e->ts_cap); e->ts_idx[s]; s = (s + 1) & (e->ts_cap - 1)) {
    }
  }
  compact_thread *t = &e->ts[e->ts_n];
  memset(t, 0, sizeof *t);
  t->hash = h;
  e->ts_idx[s] = ++e->ts_n;
  return t;
}

// rebuild_states drops the threads that ended, keeping the order of the
// others, and makes room for as many again as are alive (at a chunk's
// start). Out of memory, the ended threads keep their places, emptied.
static void rebuild_states(compact_enc *e) {
  uint32_t alive = 0;
  for (uint32_t i = 0; i < e->ts_n; i++) alive += e->ts[i].alive;
  uint32_t cap = TS_CAP0;
  while (cap < 4 * (alive + 1)) cap *= 2;
  uint32_t *x = calloc(cap, sizeof *x);
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->ts_n; i++) {
    if (!e->ts[i].alive) {
      drop_thread(&e->ts[i]);
      if (x) continue;
    }
    if (n != i) e->ts[n] = e->ts[i];
    n++;
  }
  e->ts_n = n;
  if (x) index_states(e, x, cap);
}

// fact_set is the first of the two slots where obj's class lines may be.
static inline uint32_t fact_set(uint32_t obj) {
  return (uint32_t)((obj * 0x9E3779B97F4A7C15ULL) >> 40) & (COMPACT_FACTS - 2);
}

// fact_find returns the slot of obj's class lines, -1 when the table has
// none: one of the two of its set.
static inline int fact_find(const compact_enc *e, uint32_t obj) {
  uint32_t s = fact_set(obj);
  return e->fact_obj[s] == obj ? (int)s : e->fact_obj[s + 1] == obj ? (int)s + 1 : -1;
}

// fact_take returns obj's slot, made empty when the table had none: of its
// set's two, the one an event named less lately.
static uint32_t fact_take(compact_enc *e, uint32_t obj) {
  int i = fact_find(e, obj);
  if (i >= 0) return (uint32_t)i;
  uint32_t s = fact_set(obj);
  if (e->facts[s + 1].used < e->facts[s].used) s++;
  if (e->fact_obj[s] && e->forget) e->forget(e->fact_obj[s]);
  e->fact_obj[s] = obj;
  e->facts[s] = (compact_fact){.used = ++e->fact_clock};
  return s;
}

static uint32_t text_hash(const char *p, uint32_t n) {
  uint32_t h = 2166136261u;
  for (uint32_t i = 0; i < n; i++) h = (h ^ (unsigned char)p[i]) * 16777619u;
  return h;
}

// intern returns the kept copy of the class text p (n bytes): a park's
// blocker is often a new object of the class of the last one; NULL when
// out of memory or past TEXTS_MAX.
static const compact_text *intern(compact_enc *e, const char *p, uint32_t n) {
  const compact_text *last = e->last_text;
  if (last && last->len == n && !memcmp(last->text, p, n)) return last;
  uint32_t h = text_hash(p, n), s = h & (e->texts_cap - 1);
  for (; e->texts[s]; s = (s + 1) & (e->texts_cap - 1))
    if (e->texts[s]->hash == h && e->texts[s]->len == n && !memcmp(e->texts[s]->text, p, n)) return e->last_text = e->texts[s];
  if (e->texts_n >= TEXTS_MAX) return NULL;
  if (2 * (e->texts_n + 1) > e->texts_cap) {
    uint32_t cap = 2 * e->texts_cap;
    compact_text **t = calloc(cap, sizeof *t);
    if (!t) return NULL;
    for (uint32_t i = 0; i < e->texts_cap; i++) {
      if (!e->texts[i]) continue;
      uint32_t k = e->texts[i]->hash & (cap - 1);
      while (t[k]) k = (k + 1) & (cap - 1);
      t[k] = e->texts[i];
    }
    free(e->texts);
    e->texts = t;
    e->texts_cap = cap;
    for (s = h & (cap - 1); t[s]; s = (s + 1) & (cap - 1)) {
    }
  }
  compact_text *x = malloc(sizeof *x + n);
  if (!x) return NULL;
  x->hash = h;
  x->len = n;
  memcpy(x->text, p, n);
  e->texts[s] = x;
  e->texts_n++;
  return e->last_text = x;
}

// track keeps what r says of its thread or object (after r is written in chunk e->seq).
static void track(compact_enc *e, const orca_rec *r) {
  const orca_event_spec *spec = &orca_events[r->kind];
  compact_thread *t;
  if (e->one_chunk && r->kind != ORCA_EV_OBJECT_CLASS && r->kind != ORCA_EV_CLASS_INIT_LOCK &&
      r->kind != ORCA_EV_CONDITION_LOCK)
    return;
  switch (r->kind) {
  case ORCA_EV_THREAD_STARTED:
    if (!(t = thread_state(e, r->thread, 1))) {
      e->unrestated++;
      return;
    }
    t->alive = 1;
    if (!hold(e, t, &t->name, r)) e->unrestated++;
    return;
  case ORCA_EV_THREAD_ENDED:
    if ((t = thread_state(e, r->thread, 0))) {
      drop_thread(t);
      t->alive = 0;
    }
    return;
  case ORCA_EV_VIRTUAL_THREAD_MOUNTED:
    if ((t = thread_state(e, r->thread, 1))) {
      t->alive = 1;
      if (!hold(e, t, &t->mount, r)) e->unrestated++;
    }
    return;
  case ORCA_EV_OBJECT_WAIT_TIMEOUT:
  case ORCA_EV_VIRTUAL_THREAD_PINNED:
    // The wait's timeout; the park or sleep that parks the carrier.
    if ((t = thread_state(e, r->thread, 0)) && t->nopen && !hold(e, t, &t->extra[t->nopen - 1], r)) e->unrestated++;
    return;
  case ORCA_EV_CONDITION_LOCK: {   // a condition's lock: kept with the object's class lines
    compact_fact *f = &e->facts[fact_take(e, r->object)];
    f->seq = e->seq;
    f->lock = r->owner;
    return;
  }
  case ORCA_EV_OBJECT_CLASS:
  case ORCA_EV_CLASS_INIT_LOCK: {
    if (r->namelen > COMPACT_FACT_TEXT) return;
    const compact_text *x = intern(e, (const char *)((const orca_frame *)(r + 1) + r->nframes), r->namelen);
    if (!x) {
      e->unrestated++;
      return;
    }
    compact_fact *f = &e->facts[fact_take(e, r->object)];
    f->seq = e->seq;
    if (r->kind == ORCA_EV_OBJECT_CLASS) f->cls = x;
    else f->clinit = x;
    return;
  }
  }
  if (spec->end) {   // an interval begins
    if (!(t = thread_state(e, r->thread, 1))) {
      e->unrestated++;
      return;
    }
    t->alive = 1;
    if (t->nopen == COMPACT_OPEN_MAX) {   // not restated: the outermost
      e->unrestated++;
      compact_keep o = t->open[0], x = t->extra[0];
      memmove(t->open, t->open + 1, (COMPACT_OPEN_MAX - 1) * sizeof *t->open);
      memmove(t->extra, t->extra + 1, (COMPACT_OPEN_MAX - 1) * sizeof *t->extra);
      memmove(t->pin, t->pin + 1, (COMPACT_OPEN_MAX - 1) * sizeof *t->pin);
      t->open[COMPACT_OPEN_MAX - 1] = o;
      t->extra[COMPACT_OPEN_MAX - 1] = x;
      t->nopen--;
    }
    if (!hold(e, t, &t->open[t->nopen], r)) {
      e->unrestated++;
      return;
    }
    keep(&t->extra[t->nopen], NULL);
    // Its object's class lines now (given before it: an ObjectClass comes
    // before the first event that names its object).
    compact_pin *p = &t->pin[t->nopen];
    *p = (compact_pin){0};
    int s;
    if (orca_events[r->kind].fields & ORCA_F_OBJECT && r->object && (s = fact_find(e, r->object)) >= 0)
      *p = (compact_pin){e->facts[s].cls, e->facts[s].clinit, e->facts[s].lock};
    t->nopen++;
  } else if (spec->begin && (t = thread_state(e, r->thread, 0))) {   // the innermost interval of its kind ends
    for (int i = t->nopen; i-- > 0;) {
      if (!kept(&t->open[i]) || kept(&t->open[i])->kind != spec->begin) continue;
      compact_keep o = t->open[i], x = t->extra[i];
      memmove(t->open + i, t->open + i + 1, (size_t)(t->nopen - 1 - i) * sizeof *t->open);
      memmove(t->extra + i, t->extra + i + 1, (size_t)(t->nopen - 1 - i) * sizeof *t->extra);
      memmove(t->pin + i, t->pin + i + 1, (size_t)(t->nopen - 1 - i) * sizeof *t->pin);
      t->open[t->nopen - 1] = o;
      t->extra[t->nopen - 1] = x;
      t->nopen--;
      // Ended: nothing to copy at compact_settle.
      t->open[t->nopen].ref = t->extra[t->nopen].ref = NULL;
      break;
    }
  }
}

// put_facts writes, as carried records of r's thread at time ts, the class
// lines p of r's object.
static size_t put_facts(compact_enc *e, char *o, const orca_rec *r, int64_t ts, const compact_pin *p) {
  size_t n = 0;
  const compact_text *ts_[2] = {p->cls, p->clinit};
  for (int i = 0; i < 2; i++) {
    const compact_text *c = ts_[i];
    if (!c) continue;
    // The class text after the (absent) frames.
    char buf[sizeof(orca_rec) + COMPACT_FACT_TEXT + 8] __attribute__((aligned(8)));
    orca_rec *x = (orca_rec *)buf;
    memset(x, 0, sizeof *x);
    x->kind = i ? ORCA_EV_CLASS_INIT_LOCK : ORCA_EV_OBJECT_CLASS;
    x->thread = r->thread;
    x->object = r->object;
    x->namelen = (uint16_t)c->len;
    x->size = (uint16_t)((sizeof *x + c->len + 7) & ~(size_t)7);
    memcpy(x + 1, c->text, c->len);
    n += event(e, o + n, x, ts, 1);
  }
  if (p->lock) {   // a condition's lock, after its class
    orca_rec x;
    memset(&x, 0, sizeof x);
    x.kind = ORCA_EV_CONDITION_LOCK;
    x.thread = r->thread;
    x.object = r->object;
    x.owner = p->lock;
    x.size = (uint16_t)((sizeof x + 7) & ~(size_t)7);
    n += event(e, o + n, &x, ts, 1);
  }
  return n;
}

// restate_facts writes, as carried records of r's thread at time ts, the
// class lines of r's object that an earlier chunk wrote; pin (NULL: none):
// those of an interval on it when it began, written if the table no longer
// has the object's.
static size_t restate_facts(compact_enc *e, char *o, const orca_rec *r, int64_t ts, const compact_pin *pin) {
  int s = fact_find(e, r->object);
  if (s < 0) {
    if (!pin || !(pin->cls || pin->clinit || pin->lock)) return 0;
    // The pinned lines take a slot back (as a new ObjectClass would):
    // written once a chunk however many intervals are on the object.
    compact_fact *f = &e->facts[fact_take(e, r->object)];
    f->seq = e->seq, f->cls = pin->cls, f->clinit = pin->clinit, f->lock = pin->lock;
    return put_facts(e, o, r, ts, pin);
  }
  compact_fact *f = &e->facts[s];
  f->used = ++e->fact_clock;
  if (f->seq == e->seq) return 0;
  f->seq = e->seq;
  return put_facts(e, o, r, ts, &(compact_pin){f->cls, f->clinit, f->lock});
}

int compact_due(compact_enc *e, const orca_rec *r) {
  int nf = orca_events[r->kind].fields & ORCA_F_STACK ? r->nframes : 0;
  size_t max = e->chunk_max > 4 * e->state_bytes ? e->chunk_max : 4 * e->state_bytes;
  // Room for one more thread and stack, else (out of memory) a new chunk,
  // whose empty tables have it.
  return !e->seq || !e->bytes || e->bytes >= max || (e->span_max && r->ts - e->base >= e->span_max) || !grow_threads(e) ||
         !grow_stacks(e, nf + 1);
}

// snap_room makes room for n more bytes after len in e->snap.
static int snap_room(compact_enc *e, size_t len, size_t n) {
  if (len + n <= e->snap_cap) return 1;
  size_t cap = e->snap_cap ? e->snap_cap : 1 << 16;
  while (cap < len + n) cap *= 2;
  char *s = realloc(e->snap, cap);
  if (!s) return 0;
  e->snap = s;
  e->snap_cap = cap;
  return 1;
}

// restate writes r as a carried record at the chunk's base time.
static int restate(compact_enc *e, size_t *len, const orca_rec *r) {
  if (!r) return 1;
  if (!snap_room(e, *len, compact_max(r)) || !grow_threads(e) || !grow_stacks(e, r->nframes + 1)) {
    e->unrestated++;
    return 0;
  }
  *len += event(e, e->snap + *len, r, e->base, 1);
  return 1;
}

const char *compact_begin(compact_enc *e, int64_t ts, size_t *len) {
  if (!snap_room(e, 0, 64)) return NULL;
  rebuild_states(e);
  *len = begin_chunk(e, e->snap, ts);
  e->base = e->prev;
  for (uint32_t i = 0; i < e->ts_n; i++) {
    compact_thread *t = &e->ts[i];
    if (!t->alive) continue;
    restate(e, len, kept(&t->name));
    restate(e, len, kept(&t->mount));
    for (int k = 0; k < t->nopen; k++) {
      const orca_rec *b = kept(&t->open[k]);
      if (!b) continue;
      if (orca_events[b->kind].fields & ORCA_F_OBJECT && b->object) {
        if (!snap_room(e, *len, 2 * (64 + COMPACT_FACT_TEXT) + 64) || !grow_threads(e) || !grow_stacks(e, 1)) e->unrestated++;
        else *len += restate_facts(e, e->snap + *len, b, e->base, &t->pin[k]);
      }
      restate(e, len, b);
      restate(e, len, kept(&t->extra[k]));
    }
  }
  e->state_bytes = e->bytes = *len;
  e->crc = crc32c(0, e->snap, *len);
  return e->snap;
}

void compact_sum(compact_enc *e, const char *p, size_t n) { e->crc = crc32c(e->crc, p, n); }

const char *compact_end(compact_enc *e, size_t *len) {
  if (!e->seq || !e->bytes) return NULL;
  char *o = e->trailer;
  size_t n = 0;
  o[n++] = ORCA_TAG_TRAILER;
  n += put_uv(o + n, e->bytes);
  n += put_uv(o + n, e->records);
  n += put_uv(o + n, e->records ? (uint64_t)e->lo : 0);
  n += put_uv(o + n, e->records ? (uint64_t)e->hi : 0);
  n += put_u32(o + n, crc32c(e->crc, o, n));
  e->bytes = 0;   // closed
  *len = n;
  return o;
}

size_t compact_rec(compact_enc *e, char *o, const orca_rec *r) {
  size_t n = 0;
  if (orca_events[r->kind].fields & ORCA_F_OBJECT && r->object && r->kind != ORCA_EV_OBJECT_CLASS &&
      r->kind != ORCA_EV_CLASS_INIT_LOCK && r->kind != ORCA_EV_CONDITION_LOCK)
    n = restate_facts(e, o, r, r->ts, NULL);
  n += event(e, o + n, r, r->ts, 0);
  e->bytes += n;
  track(e, r);
  return n;
}

int compact_settle(compact_enc *e) {
  int ok = 1;
  for (uint32_t i = 0; i < e->pend_n; i++) {
    compact_thread *t = thread_state(e, e->pend[i], 0);
    if (!t || !t->refs) continue;
    t->refs = 0;
    compact_keep *ks[2 + 2 * COMPACT_OPEN_MAX] = {&t->name, &t->mount};
    for (int k = 0; k < COMPACT_OPEN_MAX; k++) ks[2 + 2 * k] = &t->open[k], ks[3 + 2 * k] = &t->extra[k];
    for (int k = 0; k < 2 + 2 * COMPACT_OPEN_MAX; k++) {
      if (!ks[k]->ref) continue;
      if (!keep(ks[k], ks[k]->ref)) {
        e->unrestated++;
        ok = 0;
      }
    }
  }
  e->pend_n = 0;
  return ok;
}
