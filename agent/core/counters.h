// Counters and properties of PREFIX.info, in one leaf module: every module
// counts here (a relaxed atomic add: the counters are only read by the
// writer, which formats them into .info) and states its facts here
// (counters_prop: key -> value, e.g. hotspot.walker, warning). It depends on
// the generated events.h only, so any module may include it
// without tangling with the writer. Every key is an ORCA_INFO_* macro from
// events.h (internal/format/info.go is the source).
#ifndef ORCA_COUNTERS_H
#define ORCA_COUNTERS_H
#include <stdatomic.h>
#include "core/events.h"

// The counters, in the order .info lists them.
enum orca_counter {
  CNT_DROPPED_AT_EXIT,      // taken from the rings, not written by the end of the exit budget
  CNT_DROPPED_AFTER_CUT,    // not written after a failed write cut the recording
  CNT_WRITTEN_EARLY,        // written before a deferred record's cutoff (carry budget)
  CNT_WRITTEN_LATE,         // event lines written after a later one of an earlier flush
  CNT_WRITES,               // the writer's flushes that wrote records
  CNT_OWNER_UNKNOWN,        // contended enters whose owner the VM no longer knew
  CNT_OWNER_RELEASED,       // of those: _owner empty (released just before)
  CNT_OWNER_ANONYMOUS,      // anonymous, on no thread's lock stack
  CNT_OWNER_NOT_IN_TABLE,   // a thread not in the owner table
  CNT_OWNER_UNREADABLE,     // no pending monitor, a failed read, the deflater's marker
  CNT_OWNER_BEFORE_EVENTS,  // the thread blocked before the events were on
  CNT_SUPPRESSED_WAITS,     // waits inside Thread.join
  CNT_METHODS,              // .methods lines
  CNT_CLASSES,              // .classtable lines
  CNT_VIRTUAL_THREADS,      // virtual threads started (shown once VirtualThreadStart is on)
  CNT_OWNER_TABLE_FULL,     // threads that found no place in the owner table
  CNT_OWNER_UNLOCKING,      // anonymous owners named by the entry just above a lock stack's top
  CNT_THREAD_KEYS_FULL,     // threads named by their hash alone: the table of thread keys was full
  CNT_OWN_STACKS_BY_JVMTI,  // own-thread stacks that fell back to GetStackTrace
  CNT_HOTSPOT_FAULTS,       // faults recovered in reads of VM memory
  CNT_HOTSPOT_WALK_FAULTS,  // of those, stack walks ended by a fault
  CNT_HOTSPOT_HELD_FAULTS,  // of those, held monitors' walks ended by a fault
  CNT_SAMPLES_UNWOUND,      // samples AsyncGetCallTrace walked from the caller of a prolog, epilog or stub
  CNT_SAMPLES_NATIVE_ONLY,  // samples written with their native frames alone
  CNT_SAMPLES_ASGCT,        // samples in Java code the own walker left to AsyncGetCallTrace
  CNT_SAMPLE_FRAMES_INVALID,   // sample frames whose walked jmethodID the JVM did not make
  CNT_VERIFIED_STACKS,      // ORCA_VERIFY_STACKS: walks compared
  CNT_VERIFIED_STACKS_DIFFER,
  CNT_ENTERED_BY_TIMER,     // Entered times read from HotSpot's timer
  CNT_ENTERED_LATE,         // Entered times taken when found ended (timer reset)
  CNT_ENTERED_LOST,         // Entered callbacks that never came
  CNT_VERIFIED_ENTERED,     // ORCA_VERIFY_ENTERED: callbacks compared with the timer
  CNT_VERIFIED_ENTERED_AFTER,
  CNT_VERIFIED_ENTERED_SLOW,
  CNT_BOUNDED_WAITS,        // an application thread's waits that hit their bound (docs/agent.md)
  CNT_WAITS_WITHOUT_STACK,  // ObjectWait lines the walker or the writer wrote without a stack
  CNT_METADATA_DROPPED,     // .methods/.classtable lines lost (no memory)
  CNT_METHODS_UNLOADED,     // .methods lines "(unloaded)": the class unloaded before the writer named the method
  CNT_WRITE_ERRORS,         // failed writes
  CNT_ATTACHED_MISSED,      // objects unnamed for a capability HotSpot offers only at start-up
  CNT_UNREAD_AT_ATTACH,     // threads on a monitor at the attach whose monitor could not be read: no state written
  CNT_HELD_UNREAD,          // contended enters whose held monitors JVMTI did not give
  CNT_HELD_SKIPPED,         // contended enters whose monitor was free again: held monitors not asked
  CNT_HELD_RETIMED,         // contended enters timed after a held-monitors read that may have waited, the monitor changed hands
  CNT_HELD_DROPPED,         // contended enters whose held monitors were not taken while the thread blocked
  CNT_HELD_READ,            // contended enters whose held monitors were read from the thread's frames
  CNT_HELD_ASKED,           // contended enters whose held monitors JVMTI was asked for
  CNT_HELD_VIRTUAL_READ,    // of CNT_HELD_READ, virtual threads' enters
  CNT_HELD_VIRTUAL_ASKED,   // of CNT_HELD_ASKED, virtual threads' enters
  CNT_HELD_JNI,             // of CNT_HELD_ASKED, enters of a thread holding a monitor entered through JNI
  CNT_HELD_LOCKS_LOST,      // j.u.c. acquires of a thread whose list of locks held was full
  CNT_COUNT
};

// When a counter is listed in .info.
enum {
  CNT_ALWAYS,    // always
  CNT_NONZERO,   // when not 0
  CNT_SHOWN,     // once counters_show was called for it (or when not 0)
  CNT_PAIRED,    // with the next one (CNT_WITH_PREV), when either is not 0
  CNT_WITH_PREV,
};

typedef struct {
  const char *key;   // an ORCA_INFO_* macro
  int when;
} counter_spec;

extern const counter_spec counter_specs[CNT_COUNT];
extern atomic_long orca_counters[CNT_COUNT];

// Counters per event kind: events.KIND (lines written), dropped.KIND
// (events not written: ring full, no shard free, exit deadline, failed
// write), unattributed.KIND (events of virtual threads, counted only).
enum { KC_EVENTS, KC_DROPPED, KC_UNATTRIBUTED, KC_COUNT };
extern atomic_long orca_kind_counters[KC_COUNT][ORCA_EV_COUNT];
extern const char *const kind_counter_prefix[KC_COUNT];

// Relaxed: a count is a statistic, never a synchronisation, and these run
// in callbacks (a lock-free add; inlined: also from the orca_safe section).
static inline void counter_add(int c, long n) {
  atomic_fetch_add_explicit(&orca_counters[c], n, memory_order_relaxed);
}
static inline long counter_get(int c) { return atomic_load_explicit(&orca_counters[c], memory_order_relaxed); }
static inline void counter_kind_add(int which, int kind, long n) {
  if (kind > 0 && kind < ORCA_EV_COUNT)
    atomic_fetch_add_explicit(&orca_kind_counters[which][kind], n, memory_order_relaxed);
}
static inline long counter_kind_get(int which, int kind) {
  return atomic_load_explicit(&orca_kind_counters[which][kind], memory_order_relaxed);
}

// counters_show lists a CNT_SHOWN or CNT_PAIRED counter from now on, even at 0.
void counters_show(int c);
int counters_shown(int c);

// counters_prop records a fact for .info (copied; a value is kept on one
// line); repeated keys are kept (ORCA_INFO_WARNING). Not for hot paths: it
// takes a mutex and allocates.
void counters_prop(const char *key, const char *value);
// counters_prop_set records a fact, replacing the value of key if it has
// one (a count restated at each flush: samples.cpu).
void counters_prop_set(const char *key, const char *value);
// counters_props calls fn on each fact in order, holding the mutex.
void counters_props(void (*fn)(const char *key, const char *value, void *arg), void *arg);
// counters_reset forgets every count and fact (unit tests).
void counters_reset(void);
// counters_source adds read() to counter c's value in .info: a module below
// this one's users that counts on its own (hotspot/safe.h's faults, counted
// in a signal handler) is read when the writer formats .info.
void counters_source(int c, long (*read)(void));
// counters_value is c's value for .info: its count and its source's.
long counters_value(int c);
#endif
