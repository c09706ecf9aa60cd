#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/counters.h"
#include "core/fmt.h"
#include "core/orca.h"
#include "record/compact.h"
#include "record/ring.h"
#include "record/tkeys.h"
#include "record/writer.h"

static char prefix[4200];
static int fd_orca = -1, fd_methods = -1, fd_classes = -1;
// The recording's files (docs/agent.md, "The recording's files on a shared
// host"). Every one is created, replaced and deleted by its name in the
// prefix's directory, opened once a recording (dir_fd), so that the
// directory cannot be swapped under the writer; created exclusively (O_EXCL)
// and never through a symbolic link (O_NOFOLLOW): a name another user
// planted in a shared directory (/tmp) is refused, not written through.
// Recordings hold stacks and thread names: only their user reads them.
#define FILE_MODE 0600
static int dir_fd = -1;
// The .info the writer made last: rewritten in place when a full disk keeps
// a new one from replacing it (store_info); warned_info: its replacement
// failed otherwise, said once.
static int fd_info = -1, warned_info;
static pthread_t thread;
static atomic_int stopping;
static int64_t origin_mono, origin_unix, first_ts, last_ts;

// Events taken from the rings but not written (not formatted by the end of
// the exit budget, or after a failed write) count as dropped of their kind
// (counters.h, KC_DROPPED), not as events; why in one of these counters.
enum { LOST_NONE = -1, LOST_AT_EXIT = CNT_DROPPED_AT_EXIT, LOST_AFTER_CUT = CNT_DROPPED_AFTER_CUT };
// The recording is cut at the first failed write: cut_what names the file and
// the error; nothing is written to .orca, .methods, .classtable after it.
static int cut;
static char cut_what[4400];
// The time of the last event written before the cut: fixed at the cut, so
// that a stop (writer_stopped_now moves last_ts to the stop's time) does
// not move it.
static int64_t cut_ts;
static off_t off_orca, off_meta[2];   // bytes of complete lines in each file
// Where events go: PREFIX.orca, or with bounds (maxsize=, maxage=) the
// current chunk file PREFIX.orca.N (ev_ext ".orca.N"); off_ev its bytes.
static int fd_ev = -1;
static off_t off_ev;
static char ev_ext[32] = ".orca";
static long long ev_bytes;   // bytes of events written, in every file
// A bounded recording's closed chunk files, oldest first (a ring).
typedef struct {
  uint64_t seq;
  off_t size;
  int64_t start, end;   // its base time and the time of its last event
  dev_t dev;            // the file created (prune deletes that one only)
  ino_t ino;
} chunk_file;
static chunk_file *closed;
static size_t closed_n, closed_cap, closed_first;
static off_t closed_bytes;
static long chunks_deleted;
// ORCA_VERIFY_COMPACT=1 (a test aid): with format=compact, every event
// written is also written as the seed's text line to PREFIX.verify, so a
// test compares the two encodings of one run event for event.
static int fd_verify = -1;
static int64_t cur_start;   // the current chunk's base time
// Nonzero once VM death began: the final work ends at this time.
static _Atomic int64_t final_deadline;
static size_t carry_budget;
// format=compact: the encoder's tables (record/compact.h).
static compact_enc enc;
// ORCA_TIME_WRITER=1 (a measurement aid): at exit, the writer thread's CPU,
// the part of it in flush_events (take, sort, encode, write; the methods'
// naming apart) and the bytes of .orca an event.
static int time_writer;
static int64_t cpu_flush, cpu_thread;
static long flushes, carried;   // flushes with records, records carried to the next (shown with time_writer)

static int64_t thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

// put writes n bytes at fd's offset and returns how many it wrote: n, or
// fewer after an error (*err set).
static size_t put(int fd, const char *p, size_t n, int *err) {
  size_t done = 0;
  while (done < n) {
    ssize_t w = write(fd, p + done, n - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      *err = w < 0 ? errno : ENOSPC;
      break;
    }
    done += (size_t)w;
  }
  return done;
}

// fail cuts the recording at the first failed write: the file is truncated
// back to its last complete line (keep bytes after *off), one message goes to
// stderr, and later events are counted as dropped.
static void fail(int fd, off_t *off, size_t keep, const char *ext, int err) {
  counter_add(CNT_WRITE_ERRORS, 1);
  *off += (off_t)keep;
  if (ftruncate(fd, *off) == 0) lseek(fd, *off, SEEK_SET);
  if (cut) return;
  cut = 1;
  cut_ts = last_ts ? last_ts : origin_mono;
  snprintf(cut_what, sizeof cut_what, "%s%s: %s", prefix, ext, strerror(err));
  char at[40];
  at[fmt_ts(at, cut_ts)] = 0;
  orca_log("cannot write %s; the recording is cut at %s s (%.2f s after its start), events after that are "
           "counted as dropped",
           cut_what, at, (double)(cut_ts - (first_ts ? first_ts : origin_mono)) / 1e9);
}

// base_name is the last component of path; dir_name writes its directory
// to d (".", "/" or the part before the last slash).
static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

static void dir_name(const char *path, char *d, size_t cap) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(d, cap, ".");
  else if (slash == path) snprintf(d, cap, "/");
  else snprintf(d, cap, "%.*s", (int)(slash - path), path);
}

// open_dir opens the directory of path for the *at calls: readable when it
// may be (remove_chunk_files lists it), else only as a place (O_PATH).
static int open_dir(const char *path) {
  char d[4300];
  dir_name(path, d, sizeof d);
  int fd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0 && errno == EACCES) fd = open(d, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return fd;
}

// own_file: st is a file the agent may replace or delete, a regular file of
// this process's user (one another user planted is neither).
static int own_file(const struct stat *st) { return S_ISREG(st->st_mode) && st->st_uid == geteuid(); }

// what_is describes a file the agent did not create, for its messages.
static const char *what_is(const struct stat *st, char *buf, size_t cap) {
  if (S_ISLNK(st->st_mode)) snprintf(buf, cap, "a symbolic link");
  else if (S_ISDIR(st->st_mode)) snprintf(buf, cap, "a directory");
  else if (!S_ISREG(st->st_mode)) snprintf(buf, cap, "not a regular file");
  else if (st->st_uid != geteuid()) snprintf(buf, cap, "a file of uid %u (this JVM runs as uid %u)", (unsigned)st->st_uid, (unsigned)geteuid());
  else snprintf(buf, cap, "a file with %lu links", (unsigned long)st->st_nlink);
  return buf;
}

// not_ours writes why the name pfx+ext, taken by st, is not written to.
static void not_ours(char *why, size_t cap, const char *pfx, const char *ext, const struct stat *st) {
  char w[96];
  snprintf(why, cap, "%s%s exists and is %s, which this agent did not create: not written through, not removed (remove it or choose another prefix)",
           pfx, ext, what_is(st, w, sizeof w));
}

// create_out creates the file prefix+ext anew: exclusively, no symbolic
// link followed. An earlier recording's file there (a regular file of this
// user) is deleted first; anything else is refused (why; errno EEXIST).
static int create_out(const char *ext, char *why, size_t cap) {
  char name[4300];
  snprintf(name, sizeof name, "%s%s", base_name(prefix), ext);
  for (int tries = 0; tries < 3; tries++) {
    int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FILE_MODE);
    if (fd >= 0 || errno != EEXIST) {
      if (fd < 0) snprintf(why, cap, "cannot create %s%s: %s", prefix, ext, strerror(errno));
      return fd;
    }
    struct stat st;
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;   // gone since
    if (!own_file(&st)) {
      not_ours(why, cap, prefix, ext, &st);
      errno = EEXIST;
      return -1;
    }
    if (unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT) {
      snprintf(why, cap, "cannot replace %s%s: %s", prefix, ext, strerror(errno));
      return -1;
    }
  }
  snprintf(why, cap, "cannot create %s%s: it keeps coming back", prefix, ext);
  errno = EEXIST;
  return -1;
}

// open_locked opens PREFIX.orca and locks it for the life of the JVM, so two
// JVMs never write one recording; it truncates only once the lock is held.
// -1 with errno EWOULDBLOCK when a live JVM holds it (a dead one's lock is
// gone with it: its files are clobbered), EEXIST when excl and it exists,
// or when it is not an earlier recording's file of this user (a symbolic
// link, another user's file, a second link to a file: why says so).
static int open_locked(int excl, char *why, size_t cap) {
  char name[4300];
  snprintf(name, sizeof name, "%s.orca", base_name(prefix));
  int fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FILE_MODE);
  if (fd < 0 && errno == EEXIST && !excl) {
    // An earlier recording's, clobbered once locked: opened without
    // following a link or blocking on a FIFO, then checked as opened.
    fd = openat(dir_fd, name, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    int e = errno;
    struct stat st;
    int seen = fd >= 0 ? fstat(fd, &st) == 0 : fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    if (seen && (!own_file(&st) || st.st_nlink != 1)) {
      if (fd >= 0) close(fd);
      not_ours(why, cap, prefix, ".orca", &st);
      errno = EEXIST;
      return -1;
    }
    errno = e;
  }
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    errno = EWOULDBLOCK;
    return -1;
  }
  if (ftruncate(fd, 0) != 0) {
    int e = errno;
    close(fd);
    errno = e;
    return -1;
  }
  return fd;
}

static int bounded(void) { return opt.max_size || opt.max_age_ns; }

// chunk_seq: the number of PREFIX.orca.N's name (its base name), 0 when the
// name is not one.
static uint64_t chunk_seq(const char *name, const char *base) {
  size_t b = strlen(base);
  if (strncmp(name, base, b) || strncmp(name + b, ".orca.", 6)) return 0;
  const char *d = name + b + 6;
  if (!*d || strspn(d, "0123456789") != strlen(d)) return 0;
  return strtoull(d, NULL, 10);
}

// remove_chunk_files deletes the chunk files of an earlier recording with
// this prefix (this one's PREFIX.orca is locked and truncated already):
// regular files of this user only. NULL, or why a chunk file's name is taken
// by something else (the recording would be cut when it reached it).
static const char *remove_chunk_files(char *why, size_t cap) {
  int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = fd < 0 ? NULL : fdopendir(fd);
  if (!d) {
    if (fd >= 0) close(fd);
    return NULL;   // not listable: a chunk name taken is found when it is reached
  }
  const char *err = NULL;
  for (struct dirent *de; (de = readdir(d));) {
    if (!chunk_seq(de->d_name, base_name(prefix))) continue;
    struct stat st;
    if (fstatat(dir_fd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!own_file(&st)) {
      if (!err) not_ours(why, cap, prefix, de->d_name + strlen(base_name(prefix)), &st);
      err = why;
      continue;
    }
    unlinkat(dir_fd, de->d_name, 0);
  }
  closedir(d);
  return err;
}

int writer_create_file(const char *ext, char *why, size_t cap) {
  if (dir_fd < 0) {
    snprintf(why, cap, "cannot create %s%s: no recording's directory", prefix, ext);
    return -1;
  }
  return create_out(ext, why, cap);
}

void writer_remove_file(const char *ext, int fd) {
  char name[4300];
  struct stat st, own;
  snprintf(name, sizeof name, "%s%s", base_name(prefix), ext);
  if (dir_fd >= 0 && fstat(fd, &own) == 0 && fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == own.st_dev &&
      st.st_ino == own.st_ino)
    unlinkat(dir_fd, name, 0);
}

// claim_names readies the recording's other names once PREFIX.orca is held:
// an earlier recording's .info removed (store_info makes the new one),
// its chunk files too, .methods and .classtable created. NULL or why not.
static const char *claim_names(char *why, size_t cap) {
  char name[4300];
  struct stat st;
  snprintf(name, sizeof name, "%s.info", base_name(prefix));
  if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (!own_file(&st)) {
      not_ours(why, cap, prefix, ".info", &st);
      return why;
    }
    unlinkat(dir_fd, name, 0);
  }
  if (remove_chunk_files(why, cap)) return why;
  if ((fd_methods = create_out(".methods", why, cap)) < 0) return why;
  if ((fd_classes = create_out(".classtable", why, cap)) < 0) return why;
  return NULL;
}

// Lines later than the cutoff wait for the next flush in carry, so a
// deferred record (pending.c) still finds its place in time order.
static char *carry[2];
static size_t carry_len[2], carry_cap[2];
static int carry_cur;

const char *writer_open(void) {
  static char err[9400];
  char busy[4200] = "", foreign[4600] = "", why[4600] = "";
  // From the start: a JVM may make more than one recording (an attach
  // after an earlier one); the last one's files are closed.
  cut = 0;
  cut_ts = 0;
  off_orca = off_meta[0] = off_meta[1] = off_ev = 0;
  fd_ev = fd_verify = -1;
  snprintf(ev_ext, sizeof ev_ext, ".orca");
  ev_bytes = 0;
  closed_n = closed_first = 0;
  closed_bytes = 0;
  chunks_deleted = 0;
  cur_start = first_ts = last_ts = 0;
  cpu_flush = cpu_thread = 0;
  carry_len[0] = carry_len[1] = 0;
  carry_cur = 0;
  memset(&enc, 0, sizeof enc);
  atomic_store(&stopping, 0);
  atomic_store(&final_deadline, 0);
  if (fd_info >= 0) close(fd_info);
  fd_orca = fd_methods = fd_classes = fd_info = -1;
  warned_info = 0;
  snprintf(prefix, sizeof prefix, "%s", opt.prefix);
  if (dir_fd >= 0) close(dir_fd);
  dir_fd = open_dir(prefix);
  if (dir_fd < 0) {
    snprintf(err, sizeof err, "cannot write %s.orca: its directory: %s", prefix, strerror(errno));
    return err;
  }
  fd_orca = open_locked(!opt.clobber, why, sizeof why);
  for (int n = 2; fd_orca < 0 && (errno == EEXIST || errno == EWOULDBLOCK) && n < 10000; n++) {
    if (errno == EWOULDBLOCK && !busy[0]) snprintf(busy, sizeof busy, "%s", prefix);
    if (why[0] && !foreign[0]) snprintf(foreign, sizeof foreign, "%s", why);
    why[0] = 0;
    snprintf(prefix, sizeof prefix, "%s-%d", opt.prefix, n);
    fd_orca = open_locked(!opt.clobber, why, sizeof why);
  }
  if (fd_orca < 0) {
    if (why[0]) snprintf(err, sizeof err, "%s", why);
    else snprintf(err, sizeof err, "cannot write %s.orca: %s", prefix, strerror(errno));
    return err;
  }
  if (busy[0]) orca_log("another running JVM records to %s; this one records to %s", busy, prefix);
  if (foreign[0]) orca_log("%s; this JVM records to %s", foreign, prefix);
  if (claim_names(why, sizeof why)) {
    snprintf(err, sizeof err, "%s", why);
    if (fd_methods >= 0) close(fd_methods);
    close(fd_orca);
    fd_orca = fd_methods = -1;
    return err;
  }
  // Lines held back for a deferred record: at most a quarter of the buffer
  // in each of the two carry buffers (docs/agent.md, "Memory").
  carry_budget = ((size_t)opt.buffer_mb << 20) / 4;
  if (carry_budget < (1 << 20)) carry_budget = 1 << 20;
  origin_mono = clock_now();
  origin_unix = clock_unix_now();
  if (opt.compact) {
    const char *e = compact_init(&enc);
    if (e) return e;
    int werr = 0;
    size_t done = put(fd_orca, COMPACT_HEADER, COMPACT_HEADER_LEN, &werr);
    if (done < COMPACT_HEADER_LEN) fail(fd_orca, &off_orca, 0, ".orca", werr);
    else off_orca += (off_t)done;
    if (bounded()) {
      // Chunks of a sixteenth of the size, so the oldest deleted is a
      // sixteenth of the history; an eighth of the age at most.
      if (opt.max_size) {
        long long c = opt.max_size / 16;
        enc.chunk_max = (size_t)(c < (256 << 10) ? (256 << 10) : c > (8 << 20) ? (8 << 20) : c);
      }
      if (opt.max_age_ns) enc.span_max = opt.max_age_ns / 8 > 1000000000LL ? opt.max_age_ns / 8 : 1000000000LL;
    }
  }
  if (!bounded()) {
    fd_ev = fd_orca;
    off_ev = off_orca;
  }
  if (opt.compact && switches.verify_compact) fd_verify = create_out(".verify", why, sizeof why);
  return NULL;
}

const char *writer_prefix(void) { return prefix; }

void writer_refused(const char *why) {
  // Another library copy may record with this prefix: the files are named
  // from opt.prefix, in a directory of their own.
  int dfd = open_dir(opt.prefix);
  if (dfd < 0) return;
  char name[4300];
  struct stat st;
  snprintf(name, sizeof name, "%s.orca", base_name(opt.prefix));
  int fd = -1;
  if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {   // else the recording agent's, or an earlier one
    snprintf(name, sizeof name, "%s.info", base_name(opt.prefix));
    fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FILE_MODE);
  }
  close(dfd);
  FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
  if (!f) {
    if (fd >= 0) close(fd);
    return;
  }
  fprintf(f, "%s=%s\n%s=%s\n", ORCA_INFO_FORMAT, ORCA_FORMAT, ORCA_INFO_AGENT_VERSION, ORCA_VERSION);
  if (opt.session[0]) fprintf(f, "%s=%s\n", ORCA_INFO_SESSION, opt.session);
  fprintf(f, "%s=%d\n%s=%s\n%s=true\n", ORCA_INFO_PID, (int)getpid(), ORCA_INFO_REFUSED, why, ORCA_INFO_COMPLETE);
  fclose(f);
}

static writer_sources src;

void writer_set_sources(const writer_sources *s) { src = *s; }

static void flush_meta(int which, int fd) {
  size_t len = 0;
  char *buf = src.meta ? src.meta(which, &len) : NULL;
  if (len && !cut) {
    int err = 0;
    size_t done = put(fd, buf, len, &err);
    if (done < len) {
      size_t keep = done;
      while (keep > 0 && buf[keep - 1] != '\n') keep--;
      fail(fd, &off_meta[which], keep, which == META_METHODS ? ".methods" : ".classtable", err);
    } else {
      off_meta[which] += (off_t)len;
    }
  }
  free(buf);
}

// ---- event batch ----
//
// Memory (docs/agent.md, "Memory"): besides the rings (2 x buffer), the
// writer holds the sort index of one batch (16 bytes a record, and as much
// to merge it), the lines
// held back for deferred records (two carry buffers of at most
// carry_budget each) and one chunk of formatted text (OUT_CHUNK plus one
// line): a batch is formatted and written chunk by chunk.

typedef struct {
  int64_t ts;
  const orca_rec *r;
} item_t;

#define OUT_CHUNK (1 << 20)
#define CHUNK_ITEMS 8192
// The longest line: fixed fields, ORCA_MAX_DEPTH frames, a quoted name.
#define MAX_LINE (96 + ORCA_MAX_DEPTH * 18 + 2 * 65536 + 2)

static item_t *items, *scratch;   // a batch's index, and the merge's other half
static size_t items_cap;
static char *out;
static size_t ends[CHUNK_ITEMS];   // end of each line of the chunk in out

// Sorting a batch. Each run (the carry, then each ring shard, then each
// part of a thread's own buffer) holds its records in the order they were
// put, nearly in time order: a thread takes its time, then puts the record,
// so only threads sharing a shard, or one preempted in between, swap. Each run is sorted by insertion (a few moves),
// or by qsort when it has many, then the runs are merged pairwise. Equal
// times keep the order they were put in: within a run by address (records
// are appended), across runs by the run's place (the merge takes the left
// one on equal times). The order is a qsort's of the batch by (time, position), at a
// fraction of its cost (glibc's qsort was 3 % of ParkBench's CPU).
static int before(const item_t *x, const item_t *y) {
  return x->ts < y->ts || (x->ts == y->ts && (uintptr_t)x->r < (uintptr_t)y->r);
}

static int cmp_item(const void *a, const void *b) {
  return before(a, b) ? -1 : before(b, a);
}

static void sort_run(item_t *a, size_t n) {
  size_t moves = 0, limit = 8 * n + 64;
  for (size_t i = 1; i < n; i++) {
    item_t x = a[i];
    size_t j = i;
    while (j > 0 && before(&x, &a[j - 1])) {
      a[j] = a[j - 1];
      j--;
      if (++moves > limit) {   // far from sorted
        a[j] = x;
        qsort(a, n, sizeof *a, cmp_item);
        return;
      }
    }
    a[j] = x;
  }
}

// sort_batch sorts items[0, count), the runs starting at start[0..runs)
// (start[runs] == count); start is overwritten.
static void sort_batch(size_t *start, int runs, size_t count) {
  for (int r = 0; r < runs; r++) sort_run(items + start[r], start[r + 1] - start[r]);
  item_t *src = items, *dst = scratch;
  while (runs > 1) {
    int out = 0;
    for (int r = 0; r < runs; r += 2) {
      size_t lo = start[r], mid = start[r + 1], hi = r + 2 <= runs ? start[r + 2] : mid;
      size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) dst[k++] = src[j].ts < src[i].ts ? src[j++] : src[i++];
      memcpy(dst + k, src + i, (mid - i) * sizeof *src);
      k += mid - i;
      memcpy(dst + k, src + j, (hi - j) * sizeof *src);
      start[out++] = lo;
    }
    start[out] = count;
    runs = out;
    item_t *t = src;
    src = dst;
    dst = t;
  }
  items = src;   // the sorted half; the other is the next batch's scratch
  scratch = dst;
}

static size_t line_max(const orca_rec *r) {
  // Fixed fields + 18 bytes a frame + a name that doubles when quoted.
  size_t text = 96 + (size_t)r->nframes * 18 + (size_t)r->namelen * 2;
  return opt.compact && compact_max(r) > text ? compact_max(r) : text;
}

static inline uint32_t thread_hash(uint32_t k) {
  uint32_t rank;
  return k & TKEY_ALIAS ? tkey_hash(k, &rank) : k;
}

static size_t format_rec(char *o, const orca_rec *r) {
  const orca_event_spec *spec = &orca_events[r->kind];
  const orca_frame *fr = (const orca_frame *)(r + 1);
  size_t n = fmt_ts(o, r->ts);
  o[n++] = ',';
  size_t l = strlen(spec->name);
  memcpy(o + n, spec->name, l);
  n += l;
  // A thread is written as its identity hash (tkeys.h: an alias is the
  // compact encoding's), as the manual says.
  if (spec->fields & ORCA_F_THREAD) { o[n++] = ','; n += fmt_hex8(o + n, thread_hash(r->thread)); }
  if (spec->fields & ORCA_F_OBJECT) { o[n++] = ','; n += fmt_hex8(o + n, r->object); }
  if (spec->fields & ORCA_F_TARGET) { o[n++] = ','; n += fmt_hex8(o + n, thread_hash(r->object)); }
  if (spec->fields & ORCA_F_OWNER) { o[n++] = ','; n += fmt_hex8(o + n, thread_hash(r->owner)); }
  if (spec->fields & ORCA_F_TEXT) {   // a name, class, timeout or how a park ended
    o[n++] = ',';
    n += fmt_text(o + n, (const char *)(fr + r->nframes), r->namelen);
  }
  if (spec->fields & ORCA_F_MODE) {
    static const char *const modes[] = ORCA_MODE_NAMES;
    o[n++] = ',';
    if (r->mode < sizeof modes / sizeof modes[0]) {
      size_t ml = strlen(modes[r->mode]);
      memcpy(o + n, modes[r->mode], ml);
      n += ml;
    }
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


// lose counts a record that will not be written as dropped of its kind.
static void lose(const orca_rec *r, int why) {
  counter_kind_add(KC_DROPPED, r->kind, 1);
  if (why != LOST_NONE) counter_add(why, 1);
}

static void lose_buf(const char *buf, size_t len, int why) {
  size_t off = 0;
  for (const orca_rec *r; (r = ring_next(buf, len, &off));) lose(r, why);
}

// grow_items makes room for n items in the index (and as many to merge
// them); 0 when out of memory.
static int grow_items(size_t n) {
  if (n <= items_cap) return 1;
  size_t cap = items_cap + items_cap / 2 > n ? items_cap + items_cap / 2 : n;
  item_t *ni = realloc(items, cap * sizeof *items);
  if (!ni) return 0;
  items = ni;
  item_t *ns = realloc(scratch, cap * sizeof *scratch);
  if (!ns) return 0;
  scratch = ns;
  items_cap = cap;
  return 1;
}

// add_items indexes the records of buf: each is read once here (the first
// touch of memory another core wrote), the index grown as they come.
static void add_items(const char *buf, size_t len, size_t *k) {
  size_t off = 0;
  for (const orca_rec *r; (r = ring_next(buf, len, &off));) {
    if (*k == items_cap && !grow_items(*k + 1)) {   // out of memory: dropped, counted
      lose(r, LOST_NONE);
      continue;
    }
    items[*k].ts = r->ts;
    items[*k].r = r;
    (*k)++;
  }
}

static int past_deadline(void) {
  int64_t d = atomic_load(&final_deadline);
  return d && clock_now() > d;
}

// write_chunk writes the n formatted bytes of items [a, b); on a failed
// write the file keeps the complete lines and the others count as dropped.
static void write_chunk(size_t a, size_t b, size_t n) {
  if (cut) {
    for (size_t i = a; i < b; i++) lose(items[i].r, LOST_AFTER_CUT);
    return;
  }
  int err = 0;
  size_t done = put(fd_ev, out, n, &err);
  size_t k = 0;
  while (k < b - a && ends[k] <= done) k++;
  if (k && fd_verify >= 0) {
    static char line[MAX_LINE];
    int verr = 0;
    for (size_t i = a; i < a + k; i++) (void)put(fd_verify, line, format_rec(line, items[i].r), &verr);
  }
  if (k) {
    if (!first_ts) first_ts = items[a].ts;
    for (size_t i = a; i < a + k; i++) {
      if (items[i].ts > last_ts) last_ts = items[i].ts;
      counter_kind_add(KC_EVENTS, items[i].r->kind, 1);
    }
  }
  if (done < n) {
    fail(fd_ev, &off_ev, k ? ends[k - 1] : 0, ev_ext, err);
    ev_bytes += k ? (long long)ends[k - 1] : 0;
    for (size_t i = a + k; i < b; i++) lose(items[i].r, LOST_AFTER_CUT);
  } else {
    off_ev += (off_t)n;
    ev_bytes += (long long)n;
  }
}

// prune deletes the oldest closed chunk files while the recording is
// past its bounds: its files would take more than maxsize with the current
// chunk grown to its full size, or the chunk ended more than maxage ago.
static void prune(int64_t now) {
  off_t meta = off_orca + off_meta[0] + off_meta[1] + 16384;   // .info: a few kB
  off_t cur = (off_t)(enc.chunk_max > (size_t)off_ev ? enc.chunk_max : (size_t)off_ev);
  while (closed_n) {
    chunk_file *c = &closed[closed_first];
    int over = opt.max_size && meta + closed_bytes + cur > (off_t)opt.max_size;
    int old = opt.max_age_ns && c->end < now - opt.max_age_ns;
    if (!over && !old) break;
    // The file the writer created, not one put at its name since.
    char name[4400];
    struct stat st;
    snprintf(name, sizeof name, "%s.orca.%06llu", base_name(prefix), (unsigned long long)c->seq);
    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && st.st_dev == c->dev && st.st_ino == c->ino)
      unlinkat(dir_fd, name, 0);
    closed_bytes -= c->size;
    chunks_deleted++;
    closed_first = (closed_first + 1) % closed_cap;
    closed_n--;
  }
}

// next_file closes the current chunk file and opens the next one, seq, with
// its header; 0 when it cannot (the recording is cut).
static int next_file(uint64_t seq) {
  if (fd_ev >= 0) {
    if (closed_n == closed_cap) {
      size_t cap = closed_cap ? 2 * closed_cap : 64;
      chunk_file *c = malloc(cap * sizeof *c);
      if (c) {
        for (size_t i = 0; i < closed_n; i++) c[i] = closed[(closed_first + i) % closed_cap];
        free(closed);
        closed = c;
        closed_cap = cap;
        closed_first = 0;
      }
    }
    struct stat st;
    if (fstat(fd_ev, &st) != 0) st.st_dev = 0, st.st_ino = 0;
    if (closed_n < closed_cap) {
      closed[(closed_first + closed_n++) % closed_cap] = (chunk_file){enc.seq, off_ev, cur_start, last_ts, st.st_dev, st.st_ino};
      closed_bytes += off_ev;
    }
    close(fd_ev);
    fd_ev = -1;
  }
  snprintf(ev_ext, sizeof ev_ext, ".orca.%06llu", (unsigned long long)seq);
  char why[4600];
  fd_ev = create_out(ev_ext, why, sizeof why);
  off_ev = 0;
  if (fd_ev < 0) {
    int err = errno;
    orca_log("%s", why);
    fd_ev = open("/dev/null", O_WRONLY | O_CLOEXEC);
    fail(fd_ev, &off_ev, 0, ev_ext, err);
    return 0;
  }
  int err = 0;
  size_t done = put(fd_ev, COMPACT_HEADER, COMPACT_HEADER_LEN, &err);
  if (done < COMPACT_HEADER_LEN) {
    fail(fd_ev, &off_ev, 0, ev_ext, err);
    return 0;
  }
  off_ev += (off_t)done;
  ev_bytes += (long long)done;
  prune(clock_now());
  return 1;
}

// start_chunk begins a chunk at time ts (in a new file when bounded) and
// writes its state records; 0 when out of memory.
static int start_chunk(int64_t ts) {
  if (bounded() && !cut) next_file(enc.seq + 1);
  size_t len;
  const char *b = compact_begin(&enc, ts, &len);
  if (!b) return 0;
  cur_start = enc.base;
  if (cut) return 1;
  int err = 0;
  size_t done = put(fd_ev, b, len, &err);
  if (done < len) {
    fail(fd_ev, &off_ev, 0, ev_ext, err);
  } else {
    off_ev += (off_t)len;
    ev_bytes += (long long)len;
  }
  return 1;
}

// flush_batch writes the records of the carry, the shards and the threads'
// buffers' parts (segs, nseg) up to cutoff, and carries the rest.
static void flush_batch(int64_t cutoff, const ring_seg *segs, size_t nseg) {
  const char *bufs[RING_SHARDS];
  size_t lens[RING_SHARDS];
  int from = carry_cur, to = carry_cur ^ 1;
  size_t bytes = carry_len[from];
  for (int i = 0; i < RING_SHARDS; i++) {
    bufs[i] = ring_take(i, &lens[i]);
    bytes += lens[i];
  }
  for (size_t i = 0; i < nseg; i++) bytes += segs[i].len;
  // Metadata first, so a method referenced by an event is described by the
  // time the event reaches the disk: every method a line just taken refers
  // to was queued before the line was put.
  if (src.describe) src.describe();
  flush_meta(META_CLASSES, fd_classes);
  flush_meta(META_METHODS, fd_methods);
  carry_len[to] = 0;
  if (!bytes) return;
  // The index is sized for records of a park's size (add_items grows it).
  (void)grow_items(bytes / 64);
  if (!out) {
    out = malloc(OUT_CHUNK + MAX_LINE);
    if (!out) {   // out of memory: count the batch as dropped
      counter_add(CNT_WRITE_ERRORS, 1);
      lose_buf(carry[from], carry_len[from], LOST_NONE);
      for (int i = 0; i < RING_SHARDS; i++) lose_buf(bufs[i], lens[i], LOST_NONE);
      for (size_t i = 0; i < nseg; i++) lose_buf(segs[i].buf, segs[i].len, LOST_NONE);
      carry_len[from] = 0;
      return;
    }
  }
  // A run per buffer or part that has records, each nearly in time order
  // (an empty one would add a merge pass); out of memory for their list,
  // the batch as one run (sort_run falls back to qsort).
  static size_t *start, start_cap, whole[2];
  size_t k = 0, *st = start;
  if (RING_SHARDS + 2 + nseg > start_cap) {
    size_t *n = realloc(start, (RING_SHARDS + 2 + nseg) * 2 * sizeof *n);
    if (n) start = n, start_cap = (RING_SHARDS + 2 + nseg) * 2;
    st = n;
  }
  int runs = 0, one = !st;
  if (one) st = whole;
  st[runs++] = k;
  add_items(carry[from], carry_len[from], &k);
  for (int i = 0; i < RING_SHARDS; i++) {
    if (!one && k > st[runs - 1]) st[runs++] = k;
    add_items(bufs[i], lens[i], &k);
  }
  for (size_t i = 0; i < nseg; i++) {
    if (!one && k > st[runs - 1]) st[runs++] = k;
    add_items(segs[i].buf, segs[i].len, &k);
  }
  st[runs] = k;
  size_t count = k;
  sort_batch(st, runs, count);

  // The lines at or after the cutoff wait in carry, within its budget; when
  // they exceed it the earliest of them are written now (written_early).
  size_t s = count, held = 0;
  while (s > 0 && items[s - 1].ts >= cutoff && held + items[s - 1].r->size <= carry_budget) {
    held += items[s - 1].r->size;
    s--;
  }
  if (held > carry_cap[to]) {
    size_t cap = carry_cap[to] ? carry_cap[to] * 2 : 1 << 20;
    if (cap < held) cap = held;
    if (cap > carry_budget) cap = carry_budget;
    char *nb = realloc(carry[to], cap);
    if (nb) {
      carry[to] = nb;
      carry_cap[to] = cap;
    } else {
      s = count;   // out of memory: write them now, out of order, rather than lose them
    }
  }
  for (size_t i = s; i < count; i++) {
    memcpy(carry[to] + carry_len[to], items[i].r, items[i].r->size);
    carry_len[to] += items[i].r->size;
  }
  flushes++;
  carried += (long)(count - s);
  for (size_t i = s; i-- > 0 && items[i].ts >= cutoff;) counter_add(CNT_WRITTEN_EARLY, 1);

  size_t a = 0, n = 0, i = 0;
  for (; i < s && !cut; i++) {
    const orca_rec *r = items[i].r;
    if (i - a == CHUNK_ITEMS || n + line_max(r) > OUT_CHUNK) {
      write_chunk(a, i, n);
      a = i;
      n = 0;
      if (past_deadline()) break;
    }
    if (opt.compact && compact_due(&enc, r)) {
      write_chunk(a, i, n);
      a = i;
      n = 0;
      if (!start_chunk(r->ts)) {   // out of memory: this record is lost
        lose(r, LOST_NONE);
        a = i + 1;
        continue;
      }
      if (cut) break;
    }
    n += opt.compact ? compact_rec(&enc, out + n, r) : format_rec(out + n, r);
    ends[i - a] = n;
  }
  if (i == s || cut) write_chunk(a, i, n);
  // Past the exit deadline, or cut: the rest is counted, not written.
  for (; i < s; i++) lose(items[i].r, cut ? LOST_AFTER_CUT : LOST_AT_EXIT);
  // The encoder's state may refer to the records encoded: copied before
  // the next flush reuses their buffers.
  if (opt.compact) compact_settle(&enc);
  carry_len[from] = 0;
  carry_cur = to;
}

static void flush_events(int64_t cutoff) {
  size_t nseg;
  const ring_seg *segs = ring_take_threads(&nseg);
  flush_batch(cutoff, segs, nseg);
  ring_release_threads();
}

// Room reserved (beyond its end) for .info, so it can be rewritten in place
// when the disk is full.
#define INFO_RESERVE 65536

// store_info replaces .info atomically (a new file under a random name,
// then a rename over .info, which replaces whatever is there without
// following it); when that fails (a full disk) it rewrites in place the .info
// it made last, in the room reserved for it, and never leaves the temporary
// file behind.
static void store_info(const char *text, size_t len) {
  char name[4300], tmp[4400];
  int err = 0, fd = -1;
  snprintf(name, sizeof name, "%s.info", base_name(prefix));
  for (int i = 0; i < 8 && fd < 0; i++) {
    uint64_t r;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) r = (uint64_t)clock_now() * 0x9E3779B97F4A7C15ULL ^ (uint64_t)getpid();
    snprintf(tmp, sizeof tmp, "%s.tmp-%016llx", name, (unsigned long long)r);
    fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FILE_MODE);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd >= 0) {
    (void)fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, INFO_RESERVE);
    size_t done = put(fd, text, len, &err);
    if (done == len && renameat(dir_fd, tmp, dir_fd, name) == 0) {
      if (fd_info >= 0) close(fd_info);
      fd_info = fd;   // the .info now, kept for a rewrite in place
      return;
    }
    if (done == len && !warned_info && errno != ENOSPC && errno != EDQUOT) {
      warned_info = 1;
      orca_log("cannot replace %s.info: %s; it is not written through (it is kept up to date only while its file is this agent's own)",
               prefix, strerror(errno));
    }
    unlinkat(dir_fd, tmp, 0);
    close(fd);
  }
  // The first .info made in place, exclusively, when even that fails.
  if (fd_info < 0) fd_info = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, FILE_MODE);
  if (fd_info < 0 || lseek(fd_info, 0, SEEK_SET) != 0) return;
  if (put(fd_info, text, len, &err) == len && ftruncate(fd_info, (off_t)len) == 0)
    (void)fallocate(fd_info, FALLOC_FL_KEEP_SIZE, 0, INFO_RESERVE);
}

static void put_prop(const char *key, const char *value, void *f) { fprintf(f, "%s=%s\n", key, value); }

// write_info formats .info: the writer's own facts, then what the agent's
// modules stated and counted (counters.h).
static void write_info(int complete) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f) return;
  fprintf(f, "%s=%s\n%s=%s\n", ORCA_INFO_FORMAT, ORCA_FORMAT, ORCA_INFO_AGENT_VERSION, ORCA_VERSION);
  fprintf(f, "%s=prefix=%s,depth=%d,flush=%d,buffer=%d,clobber=%s,kinds=%s,format=%s\n", ORCA_INFO_AGENT_OPTIONS, opt.prefix,
          opt.depth, opt.flush_ms, opt.buffer_mb, opt.clobber ? "yes" : "no", opt.seed_only ? "seed" : "all",
          opt.compact ? "compact" : "seed");
  if (opt.compact) fprintf(f, "%s=compact\n", ORCA_INFO_ENCODING);
  if (opt.max_size) fprintf(f, "%s=%lld\n", ORCA_INFO_MAX_SIZE, opt.max_size);
  if (opt.max_age_ns) fprintf(f, "%s=%.3f\n", ORCA_INFO_MAX_AGE_S, (double)opt.max_age_ns / 1e9);
  if (bounded() && enc.seq) {
    uint64_t first = closed_n ? closed[closed_first].seq : enc.seq;
    char k[40];
    k[fmt_ts(k, closed_n ? closed[closed_first].start : cur_start)] = 0;
    fprintf(f, "%s=%ld\n%s=%llu-%llu\n%s=%s\n", ORCA_INFO_CHUNKS_DELETED, chunks_deleted, ORCA_INFO_CHUNKS_KEPT,
            (unsigned long long)first, (unsigned long long)enc.seq, ORCA_INFO_KEPT_FROM_S, k);
  }
  if (enc.unrestated) fprintf(f, "%s=%llu\n", ORCA_INFO_UNRESTATED, (unsigned long long)enc.unrestated);
  if (opt.session[0]) fprintf(f, "%s=%s\n", ORCA_INFO_SESSION, opt.session);
  fprintf(f, "%s=%d\n", ORCA_INFO_PID, (int)getpid());
  counters_props(put_prop, f);
  char a[40], b[40];
  a[fmt_ts(a, first_ts ? first_ts : origin_mono)] = 0;
  b[fmt_ts(b, last_ts ? last_ts : origin_mono)] = 0;
  fprintf(f, "%s=%lld\n%s=%lld\n%s=%s\n%s=%s\n", ORCA_INFO_ORIGIN_MONO_NS, (long long)origin_mono,
          ORCA_INFO_ORIGIN_UNIX_NS, (long long)origin_unix, ORCA_INFO_START_S, a, ORCA_INFO_END_S, b);
  fprintf(f, "%s=%s\n", ORCA_INFO_COMPLETE, complete ? "true" : "false");
  // events.KIND: lines written. Events taken but never written (exit
  // deadline, failed write, no memory) are dropped.
  for (int k = 1; k < ORCA_EV_COUNT; k++)
    fprintf(f, "%s%s=%ld\n", kind_counter_prefix[KC_EVENTS], orca_events[k].name, counter_kind_get(KC_EVENTS, k));
  long total[KC_COUNT] = {0};
  for (int w = KC_DROPPED; w < KC_COUNT; w++) {
    for (int k = 1; k < ORCA_EV_COUNT; k++) {
      long n = counter_kind_get(w, k);
      total[w] += n;
      if (n) fprintf(f, "%s%s=%ld\n", kind_counter_prefix[w], orca_events[k].name, n);
    }
  }
  fprintf(f, "%s=%ld\n%s=%ld\n", ORCA_INFO_DROPPED_TOTAL, total[KC_DROPPED], ORCA_INFO_UNATTRIBUTED_TOTAL,
          total[KC_UNATTRIBUTED]);
  for (int c = 0; c < CNT_COUNT; c++) {
    long n = counters_value(c);
    int when = counter_specs[c].when, show = when == CNT_ALWAYS || n || counters_shown(c);
    if (when == CNT_PAIRED && c + 1 < CNT_COUNT) show = show || counters_value(c + 1) || counters_shown(c + 1);
    if (when == CNT_WITH_PREV) continue;
    if (!show) continue;
    fprintf(f, "%s=%ld\n", counter_specs[c].key, n);
    if (when == CNT_PAIRED && c + 1 < CNT_COUNT) fprintf(f, "%s=%ld\n", counter_specs[c + 1].key, counters_value(c + 1));
  }
  if (cut) {
    char c[40];
    c[fmt_ts(c, cut_ts)] = 0;
    fprintf(f, "%s=%s\n%s=%s\n", ORCA_INFO_WRITE_ERROR, cut_what, ORCA_INFO_CUT_S, c);
  }
  if (fclose(f) == 0) store_info(text, len);
  free(text);
}

// Lines this recent may still be preceded by a record in flight (its time
// taken, its stack being walked): hold them back one more flush.
#define IN_FLIGHT_NS 10000000LL

// The final work at VM death (the last walks, flushes and writes) ends
// FINAL_BUDGET_NS (0.5 s) after it began; what is not written by then is counted as
// dropped (dropped_at_exit). Daemon threads still run then and may starve
// the writer (issue 12: 12.7 s to exit with buffer=1024).
#define FINAL_BUDGET_NS 500000000LL

static void flush_all(int final) {
  int64_t now = clock_now(), cutoff = INT64_MAX;
  if (!final) {
    // Waits are walked by the walker after one period; one it has not
    // written within 10 s (or with no walker: 1 s) is written without stack.
    int64_t stale = now - (src.walker_alive && src.walker_alive() ? 10000000000LL : 1000000000LL);
    cutoff = src.deferred ? src.deferred(now - IN_FLIGHT_NS, stale) : now - IN_FLIGHT_NS;
  } else {
    for (int i = 0; i < 200 && src.deferred && (cutoff = src.deferred(INT64_MAX, INT64_MAX)) != INT64_MAX && !past_deadline(); i++)
      usleep(1000);
    cutoff = INT64_MAX;
  }
  int64_t c0 = time_writer ? thread_cpu() : 0;
  flush_events(cutoff);
  if (time_writer) cpu_flush += thread_cpu() - c0;
}

static void *run(void *arg) {
  (void)arg;
  int64_t last_info = 0;
  orca_agent_thread = 1;
  time_writer = switches.time_writer;
  while (!atomic_load(&stopping)) {
    ring_wait(opt.flush_ms);
    clock_calibrate();
    flush_all(0);
    int64_t now = clock_now();
    if (bounded() && !cut) prune(now);
    if (now - last_info >= 1000000000LL) {
      write_info(0);
      last_info = now;
    }
  }
  if (time_writer) cpu_thread = thread_cpu();
  if (src.thread_exit) src.thread_exit();
  return NULL;
}

static int running;   // the writer thread runs (writer_start)

const char *writer_start(void) {
  write_info(0);
  if (pthread_create(&thread, NULL, run, NULL) != 0) return "cannot start the writer thread";
  running = 1;
  return NULL;
}

static int stopped_now;

void writer_stopped_now(void) { stopped_now = 1; }

void writer_stop(void) {
  atomic_store(&final_deadline, clock_now() + FINAL_BUDGET_NS);
  atomic_store(&stopping, 1);
  ring_wake();
  // Not started (an attach that failed after the files were open): only
  // the files are finished.
  if (running) pthread_join(thread, NULL);
  running = 0;
  // The waits still open get their stacks from here (a Java thread).
  if (src.walk_all) src.walk_all(INT64_MAX);
  flush_all(1);
  if (stopped_now) {
    int64_t now = clock_now();
    if (now > last_ts) last_ts = now;
    stopped_now = 0;
  }
  // Records stored by callbacks that began before VM death but ended after
  // the last flush took the rings: counted, not written.
  for (int i = 0; i < RING_SHARDS; i++) {
    size_t len;
    const char *buf = ring_take(i, &len);
    lose_buf(buf, len, LOST_AT_EXIT);
  }
  size_t nseg;
  const ring_seg *segs = ring_take_threads(&nseg);
  for (size_t i = 0; i < nseg; i++) lose_buf(segs[i].buf, segs[i].len, LOST_AT_EXIT);
  ring_release_threads();
  write_info(1);
  if (time_writer) {
    long events = 0;
    for (int k = 1; k < ORCA_EV_COUNT; k++) events += counter_kind_get(KC_EVENTS, k);
    orca_log("writer (%s): CPU %.3f s, of it %.3f s in flushes (%.0f ns an event); %ld flushes, %ld records carried to the next; %ld events, %lld bytes of .orca (%.1f an event)",
             opt.compact ? "compact" : "seed", cpu_thread / 1e9, cpu_flush / 1e9, events ? (double)cpu_flush / (double)events : 0.0, flushes, carried,
             events, ev_bytes, events ? (double)ev_bytes / (double)events : 0.0);
  }
  compact_free(&enc);
  if (fd_ev != fd_orca && fd_ev >= 0) close(fd_ev);
  if (fd_verify >= 0) close(fd_verify);
  close(fd_orca);
  close(fd_methods);
  close(fd_classes);
  if (fd_info >= 0) close(fd_info);
  if (dir_fd >= 0) close(dir_fd);
  fd_orca = fd_methods = fd_classes = fd_info = dir_fd = -1;
}
