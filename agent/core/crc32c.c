#include <string.h>
#include "core/crc32c.h"

// The table of the reflected polynomial 0x82F63B78, made at the first call
// without the instruction (a race makes it twice, the same).
static uint32_t table[256];
static int table_made;

static uint32_t crc_table(uint32_t crc, const unsigned char *p, size_t n) {
  if (!__atomic_load_n(&table_made, __ATOMIC_ACQUIRE)) {
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      table[i] = c;
    }
    __atomic_store_n(&table_made, 1, __ATOMIC_RELEASE);
  }
  for (size_t i = 0; i < n; i++) crc = table[(crc ^ p[i]) & 0xFF] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t crc, const unsigned char *p, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t v;
    memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
  }
  uint32_t c32 = (uint32_t)c;
  for (; n; p++, n--) c32 = __builtin_ia32_crc32qi(c32, *p);
  return c32;
}
#endif

uint32_t crc32c(uint32_t crc, const void *p, size_t n) {
  crc = ~crc;
#if defined(__x86_64__)
  static int hw = -1;
  if (hw < 0) hw = __builtin_cpu_supports("sse4.2") ? 1 : 0;
  if (hw) return ~crc_sse42(crc, p, n);
#endif
  return ~crc_table(crc, p, n);
}
