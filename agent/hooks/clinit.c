#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include "hooks/clinit.h"
#include "hotspot/jclass.h"
#include "stacks/methods.h"
#include "hotspot/objhash.h"
#include "core/events.h"
#include "core/fmt.h"
#include "core/orca.h"
#include "record/ring.h"

// HotSpot links and initialises a class under its init lock, an int[] it
// keeps in the class's mirror (java_lang_Class::init_lock; JDK 17, and
// 22+ again: 21 used a native monitor, JDK-8288064). A thread that finds
// another initialising the class waits on that lock (ObjectLocker's
// wait_uninterruptibly), and one that finds it held blocks on it: JVMTI
// posts MonitorContendedEnter and MonitorWaited (never MonitorWait) on the
// int[] as for any monitor. The agent tells it from an application's
// synchronized(int[]) by the thread's top Java frame: a monitorenter at
// (or just before) its location is the application's; a bytecode that initialises a class (new,
// getstatic, putstatic, invokestatic) is the JVM's, and names the class
// the frame asked for (the lock may be that class's superclass' or
// superinterface's: initialising a class initialises them first). A
// native top frame (JNI MonitorEnter, Class.forName) cannot be told: the
// object stays an int[]. All of it runs only for int[] monitors: at most a
// few contentions and waits per class, while it is initialised.

static jclass int_array;   // global reference, from clinit_init

// clinit_init: the class of an int[] of the agent's own (an allocation at
// VMInit, no Java code), so that telling an int[] at a contended enter is
// one IsSameObject — not a JVMTI GetClassSignature at every contended
// enter of a program that never contends on an int[].
void clinit_init(JNIEnv *env) {
  if (__atomic_load_n(&int_array, __ATOMIC_ACQUIRE)) return;   // at VMStart, then VMInit
  jintArray a = (*env)->NewIntArray(env, 1);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env), a = NULL;
  jclass c = a ? (*env)->GetObjectClass(env, a) : NULL;
  if (c && jclass_is(c, "[I")) __atomic_store_n(&int_array, (*env)->NewGlobalRef(env, c), __ATOMIC_RELEASE);
  if (c) (*env)->DeleteLocalRef(env, c);
  if (a) (*env)->DeleteLocalRef(env, a);
}

static int is_int_array(JNIEnv *env, jobject o) {
  jclass known = __atomic_load_n(&int_array, __ATOMIC_ACQUIRE);
  if (!known) return 0;
  return (*env)->IsInstanceOf(env, o, known);
}

static unsigned u2(const unsigned char *p) { return (unsigned)p[0] << 8 | p[1]; }

// pool_class writes the signature of the class that constant pool entry
// idx names (a Class, or a field's or method's class) into out; its
// length, or 0.
static int pool_class(jclass k, unsigned idx, char *out, size_t cap) {
  jint count = 0, bytes = 0;
  unsigned char *cp = NULL;
  if ((*jvmti)->GetConstantPool(jvmti, k, &count, &bytes, &cp) != JVMTI_ERROR_NONE || !cp) return 0;
  int n = 0;
  uint32_t *at = count > 0 ? calloc((size_t)count, sizeof *at) : NULL;
  if (at) {
    // The entries from index 1, as in a class file (no count before them).
    uint32_t off = 0;
    for (jint i = 1; i < count && off < (uint32_t)bytes; i++) {
      at[i] = off;
      unsigned char tag = cp[off];
      uint32_t size;
      switch (tag) {
        case 1: size = off + 3 <= (uint32_t)bytes ? 3 + u2(cp + off + 1) : 3; break;   // Utf8
        case 3: case 4: case 9: case 10: case 11: case 12: case 17: case 18: size = 5; break;
        case 5: case 6: size = 9, i++; break;   // Long, Double: two entries
        case 7: case 8: case 16: case 19: case 20: size = 3; break;
        case 15: size = 4; break;
        default: size = (uint32_t)bytes; break;   // unknown: stop
      }
      off += size;
    }
#define ENTRY_OK(i, len) ((i) > 0 && (jint)(i) < count && at[i] + (len) <= (uint32_t)bytes)
    if (ENTRY_OK(idx, 3)) {
      unsigned char tag = cp[at[idx]];
      if ((tag == 9 || tag == 10 || tag == 11) && ENTRY_OK(idx, 5)) idx = u2(cp + at[idx] + 1), tag = ENTRY_OK(idx, 3) ? cp[at[idx]] : 0;
      if (tag == 7) {
        unsigned name = u2(cp + at[idx] + 1);
        if (ENTRY_OK(name, 3) && cp[at[name]] == 1) {
          unsigned len = u2(cp + at[name] + 1);
          if (at[name] + 3 + len <= (uint32_t)bytes && cap > 3) {
            const char *s = (const char *)cp + at[name] + 3;
            if (len && s[0] == '[') {
              n = (int)mutf8_to_utf8(s, len, out, cap);
            } else {
              out[0] = 'L';
              n = 1 + (int)mutf8_to_utf8(s, len, out + 1, cap - 2);
              out[n++] = ';';
            }
          }
        }
      }
    }
#undef ENTRY_OK
    free(at);
  }
  (*jvmti)->Deallocate(jvmti, cp);
  return n;
}

// What top_frame_class says besides a class's signature (>= 0).
enum {
  FRAME_APP = -1,          // an application's lock (a monitorenter), or not known
  FRAME_NONE = -2,         // no frame at all: the thread runs no Java method
  FRAME_JDK_NATIVE = -3,   // a native method of a class of the boot loader
  FRAME_START = -4,        // before VMInit: only the JDK's start-up code runs
};

// jdk_native: whether m, a native method, is the JDK's (its class loaded by
// the boot loader: Class.forName0, Unsafe.ensureClassInitialized0, the
// reflection natives), not an application's JNI code.
static int jdk_native(jmethodID m) {
  jclass k = NULL;
  jobject loader = NULL;
  if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) != JVMTI_ERROR_NONE || !k) return 0;
  if ((*jvmti)->GetClassLoader(jvmti, k, &loader) != JVMTI_ERROR_NONE) return 0;
  // Local references in the calling thread's frame: freed with it.
  return loader == NULL;
}

// top_frame_class looks at the calling thread's top Java frame: FRAME_APP
// when it is not the JVM's lock (a monitorenter) or cannot be told (an
// application's native frame), FRAME_NONE or FRAME_JDK_NATIVE, else the
// length of the signature of the class its bytecode initialises, written
// into out (0: none named).
static int top_frame_class(char *out, size_t cap) {
  jmethodID m = NULL;
  jlocation at = -1;
  jvmtiError err = (*jvmti)->GetFrameLocation(jvmti, NULL, 0, &m, &at);
  if (err == JVMTI_ERROR_NO_MORE_FRAMES) return FRAME_NONE;
  if (err == JVMTI_ERROR_WRONG_PHASE) return FRAME_START;
  if (err != JVMTI_ERROR_NONE || !m) return FRAME_APP;
  if (at < 0) return jdk_native(m) ? FRAME_JDK_NATIVE : FRAME_APP;
  jint size = 0;
  unsigned char *code = NULL;
  if ((*jvmti)->GetBytecodes(jvmti, m, &size, &code) != JVMTI_ERROR_NONE || !code) return -1;
  int n = FRAME_APP;
  if (at < size) {
    unsigned char op = code[at];
    n = 0;
    // monitorenter: the interpreter has moved its bcp past it (1 byte) when
    // it blocks, compiled code may name it. A byte 0xc2 before the
    // location may be an operand instead: then a JVM lock stays an int[]
    // (never the other way round).
    if (op == 0xc2 || (at > 0 && code[at - 1] == 0xc2)) {
      n = FRAME_APP;
    } else if ((op == 0xbb || op == 0xb2 || op == 0xb3 || op == 0xb8) && at + 2 < size) {
      // new, getstatic, putstatic, invokestatic
      jclass k = NULL;
      if ((*jvmti)->GetMethodDeclaringClass(jvmti, m, &k) == JVMTI_ERROR_NONE && k) {
        n = pool_class(k, u2(code + at + 1), out, cap);
        // A local reference in the calling thread's frame: freed with it.
      }
    }
  }
  (*jvmti)->Deallocate(jvmti, code);
  return n;
}

// Init locks named already, by hash (direct-mapped; a collision names it
// again, harmlessly).
#define NAMED_SLOTS 1024
static _Atomic uint32_t named[NAMED_SLOTS];

static _Atomic uint32_t *named_slot(uint32_t h) { return &named[(h * 2654435761u) >> 22 & (NAMED_SLOTS - 1)]; }

void clinit_reset(void) {
  for (int i = 0; i < NAMED_SLOTS; i++) atomic_store_explicit(&named[i], 0, memory_order_relaxed);
}

static void name_lock(int shard, uint32_t thread, int64_t ts, uint32_t h, const char *sig, int len) {
  _Atomic uint32_t *slot = named_slot(h);
  if (atomic_load_explicit(slot, memory_order_relaxed) == h) return;
  atomic_store_explicit(slot, h, memory_order_relaxed);
  ring_put(shard, ORCA_EV_CLASS_INIT_LOCK, ts, thread, h, 0, NULL, 0, sig, len);
}

// empty_array: whether o, an int[], has no element. HotSpot's init lock is
// an int[0] (java_lang_Class::initialize_mirror_fields); a program's lock
// made of an array is one with a use, or a byte[0].
static int empty_array(JNIEnv *env, jobject o) {
  jsize n = (*env)->GetArrayLength(env, (jarray)o);
  if ((*env)->ExceptionCheck(env)) {
    (*env)->ExceptionClear(env);
    return 0;
  }
  return n == 0;
}

void clinit_enter(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o, uint32_t h) {
  if (opt.seed_only || !env || !o || !h || !is_int_array(env, o)) return;
  char sig[1024];
  int n = top_frame_class(sig, sizeof sig);
  // Before VMInit (the JDK's start-up code: the launcher's thread blocked
  // on a class's init lock the Finalizer holds), with no Java frame, or in a
  // JDK native (Class.forName0, Unsafe.ensureClassInitialized0), an int[0]:
  // the JVM's init lock, no class named. Only an application's JNI code
  // could lock an int[0] there, and none runs before VMInit.
  if ((n == FRAME_START || n == FRAME_NONE || n == FRAME_JDK_NATIVE) && empty_array(env, o)) n = 0;
  if (n < 0) return;
  name_lock(shard, thread, ts, h, sig, n);
}

void clinit_waited(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o) {
  if (opt.seed_only || !env || !o || !is_int_array(env, o)) return;
  uint32_t h = objhash_of(o);
  if (!h) return;
  // No Java code waits on an int[] outside Object.wait: the JVM's wait,
  // whatever the frame (a native one names no class).
  char sig[1024];
  int n = top_frame_class(sig, sizeof sig);
  name_lock(shard, thread, ts, h, sig, n < 0 ? 0 : n);
  orca_frame frames[ORCA_MAX_DEPTH];
  int nf = stack_capture(NULL, 0, frames, opt.depth);
  ring_put(shard, ORCA_EV_CLASS_INIT_WAITED, ts, thread, h, 0, frames, nf, NULL, 0);
}
