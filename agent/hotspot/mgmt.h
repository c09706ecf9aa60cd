// HotSpot's management interface (jmm, what java.lang.management's natives
// call), reached from native code: the agent turns on what it needs without
// loading java.lang.management or running Java code in the target (a
// ThreadMXBean call loaded 42-44 classes and raced the program's own lambda
// bootstrap: contended enters in main the program never made).
#ifndef ORCA_MGMT_H
#define ORCA_MGMT_H
#include <jni.h>

// mgmt_contention_monitoring turns thread contention monitoring on (what
// ThreadMXBean.setThreadContentionMonitoringEnabled(true) does in the VM);
// NULL, or why not. A Java thread of the agent's in the live phase.
const char *mgmt_contention_monitoring(JNIEnv *env);
#endif
