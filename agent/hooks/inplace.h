// The class rewriter (issue 32: one, at load and at attach alike): each
// chosen method's own body is rewritten in place: a call of a static native
// hook at its entry, one before each return, and a catch-all handler at its
// end that calls it and rethrows (the ENTER, EXIT, THROW and ONCE ops of
// classfile.h). The hooks are either the class's own (at its first load: the
// rewrite declares them, `private static native orca$hook`, found by name in
// the agent's library) or the static natives of a class of native
// declarations only, defined by the agent (at an attach, issue 24:
// RetransformClasses cannot add methods; classfile_hook_class). Branch
// offsets, switch padding, the exception table, the StackMapTable and the
// line and local-variable tables follow the inserted code; other attributes
// of a rewritten Code attribute (type annotations on its instructions) are
// dropped.
#ifndef ORCA_INPLACE_H
#define ORCA_INPLACE_H
#include <stddef.h>
#include "hooks/classfile.h"

typedef struct {
  const char *cls;     // the hook class, "jdk/internal/misc/OrcaHooks"; NULL: the rewritten class's own
                       // natives, which the rewrite declares (private static native synthetic, @Hidden)
  const char *name;    // its static native (ILjava/lang/Object;)V
  const char *nameJ;   // and (ILjava/lang/Object;J)V, for a spec with arg (or NULL)
} inplace_hook;

// classfile_inplace returns NULL and a malloc'd new class in *out (NULL
// when no method was rewritten), or an error (*out NULL: the class is left
// as it was). A class that names the hook's class (or, for its own hooks,
// the hook's name) is rewritten already: an error. *wrapped counts the methods
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
