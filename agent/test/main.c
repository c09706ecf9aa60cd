// The agent's C unit tests: class-file rewriting (inplace.c) and its fuzzing, the
// counter-to-nanosecond conversion (clock.c), the writer's ordering
// (writer.c), its refusal of names another user planted, and its two encodings (compact.c), the counters of .info (counters.c), the set of ids (idset.c), and the bounded waits of
// the rings (ring.c) and the deferred records (pending.c). Usage: unit WORKDIR JAVA_HOME (WORKDIR holds classes/, the
// compiled agent/test/*.java).
#include <stdlib.h>
#include <string.h>
#include "check.h"

int test_passed, test_failed;
const char *test_name = "";

int run_java_checks(const char *cmd, int *oks, int *lines) {
  FILE *p = popen(cmd, "r");
  char line[4096];
  *oks = *lines = 0;
  while (p && fgets(line, sizeof line, p)) {
    (*lines)++;
    line[strcspn(line, "\n")] = 0;
    if (!strncmp(line, "ok ", 3)) {
      (*oks)++;
      test_passed++;
    } else {
      CHECK(0, "%s: %s", cmd, line);
    }
  }
  return p ? pclose(p) : -1;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s WORKDIR JAVA_HOME\n", argv[0]);
    return 2;
  }
  test_classfile(argv[1], argv[2]);
  test_inplace(argv[1], argv[2]);
  test_cffuzz(argv[1], argv[2]);
  test_clock();
  test_writer(argv[1]);
  test_writer_formats(argv[1]);
  test_writer_planted(argv[1]);
  test_lease(argv[1]);
  test_compact();
  test_counters();
  test_ring();
  test_ring_threads();
  test_tcpu();
  test_pending();
  test_classids();
  test_tkeys();
  test_idset();
  test_sring();
  printf("agent unit tests: %d passed, %d failed\n", test_passed, test_failed);
  return test_failed ? 1 : 0;
}
