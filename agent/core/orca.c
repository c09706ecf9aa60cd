// The agent's globals (orca.h: the JVMTI environment, the lifecycle, the
// JVM's release), set by the jvm module at start-up and read by every
// module, and its diagnostics: to stderr, one line each, so users can tell
// them from the application's output.
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "core/orca.h"

jvmtiEnv *jvmti;
JavaVM *orca_vm;
int orca_feature;
atomic_int orca_state;
__thread int orca_agent_thread;

// say formats a message and writes it to stderr, "orca: " first; buf
// keeps the message.
static void say(char *buf, size_t cap, const char *fmt, va_list ap) {
  vsnprintf(buf, cap, fmt, ap);
  fprintf(stderr, "orca: %s\n", buf);
  fflush(stderr);
}

void orca_log(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  say(buf, sizeof buf, fmt, ap);
  va_end(ap);
}

void orca_fail(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  say(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (!opt.errors[0]) return;
  // orca record makes the file (0600, in its temporary directory): the
  // message goes to no symbolic link, FIFO or other user's file put there.
  int fd = open(opt.errors, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
    close(fd);
    return;
  }
  char line[1100];
  int n = snprintf(line, sizeof line, "JVM pid %d: %s\n", (int)getpid(), buf);
  if (n > (int)sizeof line - 1) n = (int)sizeof line - 1;
  if (write(fd, line, (size_t)n) < 0) { /* nothing more to tell */ }
  close(fd);
}
