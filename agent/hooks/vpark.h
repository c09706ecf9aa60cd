// A virtual thread (JDK 21+) parks and sleeps by yielding its carrier in
// java.lang.VirtualThread.park(), parkNanos(long) and sleepNanos(long), not
// in Unsafe.park: those methods, unpark() and start(ThreadContainer) are
// rewritten at class load (inject.c, inplace.c) and their hook writes the
// virtual thread's ThreadPark/ThreadUnparked, ThreadSleep/ThreadSlept, the
// unparker's ThreadUnpark and the starter's ThreadStart. A park that cannot yield (pinned) then parks the carrier in
// Unsafe.park, where park.c writes VirtualThreadPinned.
#ifndef ORCA_VPARK_H
#define ORCA_VPARK_H
#include "hooks/classfile.h"
#include "record/ring.h"

// A virtual thread's part of its state (threads.h): the open park or sleep
// (nested calls, sleepNanos calling parkNanos, are part of it).
typedef struct vpark_tstate {
  int depth;
  int kind;   // ORCA_EV_THREAD_PARK or ORCA_EV_THREAD_SLEEP
  int rec;    // the recording it began in (threads_recording): its end is written in that one only
  uint32_t blocker;
  int64_t timeout, t0;   // a park's timeout (-1: none, or unknown) and start
  int n;
  orca_frame frames[];   // opt.depth
} vpark_tstate;

// vpark_specs: the methods of java.lang.VirtualThread to wrap (n of them).
#endif
