// Diagnostics go to stderr, one line each, so users can tell them from the
// application's output.
#include <stdarg.h>
#include <stdio.h>
#include "orca.h"

__thread int orca_agent_thread;

void orca_log(const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "orca: %s\n", buf);
  fflush(stderr);
}
