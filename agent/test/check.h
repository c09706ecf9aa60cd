// A minimal test harness for the agent's C code (make agent-test): each
// CHECK prints a line only when it fails, and main prints
// "agent unit tests: N passed, N failed" for the CI to read.
#ifndef ORCA_TEST_CHECK_H
#define ORCA_TEST_CHECK_H
#include <stdio.h>

extern int test_passed, test_failed;
extern const char *test_name;

#define CHECK(cond, ...)                                                   \
  do {                                                                     \
    if (cond) {                                                            \
      test_passed++;                                                       \
    } else {                                                               \
      test_failed++;                                                       \
      printf("FAIL %s (%s:%d): %s: ", test_name, __FILE__, __LINE__, #cond); \
      printf(__VA_ARGS__);                                                 \
      printf("\n");                                                        \
    }                                                                      \
  } while (0)

// run_java_checks runs cmd (a java program that prints "ok ..." for each
// check it passed and anything else for one that failed), counts its ok
// lines as passed checks and fails one CHECK per other line; returns its
// exit status (-1: not run).
int run_java_checks(const char *cmd, int *oks, int *lines);

// slurp_file returns a file's bytes in a buffer of their exact size (NULL
// if it cannot be read or is empty), *len of them.
unsigned char *slurp_file(const char *path, size_t *len);

// The suites, one per file.
void test_classfile(const char *dir, const char *java_home);
void test_inplace(const char *dir, const char *java_home);
void test_cffuzz(const char *dir, const char *java_home);
void test_clock(void);
void clock_test_rate(double r);
void test_tcpu(void);
void test_idset(void);
void test_writer(const char *dir);
void test_writer_formats(const char *dir);
void test_writer_planted(const char *dir);
void test_lease(const char *dir);
void test_compact(void);
void test_counters(void);
void test_ring(void);
void test_ring_threads(void);
void test_pending(void);
void test_classids(void);
void test_tkeys(void);
void test_sring(void);
#endif
