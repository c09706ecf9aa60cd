// The lease of an attached recording (lease.h). A lock, not a renewal by
// attach commands: each `load` prints JDK 21+'s three WARNING lines on the
// JVM's stderr, and a lock crosses the pid, user and network namespaces
// between orca and a JVM in a container (orca opens the file through the
// JVM's descriptor, /proc/PID/fd/N). The kernel releases it when orca
// ends, however it ends.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/clock.h"
#include "core/orca.h"
#include "jvm/lease.h"
#include "record/writer.h"

static int fd = -1;
static int seen;               // the lock was seen held once
static int64_t waited, last;   // running time without the lock, and the last round's time

const char *lease_open(void) {
  static char why[4400];
  seen = 0;
  waited = 0;
  last = clock_now();
  // As the recording's files are made: a name left by a JVM killed while
  // it recorded is replaced, one another user planted refused.
  fd = writer_create_file(".lease", why, sizeof why);
  return fd < 0 ? why : NULL;
}

int lease_lost(void) {
  if (fd < 0) return 0;
  int64_t now = clock_now(), step = now - last;
  last = now;
  // An open file description's lock (orca's F_OFD_SETLK read lock) makes
  // this test of a write lock report it; a free file reports F_UNLCK.
  struct flock l = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
  if (fcntl(fd, F_OFD_GETLK, &l) != 0) return 0;   // no test: never a stop on a doubt
  if (l.l_type != F_UNLCK) {
    seen = 1;
    return 0;
  }
  // orca writes a line to the file once it holds the lock: a lock taken and
  // let go between two rounds is not mistaken for one not taken yet.
  struct stat st;
  if (seen || (fstat(fd, &st) == 0 && st.st_size > 0)) return 1;
  // Not taken yet: only the time the JVM ran counts (a SIGSTOP between two
  // rounds adds at most two flush periods).
  int64_t cap = 2LL * opt.flush_ms * 1000000;
  waited += step < cap ? step : cap;
  return waited >= LEASE_FIRST_S * 1000000000LL;
}

void lease_close(void) {
  if (fd < 0) return;
  writer_remove_file(".lease", fd);
  close(fd);
  fd = -1;
}
