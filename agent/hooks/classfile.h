// What the class rewriter (inplace.h) hooks: the methods of a class, by name
// and descriptor, whose body calls a static native hook `(int op, Object
// this)` at its entry and exits (or, at the entry, `(int op, Object this,
// long arg)` with the method's first argument: wrap_spec.arg). Until issue
// 32 a second rewriter lived here, which wrapped the methods at load (renamed
// each to orca$NAME and added a wrapper); the one in place does both now
// (docs/agent.md, "One class rewriter").
#ifndef ORCA_CLASSFILE_H
#define ORCA_CLASSFILE_H
#include <stddef.h>

enum { HOOK_ENTER = 0, HOOK_EXIT = 1, HOOK_THROW = 2, HOOK_ONCE = 3 };
// HOOK_BIND: no call of a hooked method: the agent's own call of a hook, so
// that the JVM binds its native then (inject_bind_own); the hook returns.
enum { HOOK_BIND = -1 };
// The hook's op is HOOK_* + HOOK_TAG * the spec's tag (so one hook tells
// the wrapped methods of its class apart): HOOK_OP(op) and HOOK_TAG_OF(op).
#define HOOK_TAG 4
#define HOOK_OP(op) ((op) % HOOK_TAG)
#define HOOK_TAG_OF(op) ((op) / HOOK_TAG)

typedef struct {
  const char *name, *desc;
  int pair;    // 1: ENTER then EXIT/THROW around the call; 0: ONCE before it;
               // 2: EXIT alone, before each return (no entry call, no handler)
  int tag;     // 0..30, added to the hook's op as HOOK_TAG * tag
  int arg;     // 1: the method's first argument is a long, which the ENTER
               // hook gets too: `orca$hookJ(int op, Object this, long arg)`
  int ret;     // 1: the method returns an int or a boolean, which each EXIT
               // hook gets as its long: `orca$hookJ(op, this, (long)ret)`
} wrap_spec;
#endif
