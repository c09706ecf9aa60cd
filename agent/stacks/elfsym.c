#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include "stacks/elfsym.h"

// A function: its start and size in the library's addresses (a shared
// library's own, from 0: what its load base is added to), and its name's
// offset in the string table. 32 bits each: a library of more than 4 GB is
// not read.
typedef struct {
  uint32_t start, size, name;
} func;

typedef struct {
  char *path;
  uintptr_t base;
  int fd;          // the library file, kept open for the names; -1: none read
  func *funcs;     // by start
  size_t nfuncs;
  uint64_t strtab, strsize;   // the string table's offset and size in the file
} lib;

enum { LIBS = 16, FUNCS_MAX = 1 << 20 };
static lib libs[LIBS];
static int nlibs;

static int by_start(const void *a, const void *b) {
  uint32_t x = ((const func *)a)->start, y = ((const func *)b)->start;
  return x < y ? -1 : x > y;
}

static int full_pread(int fd, void *buf, size_t n, uint64_t off) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
    if (r <= 0) return 0;
    done += (size_t)r;
  }
  return 1;
}

// mapped: the device and inode of the file mapped at base (its first
// mapping, /proc/self/maps), 0 when none.
static int mapped(uintptr_t base, unsigned *maj, unsigned *min, unsigned long *ino) {
  FILE *f = fopen("/proc/self/maps", "re");
  if (!f) return 0;
  char line[512];
  int found = 0;
  while (!found && fgets(line, sizeof line, f)) {
    unsigned long lo, off;
    if (sscanf(line, "%lx-%*x %*4s %lx %x:%x %lu", &lo, &off, maj, min, ino) == 5 && lo == base && off == 0 && *ino) found = 1;
  }
  fclose(f);
  return found;
}

// load reads the functions of l's file: its .symtab's STT_FUNC symbols of
// a size, defined in a section. The file opened must be the very file
// mapped at the library's base (its device and inode), whatever its path
// leads to now: a path of the loader's may have been replaced or be a link
// another user controls. A file that is not a 64-bit ELF of this machine,
// or has no .symtab, gives none.
static void load(lib *l) {
  unsigned maj, min;
  unsigned long ino;
  if (!mapped(l->base, &maj, &min, &ino)) return;
  int fd = open(l->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);   // not blocked by a FIFO put there
  if (fd < 0) return;
  Elf64_Ehdr eh;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != ino || major(st.st_dev) != maj || minor(st.st_dev) != min ||
      (uint64_t)st.st_size > UINT32_MAX || !full_pread(fd, &eh, sizeof eh, 0) ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) ||
      eh.e_shnum == 0 || eh.e_shnum > 4096 || eh.e_shoff + (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size) {
    close(fd);
    return;
  }
  Elf64_Shdr *sh = malloc(eh.e_shnum * sizeof *sh);
  if (!sh || !full_pread(fd, sh, eh.e_shnum * sizeof *sh, eh.e_shoff)) {
    free(sh);
    close(fd);
    return;
  }
  const Elf64_Shdr *sym = NULL, *str = NULL;
  for (int i = 0; i < eh.e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_entsize == sizeof(Elf64_Sym) && sh[i].sh_link < eh.e_shnum) {
      sym = &sh[i];
      str = &sh[sh[i].sh_link];
      break;
    }
  if (!sym || str->sh_type != SHT_STRTAB || sym->sh_offset + sym->sh_size > (uint64_t)st.st_size ||
      str->sh_offset + str->sh_size > (uint64_t)st.st_size) {
    free(sh);
    close(fd);
    return;
  }
  size_t cap = 4096, n = 0;
  func *fs = malloc(cap * sizeof *fs);
  Elf64_Sym block[1024];
  uint64_t count = sym->sh_size / sizeof(Elf64_Sym);
  for (uint64_t i = 0; fs && i < count && n < FUNCS_MAX; i += 1024) {
    size_t k = count - i < 1024 ? (size_t)(count - i) : 1024;
    if (!full_pread(fd, block, k * sizeof *block, sym->sh_offset + i * sizeof *block)) break;
    for (size_t j = 0; j < k; j++) {
      const Elf64_Sym *s = &block[j];
      if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF || !s->st_size || s->st_value > UINT32_MAX ||
          s->st_size > UINT32_MAX || s->st_name >= str->sh_size)
        continue;
      if (n == cap) {
        func *g = realloc(fs, 2 * cap * sizeof *fs);
        if (!g) break;
        fs = g, cap *= 2;
      }
      fs[n++] = (func){(uint32_t)s->st_value, (uint32_t)s->st_size, s->st_name};
    }
  }
  if (!fs || !n) {
    free(fs);
    free(sh);
    close(fd);
    return;
  }
  func *fit = realloc(fs, n * sizeof *fs);
  if (fit) fs = fit;
  qsort(fs, n, sizeof *fs, by_start);
  l->funcs = fs, l->nfuncs = n, l->fd = fd;
  l->strtab = str->sh_offset, l->strsize = str->sh_size;
  free(sh);
}

int elfsym_name(const char *path, uintptr_t base, uintptr_t pc, char *buf, size_t n) {
  if (!path || !*path || n < 2 || pc < base) return 0;
  lib *l = NULL;
  for (int i = 0; i < nlibs && !l; i++)
    if (libs[i].base == base && !strcmp(libs[i].path, path)) l = &libs[i];
  if (!l) {
    if (nlibs == LIBS) return 0;
    l = &libs[nlibs];
    memset(l, 0, sizeof *l);
    l->fd = -1;
    if (!(l->path = strdup(path))) return 0;
    l->base = base;
    nlibs++;
    load(l);
  }
  if (l->fd < 0 || pc - base > UINT32_MAX) return 0;
  uint32_t rel = (uint32_t)(pc - base);
  size_t lo = 0, hi = l->nfuncs;   // the first function that starts after rel
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (l->funcs[mid].start <= rel) lo = mid + 1;
    else hi = mid;
  }
  if (!lo) return 0;
  const func *f = &l->funcs[lo - 1];
  if (rel - f->start >= f->size) return 0;
  size_t want = l->strsize - f->name < n - 1 ? (size_t)(l->strsize - f->name) : n - 1;
  ssize_t r = pread(l->fd, buf, want, (off_t)(l->strtab + f->name));
  if (r <= 0) return 0;
  buf[r] = 0;
  return buf[0] != 0;
}

void elfsym_reset(void) {
  for (int i = 0; i < nlibs; i++) {
    free(libs[i].path);
    free(libs[i].funcs);
    if (libs[i].fd >= 0) close(libs[i].fd);
  }
  memset(libs, 0, sizeof libs);
  nlibs = 0;
}
