// The names of a library's functions that dladdr cannot give: those the
// library does not export (hidden and local functions: most of libjvm's
// C++, the VM's frames of a sample), from the .symtab section the library
// file keeps (Debian's and Temurin's libjvm.so do; a library stripped of it
// has none). The writer names a sample's native frames (methods.c) and asks
// here only when dladdr found no symbol that holds the pc.
#ifndef ORCA_ELFSYM_H
#define ORCA_ELFSYM_H
#include <stddef.h>
#include <stdint.h>

// elfsym_name writes into buf (n bytes) the symbol of the function that
// holds pc in the library file path, mapped at base (dladdr's dli_fname,
// dli_fbase), and returns 1; 0 when it has none. The library's functions
// are read at its first question, 12 bytes each (59 000 in Temurin 25's
// libjvm.so: 700 kB), and kept until elfsym_reset; the names are read from
// the file when asked. One thread at a time (the writer).
int elfsym_name(const char *path, uintptr_t base, uintptr_t pc, char *buf, size_t n);

// elfsym_reset forgets every library (the recording ends).
void elfsym_reset(void);
#endif
