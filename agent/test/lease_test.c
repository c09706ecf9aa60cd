// lease.c: the lease of an attached recording (docs/attach.md, "The
// lease"). orca is played by this process: a second open of the lease file
// through /proc/self/fd, as orca opens it through /proc/PID/fd, with an
// open file description's read lock and a line written.
#include "../jvm/lease.c"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

// take is orca's takeLease: the lock and the line, on a descriptor of its own.
static int take(void) {
  char p[64];
  snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
  int o = open(p, O_RDWR | O_CLOEXEC);
  struct flock l = {.l_type = F_RDLCK, .l_whence = SEEK_SET};
  CHECK(o >= 0 && fcntl(o, F_OFD_SETLK, &l) == 0 && write(o, "held by orca pid 1\n", 19) == 19, "taking the lease: %s",
        strerror(errno));
  return o;
}

static void start(const char *dir, const char *name) {
  static const char *const exts[] = {".orca", ".methods", ".classtable", ".info", ".lease"};
  char p[4400];
  for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
    snprintf(p, sizeof p, "%s/%s%s", dir, name, exts[i]);
    unlink(p);
  }
  snprintf(opt.prefix, sizeof opt.prefix, "%s/%s", dir, name);
  const char *err = writer_open();
  CHECK(!err, "writer_open: %s", err);
}

void test_lease(const char *dir) {
  test_name = "lease";
  char p[4400];
  struct stat st;
  opt.compact = 0;
  opt.max_size = 0;
  opt.clobber = 1;
  opt.flush_ms = 200;

  // Not taken yet: only after LEASE_FIRST_S of the JVM's running time.
  start(dir, "leased");
  const char *err = lease_open();
  CHECK(!err, "lease_open: %s", err);
  snprintf(p, sizeof p, "%s/leased.lease", dir);
  CHECK(lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 && st.st_size == 0,
        "%s: want an empty regular file of mode 600", p);
  CHECK(!lease_lost(), "a lease not taken yet is lost at once");
  // A minute with the JVM stopped (SIGSTOP) between two rounds counts two
  // flush periods.
  last = clock_now() - 60000000000LL;
  CHECK(!lease_lost() && waited <= 2LL * opt.flush_ms * 1000000 + 100000000, "a minute stopped counted %lld ns", (long long)waited);
  waited = LEASE_FIRST_S * 1000000000LL;
  CHECK(lease_lost(), "a lease not taken for %d s of running time is not lost", LEASE_FIRST_S);
  lease_close();
  CHECK(lstat(p, &st) != 0, "%s left behind", p);

  // Taken: held while orca's descriptor is open, lost once it is closed.
  start(dir, "leased");
  CHECK(!lease_open(), "lease_open again");
  int o = take();
  for (int i = 0; i < 3; i++) CHECK(!lease_lost(), "a lease held is lost (round %d)", i);
  close(o);
  CHECK(lease_lost(), "a lease let go is not lost");
  lease_close();

  // Taken and let go between two rounds (orca killed at once): the line
  // says it was taken.
  start(dir, "leased");
  CHECK(!lease_open(), "lease_open again");
  close(take());
  CHECK(lease_lost(), "a lease taken and let go before a round is not lost");

  // Removed at the stop only while it is the file created: another in its
  // place stays.
  unlink(p);
  int other = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
  CHECK(other >= 0, "creating %s", p);
  if (other >= 0) close(other);
  lease_close();
  CHECK(lstat(p, &st) == 0, "lease_close removed a file it did not create");
  unlink(p);

  // A link planted at the name: refused, not written through.
  start(dir, "leased");
  char victim[4400];
  snprintf(victim, sizeof victim, "%s/lease-victim", dir);
  unlink(victim);
  int v = open(victim, O_WRONLY | O_CREAT | O_EXCL, 0600);
  CHECK(v >= 0 && write(v, "precious", 8) == 8, "creating %s", victim);
  if (v >= 0) close(v);
  CHECK(symlink(victim, p) == 0, "symlink %s: %s", p, strerror(errno));
  err = lease_open();
  CHECK(err && strstr(err, "symbolic link"), "a link planted at %s: lease_open says %s", p, err ? err : "nothing");
  CHECK(lstat(victim, &st) == 0 && st.st_size == 8 && lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "the planted link or its target changed");
  CHECK(!lease_lost(), "no lease open, yet lost");
  unlink(p);
  unlink(victim);
}
