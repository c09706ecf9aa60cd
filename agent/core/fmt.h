// Text formatting of the recording's lines (.orca, .methods, .classtable),
// shared by the writer and the method table; a leaf. No printf: these run
// for every event line.
#ifndef ORCA_FMT_H
#define ORCA_FMT_H
#include <stddef.h>

// fmt_ts writes nanoseconds as seconds with 10 decimals.
size_t fmt_ts(char *out, long long ns);
// fmt_hex8 writes v as 8 upper-case hex digits.
size_t fmt_hex8(char *out, unsigned v);
// fmt_uint writes v in decimal. Inline: a timed park's timeout is written
// with it, in the park's wrapper.
static inline size_t fmt_uint(char *out, unsigned long long v) {
  char tmp[24];
  size_t n = 0;
  do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
  for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
  return n;
}
// fmt_text writes s as a CSV field, quoted when it holds , " CR or LF.
size_t fmt_text(char *out, const char *s, size_t len);
// mutf8_to_utf8 converts JVM modified UTF-8 to standard UTF-8, at most cap
// bytes: a longer text is cut at a character boundary and ends with "…".
size_t mutf8_to_utf8(const char *in, size_t len, char *out, size_t cap);
#endif
