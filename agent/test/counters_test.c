// counters.c: counts from many threads add up exactly, the per-kind counts,
// which counters .info lists, and the facts (order, repeats, one line each).
#include <pthread.h>
#include <string.h>
#include "../core/counters.h"
#include "check.h"

#define ADDERS 4
#define ADDS 100000

static void *adder(void *arg) {
  (void)arg;
  for (int i = 0; i < ADDS; i++) {
    counter_add(CNT_OWNER_UNKNOWN, 1);
    counter_kind_add(KC_DROPPED, ORCA_EV_OBJECT_WAIT, 1);
  }
  return NULL;
}

typedef struct {
  char text[1024];
  int n;
} props_t;

static void collect(const char *key, const char *value, void *arg) {
  props_t *p = arg;
  size_t len = strlen(p->text);
  snprintf(p->text + len, sizeof p->text - len, "%s=%s;", key, value);
  p->n++;
}

void test_counters(void) {
  test_name = "counters";
  counters_reset();
  pthread_t t[ADDERS];
  for (int i = 0; i < ADDERS; i++) pthread_create(&t[i], NULL, adder, NULL);
  for (int i = 0; i < ADDERS; i++) pthread_join(t[i], NULL);
  CHECK(counter_get(CNT_OWNER_UNKNOWN) == ADDERS * ADDS, "owner_unknown %ld, want %d", counter_get(CNT_OWNER_UNKNOWN),
        ADDERS * ADDS);
  CHECK(counter_kind_get(KC_DROPPED, ORCA_EV_OBJECT_WAIT) == ADDERS * ADDS, "dropped.ObjectWait %ld",
        counter_kind_get(KC_DROPPED, ORCA_EV_OBJECT_WAIT));
  // Kinds out of range are ignored, not written past the table.
  counter_kind_add(KC_DROPPED, 0, 1);
  counter_kind_add(KC_DROPPED, ORCA_EV_COUNT, 1);
  CHECK(counter_kind_get(KC_DROPPED, 0) == 0, "kind 0 counted");

  // Every counter has an ORCA_INFO_ key and a rule for when it is listed.
  for (int c = 0; c < CNT_COUNT; c++) {
    CHECK(counter_specs[c].key && counter_specs[c].key[0], "counter %d has no key", c);
    CHECK(counter_specs[c].when != CNT_WITH_PREV || (c > 0 && counter_specs[c - 1].when == CNT_PAIRED),
          "counter %s is listed with a previous one that is not CNT_PAIRED", counter_specs[c].key);
  }
  CHECK(!strcmp(counter_specs[CNT_HOTSPOT_FAULTS].key, "hotspot.faults"), "hotspot.faults key: %s",
        counter_specs[CNT_HOTSPOT_FAULTS].key);
  CHECK(!strcmp(kind_counter_prefix[KC_DROPPED], "dropped."), "dropped. prefix: %s", kind_counter_prefix[KC_DROPPED]);
  CHECK(!counters_shown(CNT_VIRTUAL_THREADS), "virtual_threads shown before counters_show");
  counters_show(CNT_VIRTUAL_THREADS);
  CHECK(counters_shown(CNT_VIRTUAL_THREADS), "virtual_threads not shown after counters_show");

  // Facts keep their order, repeated keys, and one line each.
  counters_prop(ORCA_INFO_WARNING, "first");
  counters_prop(ORCA_INFO_HOTSPOT_WALKER, "yes");
  counters_prop(ORCA_INFO_WARNING, "two\nlines\r");
  counters_prop(ORCA_INFO_JAVA_VM, NULL);
  props_t p = {"", 0};
  counters_props(collect, &p);
  CHECK(p.n == 4 && !strcmp(p.text, "warning=first;hotspot.walker=yes;warning=two lines ;java_vm=;"), "facts: %d: %s",
        p.n, p.text);
  counters_reset();
  p.text[0] = 0;
  p.n = 0;
  counters_props(collect, &p);
  CHECK(p.n == 0 && counter_get(CNT_OWNER_UNKNOWN) == 0 && !counters_shown(CNT_VIRTUAL_THREADS),
        "after reset: %d facts, owner_unknown %ld", p.n, counter_get(CNT_OWNER_UNKNOWN));
}
