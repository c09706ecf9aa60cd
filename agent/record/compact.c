#include <stdlib.h>
#include <string.h>
#include "core/events.h"
#include "record/compact.h"

// The tables' first sizes: an empty table always has room for one more
// entry, and an empty arena for the deepest stack, so a failed growth only
// begins a new chunk early.
#define TH_CAP0 64
#define ST_CAP0 256
#define ARENA_CAP0 1024   // frames: more than the deepest stack (256) with its count

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
  if (!e->th_hash || !e->th_idx || !e->st || !e->arena) {
    compact_free(e);
    return "out of memory for the compact encoding's tables";
  }
  e->th_cap = TH_CAP0;
  e->st_cap = ST_CAP0;
  e->arena_cap = ARENA_CAP0;
  return NULL;
}

void compact_free(compact_enc *e) {
  free(e->th_hash);
  free(e->th_idx);
  free(e->st);
  free(e->arena);
  memset(e, 0, sizeof *e);
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
  size_t n = sizeof COMPACT_MARK - 1;
  memcpy(o, COMPACT_MARK, n);
  o[n++] = COMPACT_CHUNK;
  n += put_uv(o + n, ++e->seq);
  n += put_uv(o + n, (uint64_t)e->prev);
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
  o[(*n)++] = COMPACT_STACK;
  *n += put_uv(o + *n, e->st_n);
  *n += put_uv(o + *n, (uint64_t)nf);
  for (int i = 0; i < nf; i++) {
    *n += put_uv(o + *n, fr[i].method);
    *n += put_uv(o + *n, (uint32_t)(fr[i].location + 1));   // native (FFFFFFFF): 0
  }
  return e->st_n;
}

size_t compact_rec(compact_enc *e, char *o, const orca_rec *r) {
  const orca_event_spec *spec = &orca_events[r->kind];
  const orca_frame *fr = (const orca_frame *)(r + 1);
  const char *text = (const char *)(fr + r->nframes);
  int nf = spec->fields & ORCA_F_STACK ? r->nframes : 0;
  size_t n = 0;
  // Room for one more thread and stack, else (out of memory) a new chunk,
  // whose empty tables have it.
  if (!e->seq || e->bytes >= e->chunk_max || !grow_threads(e) || !grow_stacks(e, nf + 1)) n = begin_chunk(e, o, r->ts);
  uint32_t th = spec->fields & ORCA_F_THREAD ? thread_index(e, r->thread, o, &n) : 0;
  uint32_t st = stack_id(e, fr, nf, o, &n);
  o[n++] = (char)(COMPACT_EVENT + r->kind);
  n += put_sv(o + n, r->ts - e->prev);
  e->prev = r->ts;
  if (spec->fields & ORCA_F_THREAD) n += put_uv(o + n, th);
  if (spec->fields & (ORCA_F_OBJECT | ORCA_F_TARGET)) n += put_u32(o + n, r->object);
  if (spec->fields & ORCA_F_OWNER) n += put_u32(o + n, r->owner);
  if (spec->fields & (ORCA_F_NAME | ORCA_F_CLASS)) {
    n += put_uv(o + n, r->namelen);
    memcpy(o + n, text, r->namelen);
    n += r->namelen;
  } else if (spec->fields & ORCA_F_TIMEOUT) {   // decimal nanoseconds in the record, empty for none
    uint64_t v = 0;
    for (int i = 0; i < r->namelen && text[i] >= '0' && text[i] <= '9'; i++) v = v * 10 + (uint64_t)(text[i] - '0');
    n += put_uv(o + n, r->namelen ? v + 1 : 0);
  } else if (spec->fields & ORCA_F_HOW) {
    static const char *const hows[] = ORCA_HOW_NAMES;
    int how = 0;
    for (int i = 1; i < (int)(sizeof hows / sizeof hows[0]); i++)
      if (strlen(hows[i]) == r->namelen && !memcmp(hows[i], text, r->namelen)) how = i;
    o[n++] = (char)how;
  }
  if (spec->fields & ORCA_F_MODE) {
    static const char *const modes[] = ORCA_MODE_NAMES;
    o[n++] = (char)(r->mode < sizeof modes / sizeof modes[0] ? r->mode : 0);
  }
  if (spec->fields & ORCA_F_STACK) n += put_uv(o + n, st);
  e->bytes += n;
  return n;
}
