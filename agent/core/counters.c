#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "core/counters.h"

const counter_spec counter_specs[CNT_COUNT] = {
    [CNT_DROPPED_AT_EXIT] = {ORCA_INFO_DROPPED_AT_EXIT, CNT_ALWAYS},
    [CNT_DROPPED_AFTER_CUT] = {ORCA_INFO_DROPPED_AFTER_CUT, CNT_NONZERO},
    [CNT_WRITTEN_EARLY] = {ORCA_INFO_WRITTEN_EARLY, CNT_NONZERO},
    [CNT_WRITTEN_LATE] = {ORCA_INFO_WRITTEN_LATE, CNT_NONZERO},
    [CNT_WRITES] = {ORCA_INFO_WRITES, CNT_ALWAYS},
    [CNT_OWNER_UNKNOWN] = {ORCA_INFO_OWNER_UNKNOWN, CNT_ALWAYS},
    [CNT_OWNER_RELEASED] = {ORCA_INFO_OWNER_UNKNOWN_RELEASED, CNT_NONZERO},
    [CNT_OWNER_ANONYMOUS] = {ORCA_INFO_OWNER_UNKNOWN_ANONYMOUS, CNT_NONZERO},
    [CNT_OWNER_NOT_IN_TABLE] = {ORCA_INFO_OWNER_UNKNOWN_NOT_IN_TABLE, CNT_NONZERO},
    [CNT_OWNER_UNREADABLE] = {ORCA_INFO_OWNER_UNKNOWN_UNREADABLE, CNT_NONZERO},
    [CNT_OWNER_BEFORE_EVENTS] = {ORCA_INFO_OWNER_UNKNOWN_BEFORE_EVENTS, CNT_NONZERO},
    [CNT_SUPPRESSED_WAITS] = {ORCA_INFO_SUPPRESSED_WAITS, CNT_ALWAYS},
    [CNT_METHODS] = {ORCA_INFO_METHODS, CNT_ALWAYS},
    [CNT_CLASSES] = {ORCA_INFO_CLASSES, CNT_ALWAYS},
    [CNT_VIRTUAL_THREADS] = {ORCA_INFO_VIRTUAL_THREADS, CNT_SHOWN},
    [CNT_OWNER_TABLE_FULL] = {ORCA_INFO_OWNER_TABLE_FULL, CNT_NONZERO},
    [CNT_OWNER_UNLOCKING] = {ORCA_INFO_OWNER_UNLOCKING, CNT_NONZERO},
    [CNT_THREAD_KEYS_FULL] = {ORCA_INFO_THREAD_KEYS_FULL, CNT_NONZERO},
    [CNT_OWN_STACKS_BY_JVMTI] = {ORCA_INFO_OWN_STACKS_BY_JVMTI, CNT_ALWAYS},
    [CNT_HOTSPOT_FAULTS] = {ORCA_INFO_HOTSPOT_FAULTS, CNT_ALWAYS},
    [CNT_HOTSPOT_WALK_FAULTS] = {ORCA_INFO_HOTSPOT_WALK_FAULTS, CNT_ALWAYS},
    [CNT_HOTSPOT_HELD_FAULTS] = {ORCA_INFO_HOTSPOT_HELD_WALK_FAULTS, CNT_NONZERO},
    [CNT_SAMPLES_UNWOUND] = {ORCA_INFO_HOTSPOT_SAMPLES_UNWOUND, CNT_NONZERO},
    [CNT_SAMPLES_ASGCT] = {ORCA_INFO_HOTSPOT_SAMPLES_ASGCT, CNT_NONZERO},
    [CNT_SAMPLE_FRAMES_INVALID] = {ORCA_INFO_HOTSPOT_SAMPLE_FRAMES_INVALID, CNT_NONZERO},
    [CNT_SAMPLES_NATIVE_ONLY] = {ORCA_INFO_HOTSPOT_SAMPLES_NATIVE_ONLY, CNT_NONZERO},
    [CNT_VERIFIED_STACKS] = {ORCA_INFO_VERIFIED_STACKS, CNT_PAIRED},
    [CNT_VERIFIED_STACKS_DIFFER] = {ORCA_INFO_VERIFIED_STACKS_DIFFER, CNT_WITH_PREV},
    [CNT_ENTERED_BY_TIMER] = {ORCA_INFO_ENTERED_BY_TIMER, CNT_ALWAYS},
    [CNT_ENTERED_LATE] = {ORCA_INFO_ENTERED_LATE, CNT_ALWAYS},
    [CNT_ENTERED_LOST] = {ORCA_INFO_ENTERED_LOST, CNT_ALWAYS},
    [CNT_VERIFIED_ENTERED] = {ORCA_INFO_VERIFIED_ENTERED, CNT_SHOWN},
    [CNT_VERIFIED_ENTERED_AFTER] = {ORCA_INFO_VERIFIED_ENTERED_AFTER, CNT_SHOWN},
    [CNT_VERIFIED_ENTERED_SLOW] = {ORCA_INFO_VERIFIED_ENTERED_SLOW, CNT_SHOWN},
    [CNT_BOUNDED_WAITS] = {ORCA_INFO_BOUNDED_WAITS, CNT_NONZERO},
    [CNT_WAITS_WITHOUT_STACK] = {ORCA_INFO_WAITS_WITHOUT_STACK, CNT_NONZERO},
    [CNT_METADATA_DROPPED] = {ORCA_INFO_METADATA_DROPPED, CNT_NONZERO},
    [CNT_METHODS_UNLOADED] = {ORCA_INFO_METHODS_UNLOADED, CNT_NONZERO},
    [CNT_WRITE_ERRORS] = {ORCA_INFO_WRITE_ERRORS, CNT_NONZERO},
    [CNT_ATTACHED_MISSED] = {ORCA_INFO_ATTACHED_MISSED, CNT_NONZERO},
    [CNT_UNREAD_AT_ATTACH] = {ORCA_INFO_MONITOR_UNREAD_AT_ATTACH, CNT_NONZERO},
    [CNT_HELD_UNREAD] = {ORCA_INFO_HELD_MONITORS_UNREAD, CNT_NONZERO},
    [CNT_HELD_SKIPPED] = {ORCA_INFO_HELD_MONITORS_SKIPPED, CNT_NONZERO},
    [CNT_HELD_RETIMED] = {ORCA_INFO_HELD_MONITORS_RETIMED, CNT_NONZERO},
    [CNT_HELD_READ] = {ORCA_INFO_HELD_MONITORS_READ, CNT_NONZERO},
    [CNT_HELD_ASKED] = {ORCA_INFO_HELD_MONITORS_ASKED, CNT_NONZERO},
    [CNT_HELD_VIRTUAL_READ] = {ORCA_INFO_HELD_MONITORS_VIRTUAL_READ, CNT_NONZERO},
    [CNT_HELD_VIRTUAL_ASKED] = {ORCA_INFO_HELD_MONITORS_VIRTUAL_ASKED, CNT_NONZERO},
    [CNT_HELD_JNI] = {ORCA_INFO_HELD_MONITORS_JNI, CNT_NONZERO},
    [CNT_HELD_DROPPED] = {ORCA_INFO_HELD_MONITORS_DROPPED, CNT_NONZERO},
    [CNT_HELD_LOCKS_LOST] = {ORCA_INFO_HELD_LOCKS_LOST, CNT_NONZERO},
};

const char *const kind_counter_prefix[KC_COUNT] = {
    [KC_EVENTS] = ORCA_INFO_EVENTS_PREFIX,
    [KC_DROPPED] = ORCA_INFO_DROPPED_PREFIX,
    [KC_UNATTRIBUTED] = ORCA_INFO_UNATTRIBUTED_PREFIX,
};

atomic_long orca_counters[CNT_COUNT];
atomic_long orca_kind_counters[KC_COUNT][ORCA_EV_COUNT];
static atomic_int shown[CNT_COUNT];

void counters_show(int c) {
  if (c >= 0 && c < CNT_COUNT) atomic_store(&shown[c], 1);
}

int counters_shown(int c) { return c >= 0 && c < CNT_COUNT && atomic_load(&shown[c]); }

#define MAX_PROPS 96
static struct { char *key, *value; } props[MAX_PROPS];
static int nprops;
static pthread_mutex_t props_mu = PTHREAD_MUTEX_INITIALIZER;

static void put_prop(const char *key, const char *value, int replace) {
  pthread_mutex_lock(&props_mu);
  for (int i = 0; replace && i < nprops; i++) {
    char *v;
    if (strcmp(props[i].key, key) || !(v = strdup(value ? value : ""))) continue;
    free(props[i].value);
    props[i].value = v;
    pthread_mutex_unlock(&props_mu);
    return;
  }
  if (nprops < MAX_PROPS) {
    char *k = strdup(key), *v = strdup(value ? value : "");
    if (k && v) {
      // .info is line-based: keep values on one line.
      for (char *p = v; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
      props[nprops].key = k;
      props[nprops].value = v;
      nprops++;
    } else {
      free(k);
      free(v);
    }
  }
  pthread_mutex_unlock(&props_mu);
}

void counters_prop(const char *key, const char *value) { put_prop(key, value, 0); }

void counters_prop_set(const char *key, const char *value) { put_prop(key, value, 1); }

void counters_props(void (*fn)(const char *key, const char *value, void *arg), void *arg) {
  pthread_mutex_lock(&props_mu);
  for (int i = 0; i < nprops; i++) fn(props[i].key, props[i].value, arg);
  pthread_mutex_unlock(&props_mu);
}

void counters_reset(void) {
  pthread_mutex_lock(&props_mu);
  for (int i = 0; i < nprops; i++) {
    free(props[i].key);
    free(props[i].value);
  }
  nprops = 0;
  pthread_mutex_unlock(&props_mu);
  for (int c = 0; c < CNT_COUNT; c++) {
    atomic_store(&orca_counters[c], 0);
    atomic_store(&shown[c], 0);
  }
  for (int w = 0; w < KC_COUNT; w++)
    for (int k = 0; k < ORCA_EV_COUNT; k++) atomic_store(&orca_kind_counters[w][k], 0);
}

static long (*sources[CNT_COUNT])(void);

void counters_source(int c, long (*read)(void)) { sources[c] = read; }

long counters_value(int c) { return counter_get(c) + (sources[c] ? sources[c]() : 0); }
