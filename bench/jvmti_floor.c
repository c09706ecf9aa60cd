// A JVMTI agent with contended-monitor events enabled and empty callbacks: the
// cost JVMTI itself adds (HotSpot posts MonitorContendedEntered while the
// thread owns the monitor). bench/ab.sh builds it for the config "floor".
#include <string.h>
#include <jvmti.h>
static void JNICALL enter(jvmtiEnv *j, JNIEnv *e, jthread t, jobject o) { (void)j; (void)e; (void)t; (void)o; }
static void JNICALL entered(jvmtiEnv *j, JNIEnv *e, jthread t, jobject o) { (void)j; (void)e; (void)t; (void)o; }
JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM *vm, char *opts, void *r) {
  jvmtiEnv *jv;
  (*vm)->GetEnv(vm, (void **)&jv, JVMTI_VERSION_11);
  jvmtiCapabilities c; memset(&c, 0, sizeof c); c.can_generate_monitor_events = 1;
  (*jv)->AddCapabilities(jv, &c);
  jvmtiEventCallbacks cb; memset(&cb, 0, sizeof cb);
  cb.MonitorContendedEnter = enter; cb.MonitorContendedEntered = entered;
  (*jv)->SetEventCallbacks(jv, &cb, sizeof cb);
  (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTER, NULL);
  if (!opts || strcmp(opts, "enteronly")) (*jv)->SetEventNotificationMode(jv, JVMTI_ENABLE, JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, NULL);
  return 0;
}
