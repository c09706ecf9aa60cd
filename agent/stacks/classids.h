// Class ids for .classtable and .methods (issue 30, item 4a). The manual's
// class id is the identity hash of the java.lang.Class, but two classes can
// share one: on JDK 17 the CDS archive's mirrors carry the hashes the
// dumping JVM gave them, which the application's first hashes repeat, and a
// class known by its hash alone named another class in every stack. The
// table tells classes apart by the class itself (a reference the caller
// makes and compares: a JNI weak global reference), and gives each its id:
// its identity hash when no class before it in the recording had that hash
// (always, but for a collision), else CLASSIDS_ALIAS | n (n = 1, 2, ...),
// which no identity hash is (HotSpot's have 31 bits). A leaf: the caller
// serializes its calls.
#ifndef ORCA_CLASSIDS_H
#define ORCA_CLASSIDS_H
#include <stdint.h>

#define CLASSIDS_ALIAS 0x80000000u

// How the table keeps and compares classes (JNI in the agent, pointers in
// the unit test).
typedef struct {
  // keep returns a reference to cls that outlives the call (NULL: none).
  void *(*keep)(void *ctx, void *cls);
  // same: ref (from keep) refers to cls (a class unloaded since is no class).
  int (*same)(void *ctx, void *ref, void *cls);
  // drop releases ref.
  void (*drop)(void *ctx, void *ref);
  void *ctx;
} classids_ops;

typedef struct {
  uint32_t hash, id;   // hash 0: a free slot
  void *ref;
} classids_slot;

typedef struct {
  classids_slot *slots;
  uint32_t mask, used, aliases;
} classids;

// classids_init allocates a table of 2^bits slots; NULL or an error.
const char *classids_init(classids *t, unsigned bits);
// classids_get returns the id of the class cls whose identity hash is h and
// sets *fresh when the class is new to the table (its .classtable line is
// to be written). 0 (and *fresh 0) when h is 0 or the table is full (3/4 of
// its slots): the class cannot be told apart from another, and is not named.
uint32_t classids_get(classids *t, const classids_ops *ops, uint32_t h, void *cls, int *fresh);
// classids_clear forgets every class (a new recording): ids are given anew.
void classids_clear(classids *t, const classids_ops *ops);
#endif
