// CRC-32C (Castagnoli), the checksum of a compact chunk's trailer
// (docs/format.md; Go's hash/crc32 with crc32.Castagnoli computes the
// same): with the SSE 4.2 instruction where the CPU has it (8 bytes a
// step), else a table (a byte a step).
#ifndef ORCA_CRC32C_H
#define ORCA_CRC32C_H
#include <stddef.h>
#include <stdint.h>

// crc32c continues crc (0 to begin) over the n bytes at p.
uint32_t crc32c(uint32_t crc, const void *p, size_t n);

#endif
