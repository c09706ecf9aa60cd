// Code generated from internal/format by `make gen`; DO NOT EDIT.
#ifndef ORCA_EVENTS_H
#define ORCA_EVENTS_H

// The format of the files (.info "format") and the agent's version ("agent_version").
#define ORCA_FORMAT "orca-1"
#define ORCA_VERSION "0.1.0"

// Fields of an event line after the timestamp and the name, in this order.
#define ORCA_F_THREAD 0x01
#define ORCA_F_OBJECT 0x02
#define ORCA_F_TARGET 0x04
#define ORCA_F_OWNER 0x08
#define ORCA_F_NAME 0x10
#define ORCA_F_STACK 0x20
#define ORCA_F_TIMEOUT 0x40
#define ORCA_F_HOW 0x80
#define ORCA_F_CLASS 0x100
#define ORCA_F_MODE 0x200
#define ORCA_F_SAMPLED 0x400
#define ORCA_F_WEIGHT 0x800
#define ORCA_F_CPU 0x1000
#define ORCA_F_READY 0x2000
#define ORCA_F_DEPTH 0x4000
#define ORCA_F_LOCK 0x8000
// ORCA_F_MODE: the record's mode byte, written as these words (a park's acquire mode).
#define ORCA_MODE_EXCLUSIVE 1
#define ORCA_MODE_SHARED 2
#define ORCA_MODE_NAMES {"", "exclusive", "shared"}
// ORCA_F_HOW: how a park ended, the words of the text encoding; the compact encoding writes the index.
#define ORCA_HOW_NAMES {"", "unparked", "timeout", "interrupted"}
// ORCA_F_SAMPLED: what a Sample is, the words of the text encoding; the compact encoding writes the index.
#define ORCA_SAMPLED_CPU 1
#define ORCA_SAMPLED_WALL 2
#define ORCA_SAMPLED_NAMES {"", "cpu", "wall"}
// The pseudo-class of native and VM frames in a sample's stack: "<native:libjvm.so>".
#define ORCA_NATIVE_CLASS_PREFIX "<native:"
// The fields written from a record's text bytes (at most one a kind, after the owner, before the stack).
#define ORCA_F_TEXT (ORCA_F_NAME | ORCA_F_TIMEOUT | ORCA_F_HOW | ORCA_F_CLASS | ORCA_F_DEPTH)
// The manual's kinds are 1..ORCA_EV_SEED (the agent's kinds=seed records only those).
#define ORCA_EV_SEED 16

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
  ORCA_EV_THREAD_PARK = 17,
  ORCA_EV_THREAD_UNPARKED = 18,
  ORCA_EV_THREAD_UNPARK = 19,
  ORCA_EV_OBJECT_CLASS = 20,
  ORCA_EV_VIRTUAL_THREAD_MOUNTED = 21,
  ORCA_EV_VIRTUAL_THREAD_PINNED = 22,
  ORCA_EV_MONITOR_OWNED = 23,
  ORCA_EV_CLASS_INIT_LOCK = 24,
  ORCA_EV_CLASS_INIT_WAITED = 25,
  ORCA_EV_OBJECT_WAIT_TIMEOUT = 26,
  ORCA_EV_SAMPLE = 27,
  ORCA_EV_THREAD_C_P_U = 28,
  ORCA_EV_MONITOR_HELD = 29,
  ORCA_EV_LOCK_HELD = 30,
  ORCA_EV_CONDITION_LOCK = 31,
  ORCA_EV_COUNT = 32
};

// end: the event that ends the interval this one begins (ObjectWait: ObjectWaited);
// begin: the event whose interval this one ends. ORCA_EV_NONE when there is none.
typedef struct {
  const char *name;
  unsigned fields;
  enum orca_event end, begin;
} orca_event_spec;

static const orca_event_spec orca_events[ORCA_EV_COUNT] = {
  {"", 0, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ObjectWait", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_OBJECT_WAITED, ORCA_EV_NONE},
  {"ObjectWaited", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_OBJECT_WAIT},
  {"ObjectNotify", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ObjectNotifyAll", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ThreadStart", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ThreadJoin", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK, ORCA_EV_THREAD_JOINED, ORCA_EV_NONE},
  {"ThreadJoined", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_THREAD_JOIN},
  {"ThreadSleep", ORCA_F_THREAD | ORCA_F_STACK, ORCA_EV_THREAD_SLEPT, ORCA_EV_NONE},
  {"ThreadSlept", ORCA_F_THREAD | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_THREAD_SLEEP},
  {"SemaphoreAcquire", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_SEMAPHORE_ACQUIRED, ORCA_EV_NONE},
  {"SemaphoreAcquired", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_SEMAPHORE_ACQUIRE},
  {"SemaphoreRelease", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"MonitorContendedEnter", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_OWNER | ORCA_F_STACK, ORCA_EV_MONITOR_CONTENDED_ENTERED, ORCA_EV_NONE},
  {"MonitorContendedEntered", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_MONITOR_CONTENDED_ENTER},
  {"ThreadStarted", ORCA_F_THREAD | ORCA_F_NAME, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ThreadEnded", ORCA_F_THREAD, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ThreadPark", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_OWNER | ORCA_F_TIMEOUT | ORCA_F_MODE | ORCA_F_STACK, ORCA_EV_THREAD_UNPARKED, ORCA_EV_NONE},
  {"ThreadUnparked", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_HOW | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_THREAD_PARK},
  {"ThreadUnpark", ORCA_F_THREAD | ORCA_F_TARGET | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ObjectClass", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_CLASS, ORCA_EV_NONE, ORCA_EV_NONE},
  {"VirtualThreadMounted", ORCA_F_THREAD | ORCA_F_TARGET, ORCA_EV_NONE, ORCA_EV_NONE},
  {"VirtualThreadPinned", ORCA_F_THREAD | ORCA_F_TARGET, ORCA_EV_NONE, ORCA_EV_NONE},
  {"MonitorOwned", ORCA_F_THREAD | ORCA_F_OBJECT, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ClassInitLock", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_CLASS, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ClassInitWaited", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ObjectWaitTimeout", ORCA_F_THREAD | ORCA_F_TIMEOUT, ORCA_EV_NONE, ORCA_EV_NONE},
  {"Sample", ORCA_F_THREAD | ORCA_F_SAMPLED | ORCA_F_WEIGHT | ORCA_F_STACK, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ThreadCPU", ORCA_F_THREAD | ORCA_F_CPU | ORCA_F_READY, ORCA_EV_NONE, ORCA_EV_NONE},
  {"MonitorHeld", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_DEPTH, ORCA_EV_NONE, ORCA_EV_NONE},
  {"LockHeld", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_DEPTH | ORCA_F_MODE, ORCA_EV_NONE, ORCA_EV_NONE},
  {"ConditionLock", ORCA_F_THREAD | ORCA_F_OBJECT | ORCA_F_LOCK, ORCA_EV_NONE, ORCA_EV_NONE},
};

// The compact encoding (docs/format.md): the fields' codes (in descriptors) and wire types.
#define ORCA_FIELD_THREAD 1
#define ORCA_FIELD_OBJECT 2
#define ORCA_FIELD_TARGET 3
#define ORCA_FIELD_OWNER 4
#define ORCA_FIELD_NAME 5
#define ORCA_FIELD_STACK 6
#define ORCA_FIELD_TIMEOUT 7
#define ORCA_FIELD_HOW 8
#define ORCA_FIELD_CLASS 9
#define ORCA_FIELD_MODE 10
#define ORCA_FIELD_SAMPLED 11
#define ORCA_FIELD_WEIGHT 12
#define ORCA_FIELD_CPU 13
#define ORCA_FIELD_READY 14
#define ORCA_FIELD_DEPTH 15
#define ORCA_FIELD_LOCK 16
#define ORCA_W_UV 1
#define ORCA_W_SV 2
#define ORCA_W_U32 3
#define ORCA_W_BYTE 4
#define ORCA_W_TEXT 5
// A kind's descriptor record's tag, a chunk's trailer's.
#define ORCA_TAG_DESCRIPTOR 0x06
#define ORCA_TAG_TRAILER 0x07
// A method's and a class's definition records' tags (a uv length and its line).
#define ORCA_TAG_METHOD 0x08
#define ORCA_TAG_CLASS 0x09
// Each kind's fields in the order written: {field code, wire type}, n of them.
#define ORCA_LAYOUT_MAX 6
typedef struct {
  unsigned char n;
  unsigned char f[ORCA_LAYOUT_MAX][2];
} orca_layout;

static const orca_layout orca_layouts[ORCA_EV_COUNT] = {
  {0, {{0, 0}}},
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ObjectWait
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ObjectWaited
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ObjectNotify
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ObjectNotifyAll
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TARGET, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadStart
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TARGET, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadJoin
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TARGET, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadJoined
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadSleep
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadSlept
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // SemaphoreAcquire
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // SemaphoreAcquired
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // SemaphoreRelease
  {4, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_OWNER, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // MonitorContendedEnter
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // MonitorContendedEntered
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_NAME, ORCA_W_TEXT}}},   // ThreadStarted
  {1, {{ORCA_FIELD_THREAD, ORCA_W_UV}}},   // ThreadEnded
  {6, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_OWNER, ORCA_W_U32}, {ORCA_FIELD_TIMEOUT, ORCA_W_UV}, {ORCA_FIELD_MODE, ORCA_W_BYTE}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadPark
  {4, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_HOW, ORCA_W_BYTE}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadUnparked
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TARGET, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ThreadUnpark
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_CLASS, ORCA_W_TEXT}}},   // ObjectClass
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TARGET, ORCA_W_U32}}},   // VirtualThreadMounted
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TARGET, ORCA_W_U32}}},   // VirtualThreadPinned
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}}},   // MonitorOwned
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_CLASS, ORCA_W_TEXT}}},   // ClassInitLock
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // ClassInitWaited
  {2, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_TIMEOUT, ORCA_W_UV}}},   // ObjectWaitTimeout
  {4, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_SAMPLED, ORCA_W_BYTE}, {ORCA_FIELD_WEIGHT, ORCA_W_UV}, {ORCA_FIELD_STACK, ORCA_W_UV}}},   // Sample
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_CPU, ORCA_W_UV}, {ORCA_FIELD_READY, ORCA_W_UV}}},   // ThreadCPU
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_DEPTH, ORCA_W_UV}}},   // MonitorHeld
  {4, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_DEPTH, ORCA_W_UV}, {ORCA_FIELD_MODE, ORCA_W_BYTE}}},   // LockHeld
  {3, {{ORCA_FIELD_THREAD, ORCA_W_UV}, {ORCA_FIELD_OBJECT, ORCA_W_U32}, {ORCA_FIELD_LOCK, ORCA_W_U32}}},   // ConditionLock
};
// ORCA_EV_EACH(X) is X(kind) for every kind: a switch of a case a kind, in which the kind's layout is a constant.
#define ORCA_EV_EACH(X) X(ORCA_EV_OBJECT_WAIT) X(ORCA_EV_OBJECT_WAITED) X(ORCA_EV_OBJECT_NOTIFY) X(ORCA_EV_OBJECT_NOTIFY_ALL) X(ORCA_EV_THREAD_START) X(ORCA_EV_THREAD_JOIN) X(ORCA_EV_THREAD_JOINED) X(ORCA_EV_THREAD_SLEEP) X(ORCA_EV_THREAD_SLEPT) X(ORCA_EV_SEMAPHORE_ACQUIRE) X(ORCA_EV_SEMAPHORE_ACQUIRED) X(ORCA_EV_SEMAPHORE_RELEASE) X(ORCA_EV_MONITOR_CONTENDED_ENTER) X(ORCA_EV_MONITOR_CONTENDED_ENTERED) X(ORCA_EV_THREAD_STARTED) X(ORCA_EV_THREAD_ENDED) X(ORCA_EV_THREAD_PARK) X(ORCA_EV_THREAD_UNPARKED) X(ORCA_EV_THREAD_UNPARK) X(ORCA_EV_OBJECT_CLASS) X(ORCA_EV_VIRTUAL_THREAD_MOUNTED) X(ORCA_EV_VIRTUAL_THREAD_PINNED) X(ORCA_EV_MONITOR_OWNED) X(ORCA_EV_CLASS_INIT_LOCK) X(ORCA_EV_CLASS_INIT_WAITED) X(ORCA_EV_OBJECT_WAIT_TIMEOUT) X(ORCA_EV_SAMPLE) X(ORCA_EV_THREAD_C_P_U) X(ORCA_EV_MONITOR_HELD) X(ORCA_EV_LOCK_HELD) X(ORCA_EV_CONDITION_LOCK)

// Each kind's descriptor record (format.KindDescriptor), len bytes.
typedef struct {
  unsigned char len;
  const char *bytes;
} orca_descriptor;

static const orca_descriptor orca_descriptors[ORCA_EV_COUNT] = {
  {0, ""},
  {20, "\006\001\012\117\142\152\145\143\164\127\141\151\164\003\001\001\002\003\006\001"},
  {22, "\006\002\014\117\142\152\145\143\164\127\141\151\164\145\144\003\001\001\002\003\006\001"},
  {22, "\006\003\014\117\142\152\145\143\164\116\157\164\151\146\171\003\001\001\002\003\006\001"},
  {25, "\006\004\017\117\142\152\145\143\164\116\157\164\151\146\171\101\154\154\003\001\001\002\003\006\001"},
  {21, "\006\005\013\124\150\162\145\141\144\123\164\141\162\164\003\001\001\003\003\006\001"},
  {20, "\006\006\012\124\150\162\145\141\144\112\157\151\156\003\001\001\003\003\006\001"},
  {22, "\006\007\014\124\150\162\145\141\144\112\157\151\156\145\144\003\001\001\003\003\006\001"},
  {19, "\006\010\013\124\150\162\145\141\144\123\154\145\145\160\002\001\001\006\001"},
  {19, "\006\011\013\124\150\162\145\141\144\123\154\145\160\164\002\001\001\006\001"},
  {26, "\006\012\020\123\145\155\141\160\150\157\162\145\101\143\161\165\151\162\145\003\001\001\002\003\006\001"},
  {27, "\006\013\021\123\145\155\141\160\150\157\162\145\101\143\161\165\151\162\145\144\003\001\001\002\003\006\001"},
  {26, "\006\014\020\123\145\155\141\160\150\157\162\145\122\145\154\145\141\163\145\003\001\001\002\003\006\001"},
  {33, "\006\015\025\115\157\156\151\164\157\162\103\157\156\164\145\156\144\145\144\105\156\164\145\162\004\001\001\002\003\004\003\006\001"},
  {33, "\006\016\027\115\157\156\151\164\157\162\103\157\156\164\145\156\144\145\144\105\156\164\145\162\145\144\003\001\001\002\003\006\001"},
  {21, "\006\017\015\124\150\162\145\141\144\123\164\141\162\164\145\144\002\001\001\005\005"},
  {17, "\006\020\013\124\150\162\145\141\144\105\156\144\145\144\001\001\001"},
  {26, "\006\021\012\124\150\162\145\141\144\120\141\162\153\006\001\001\002\003\004\003\007\001\012\004\006\001"},
  {26, "\006\022\016\124\150\162\145\141\144\125\156\160\141\162\153\145\144\004\001\001\002\003\010\004\006\001"},
  {22, "\006\023\014\124\150\162\145\141\144\125\156\160\141\162\153\003\001\001\003\003\006\001"},
  {21, "\006\024\013\117\142\152\145\143\164\103\154\141\163\163\003\001\001\002\003\011\005"},
  {28, "\006\025\024\126\151\162\164\165\141\154\124\150\162\145\141\144\115\157\165\156\164\145\144\002\001\001\003\003"},
  {27, "\006\026\023\126\151\162\164\165\141\154\124\150\162\145\141\144\120\151\156\156\145\144\002\001\001\003\003"},
  {20, "\006\027\014\115\157\156\151\164\157\162\117\167\156\145\144\002\001\001\002\003"},
  {23, "\006\030\015\103\154\141\163\163\111\156\151\164\114\157\143\153\003\001\001\002\003\011\005"},
  {25, "\006\031\017\103\154\141\163\163\111\156\151\164\127\141\151\164\145\144\003\001\001\002\003\006\001"},
  {25, "\006\032\021\117\142\152\145\143\164\127\141\151\164\124\151\155\145\157\165\164\002\001\001\007\001"},
  {18, "\006\033\006\123\141\155\160\154\145\004\001\001\013\004\014\001\006\001"},
  {19, "\006\034\011\124\150\162\145\141\144\103\120\125\003\001\001\015\001\016\001"},
  {21, "\006\035\013\115\157\156\151\164\157\162\110\145\154\144\003\001\001\002\003\017\001"},
  {20, "\006\036\010\114\157\143\153\110\145\154\144\004\001\001\002\003\017\001\012\004"},
  {23, "\006\037\015\103\157\156\144\151\164\151\157\156\114\157\143\153\003\001\001\002\003\020\003"},
};

// The keys of PREFIX.info (docs/format.md); the _PREFIX ones are followed by a kind's name.
#define ORCA_INFO_FORMAT "format"
#define ORCA_INFO_ENCODING "encoding"
#define ORCA_INFO_MAX_SIZE "max_size"
#define ORCA_INFO_MAX_AGE_S "max_age_s"
#define ORCA_INFO_CHUNKS_DELETED "chunks_deleted"
#define ORCA_INFO_CHUNKS_KEPT "chunks_kept"
#define ORCA_INFO_KEPT_FROM_S "kept_from_s"
#define ORCA_INFO_UNRESTATED "unrestated"
#define ORCA_INFO_AGENT_VERSION "agent_version"
#define ORCA_INFO_AGENT_OPTIONS "agent_options"
#define ORCA_INFO_SESSION "session"
#define ORCA_INFO_PID "pid"
#define ORCA_INFO_COMMAND "command"
#define ORCA_INFO_JAVA_VERSION "java_version"
#define ORCA_INFO_JAVA_VM "java_vm"
#define ORCA_INFO_JAVA_VM_VERSION "java_vm_version"
#define ORCA_INFO_JAVA_HOME "java_home"
#define ORCA_INFO_REFUSED "refused"
#define ORCA_INFO_ORIGIN_MONO_NS "origin_mono_ns"
#define ORCA_INFO_ORIGIN_UNIX_NS "origin_unix_ns"
#define ORCA_INFO_START_S "start_s"
#define ORCA_INFO_END_S "end_s"
#define ORCA_INFO_COMPLETE "complete"
#define ORCA_INFO_ATTACHED "attached"
#define ORCA_INFO_ALIVE_AT_ATTACH "alive_at_attach"
#define ORCA_INFO_BLOCKED_AT_ATTACH "blocked_at_attach"
#define ORCA_INFO_VIRTUAL_AT_ATTACH "virtual_at_attach"
#define ORCA_INFO_VIRTUAL_SKIPPED_AT_ATTACH "virtual_skipped_at_attach"
#define ORCA_INFO_VIRTUAL_UNSEEN_AT_ATTACH "virtual_unseen_at_attach"
#define ORCA_INFO_ATTACHED_WITHOUT "attached_without"
#define ORCA_INFO_ATTACHED_MISSED "attached_missed"
#define ORCA_INFO_MONITOR_UNREAD_AT_ATTACH "monitor_unread_at_attach"
#define ORCA_INFO_ATTACH_MS "attach_ms"
#define ORCA_INFO_STOPPED "stopped"
#define ORCA_INFO_STOPPED_BY "stopped_by"
#define ORCA_INFO_DROPPED_TOTAL "dropped_total"
#define ORCA_INFO_DROPPED_AT_EXIT "dropped_at_exit"
#define ORCA_INFO_DROPPED_AFTER_CUT "dropped_after_cut"
#define ORCA_INFO_WRITTEN_EARLY "written_early"
#define ORCA_INFO_WRITTEN_LATE "written_late"
#define ORCA_INFO_WRITES "writes"
#define ORCA_INFO_WRITE_ERRORS "write_errors"
#define ORCA_INFO_WRITE_ERROR "write_error"
#define ORCA_INFO_CUT_S "cut_s"
#define ORCA_INFO_OWNER_UNKNOWN "owner_unknown"
#define ORCA_INFO_OWNER_TABLE_FULL "owner_table_full"
#define ORCA_INFO_THREAD_KEYS_FULL "thread_keys_full"
#define ORCA_INFO_OWNER_UNLOCKING "owner_unlocking"
#define ORCA_INFO_OWNER_UNKNOWN_RELEASED "owner_unknown.released"
#define ORCA_INFO_OWNER_UNKNOWN_ANONYMOUS "owner_unknown.anonymous"
#define ORCA_INFO_OWNER_UNKNOWN_NOT_IN_TABLE "owner_unknown.not_in_table"
#define ORCA_INFO_OWNER_UNKNOWN_UNREADABLE "owner_unknown.unreadable"
#define ORCA_INFO_OWNER_UNKNOWN_BEFORE_EVENTS "owner_unknown.before_events"
#define ORCA_INFO_UNATTRIBUTED_TOTAL "unattributed_total"
#define ORCA_INFO_VIRTUAL_THREADS "virtual_threads"
#define ORCA_INFO_SUPPRESSED_WAITS "suppressed_waits"
#define ORCA_INFO_METHODS "methods"
#define ORCA_INFO_CLASSES "classes"
#define ORCA_INFO_METADATA_DROPPED "metadata_dropped"
#define ORCA_INFO_METHODS_UNLOADED "methods_unloaded"
#define ORCA_INFO_OWN_STACKS_BY_JVMTI "own_stacks_by_jvmti"
#define ORCA_INFO_VERIFIED_STACKS "verified_stacks"
#define ORCA_INFO_VERIFIED_STACKS_DIFFER "verified_stacks_differ"
#define ORCA_INFO_ENTERED_CLOCK "entered_clock"
#define ORCA_INFO_ENTERED_TIMER "entered_timer"
#define ORCA_INFO_ENTERED_TIMER_ORIGIN_NS "entered_timer_origin_ns"
#define ORCA_INFO_ENTERED_BY_TIMER "entered_by_timer"
#define ORCA_INFO_ENTERED_LATE "entered_late"
#define ORCA_INFO_ENTERED_LOST "entered_lost"
#define ORCA_INFO_VERIFIED_ENTERED "verified_entered"
#define ORCA_INFO_VERIFIED_ENTERED_AFTER "verified_entered_after"
#define ORCA_INFO_VERIFIED_ENTERED_SLOW "verified_entered_slow"
#define ORCA_INFO_BOUNDED_WAITS "bounded_waits"
#define ORCA_INFO_WAITS_WITHOUT_STACK "waits_without_stack"
#define ORCA_INFO_WARNING "warning"
#define ORCA_INFO_WAIT_TIMEOUTS "wait_timeouts"
#define ORCA_INFO_CLASS_INIT_OPEN "class_init_open"
#define ORCA_INFO_HELD_MONITORS "held_monitors"
#define ORCA_INFO_HELD_MONITORS_UNREAD "held_monitors_unread"
#define ORCA_INFO_HELD_MONITORS_SKIPPED "held_monitors_skipped"
#define ORCA_INFO_HELD_MONITORS_RETIMED "held_monitors_retimed"
#define ORCA_INFO_HELD_MONITORS_DROPPED "held_monitors_dropped"
#define ORCA_INFO_HELD_MONITORS_READ "held_monitors_read"
#define ORCA_INFO_HELD_MONITORS_ASKED "held_monitors_asked"
#define ORCA_INFO_HELD_MONITORS_VIRTUAL_READ "held_monitors_virtual_read"
#define ORCA_INFO_HELD_MONITORS_VIRTUAL_ASKED "held_monitors_virtual_asked"
#define ORCA_INFO_HELD_MONITORS_JNI "held_monitors_jni"
#define ORCA_INFO_HELD_LOCKS "held_locks"
#define ORCA_INFO_HELD_LOCKS_LOST "held_locks_lost"
#define ORCA_INFO_CLASS_HOOKS "class_hooks"
#define ORCA_INFO_SAMPLE_CPU_NS "sample_cpu_ns"
#define ORCA_INFO_SAMPLE_WALL_NS "sample_wall_ns"
#define ORCA_INFO_SAMPLE_WALL_THREADS "sample_wall_threads"
#define ORCA_INFO_SAMPLE_WALL_SAMPLER_CPU_NS "sample_wall_sampler_cpu_ns"
#define ORCA_INFO_SAMPLE_WALL_REPEATED "sample_wall_repeated"
#define ORCA_INFO_SAMPLE_WALL_TICKS "sample_wall_ticks"
#define ORCA_INFO_SAMPLE_WALL_WAKEUPS "sample_wall_wakeups"
#define ORCA_INFO_SAMPLE_WALL_RUNS "sample_wall_runs"
#define ORCA_INFO_SAMPLE_WALL_STATES_READ "sample_wall_states_read"
#define ORCA_INFO_SAMPLE_WALL_SLOTS_READ "sample_wall_slots_read"
#define ORCA_INFO_SAMPLE_WALL_LATE "sample_wall_late"
#define ORCA_INFO_SAMPLE_WALL_QUIET_WAKEUPS "sample_wall_quiet_wakeups"
#define ORCA_INFO_SAMPLE_DRAIN_SLOTS "sample_drain_slots"
#define ORCA_INFO_SAMPLE_RINGS_KEPT "sample_rings_kept"
#define ORCA_INFO_THREAD_CPU_PERIOD_MS "thread_cpu_period_ms"
#define ORCA_INFO_SAMPLE_CPU_CLOCK "sample_cpu_clock"
#define ORCA_INFO_SAMPLE_CPU_TIMER_THREADS "sample_cpu_timer_threads"
#define ORCA_INFO_SAMPLE_CPU_FOLDED "sample_cpu_folded"
#define ORCA_INFO_HOTSPOT_WALKER "hotspot.walker"
#define ORCA_INFO_HOTSPOT_SAFE_READ "hotspot.safe_read"
#define ORCA_INFO_HOTSPOT_FAULTS "hotspot.faults"
#define ORCA_INFO_HOTSPOT_WALK_FAULTS "hotspot.walk_faults"
#define ORCA_INFO_HOTSPOT_HELD_WALK_FAULTS "hotspot.held_walk_faults"
#define ORCA_INFO_HOTSPOT_SAMPLES_UNWOUND "hotspot.samples_unwound"
#define ORCA_INFO_HOTSPOT_SAMPLES_NATIVE_ONLY "hotspot.samples_native_only"
#define ORCA_INFO_HOTSPOT_SAMPLES_ASGCT "hotspot.samples_asgct"
#define ORCA_INFO_HOTSPOT_SAMPLE_FRAMES_INVALID "hotspot.sample_frames_invalid"
#define ORCA_INFO_HOTSPOT_DEBUG_NON_SAFEPOINTS "hotspot.debug_non_safepoints"
#define ORCA_INFO_HOTSPOT_OWNER "hotspot.owner"
#define ORCA_INFO_HOTSPOT_MONITOR_HASH "hotspot.monitor_hash"
#define ORCA_INFO_HOTSPOT_FACTS "hotspot.facts"
#define ORCA_INFO_HOTSPOT_ARCH "hotspot.arch"
#define ORCA_INFO_SOURCE "source"
#define ORCA_INFO_JFR_FILE "jfr_file"
#define ORCA_INFO_JFR_VERSION "jfr_version"
#define ORCA_INFO_JFR_CHUNKS "jfr_chunks"
#define ORCA_INFO_JVM_ARGUMENTS "jvm_arguments"
#define ORCA_INFO_JFR_DATA_LOSS_BYTES "jfr_data_loss_bytes"
#define ORCA_INFO_JFR_LOST_BYTES "jfr_lost_bytes"
#define ORCA_INFO_TRUNCATED_STACKS "truncated_stacks"
#define ORCA_INFO_JOINS_FROM_WAITS "joins_from_waits"
#define ORCA_INFO_NOTIFIES_FROM_WAITS "notifies_from_waits"
#define ORCA_INFO_NOTIFIES_FROM_WAITS_DROPPED "notifies_from_waits_dropped"
#define ORCA_INFO_THREADS "threads"
#define ORCA_INFO_OBJECTS "objects"
#define ORCA_INFO_OWNER_UNKNOWN_NO_PREVIOUS_OWNER "owner_unknown.no_previous_owner"
#define ORCA_INFO_OWNER_UNKNOWN_SELF "owner_unknown.self"
#define ORCA_INFO_OWNER_UNKNOWN_ENDED "owner_unknown.ended"
#define ORCA_INFO_ENDED_ONLY "ended_only"
#define ORCA_INFO_PARK_ENDS "park_ends"
#define ORCA_INFO_SOURCE_SETTINGS "source_settings"
#define ORCA_INFO_EVENTS_PREFIX "events."
#define ORCA_INFO_DROPPED_PREFIX "dropped."
#define ORCA_INFO_UNATTRIBUTED_PREFIX "unattributed."
#define ORCA_INFO_EXT_PREFIX "ext."
#define ORCA_INFO_JFR_EVENTS_PREFIX "jfr_events."
#define ORCA_INFO_HOTSPOT_PREFIX "hotspot."
#define ORCA_INFO_THRESHOLD_NS_PREFIX "threshold_ns."
#define ORCA_INFO_NOT_RECORDED_PREFIX "not_recorded."
#define ORCA_INFO_NO_STACKS_PREFIX "no_stacks."
#define ORCA_INFO_JFR_SETTINGS_PREFIX "jfr_settings."
#define ORCA_INFO_SAMPLES_PREFIX "samples."
#define ORCA_INFO_SAMPLES_LOST_PREFIX "samples_lost."

#endif
