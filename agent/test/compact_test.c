// compact.c: records encoded and decoded again (by a decoder of this file,
// written from docs/format.md) are the records put: every kind's fields, times
// out of order between threads, native frames, tables that grow, chunks
// that begin again (each defines its threads and stacks anew).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "core/crc32c.h"
#include "record/tkeys.h"
#include "compact_dec.h"
#include "core/events.h"
#include "record/compact.h"

static int get_uv(const unsigned char *p, size_t len, size_t *i, uint64_t *v) {
  *v = 0;
  for (int s = 0; s < 70; s += 7) {
    if (*i >= len) return 0;
    unsigned char b = p[(*i)++];
    *v |= (uint64_t)(b & 0x7F) << s;
    if (!(b & 0x80)) return 1;
  }
  return 0;
}

static int get_u32(const unsigned char *p, size_t len, size_t *i, uint32_t *v) {
  if (*i + 4 > len) return 0;
  *v = (uint32_t)p[*i] | (uint32_t)p[*i + 1] << 8 | (uint32_t)p[*i + 2] << 16 | (uint32_t)p[*i + 3] << 24;
  *i += 4;
  return 1;
}

#define DEC_MAX 4096   // threads or stacks a chunk of these tests defines

static int defined(const uint32_t *keys, uint32_t n, uint32_t k) {
  for (uint32_t i = 0; i < n; i++)
    if (keys[i] == k) return 1;
  return 0;
}

// put_end appends the open chunk's trailer (compact_end) at o: its length.
static size_t put_end(compact_enc *e, char *o) {
  size_t l = 0;
  const char *t = compact_end(e, &l);
  if (t) memcpy(o, t, l);
  return t ? l : 0;
}

uint32_t compact_decode_defs_below;

// def_field returns the start of field k (0, 1, …) of a definition's line
// (CSV: a quoted field may hold commas), NULL past its end.
static const unsigned char *def_field(const unsigned char *p, const unsigned char *end, int k) {
  for (; k > 0; k--) {
    if (p < end && *p == '"')
      for (p++; p < end && !(*p == '"' && (p + 1 == end || p[1] != '"')); p += *p == '"' ? 2 : 1) {
      }
    while (p < end && *p != ',') p++;
    if (p == end) return NULL;
    p++;
  }
  return p;
}

// def_hex reads 8 hex digits followed by a comma; 0 when not.
static int def_hex(const unsigned char *p, const unsigned char *end, uint32_t *v) {
  *v = 0;
  for (int k = 0; k < 8; k++) {
    if (!p || p + k >= end) return 0;
    int c = p[k], d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return 0;
    *v = *v << 4 | (uint32_t)d;
  }
  return p + 8 < end && p[8] == ',';
}

int compact_decode(const char *buf, size_t len, test_ev *out, int cap, dec_stats *st) {
  const unsigned char *p = (const unsigned char *)buf;
  static uint32_t threads[DEC_MAX + 1];
  static struct { int nf; orca_frame fr[64]; } stacks[DEC_MAX + 1];
  uint32_t nth = 0, nst = 0, naliases = 0, nmeth = 0, ncls = 0;
  static uint32_t meths[DEC_MAX + 1], clss[DEC_MAX + 1];   // the chunk's method and class definitions
  static uint32_t aliases[DEC_MAX + 1];   // the chunk's alias keys
  uint64_t seq = 0;
  int64_t t = 0;
  int n = 0;
  size_t i = 0, at = 0;
  // Version 3: the chunk's start, its event records and times, whether
  // it has each kind's descriptor; a chunk ends with its trailer.
  size_t chunk_at = 0;
  uint64_t records = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  int described[ORCA_EV_COUNT], open = 0;
  memset(st, 0, sizeof *st);
#define BAD(...)                                                                        \
  do {                                                                                  \
    int l_ = snprintf(st->err, sizeof st->err, "offset %zu: ", at);                    \
    snprintf(st->err + l_, sizeof st->err - (size_t)l_, __VA_ARGS__);                  \
    return n;                                                                           \
  } while (0)
  if (len < COMPACT_HEADER_LEN || memcmp(buf, "orca-compact 3\n", 15)) BAD("no header line");
  i = 15;
  while (i < len) {
    at = i;
    uint64_t v, w;
    if (len - i >= 8 && !memcmp(p + i, "ORCACHNK", 8)) {
      if (open) BAD("chunk %llu without its trailer", (unsigned long long)seq);
      open = 1;
      chunk_at = i;
      records = 0;
      lo = INT64_MAX, hi = INT64_MIN;
      memset(described, 0, sizeof described);
      i += 8;
      if (i >= len || p[i++] != 0x01) BAD("ORCACHNK not followed by a chunk record");
      if (!get_uv(p, len, &i, &v) || !get_uv(p, len, &i, &w)) BAD("cut chunk record");
      if (v != seq + 1) BAD("chunk %llu after %llu", (unsigned long long)v, (unsigned long long)seq);
      seq = v;
      t = (int64_t)w;
      nth = nst = 0;
      naliases = nmeth = ncls = 0;
      st->chunks++;
      continue;
    }
    if (!seq || !open) BAD("a record outside a chunk");
    unsigned tag = p[i++];
    if (tag == ORCA_TAG_TRAILER) {
      uint64_t bytes, recs, l, h;
      uint32_t sum;
      if (!get_uv(p, len, &i, &bytes) || !get_uv(p, len, &i, &recs) || !get_uv(p, len, &i, &l) || !get_uv(p, len, &i, &h) ||
          !get_u32(p, len, &i, &sum))
        BAD("cut trailer");
      if (bytes != at - chunk_at || recs != records || (recs && ((int64_t)l != lo || (int64_t)h != hi)))
        BAD("trailer: %llu bytes, %llu records, %llu-%llu ns; read %zu, %llu, %lld-%lld", (unsigned long long)bytes,
            (unsigned long long)recs, (unsigned long long)l, (unsigned long long)h, at - chunk_at, (unsigned long long)records,
            (long long)lo, (long long)hi);
      if (crc32c(0, p + chunk_at, i - 4 - chunk_at) != sum) BAD("trailer: checksum %08X differs", sum);
      open = 0;
      st->trailers++;
      continue;
    }
    if (tag == ORCA_TAG_DESCRIPTOR) {
      if (!get_uv(p, len, &i, &v) || !v || v >= ORCA_EV_COUNT) BAD("descriptor of kind %llu", (unsigned long long)v);
      const orca_descriptor *d = &orca_descriptors[v];
      if (len - at < d->len || memcmp(p + at, d->bytes, d->len)) BAD("descriptor of kind %llu differs from the table", (unsigned long long)v);
      if (described[v]) BAD("kind %llu described twice in a chunk", (unsigned long long)v);
      described[v] = 1;
      i = at + d->len;
      continue;
    }
    int carried = 0;
    if (tag == 0x04) {
      if (i >= len || p[i] <= 0x10 || p[i] >= 0x10 + ORCA_EV_COUNT) BAD("carried tag not followed by an event");
      carried = 1;
      st->carried++;
      tag = p[i++];
    }
// undefined: k is an alias key the chunk has not defined.
#define UNDEFINED(k) ((k) & TKEY_ALIAS && !defined(aliases, naliases, (k)))
    if (tag == ORCA_TAG_METHOD || tag == ORCA_TAG_CLASS) {
      if (!get_uv(p, len, &i, &v) || v > len - i) BAD("cut definition");
      const unsigned char *l = p + i, *end = p + i + v;
      uint32_t id, cls;
      i += v;
      if (!def_hex(def_field(l, end, 1), end, &id)) BAD("definition without its id");
      if (tag == ORCA_TAG_CLASS) {
        if (defined(clss, ncls, id) || ncls == DEC_MAX) BAD("class %08X defined twice in a chunk", id);
        clss[ncls++] = id;
        st->class_defs++;
        continue;
      }
      if (!def_hex(def_field(l, end, 4), end, &cls)) BAD("method %08X: no class id", id);
      if (defined(meths, nmeth, id) || nmeth == DEC_MAX) BAD("method %08X defined twice in a chunk", id);
      if (compact_decode_defs_below && !defined(clss, ncls, cls)) BAD("method %08X before its class %08X", id, cls);
      meths[nmeth++] = id;
      st->method_defs++;
      continue;
    }
    if (tag == 0x05) {
      uint32_t k, h;
      if (!get_u32(p, len, &i, &k) || !get_u32(p, len, &i, &h) || !get_uv(p, len, &i, &v)) BAD("cut alias record");
      if (!(k & TKEY_ALIAS) || naliases == DEC_MAX) BAD("alias %08X without the top bit", k);
      if (defined(aliases, naliases, k)) BAD("alias %08X defined twice in a chunk", k);
      aliases[naliases++] = k;
      st->alias_defs++;
      st->alias_hash = h;
      st->alias_rank = (uint32_t)v;
    } else if (tag == 0x02) {
      uint32_t h;
      if (!get_uv(p, len, &i, &v) || !get_u32(p, len, &i, &h)) BAD("cut thread record");
      if (v != nth + 1 || v > DEC_MAX) BAD("thread %llu after %u", (unsigned long long)v, nth);
      for (uint32_t k = 1; k <= nth; k++)
        if (threads[k] == h) BAD("thread %08X defined twice in a chunk", h);
      if (UNDEFINED(h)) BAD("thread %08X: an alias not defined in the chunk", h);
      threads[++nth] = h;
      st->thread_defs++;
    } else if (tag == 0x03) {
      if (!get_uv(p, len, &i, &v) || !get_uv(p, len, &i, &w)) BAD("cut stack record");
      if (v != nst + 1 || v > DEC_MAX || w > 64 || !w) BAD("stack %llu (depth %llu) after %u", (unsigned long long)v,
                                                          (unsigned long long)w, nst);
      nst++;
      stacks[nst].nf = (int)w;
      for (int k = 0; k < (int)w; k++) {
        uint64_t m, l;
        if (!get_uv(p, len, &i, &m) || !get_uv(p, len, &i, &l)) BAD("cut stack record");
        stacks[nst].fr[k] = (orca_frame){(uint32_t)m, (uint32_t)(l - 1)};
        if (m < compact_decode_defs_below && !defined(meths, nmeth, (uint32_t)m))
          BAD("stack %u: method %08llX not defined in the chunk before it", nst, (unsigned long long)m);
      }
      for (uint32_t k = 1; k < nst; k++)
        if (stacks[k].nf == stacks[nst].nf && !memcmp(stacks[k].fr, stacks[nst].fr, (size_t)w * sizeof(orca_frame)))
          BAD("stack %u defined again as %u in a chunk", k, nst);
      st->stack_defs++;
    } else if (tag > 0x10 && tag < 0x10 + ORCA_EV_COUNT) {
      if (n == cap) BAD("more than %d events", cap);
      test_ev *e = &out[n];
      memset(e, 0, sizeof *e);
      e->kind = (int)(tag - 0x10);
      e->carried = carried;
      if (!described[e->kind]) BAD("kind %d without its descriptor in the chunk", e->kind);
      if (!get_uv(p, len, &i, &v)) BAD("cut event");
      t += (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
      e->ts = t;
      records++;
      if (t < lo) lo = t;
      if (t > hi) hi = t;
      // The fields as the kind's descriptor lays them out (the same as
      // orca_layouts: checked above), by their codes and wire types.
      const unsigned char *d = (const unsigned char *)orca_descriptors[e->kind].bytes;
      size_t di = 1;
      uint64_t nfields;
      (void)get_uv(d, orca_descriptors[e->kind].len, &di, &v);   // the kind
      (void)get_uv(d, orca_descriptors[e->kind].len, &di, &v);   // its name
      di += v;
      (void)get_uv(d, orca_descriptors[e->kind].len, &di, &nfields);
      for (uint64_t k = 0; k < nfields; k++, di += 2) {
        unsigned field = d[di], wire = d[di + 1];
        uint32_t u = 0;
        v = 0;
        if (wire == ORCA_W_UV || wire == ORCA_W_TEXT) {
          if (!get_uv(p, len, &i, &v)) BAD("cut event");
        } else if (wire == ORCA_W_U32) {
          if (!get_u32(p, len, &i, &u)) BAD("cut event");
          v = u;
        } else if (wire == ORCA_W_BYTE) {
          if (i >= len) BAD("cut event");
          v = p[i++];
        } else {
          BAD("wire type %u", wire);
        }
        if (wire == ORCA_W_TEXT) {
          if (v >= sizeof e->text || i + v > len) BAD("cut or long text");
          memcpy(e->text, p + i, v);
          i += v;
        }
        switch (field) {
        case ORCA_FIELD_THREAD:
          if (!v || v > nth) BAD("thread index %llu not defined (%u)", (unsigned long long)v, nth);
          e->thread = threads[v];
          break;
        case ORCA_FIELD_OBJECT: e->object = (uint32_t)v; break;
        case ORCA_FIELD_TARGET:
          e->object = (uint32_t)v;
          if (UNDEFINED(e->object)) BAD("a target alias not defined in the chunk");
          break;
        case ORCA_FIELD_OWNER:
          e->owner = (uint32_t)v;
          if (UNDEFINED(e->owner)) BAD("an owner alias not defined in the chunk");
          break;
        case ORCA_FIELD_LOCK: e->owner = (uint32_t)v; break;
        case ORCA_FIELD_TIMEOUT:
          if (v) snprintf(e->text, sizeof e->text, "%llu", (unsigned long long)(v - 1));
          break;
        case ORCA_FIELD_HOW: {
          static const char *const hows[] = ORCA_HOW_NAMES;
          if (v >= sizeof hows / sizeof hows[0]) BAD("bad how");
          snprintf(e->text, sizeof e->text, "%s", hows[v]);
          break;
        }
        case ORCA_FIELD_MODE: e->mode = (int)v; break;
        case ORCA_FIELD_CPU: snprintf(e->text, sizeof e->text, "%llu", (unsigned long long)v); break;
        case ORCA_FIELD_READY: {   // after the cpu: the record's text is "CPU,READY"
          size_t l = strlen(e->text);
          snprintf(e->text + l, sizeof e->text - l, ",%llu", (unsigned long long)v);
          break;
        }
        case ORCA_FIELD_STACK:
          if (v > nst) BAD("stack id %llu not defined (%u)", (unsigned long long)v, nst);
          if (v) {
            e->nf = stacks[v].nf;
            memcpy(e->fr, stacks[v].fr, sizeof e->fr);
          }
          break;
        }
      }
      n++;
    } else {
      BAD("unknown tag 0x%02X", tag);
    }
  }
#undef BAD
  return n;
}

int test_ev_equal(const test_ev *a, const test_ev *b) {
  return a->kind == b->kind && a->ts == b->ts && a->thread == b->thread && a->object == b->object && a->owner == b->owner &&
         a->mode == b->mode && a->nf == b->nf && !memcmp(a->fr, b->fr, (size_t)a->nf * sizeof(orca_frame)) &&
         !strcmp(a->text, b->text);
}

// make_rec lays e out as the rings do; fields the kind lacks are zero.
static const orca_rec *make_rec(uint64_t *buf, const test_ev *e) {
  orca_rec *r = (orca_rec *)buf;
  memset(r, 0, sizeof *r);
  r->ts = e->ts;
  r->kind = (uint8_t)e->kind;
  r->thread = e->thread;
  r->object = e->object;
  r->owner = e->owner;
  r->mode = (uint8_t)e->mode;
  r->nframes = (uint16_t)e->nf;
  r->namelen = (uint16_t)strlen(e->text);
  memcpy(r + 1, e->fr, (size_t)e->nf * sizeof(orca_frame));
  memcpy((char *)((orca_frame *)(r + 1) + e->nf), e->text, r->namelen);
  r->size = (uint16_t)((sizeof *r + (size_t)e->nf * sizeof(orca_frame) + r->namelen + 7) & ~(size_t)7);
  return r;
}

// A notify of thread t with one of s stacks (2-5 frames, the last one
// native for odd s) at time ts.
static void notify_ev(test_ev *e, int64_t ts, uint32_t t, int s) {
  memset(e, 0, sizeof *e);
  e->kind = ORCA_EV_OBJECT_NOTIFY;
  e->ts = ts;
  e->thread = t;
  e->object = 0x40000000u + (uint32_t)s;
  e->nf = 2 + s % 4;
  for (int k = 0; k < e->nf; k++) e->fr[k] = (orca_frame){(uint32_t)(s * 7 + k + 1), (uint32_t)(k * 300)};
  if (s % 2) e->fr[e->nf - 1].location = 0xFFFFFFFFu;
}

// next_chunk closes the chunk at buf + *len and begins the next before r
// (record i), *len past it; 0 when buf (cap bytes) has no room.
static int next_chunk(compact_enc *enc, const orca_rec *r, char *buf, size_t *len, size_t cap, int i) {
  *len += put_end(enc, buf + *len);
  size_t l;
  const char *b = compact_begin(enc, r->ts, &l);
  CHECK(b && *len + l < cap, "record %d: compact_begin: %s, %zu bytes", i, b ? "ok" : "NULL", l);
  if (!b || *len + l >= cap) return 0;
  memcpy(buf + *len, b, l);
  *len += l;
  return 1;
}

static int encode_decode(compact_enc *enc, const test_ev *in, int n, test_ev *got, dec_stats *st) {
  size_t cap = 15 + (size_t)n * 4096, len = 0;
  char *buf = malloc(cap);
  // The records of a batch stay until compact_settle, as the writer's
  // do; then they are scribbled over, so that a state the encoder kept by
  // reference and did not copy shows in the next chunk's restated lines.
  enum { BATCH = 7 };
  static uint64_t recs[BATCH][64];
  memcpy(buf, COMPACT_HEADER, COMPACT_HEADER_LEN);
  len = COMPACT_HEADER_LEN;
  for (int i = 0; i < n; i++) {
    if (i % BATCH == 0) {
      compact_settle(enc);
      memset(recs, 0xAB, sizeof recs);
    }
    const orca_rec *r = make_rec(recs[i % BATCH], &in[i]);
    if (compact_due(enc, r) && !next_chunk(enc, r, buf, &len, cap, i)) break;
    size_t w = compact_rec(enc, buf + len, r);
    compact_sum(enc, buf + len, w);
    CHECK(w <= compact_max(r), "record %d: %zu bytes, more than compact_max %zu", i, w, compact_max(r));
    len += w;
  }
  compact_settle(enc);
  len += put_end(enc, buf + len);
  int m = compact_decode(buf, len, got, 2 * n + 1, st);
  CHECK(st->err[0] || st->trailers == st->chunks, "%d chunks, %d closed by their trailer", st->chunks, st->trailers);
  free(buf);
  return m;
}

int without_carried(test_ev *got, int m) {
  int k = 0;
  for (int i = 0; i < m; i++)
    if (!got[i].carried) got[k++] = got[i];
  return k;
}

static void check_same(const char *what, const test_ev *in, const test_ev *got, int n, int m, const dec_stats *st) {
  CHECK(!st->err[0], "%s: malformed: %s", what, st->err);
  CHECK(m == n, "%s: %d events decoded, want %d", what, m, n);
  int bad = 0;
  for (int i = 0; i < n && i < m; i++)
    if (!test_ev_equal(&in[i], &got[i]) && bad++ < 3)
      CHECK(0, "%s: event %d: kind %d at %lld thread %08X nf %d text '%s', want kind %d at %lld thread %08X nf %d text '%s'", what,
            i, got[i].kind, (long long)got[i].ts, got[i].thread, got[i].nf, got[i].text, in[i].kind, (long long)in[i].ts,
            in[i].thread, in[i].nf, in[i].text);
  CHECK(!bad, "%s: %d of %d events differ", what, bad, n);
}

static void ev(test_ev *e, int kind, int64_t ts, uint32_t t, uint32_t obj, const char *text, int nf) {
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->ts = ts;
  e->thread = t;
  e->object = obj;
  e->nf = orca_events[kind].fields & ORCA_F_STACK ? nf : 0;
  for (int k = 0; k < e->nf; k++) e->fr[k] = (orca_frame){(uint32_t)(kind * 10 + k + 1), (uint32_t)k};
  snprintf(e->text, sizeof e->text, "%s", text);
}

// many_threads encodes MANY threads' ThreadStarted in e's first chunk and
// a sleep of the last in its second, and decodes them: the records decoded.
enum { MANY = 3000 };
static int many_threads(compact_enc *enc, dec_stats *st) {
  static test_ev in[1], many[2 * MANY + 8];
  static uint64_t rec[256];
  static char big[MANY * 64 + 4096];
  size_t len = 0;
  for (int i = 0; i <= MANY; i++) {
    char name[32];
    snprintf(name, sizeof name, "t-%d", i);
    ev(&in[0], i < MANY ? ORCA_EV_THREAD_STARTED : ORCA_EV_THREAD_SLEEP, 9000 + i, 0x100000u + (uint32_t)i, 0, name, 1);
    const orca_rec *r = make_rec(rec, &in[0]);
    // compact_due grows the chunk's tables (as the writer asks before each record).
    if (compact_due(enc, r) || i == MANY) {
      len += put_end(enc, big + len);
      size_t l;
      const char *b = compact_begin(enc, r->ts, &l);
      CHECK(b && len + l < sizeof big, "many threads: compact_begin: %zu bytes", l);
      if (!b || len + l >= sizeof big) break;
      memcpy(big + len, b, l);
      len += l;
    }
    size_t w = compact_rec(enc, big + len, r);
    compact_sum(enc, big + len, w);
    len += w;
    compact_settle(enc);
  }
  static char whole[sizeof big + 32];
  memcpy(whole, COMPACT_HEADER, COMPACT_HEADER_LEN);
  memcpy(whole + COMPACT_HEADER_LEN, big, len);
  return compact_decode(whole, len + COMPACT_HEADER_LEN, many, 2 * MANY + 8, st);
}

// encode_cut encodes in[0..n) after the file's header in buf (cap bytes),
// a chunk begun where the encoder asks for one and before each record i
// with cut[i]; each, when set, is called with i before record i is
// encoded. The bytes written.
static size_t encode_cut(compact_enc *enc, const test_ev *in, int n, const char *cut, char *buf, size_t cap,
                         void (*each)(compact_enc *, int, void *), void *arg) {
  size_t len = COMPACT_HEADER_LEN, *len_p = &len;
  memcpy(buf, COMPACT_HEADER, len);
  uint64_t rec[64];
  for (int i = 0; i < n; i++) {
    if (each) each(enc, i, arg);
    const orca_rec *r = make_rec(rec, &in[i]);
    if ((compact_due(enc, r) || cut[i]) && !next_chunk(enc, r, buf, len_p, cap, i)) break;
    size_t w = compact_rec(enc, buf + len, r);
    compact_sum(enc, buf + len, w);
    len += w;
    compact_settle(enc);
  }
  return len;
}

// state_due checks that the encoder asks for a chunk before the first
// record only (test_compact_state's records fit in one).
static void state_due(compact_enc *enc, int i, void *arg) {
  const test_ev *in = arg;
  uint64_t rec[64];
  int due = compact_due(enc, make_rec(rec, &in[i]));
  CHECK(due == (i == 0), "record %d: due %d", i, due);
}

// A chunk begins with the state of every live thread (docs/format.md):
// its name, the intervals it is in with their timeout or pinning, the
// classes of their objects, all at the chunk's base time; not threads that
// ended, nor intervals that ended; a later chunk's event on an object
// described in an earlier chunk restates its class.
static void test_compact_state(void) {
  test_name = "compact state";
  compact_enc enc;
  dec_stats st;
  const char *err = compact_init(&enc);
  CHECK(!err, "compact_init: %s", err);
  if (err) return;
  enum { A = 0xA1, B = 0xB2, C = 0xC3, D = 0xD4, LOCK = 0x77, SEM = 0x88, MON = 0x99, X = 0x55 };
  static test_ev in[64], got[256];
  int n = 0;
  int64_t t = 5000000000LL;
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, A, 0, "main", 0);
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, B, 0, "worker, 1", 0);
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, C, 0, "gone", 0);
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, D, 0, "waiter", 0);
  ev(&in[n++], ORCA_EV_OBJECT_CLASS, t += 10, A, LOCK, "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;", 0);
  ev(&in[n++], ORCA_EV_OBJECT_CLASS, t += 10, D, X, "Ljava/lang/Object;", 0);
  ev(&in[n++], ORCA_EV_SEMAPHORE_ACQUIRE, t += 10, A, SEM, "", 3);   // a semaphore's acquire that parks
  ev(&in[n++], ORCA_EV_THREAD_PARK, t += 10, A, LOCK, "1000", 4);
  in[n - 1].owner = B;
  in[n - 1].mode = 1;
  ev(&in[n++], ORCA_EV_OBJECT_WAIT, t += 10, D, MON, "", 2);
  ev(&in[n++], ORCA_EV_OBJECT_WAIT_TIMEOUT, t, D, 0, "250000000", 0);
  ev(&in[n++], ORCA_EV_THREAD_SLEEP, t += 10, C, 0, "", 2);
  ev(&in[n++], ORCA_EV_THREAD_SLEPT, t += 10, C, 0, "", 2);
  ev(&in[n++], ORCA_EV_THREAD_ENDED, t += 10, C, 0, "", 0);
  ev(&in[n++], ORCA_EV_THREAD_SLEEP, t += 10, B, 0, "", 1);
  ev(&in[n++], ORCA_EV_THREAD_SLEPT, t += 10, B, 0, "", 1);
  int first = n;
  // The second chunk: B notifies X (its class restated; the lock's was at
  // the chunk's start, with A's park).
  ev(&in[n++], ORCA_EV_OBJECT_NOTIFY, t += 1000, B, X, "", 2);
  ev(&in[n++], ORCA_EV_OBJECT_NOTIFY, t += 10, B, LOCK, "", 2);
  ev(&in[n++], ORCA_EV_THREAD_UNPARKED, t += 10, A, LOCK, "unparked", 0);
  ev(&in[n++], ORCA_EV_SEMAPHORE_ACQUIRED, t += 10, A, SEM, "", 3);
  // The third: only D's wait is still open.
  int third = n;
  ev(&in[n++], ORCA_EV_OBJECT_NOTIFY, t += 1000, B, MON, "", 2);

  size_t cap = 1 << 16;
  char *buf = malloc(cap), cut[64] = {0};
  cut[first] = cut[third] = 1;
  size_t len = encode_cut(&enc, in, n, cut, buf, cap, state_due, in);
  int m = compact_decode(buf, len, got, 256, &st);
  free(buf);
  CHECK(!st.err[0], "malformed: %s", st.err);
  CHECK(st.chunks == 3, "%d chunks, want 3", st.chunks);
  // The events come back, without the carried records, as put.
  static test_ev ev_only[256];
  memcpy(ev_only, got, (size_t)m * sizeof *got);
  int k = without_carried(ev_only, m);
  check_same("events", in, ev_only, n, k, &st);
  // The second chunk restates A, B, D (not C: it ended) with their names,
  // A's acquire and park (the park's class first), D's wait and its
  // timeout, at the chunk's base time; then the notify's object class.
  int64_t base2 = in[first].ts, base3 = in[third].ts;
  struct {
    int kind;
    uint32_t thread, object;
    const char *text;
    int64_t ts;
  } want[] = {
      {ORCA_EV_THREAD_STARTED, A, 0, "main", base2},
      {ORCA_EV_SEMAPHORE_ACQUIRE, A, SEM, "", base2},
      {ORCA_EV_OBJECT_CLASS, A, LOCK, "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;", base2},
      {ORCA_EV_THREAD_PARK, A, LOCK, "1000", base2},
      {ORCA_EV_THREAD_STARTED, B, 0, "worker, 1", base2},
      {ORCA_EV_THREAD_STARTED, D, 0, "waiter", base2},
      {ORCA_EV_OBJECT_WAIT, D, MON, "", base2},
      {ORCA_EV_OBJECT_WAIT_TIMEOUT, D, 0, "250000000", base2},
      {ORCA_EV_THREAD_STARTED, A, 0, "main", base3},
      {ORCA_EV_THREAD_STARTED, B, 0, "worker, 1", base3},
      {ORCA_EV_THREAD_STARTED, D, 0, "waiter", base3},
      {ORCA_EV_OBJECT_WAIT, D, MON, "", base3},
      {ORCA_EV_OBJECT_WAIT_TIMEOUT, D, 0, "250000000", base3},
  };
  // The table's order is by hash: compare as sets per chunk.
  int nw = (int)(sizeof want / sizeof want[0]), found = 0;
  int carried = 0;
  for (int i = 0; i < m; i++) carried += got[i].carried;
  for (int w = 0; w < nw; w++) {
    int ok = 0;
    for (int i = 0; i < m && !ok; i++)
      ok = got[i].carried && got[i].kind == want[w].kind && got[i].thread == want[w].thread &&
           got[i].object == want[w].object && got[i].ts == want[w].ts && !strcmp(got[i].text, want[w].text);
    CHECK(ok, "no carried %s of %08X on %08X '%s' at %lld", orca_events[want[w].kind].name, want[w].thread, want[w].object,
          want[w].text, (long long)want[w].ts);
    found += ok;
  }
  // The notify of X in chunk 2 restates its class: by B at the notify's time.
  int restated = 0;
  for (int i = 0; i < m; i++)
    restated += got[i].carried && got[i].kind == ORCA_EV_OBJECT_CLASS && got[i].thread == B && got[i].ts == in[first].ts &&
                got[i].object == X && !strcmp(got[i].text, "Ljava/lang/Object;");
  CHECK(restated == 1, "the notify's object class restated %d times, want 1", restated);
  CHECK(carried == nw + 1, "%d carried records, want %d", carried, nw + 1);
  // A's park carries its owner and mode, D's wait its stack.
  for (int i = 0; i < m; i++) {
    if (got[i].carried && got[i].kind == ORCA_EV_THREAD_PARK)
      CHECK(got[i].owner == B && got[i].mode == 1 && got[i].nf == 4, "carried park: owner %08X mode %d %d frames", got[i].owner,
            got[i].mode, got[i].nf);
    if (got[i].carried && got[i].kind == ORCA_EV_OBJECT_WAIT) CHECK(got[i].nf == 2, "carried wait: %d frames", got[i].nf);
  }
  (void)found;
  compact_free(&enc);

  // Thousands of threads started within one chunk: every one restated at
  // the next (the table of states grows as they start, not at a chunk).
  compact_init(&enc);
  many_threads(&enc, &st);
  CHECK(!st.err[0] && st.carried == MANY && enc.unrestated == 0, "many threads: %d carried (want %d), unrestated %llu: %s",
        st.carried, MANY, (unsigned long long)enc.unrestated, st.err);
  compact_free(&enc);
  // The same as one chunk (an orca threads snapshot, read only whole):
  // nothing kept for a next chunk, nothing restated there; every record
  // still decodes.
  compact_init(&enc);
  enc.one_chunk = 1;
  int got1 = many_threads(&enc, &st);
  CHECK(!st.err[0] && st.carried == 0 && got1 == MANY + 1 && enc.ts_n == 0,
        "one chunk: %d carried (want 0), %d records (want %d), %u threads' states kept (want 0): %s", st.carried, got1, MANY + 1,
        enc.ts_n, st.err);
  compact_free(&enc);
}

// set_of is compact.c's fact_set: the first of the two slots of obj's
// class lines (the test checks that it found the same).
static uint32_t set_of(uint32_t obj) { return (uint32_t)((obj * 0x9E3779B97F4A7C15ULL) >> 40) & (COMPACT_FACTS - 2); }

// pinned_at: what test_compact_pinned_class's table holds before record
// cold (the lock, with the object that took the other slot) and second
// (not the lock).
struct pinned_at {
  uint32_t lock, other, set;
  int cold, second;
};

static void pinned_table(compact_enc *enc, int i, void *arg) {
  const struct pinned_at *a = arg;
  const uint32_t *o = enc->fact_obj + a->set;
  int has = o[0] == a->lock || o[1] == a->lock;
  if (i == a->cold)
    CHECK(has && (o[0] == a->other || o[1] == a->other),
          "a new object took the slot of the lock named later (%08X %08X in set %u): the lock's must stay", o[0], o[1], a->set);
  if (i == a->second)
    CHECK(!has, "the lock's class still kept (%08X %08X in set %u): the test's set is not compact.c's, or nothing let it go", o[0],
          o[1], a->set);
}

// forgotten: the objects the encoder's table let go of (compact_enc.forget),
// in order.
static uint32_t forgotten[8];
static int nforgotten;

static void forget(uint32_t obj) {
  if (nforgotten < 8) forgotten[nforgotten] = obj;
  nforgotten++;
}

// The table of objects' classes keeps, of two objects of a set, the one an
// event named more lately: a lock named all along stays while blockers
// parked on once come and go. And an interval's object whose class the
// table let go all the same is restated with its class at the next
// chunk's start, from what the interval kept when it began, once a chunk
// (ActiveMQ: a park on a read-write lock restated without its class was a
// park, not an acquire, in a range read from that chunk). Each object it
// lets go of is told (forget: the agent then names its class again at its
// next event that asks: stacks/objclass.h), exactly those.
static void test_compact_pinned_class(void) {
  test_name = "compact pinned class";
  compact_enc enc;
  dec_stats st;
  const char *err = compact_init(&enc);
  CHECK(!err, "compact_init: %s", err);
  if (err) return;
  enc.forget = forget;
  nforgotten = 0;
  enum { A = 0xA1, B = 0xB2, LOCK = 0x77 };
  const char *sync = "Ljava/util/concurrent/locks/ReentrantLock$NonfairSync;";
  // Two objects of LOCK's set.
  const uint32_t set = set_of(LOCK);
  uint32_t others[2], o = LOCK + 1;
  for (int k = 0; k < 2; o++)
    if (set_of(o) == set) others[k++] = o;
  static test_ev in[16], got[64];
  int n = 0;
  int64_t t = 7000000000LL;
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, A, 0, "a", 0);
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, B, 0, "b", 0);
  ev(&in[n++], ORCA_EV_OBJECT_CLASS, t += 10, A, LOCK, sync, 0);
  ev(&in[n++], ORCA_EV_THREAD_PARK, t += 10, A, LOCK, "", 3);
  in[n - 1].owner = B;
  ev(&in[n++], ORCA_EV_OBJECT_CLASS, t += 10, B, others[0], "Ljava/lang/Object;", 0);
  int hot = n;   // LOCK named after others[0]: others[1] takes others[0]'s slot
  ev(&in[n++], ORCA_EV_OBJECT_NOTIFY, t += 10, B, LOCK, "", 2);
  ev(&in[n++], ORCA_EV_OBJECT_CLASS, t += 10, B, others[1], "Ljava/lang/Object;", 0);
  int cold = n;   // others[0] again, named after LOCK: LOCK's slot goes
  ev(&in[n++], ORCA_EV_OBJECT_CLASS, t += 10, B, others[0], "Ljava/lang/Object;", 0);
  int second = n;
  ev(&in[n++], ORCA_EV_OBJECT_NOTIFY, t += 1000, B, LOCK, "", 2);   // no class line again in the chunk
  int third = n;
  ev(&in[n++], ORCA_EV_OBJECT_NOTIFY, t += 1000, B, others[1], "", 2);
  size_t cap = 1 << 16;
  char *buf = malloc(cap), cut[16] = {0};
  cut[second] = cut[third] = 1;
  struct pinned_at at = {LOCK, others[1], set, cold, second};
  size_t len = encode_cut(&enc, in, n, cut, buf, cap, pinned_table, &at);
  (void)hot;
  int m = compact_decode(buf, len, got, 64, &st);
  free(buf);
  CHECK(!st.err[0] && st.chunks == 3, "malformed (%s) or %d chunks, want 3", st.err, st.chunks);
  // Chunks 2 and 3 each: LOCK's class, by A at the chunk's base time, just
  // before A's park on it; no other line of LOCK's class carried.
  int64_t base[2] = {in[second].ts, in[third].ts};
  for (int c = 0; c < 2; c++) {
    int found = 0, classes = 0;
    for (int i = 0; i < m; i++) {
      if (!got[i].carried || got[i].ts != base[c] || got[i].kind != ORCA_EV_OBJECT_CLASS || got[i].object != LOCK) continue;
      classes++;
      found += got[i].thread == A && !strcmp(got[i].text, sync) && i + 1 < m && got[i + 1].carried &&
               got[i + 1].kind == ORCA_EV_THREAD_PARK && got[i + 1].object == LOCK;
    }
    CHECK(found == 1 && classes == 1, "chunk %d: LOCK's class carried before A's park %d times (want 1), %d lines of it (want 1)",
          c + 2, found, classes);
  }
  int lines = 0;
  for (int i = 0; i < m; i++) lines += got[i].kind == ORCA_EV_OBJECT_CLASS && got[i].object == LOCK;
  CHECK(lines == 3, "LOCK's class in %d lines, want 3 (its own, each later chunk's start)", lines);
  // others[1] took others[0]'s slot, others[0] LOCK's, LOCK's pinned lines
  // others[1]'s (named less lately than others[0]).
  uint32_t want[3] = {others[0], LOCK, others[1]};
  CHECK(nforgotten == 3 && !memcmp(forgotten, want, sizeof want),
        "the table let go of %d objects (%08X %08X %08X), want 3 (%08X %08X %08X)", nforgotten, forgotten[0], forgotten[1],
        forgotten[2], want[0], want[1], want[2]);
  compact_free(&enc);
}

// Two threads of one identity hash (issue 30, item 4b: v-6892 and v-9025,
// both 5CDA6869): the second's key is an alias (record/tkeys.h), which
// each chunk defines before the first record that names it, as the
// event's thread, a target or an owner; the decoder refuses an alias used
// undefined.
static void test_compact_aliases(void) {
  test_name = "compact aliases";
  tkeys_reset();
  const uint32_t H = 0x5CDA6869;
  uint32_t first = tkey_register(H, 6892, NULL), second = tkey_register(H, 9025, NULL);
  CHECK(first == H && second == (TKEY_ALIAS | 1), "keys %08X %08X, want %08X and 80000001", first, second, H);
  compact_enc enc;
  dec_stats st;
  if (compact_init(&enc)) return;
  static test_ev in[8], got[64];
  int n = 0;
  int64_t t = 1000;
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, first, 0, "v-6892", 0);
  ev(&in[n++], ORCA_EV_THREAD_START, t += 10, first, second, "", 2);
  ev(&in[n++], ORCA_EV_THREAD_STARTED, t += 10, second, 0, "v-9025", 0);
  ev(&in[n++], ORCA_EV_MONITOR_CONTENDED_ENTER, t += 10, first, 0x77, "", 2);
  in[n - 1].owner = second;
  ev(&in[n++], ORCA_EV_THREAD_UNPARK, t += 10, second, first, "", 0);
  enc.chunk_max = (size_t)1 << 40;
  int m = encode_decode(&enc, in, n, got, &st);
  check_same("one chunk", in, got, n, m, &st);
  CHECK(st.alias_defs == 1 && st.alias_hash == H && st.alias_rank == 1, "one chunk: %d alias records (last %08X rank %u), want 1 of %08X rank 1",
        st.alias_defs, st.alias_hash, st.alias_rank, H);
  compact_free(&enc);
  // Two chunks (the second from the contention on): the second defines
  // the alias again, before the carried start of v-9025 that names it.
  compact_init(&enc);
  enc.span_max = 25;   // records 10 ns apart
  m = without_carried(got, encode_decode(&enc, in, n, got, &st));
  check_same("two chunks", in, got, n, m, &st);
  CHECK(st.chunks == 2 && st.alias_defs == 2, "two chunks: %d chunks, %d alias records, want 2 and 2", st.chunks, st.alias_defs);
  compact_free(&enc);
  tkeys_reset();
}

// Each chunk defines the methods its stacks name, each after its class
// (docs/format.md, "Chunks that name their frames"), from the lines of
// .methods and .classtable given by compact_meta: a name with a comma is
// quoted; a line longer than COMPACT_DEFS_MAX is never defined (its method
// named by .methods alone); a method with no line neither.
static void test_compact_defs(void) {
  test_name = "compact definitions";
  compact_enc enc;
  dec_stats st;
  if (compact_init(&enc)) return;
  static char lines[1 << 17];
  const char *classes = "1.0000000000,0000000A,Lp/A;,A.java\n1.0000000000,8000000B,Lp/B;,\"B,x.java\"\n";
  compact_meta(&enc, 1, classes, strlen(classes));
  size_t n = 0;
  for (int id = 1; id <= 30; id++)
    n += (size_t)sprintf(lines + n, "1.0000000000,%08X,%s,()V,%08X,1;00000000;00000007\n", id, id == 3 ? "\"a,b\"" : "run",
                         id % 2 ? 0xAu : 0x8000000Bu);
  // Method 31: its line table makes its line longer than COMPACT_DEFS_MAX.
  n += (size_t)sprintf(lines + n, "1.0000000000,0000001F,big,()V,0000000A,4000");
  for (int k = 0; k < 4000; k++) n += (size_t)sprintf(lines + n, ";%08X;%08X", k, k + 1);
  lines[n++] = '\n';
  compact_meta(&enc, 0, lines, n);
  static test_ev in[60], got[200];
  int64_t t = 1000;
  for (int i = 0; i < 60; i++) {
    ev(&in[i], ORCA_EV_OBJECT_NOTIFY, t += 10, 0x100u + (uint32_t)(i % 3), 0x77, "", 4);
    for (int k = 0; k < 4; k++) in[i].fr[k] = (orca_frame){(uint32_t)((i % 6) * 5 + k) % 30 + 1, (uint32_t)k};
  }
  in[59].fr[3].method = 31;   // too long to define
  in[58].fr[3].method = 32;   // no line
  // 24 methods named (4 frames of 6 stacks), all with a line.
  compact_decode_defs_below = 31;
  enc.chunk_max = (size_t)1 << 40;
  int m = encode_decode(&enc, in, 60, got, &st);
  check_same("one chunk", in, got, 60, m, &st);
  CHECK(st.chunks == 1 && st.method_defs == 24 && st.class_defs == 2, "one chunk: %d chunks, %d method and %d class definitions, want 1, 24, 2",
        st.chunks, st.method_defs, st.class_defs);
  compact_free(&enc);
  // Chunks of 10 events: each defines again what its stacks name.
  compact_init(&enc);
  compact_meta(&enc, 1, classes, strlen(classes));
  compact_meta(&enc, 0, lines, n);
  enc.span_max = 100;
  m = without_carried(got, encode_decode(&enc, in, 60, got, &st));
  check_same("6 chunks", in, got, 60, m, &st);
  CHECK(st.chunks == 6 && st.method_defs == 6 * 24 && st.class_defs == 12, "6 chunks: %d chunks, %d method and %d class definitions, want 6, 144, 12",
        st.chunks, st.method_defs, st.class_defs);
  compact_decode_defs_below = 0;
  compact_free(&enc);
}

void test_compact(void) {
  test_name = "compact";
  // The trailers' checksum is CRC-32C, Go's crc32.Castagnoli: its check
  // value, and the same in two steps (8 bytes a step, then bytes).
  CHECK(crc32c(0, "123456789", 9) == 0xE3069283u, "crc32c(123456789) = %08X, want E3069283", crc32c(0, "123456789", 9));
  CHECK(crc32c(crc32c(0, "12345678", 8), "9", 1) == 0xE3069283u, "crc32c in two steps differs");
  enum { N = 6000, THREADS = 1500, STACKS = 900 };
  static test_ev in[N], got[2 * N + 1];
  compact_enc enc;
  dec_stats st;
  const char *err = compact_init(&enc);
  CHECK(!err, "compact_init: %s", err);
  if (err) return;

  // One chunk: 1 500 threads and 900 stacks (the tables grow several
  // times), times far from 0 and going back now and then (two threads'
  // lines out of order), each thread and stack defined once.
  srand(11);
  int64_t t = 1700000000123456789LL;
  for (int i = 0; i < N; i++) {
    t += rand() % 5000 - (i % 17 == 0 ? 7000 : 0);
    notify_ev(&in[i], t, i < THREADS ? 0x10000u + (uint32_t)i : 0x10000u + (uint32_t)(rand() % THREADS),
              i < STACKS ? i : rand() % STACKS);
  }
  in[5].thread = 0;   // a thread hash of 0 is a thread like any other
  static char seen[THREADS + 1];
  int threads = 0;
  for (int i = 0; i < N; i++) {
    int k = in[i].thread ? (int)(in[i].thread - 0x10000u) : THREADS;
    threads += !seen[k];
    seen[k] = 1;
  }
  enc.chunk_max = (size_t)1 << 40;
  int m = encode_decode(&enc, in, N, got, &st);
  check_same("one chunk", in, got, N, m, &st);
  CHECK(st.chunks == 1 && st.thread_defs == threads && st.stack_defs == STACKS,
        "one chunk: %d chunks, %d thread and %d stack definitions, want 1, %d, %d", st.chunks, st.thread_defs, st.stack_defs,
        threads, STACKS);
  compact_free(&enc);

  // Chunks of ~4 kB: each defines again the threads and stacks it uses.
  compact_init(&enc);
  enc.chunk_max = 4096;
  m = encode_decode(&enc, in, N, got, &st);
  check_same("4 kB chunks", in, got, N, m, &st);
  CHECK(st.chunks > 10 && st.stack_defs > STACKS && st.thread_defs > THREADS,
        "4 kB chunks: %d chunks, %d thread and %d stack definitions", st.chunks, st.thread_defs, st.stack_defs);
  compact_free(&enc);
  test_compact_state();
  test_compact_pinned_class();
  test_compact_aliases();
  test_compact_defs();
}
