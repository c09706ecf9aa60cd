// The live form of classfile.c's wrappers (issue 24): a class already
// loaded when the agent attaches cannot get new methods (RetransformClasses
// changes bodies only), so each chosen method's own body is rewritten in
// place: a call of a static native hook at its entry, one before each
// return, and a catch-all handler at its end that calls it and rethrows
// (the same ENTER, EXIT, THROW and ONCE ops as the wrappers). The hooks are
// the static natives of a class of native declarations only, defined by the
// agent (classfile_hook_class). Branch offsets, switch padding, the
// exception table, the StackMapTable and the line and local-variable tables
// follow the inserted code; other attributes of a rewritten Code attribute
// (type annotations on its instructions) are dropped.
#ifndef ORCA_INPLACE_H
#define ORCA_INPLACE_H
#include <stddef.h>
#include "hooks/classfile.h"

typedef struct {
  const char *cls;     // the hook class, "jdk/internal/misc/OrcaHooks"
  const char *name;    // its static native (ILjava/lang/Object;)V
  const char *nameJ;   // and (ILjava/lang/Object;J)V, for a spec with arg (or NULL)
} inplace_hook;

// classfile_inplace returns NULL and a malloc'd new class in *out (NULL
// when no method was rewritten), or an error. *wrapped counts the methods
// rewritten; a method that cannot be (jsr/ret, a branch that no longer
// reaches, a body grown past 64 KB) is left as it was, counted in *skipped. A spec with name NULL
// matches every method with code but constructors and static initialisers (a test aid: a static
// method's hooks get null for `this`).
const char *classfile_inplace(const unsigned char *in, size_t len, const wrap_spec *specs, int nspecs,
                              const inplace_hook *hook, unsigned char **out, size_t *out_len, int *wrapped,
                              int *skipped);

// classfile_hook_class returns NULL and a malloc'd class file in *out, or
// an error: public final class `name` (extends Object) with only public
// static native methods (methods: name, descriptor, ..., NULL), each
// @jdk.internal.vm.annotation.Hidden. No bytecode.
const char *classfile_hook_class(const char *name, const char *const *methods, unsigned char **out, size_t *out_len);
#endif
