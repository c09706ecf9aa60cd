// A minimal class-file rewriter: renames chosen methods to orca$NAME
// (private) and adds in their place a wrapper with the original name that
// calls a static native hook `orca$hook(int op, Object this)` before and
// after delegating (or, before, `orca$hookJ(int op, Object this, long
// arg)` with the method's first argument: wrap_spec.arg). Only whole new methods are generated, so no existing
// bytecode, branch offset or stack map is touched. The renamed methods and
// the hook carry @jdk.internal.vm.annotation.Hidden, so Throwable,
// StackWalker and JFR stacks leave them out (docs/agent.md).
#ifndef ORCA_CLASSFILE_H
#define ORCA_CLASSFILE_H
#include <stddef.h>

enum { HOOK_ENTER = 0, HOOK_EXIT = 1, HOOK_THROW = 2, HOOK_ONCE = 3 };
// The hook's op is HOOK_* + HOOK_TAG * the spec's tag (so one hook tells
// the wrapped methods of its class apart): HOOK_OP(op) and HOOK_TAG_OF(op).
#define HOOK_TAG 4
#define HOOK_OP(op) ((op) % HOOK_TAG)
#define HOOK_TAG_OF(op) ((op) / HOOK_TAG)

typedef struct {
  const char *name, *desc;
  int pair;    // 1: ENTER then EXIT/THROW around the call; 0: ONCE before it
  int tag;     // 0..30, added to the hook's op as HOOK_TAG * tag
  int arg;     // 1: the method's first argument is a long, which the ENTER
               // hook gets too: `orca$hookJ(int op, Object this, long arg)`
} wrap_spec;

// classfile_wrap returns NULL and a malloc'd new class in *out, or an error.
const char *classfile_wrap(const unsigned char *in, size_t len, const wrap_spec *specs, int nspecs,
                           unsigned char **out, size_t *out_len, int *wrapped);
#endif
