#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "clock.h"
#include "hsstat.h"
#include "orca.h"
#include "owner.h"
#include "pending.h"
#include "ring.h"
#include "vthread.h"
#include "writer.h"

atomic_long count_owner_unknown, count_suppressed_waits, count_methods, count_classes,
    count_meta_dropped, count_slow_walks, count_walks_checked, count_walks_differ,
    count_entered_late, count_entered_by_timer;

static char prefix[4200];
static int fd_orca = -1, fd_methods = -1, fd_classes = -1;
static pthread_t thread;
static atomic_int stopping;
static int64_t origin_mono, origin_unix, first_ts, last_ts;
static long write_errors;

// Metadata lines, appended by event threads under a mutex (rare: once per
// new method or class).
typedef struct {
  pthread_mutex_t mu;
  char *buf;
  size_t len, cap;
} meta_t;
static meta_t meta[2] = {{PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}, {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0}};

#define MAX_PROPS 64
static struct { char *key, *value; } props[MAX_PROPS];
static int nprops;
static pthread_mutex_t props_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *hexdig = "0123456789ABCDEF";

size_t fmt_hex8(char *out, unsigned v) {
  for (int i = 7; i >= 0; i--) { out[i] = hexdig[v & 15]; v >>= 4; }
  return 8;
}

static size_t fmt_uint(char *out, unsigned long long v) {
  char tmp[24];
  size_t n = 0;
  do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}

// fmt_ts writes seconds with 10 decimals; the writer's hot path, so no printf.
size_t fmt_ts(char *out, long long ns) {
  if (ns < 0) ns = 0;
  size_t n = fmt_uint(out, (unsigned long long)(ns / 1000000000LL));
  long long frac = ns % 1000000000LL;
  out[n++] = '.';
  for (int i = 8; i >= 0; i--) { out[n + (size_t)i] = (char)('0' + frac % 10); frac /= 10; }
  n += 9;
  out[n++] = '0';
  return n;
}

size_t fmt_text(char *out, const char *s, size_t len) {
  int quote = 0;
  for (size_t i = 0; i < len; i++)
    if (s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n') quote = 1;
  if (!quote) { memcpy(out, s, len); return len; }
  size_t n = 0;
  out[n++] = '"';
  for (size_t i = 0; i < len; i++) {
    if (s[i] == '"') out[n++] = '"';
    out[n++] = s[i];
  }
  out[n++] = '"';
  return n;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      write_errors++;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static int open_out(const char *pfx, const char *ext, int excl) {
  char path[4300];
  snprintf(path, sizeof path, "%s%s", pfx, ext);
  return open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (excl ? O_EXCL : O_TRUNC), 0644);
}

const char *writer_open(void) {
  static char err[4600];
  snprintf(prefix, sizeof prefix, "%s", opt.prefix);
  fd_orca = open_out(prefix, ".orca", !opt.clobber);
  for (int n = 2; fd_orca < 0 && errno == EEXIST && n < 10000; n++) {
    snprintf(prefix, sizeof prefix, "%s-%d", opt.prefix, n);
    fd_orca = open_out(prefix, ".orca", 1);
  }
  if (fd_orca < 0) {
    snprintf(err, sizeof err, "cannot write %s.orca: %s", prefix, strerror(errno));
    return err;
  }
  fd_methods = open_out(prefix, ".methods", 0);
  fd_classes = open_out(prefix, ".classtable", 0);
  if (fd_methods < 0 || fd_classes < 0) {
    snprintf(err, sizeof err, "cannot write %s.methods/.classtable: %s", prefix, strerror(errno));
    return err;
  }
  origin_mono = clock_now();
  origin_unix = clock_unix_now();
  return NULL;
}

const char *writer_prefix(void) { return prefix; }

void writer_meta(int which, const char *line, size_t len) {
  meta_t *m = &meta[which];
  pthread_mutex_lock(&m->mu);
  if (m->len + len > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 65536;
    while (cap < m->len + len) cap *= 2;
    char *nb = realloc(m->buf, cap);
    if (!nb) {
      pthread_mutex_unlock(&m->mu);
      atomic_fetch_add(&count_meta_dropped, 1);
      return;
    }
    m->buf = nb;
    m->cap = cap;
  }
  memcpy(m->buf + m->len, line, len);
  m->len += len;
  pthread_mutex_unlock(&m->mu);
}

void writer_prop(const char *key, const char *value) {
  pthread_mutex_lock(&props_mu);
  if (nprops < MAX_PROPS) {
    props[nprops].key = strdup(key);
    props[nprops].value = strdup(value ? value : "");
    // .info is line-based: keep values on one line.
    for (char *p = props[nprops].value; *p; p++)
      if (*p == '\n' || *p == '\r') *p = ' ';
    nprops++;
  }
  pthread_mutex_unlock(&props_mu);
}

static void flush_meta(int which, int fd) {
  meta_t *m = &meta[which];
  char *buf;
  size_t len;
  // Swap the buffer out so event threads never wait for the disk.
  pthread_mutex_lock(&m->mu);
  buf = m->buf;
  len = m->len;
  m->buf = NULL;
  m->len = m->cap = 0;
  pthread_mutex_unlock(&m->mu);
  if (len) write_all(fd, buf, len);
  free(buf);
}

// ---- event batch ----

typedef struct {
  int64_t ts;
  long seq;
  const orca_rec *r;
} item_t;

static item_t *items;
static size_t items_cap;
static char *out;
static size_t out_cap;

static int cmp_item(const void *a, const void *b) {
  const item_t *x = a, *y = b;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static size_t format_rec(char *o, const orca_rec *r) {
  const orca_event_spec *spec = &orca_events[r->kind];
  const orca_frame *fr = (const orca_frame *)(r + 1);
  size_t n = fmt_ts(o, r->ts);
  o[n++] = ',';
  size_t l = strlen(spec->name);
  memcpy(o + n, spec->name, l);
  n += l;
  if (spec->fields & ORCA_F_THREAD) { o[n++] = ','; n += fmt_hex8(o + n, r->thread); }
  if (spec->fields & (ORCA_F_OBJECT | ORCA_F_TARGET)) { o[n++] = ','; n += fmt_hex8(o + n, r->object); }
  if (spec->fields & ORCA_F_OWNER) { o[n++] = ','; n += fmt_hex8(o + n, r->owner); }
  if (spec->fields & ORCA_F_NAME) {
    o[n++] = ',';
    n += fmt_text(o + n, (const char *)(fr + r->nframes), r->namelen);
  }
  if (spec->fields & ORCA_F_STACK) {
    o[n++] = ',';
    n += fmt_uint(o + n, r->nframes);
    for (int i = 0; i < r->nframes; i++) {
      o[n++] = ';';
      n += fmt_hex8(o + n, fr[i].method);
      o[n++] = ';';
      n += fmt_hex8(o + n, fr[i].location);
    }
  }
  o[n++] = '\n';
  return n;
}

// Lines later than the cutoff wait for the next flush in carry, so a
// deferred record (pending.c) still finds its place in time order.
static char *carry[2];
static size_t carry_len[2], carry_cap[2];
static int carry_cur;

static void add_items(const char *buf, size_t len, size_t *k) {
  for (size_t off = 0; off < len;) {
    const orca_rec *r = (const orca_rec *)(buf + off);
    off += r->size;
    items[*k].ts = r->ts;
    items[*k].seq = (long)*k;
    items[*k].r = r;
    (*k)++;
  }
}

static size_t count_recs(const char *buf, size_t len, size_t *need) {
  size_t count = 0;
  for (size_t off = 0; off < len;) {
    const orca_rec *r = (const orca_rec *)(buf + off);
    off += r->size;
    count++;
    // Worst case per line: fixed fields + 18 bytes a frame + a name that
    // doubles when quoted.
    *need += 96 + (size_t)r->nframes * 18 + (size_t)r->namelen * 2;
  }
  return count;
}

static void keep(int to, const orca_rec *r) {
  if (carry_len[to] + r->size > carry_cap[to]) {
    size_t cap = carry_cap[to] ? carry_cap[to] * 2 : 1 << 20;
    while (cap < carry_len[to] + r->size) cap *= 2;
    char *nb = realloc(carry[to], cap);
    if (!nb) {   // out of memory: write it now, out of order, rather than lose it
      write_errors++;
      return;
    }
    carry[to] = nb;
    carry_cap[to] = cap;
  }
  memcpy(carry[to] + carry_len[to], r, r->size);
  carry_len[to] += r->size;
}

static void flush_events(int64_t cutoff) {
  const char *bufs[RING_SHARDS];
  size_t lens[RING_SHARDS], need = 0;
  int from = carry_cur, to = carry_cur ^ 1;
  size_t count = count_recs(carry[from], carry_len[from], &need);
  for (int i = 0; i < RING_SHARDS; i++) {
    bufs[i] = ring_take(i, &lens[i]);
    count += count_recs(bufs[i], lens[i], &need);
  }
  if (!count) return;
  if (count > items_cap) {
    free(items);
    items_cap = count * 2;
    items = malloc(items_cap * sizeof *items);
  }
  if (need > out_cap) {
    free(out);
    out_cap = need * 2;
    out = malloc(out_cap);
  }
  if (!items || !out) { items_cap = out_cap = 0; write_errors++; return; }
  size_t k = 0;
  add_items(carry[from], carry_len[from], &k);
  for (int i = 0; i < RING_SHARDS; i++) add_items(bufs[i], lens[i], &k);
  qsort(items, count, sizeof *items, cmp_item);
  size_t n = 0;
  carry_len[to] = 0;
  for (size_t i = 0; i < count; i++) {
    const orca_rec *r = items[i].r;
    if (r->ts >= cutoff) {
      size_t before = carry_len[to];
      keep(to, r);
      if (carry_len[to] != before) continue;
    }
    if (!first_ts) first_ts = r->ts;
    if (r->ts > last_ts) last_ts = r->ts;
    n += format_rec(out + n, r);
  }
  carry_len[from] = 0;
  carry_cur = to;
  write_all(fd_orca, out, n);
}

static void write_info(int complete) {
  char path[4300], tmp[4300];
  snprintf(path, sizeof path, "%s.info", prefix);
  snprintf(tmp, sizeof tmp, "%s.info.tmp", prefix);
  FILE *f = fopen(tmp, "we");
  if (!f) return;
  fprintf(f, "format=orca-1\nagent_version=%s\n", ORCA_VERSION);
  fprintf(f, "agent_options=prefix=%s,depth=%d,flush=%d,buffer=%d,clobber=%s\n", opt.prefix, opt.depth,
          opt.flush_ms, opt.buffer_mb, opt.clobber ? "yes" : "no");
  fprintf(f, "pid=%d\n", (int)getpid());
  pthread_mutex_lock(&props_mu);
  for (int i = 0; i < nprops; i++) fprintf(f, "%s=%s\n", props[i].key, props[i].value);
  pthread_mutex_unlock(&props_mu);
  char a[40], b[40];
  a[fmt_ts(a, first_ts ? first_ts : origin_mono)] = 0;
  b[fmt_ts(b, last_ts ? last_ts : origin_mono)] = 0;
  fprintf(f, "origin_mono_ns=%lld\norigin_unix_ns=%lld\nstart_s=%s\nend_s=%s\n", (long long)origin_mono,
          (long long)origin_unix, a, b);
  fprintf(f, "complete=%s\n", complete ? "true" : "false");
  long dropped = 0;
  for (int k = 1; k < ORCA_EV_COUNT; k++)
    fprintf(f, "events.%s=%ld\n", orca_events[k].name, ring_count(k, 0));
  for (int k = 1; k < ORCA_EV_COUNT; k++) {
    long d = ring_count(k, 1);
    dropped += d;
    if (d) fprintf(f, "dropped.%s=%ld\n", orca_events[k].name, d);
  }
  fprintf(f, "dropped_total=%ld\n", dropped);
  fprintf(f, "owner_unknown=%ld\nsuppressed_waits=%ld\nmethods=%ld\nclasses=%ld\n",
          atomic_load(&count_owner_unknown), atomic_load(&count_suppressed_waits),
          atomic_load(&count_methods), atomic_load(&count_classes));
  vthread_info(f);
  if (atomic_load(&count_owner_table_full)) fprintf(f, "owner_table_full=%ld\n", atomic_load(&count_owner_table_full));
  fprintf(f, "own_stacks_by_jvmti=%ld\n", atomic_load(&count_slow_walks));
  if (atomic_load(&count_walks_checked) || atomic_load(&count_walks_differ))
    fprintf(f, "verified_stacks=%ld\nverified_stacks_differ=%ld\n", atomic_load(&count_walks_checked),
            atomic_load(&count_walks_differ));
  fprintf(f, "entered_by_timer=%ld\nentered_late=%ld\nentered_lost=%ld\n", atomic_load(&count_entered_by_timer),
          atomic_load(&count_entered_late), atomic_load(&count_entered_lost));
  if (hsstat_verifying())
    fprintf(f, "verified_entered=%ld\nverified_entered_after=%ld\nverified_entered_slow=%ld\n",
            atomic_load(&count_verified_entered), atomic_load(&count_verified_after),
            atomic_load(&count_verified_slow));
  if (atomic_load(&count_meta_dropped)) fprintf(f, "metadata_dropped=%ld\n", atomic_load(&count_meta_dropped));
  if (write_errors) fprintf(f, "write_errors=%ld\n", write_errors);
  if (fclose(f) == 0) rename(tmp, path);
}

// Lines this recent may still be preceded by a record in flight (its time
// taken, its stack being walked): hold them back one more flush.
#define IN_FLIGHT_NS 10000000LL

static void flush_all(int final) {
  int64_t now = clock_now(), cutoff = INT64_MAX;
  if (!final) {
    // Waits are walked by the walker after one period; one it has not
    // written within 10 s (or with no walker: 1 s) is written without stack.
    int64_t stale = now - (pending_walker_alive() ? 10000000000LL : 1000000000LL);
    cutoff = pending_flush(now - IN_FLIGHT_NS, stale);
  } else {
    for (int i = 0; i < 200 && (cutoff = pending_flush(INT64_MAX, INT64_MAX)) != INT64_MAX; i++) usleep(1000);
    cutoff = INT64_MAX;
  }
  // Metadata first, so a method referenced by an event is described by the
  // time the event reaches the disk.
  flush_meta(META_CLASSES, fd_classes);
  flush_meta(META_METHODS, fd_methods);
  flush_events(cutoff);
}

static void *run(void *arg) {
  (void)arg;
  int64_t last_info = 0;
  threads_internal();
  while (!atomic_load(&stopping)) {
    ring_wait(opt.flush_ms);
    clock_calibrate();
    flush_all(0);
    int64_t now = clock_now();
    if (now - last_info >= 1000000000LL) {
      write_info(0);
      last_info = now;
    }
  }
  return NULL;
}

const char *writer_start(void) {
  write_info(0);
  if (pthread_create(&thread, NULL, run, NULL) != 0) return "cannot start the writer thread";
  return NULL;
}

void writer_stop(void) {
  atomic_store(&stopping, 1);
  ring_wake();
  pthread_join(thread, NULL);
  // The waits still open get their stacks from here (a Java thread).
  pending_walk(INT64_MAX);
  flush_all(1);
  write_info(1);
  close(fd_orca);
  close(fd_methods);
  close(fd_classes);
}
