// The class table (stacks/classids.c): two classes that share an identity
// hash (JDK 17's CDS archive and the application's first hashes: issue 30,
// item 4a) get ids of their own; the first keeps its hash as its id.
#include <stdint.h>
#include <stdlib.h>
#include "check.h"
#include "stacks/classids.h"

// A class is a pointer here; the agent's references are JNI weak ones.
static int kept, dropped;
static void *keep(void *ctx, void *cls) {
  (void)ctx;
  kept++;
  return cls;
}
static int same(void *ctx, void *ref, void *cls) {
  (void)ctx;
  return ref == cls;
}
static void drop(void *ctx, void *ref) {
  (void)ctx;
  (void)ref;
  dropped++;
}

void test_classids(void) {
  test_name = "classids";
  classids t;
  CHECK(classids_init(&t, 4) == NULL, "init");
  classids_ops ops = {keep, same, drop, NULL};
  char thread, app, app2, other;   // four classes: thread, app and app2 share a hash
  const uint32_t h = 0x33909752;   // java.lang.Thread's on JDK 17 (CDS)
  int fresh;
  uint32_t a = classids_get(&t, &ops, h, &thread, &fresh);
  CHECK(a == h && fresh, "the first class of a hash: id %08X fresh %d, want its hash, new", a, fresh);
  uint32_t b = classids_get(&t, &ops, h, &app, &fresh);
  CHECK(b == (CLASSIDS_ALIAS | 1) && fresh, "a second class of the hash: id %08X fresh %d, want 80000001, new", b, fresh);
  uint32_t c = classids_get(&t, &ops, h, &app2, &fresh);
  CHECK(c == (CLASSIDS_ALIAS | 2) && fresh, "a third: id %08X, want 80000002", c);
  uint32_t d = classids_get(&t, &ops, 0x251A69D7, &other, &fresh);
  CHECK(d == 0x251A69D7 && fresh, "another hash: id %08X, want its hash", d);
  // Asked again, in another order: the same ids, not new.
  CHECK(classids_get(&t, &ops, h, &app, &fresh) == b && !fresh, "the second again: %08X fresh %d", b, fresh);
  CHECK(classids_get(&t, &ops, h, &thread, &fresh) == a && !fresh, "the first again");
  CHECK(classids_get(&t, &ops, h, &app2, &fresh) == c && !fresh, "the third again");
  CHECK(classids_get(&t, &ops, 0, &other, &fresh) == 0 && !fresh, "hash 0: no id");
  CHECK(kept == 4, "references kept: %d, want 4", kept);
  // Full at 3/4 of 16 slots: the class is not named (id 0), never given another's id.
  static char many[16];
  int full = 0;
  for (int i = 0; i < 16; i++) {
    uint32_t id = classids_get(&t, &ops, 0x1000 + (uint32_t)i, &many[i], &fresh);
    if (!id) full++;
    else CHECK(id == 0x1000u + (uint32_t)i && fresh, "class %d: id %08X", i, id);
  }
  CHECK(full == 16 - (12 - 4), "classes refused when full: %d, want %d", full, 16 - 8);
  // A new recording: every class is new again, and the ids are given anew.
  classids_clear(&t, &ops);
  CHECK(dropped == 12, "references dropped: %d, want 12", dropped);
  CHECK(classids_get(&t, &ops, h, &app, &fresh) == h && fresh, "after a clear, the first class of the hash has it");
  CHECK(classids_get(&t, &ops, h, &thread, &fresh) == (CLASSIDS_ALIAS | 1) && fresh, "and the next an alias from 1");
  free(t.slots);
}
