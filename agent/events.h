// Code generated from internal/format/events.go by `make gen`; DO NOT EDIT.
#ifndef ORCA_EVENTS_H
#define ORCA_EVENTS_H

// Fields of an event line after the timestamp and the name, in this order.
#define ORCA_F_THREAD 0x01
#define ORCA_F_OBJECT 0x02
#define ORCA_F_TARGET 0x04
#define ORCA_F_OWNER 0x08
#define ORCA_F_NAME 0x10
#define ORCA_F_STACK 0x20

enum orca_event {
  ORCA_EV_NONE = 0,
  ORCA_EV_OBJECT_WAIT = 1,
  ORCA_EV_OBJECT_WAITED = 2,
  ORCA_EV_OBJECT_NOTIFY = 3,
  ORCA_EV_OBJECT_NOTIFY_ALL = 4,
  ORCA_EV_THREAD_START = 5,
  ORCA_EV_THREAD_JOIN = 6,
  ORCA_EV_THREAD_JOINED = 7,
  ORCA_EV_THREAD_SLEEP = 8,
  ORCA_EV_THREAD_SLEPT = 9,
  ORCA_EV_SEMAPHORE_ACQUIRE = 10,
  ORCA_EV_SEMAPHORE_ACQUIRED = 11,
  ORCA_EV_SEMAPHORE_RELEASE = 12,
  ORCA_EV_MONITOR_CONTENDED_ENTER = 13,
  ORCA_EV_MONITOR_CONTENDED_ENTERED = 14,
  ORCA_EV_THREAD_STARTED = 15,
  ORCA_EV_THREAD_ENDED = 16,
  ORCA_EV_COUNT = 17
};

typedef struct { const char *name; unsigned fields; } orca_event_spec;

static const orca_event_spec orca_events[ORCA_EV_COUNT] = {
  {"", 0},
  {"ObjectWait", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"ObjectWaited", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"ObjectNotify", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"ObjectNotifyAll", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"ThreadStart", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK},
  {"ThreadJoin", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK},
  {"ThreadJoined", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK},
  {"ThreadSleep", ORCA_F_THREAD | ORCA_F_STACK},
  {"ThreadSlept", ORCA_F_THREAD | ORCA_F_STACK},
  {"SemaphoreAcquire", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"SemaphoreAcquired", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"SemaphoreRelease", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"MonitorContendedEnter", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_OWNER | ORCA_F_STACK},
  {"MonitorContendedEntered", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK},
  {"ThreadStarted", ORCA_F_THREAD | ORCA_F_NAME},
  {"ThreadEnded", ORCA_F_THREAD},
};

#endif
