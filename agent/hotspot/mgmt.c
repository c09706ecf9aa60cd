#define _GNU_SOURCE
#include <dlfcn.h>
#include "hotspot/mgmt.h"

// HotSpot's JmmInterface (src/hotspot/share/include/jmm.h, not shipped in
// the JDK's include/) is a table of function pointers whose layout goes with
// its version: JVM_GetManagement returns it only for the exact version the
// VM was built with, and GetVersion (the 3rd pointer in every version) says
// it again. The agent uses three entries, at places taken from the JDK's own
// caller of the table, libmanagement.so (its natives
// isThreadContentionMonitoringEnabled and setThreadContentionMonitoringEnabled0
// call them), on JDK 17 and 25, and from the jmm.h of 11 and 17:
//
//   version                          GetBoolAttribute  SetBoolAttribute
//   JMM_VERSION_2 (JDK 10-13)        13th              14th (0-based)
//   JMM_VERSION_3 (JDK 14-, 17)      13th              14th
//   JMM_VERSION_4 (25)               14th              15th
//
// Any other version is not used (its layout is unknown). The table is read
// directly: the VM returns it from an exported function for the version
// asked, a static table of libjvm.so; no address of it comes from a layout
// of the agent's (the HotSpot layer's rule, vmstructs.h: proven safe).
static const struct {
  jint version;
  int get_bool, set_bool;
} layouts[] = {
    {0x20040000, 14, 15},
    {0x20030000, 13, 14},
    {0x20020000, 13, 14},
};

enum { JMM_GET_VERSION = 2, JMM_THREAD_CONTENTION_MONITORING = 23 };

typedef void *(JNICALL *get_management_fn)(jint version);
typedef jint(JNICALL *get_version_fn)(JNIEnv *env);
typedef jboolean(JNICALL *get_bool_fn)(JNIEnv *env, int att);
typedef jboolean(JNICALL *set_bool_fn)(JNIEnv *env, int att, jboolean flag);

// jmm returns the VM's table and its entries' places, or NULL.
static void *const *jmm(JNIEnv *env, int *get_bool, int *set_bool) {
  void *lib = dlopen("libjvm.so", RTLD_NOLOAD | RTLD_LAZY);
  get_management_fn get = (get_management_fn)dlsym(lib ? lib : RTLD_DEFAULT, "JVM_GetManagement");
  if (lib) dlclose(lib);   // only the reference NOLOAD took
  if (!get) return NULL;
  for (unsigned i = 0; i < sizeof layouts / sizeof *layouts; i++) {
    void *const *t = get(layouts[i].version);
    if (!t || !t[JMM_GET_VERSION] || ((get_version_fn)t[JMM_GET_VERSION])(env) != layouts[i].version) continue;
    *get_bool = layouts[i].get_bool;
    *set_bool = layouts[i].set_bool;
    return t[*get_bool] && t[*set_bool] ? t : NULL;
  }
  return NULL;
}

const char *mgmt_contention_monitoring(JNIEnv *env) {
  int get_bool = 0, set_bool = 0;
  void *const *t = jmm(env, &get_bool, &set_bool);
  if (!t) return "not used: no known JVM management interface (JVM_GetManagement)";
  ((set_bool_fn)t[set_bool])(env, JMM_THREAD_CONTENTION_MONITORING, JNI_TRUE);
  if ((*env)->ExceptionCheck(env)) (*env)->ExceptionClear(env);
  if (!((get_bool_fn)t[get_bool])(env, JMM_THREAD_CONTENTION_MONITORING))
    return "not used: cannot turn on thread contention monitoring";
  return NULL;
}
