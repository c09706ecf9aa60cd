// The file sink (sink.h): the recording's files, their lock, the chunk
// files' rotation and retention, .info, the cut and the exit deadline.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/counters.h"
#include "core/fmt.h"
#include "core/orca.h"
#include "record/sink.h"

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
static int64_t origin_mono, origin_unix, first_ts, last_ts;

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
static uint64_t cur_seq;    // the current chunk's number (0: none begun)
static int64_t cur_start;   // the current chunk's base time
// The header of the events files (the compact encoding's), hdr_len bytes.
static const char *hdr;
static size_t hdr_len;
// The final work at VM death (the last walks, flushes and writes) ends
// FINAL_BUDGET_NS (0.5 s) after it began; what is not written by then is counted as
// dropped (dropped_at_exit). Daemon threads still run then and may starve
// the writer (issue 12: 12.7 s to exit with buffer=1024).
#define FINAL_BUDGET_NS 500000000LL
// Nonzero once VM death began: the final work ends at this time.
static _Atomic int64_t final_deadline;

size_t sink_put(int fd, const char *p, size_t n, int *err) {
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

void sink_deadline_start(void) { atomic_store(&final_deadline, clock_now() + FINAL_BUDGET_NS); }

int sink_past_deadline(void) {
  int64_t d = atomic_load(&final_deadline);
  return d && clock_now() > d;
}

// write_chunk writes the n formatted bytes of items [a, b); on a failed

static void prune(int64_t now, size_t chunk_max) {
  off_t meta = off_orca + off_meta[0] + off_meta[1] + 16384;   // .info: a few kB
  off_t cur = (off_t)(chunk_max > (size_t)off_ev ? chunk_max : (size_t)off_ev);
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
static int next_file(uint64_t seq, size_t chunk_max) {
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
      closed[(closed_first + closed_n++) % closed_cap] = (chunk_file){cur_seq, off_ev, cur_start, last_ts, st.st_dev, st.st_ino};
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
  size_t done = sink_put(fd_ev, hdr, hdr_len, &err);
  if (done < hdr_len) {
    fail(fd_ev, &off_ev, 0, ev_ext, err);
    return 0;
  }
  off_ev += (off_t)done;
  ev_bytes += (long long)done;
  prune(clock_now(), chunk_max);
  return 1;
}

void sink_chunk(uint64_t seq, int64_t start, size_t chunk_max) {
  if (bounded() && !cut) next_file(seq, chunk_max);
  cur_seq = seq;
  cur_start = start;
}

void sink_prune(int64_t now, size_t chunk_max) {
  if (bounded() && !cut) prune(now, chunk_max);
}

void sink_chunk_bounds(size_t *max_bytes, int64_t *max_span) {
  // Chunks of a sixteenth of the size, so the oldest deleted is a
  // sixteenth of the history; an eighth of the age at most.
  if (opt.max_size) {
    long long c = opt.max_size / 16;
    *max_bytes = (size_t)(c < (256 << 10) ? (256 << 10) : c > (8 << 20) ? (8 << 20) : c);
  }
  if (opt.max_age_ns) *max_span = opt.max_age_ns / 8 > 1000000000LL ? opt.max_age_ns / 8 : 1000000000LL;
}

size_t sink_events(const char *p, size_t n, int *err) {
  size_t done = sink_put(fd_ev, p, n, err);
  if (done == n) {
    off_ev += (off_t)n;
    ev_bytes += (long long)n;
  }
  return done;
}

void sink_events_cut(size_t keep, int err) {
  fail(fd_ev, &off_ev, keep, ev_ext, err);
  ev_bytes += (long long)keep;
}

int sink_cut(void) { return cut; }

void sink_times(int64_t first, int64_t last) {
  if (!first_ts) first_ts = first;
  if (last > last_ts) last_ts = last;
}

long long sink_ev_bytes(void) { return ev_bytes; }

void sink_meta(int which, const char *buf, size_t len) {
  int fd = which == META_METHODS ? fd_methods : fd_classes;
  if (len && !cut) {
    int err = 0;
    size_t done = sink_put(fd, buf, len, &err);
    if (done < len) {
      size_t keep = done;
      while (keep > 0 && buf[keep - 1] != '\n') keep--;
      fail(fd, &off_meta[which], keep, which == META_METHODS ? ".methods" : ".classtable", err);
    } else {
      off_meta[which] += (off_t)len;
    }
  }
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
    size_t done = sink_put(fd, text, len, &err);
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
  if (sink_put(fd_info, text, len, &err) == len && ftruncate(fd_info, (off_t)len) == 0)
    (void)fallocate(fd_info, FALLOC_FL_KEEP_SIZE, 0, INFO_RESERVE);
}

static void put_prop(const char *key, const char *value, void *f) { fprintf(f, "%s=%s\n", key, value); }

void sink_info(int complete, uint64_t unrestated) {
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
  if (bounded() && cur_seq) {
    uint64_t first = closed_n ? closed[closed_first].seq : cur_seq;
    char k[40];
    k[fmt_ts(k, closed_n ? closed[closed_first].start : cur_start)] = 0;
    fprintf(f, "%s=%ld\n%s=%llu-%llu\n%s=%s\n", ORCA_INFO_CHUNKS_DELETED, chunks_deleted, ORCA_INFO_CHUNKS_KEPT,
            (unsigned long long)first, (unsigned long long)cur_seq, ORCA_INFO_KEPT_FROM_S, k);
  }
  if (unrestated) fprintf(f, "%s=%llu\n", ORCA_INFO_UNRESTATED, (unsigned long long)unrestated);
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

const char *sink_open(const char *header, size_t hlen) {
  static char err[9400];
  char busy[4200] = "", foreign[4600] = "", why[4600] = "";
  // From the start: a JVM may make more than one recording (an attach
  // after an earlier one); the last one's files are closed.
  cut = 0;
  cut_ts = 0;
  off_orca = off_meta[0] = off_meta[1] = off_ev = 0;
  fd_ev = -1;
  snprintf(ev_ext, sizeof ev_ext, ".orca");
  ev_bytes = 0;
  closed_n = closed_first = 0;
  closed_bytes = 0;
  chunks_deleted = 0;
  cur_seq = 0;
  cur_start = first_ts = last_ts = 0;
  hdr = header;
  hdr_len = hlen;
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
  origin_mono = clock_now();
  origin_unix = clock_unix_now();
  if (hdr_len) {
    int werr = 0;
    size_t done = sink_put(fd_orca, hdr, hdr_len, &werr);
    if (done < hdr_len) fail(fd_orca, &off_orca, 0, ".orca", werr);
    else off_orca += (off_t)done;
  }
  if (!bounded()) {
    fd_ev = fd_orca;
    off_ev = off_orca;
  }
  return NULL;
}

void sink_close(void) {
  if (fd_ev != fd_orca && fd_ev >= 0) close(fd_ev);
  close(fd_orca);
  close(fd_methods);
  close(fd_classes);
  if (fd_info >= 0) close(fd_info);
  if (dir_fd >= 0) close(dir_fd);
  fd_ev = fd_orca = fd_methods = fd_classes = fd_info = dir_fd = -1;
}
