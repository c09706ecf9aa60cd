// Class initialisation: the JVM's own lock of a class being linked or
// initialised (HotSpot's init lock, an int[] in the class's mirror, JDK 17
// and 22+), told apart from the application's monitors and named after the
// class (ClassInitLock), and the end of a thread's wait for another
// thread's initialisation of a class (ClassInitWaited). docs/agent.md,
// "Class initialisation".
#ifndef ORCA_CLINIT_H
#define ORCA_CLINIT_H
#include <jvmti.h>
#include <stdint.h>

// clinit_init takes the int[] class (VMInit): until then, and without it,
// nothing is told apart.
void clinit_init(JNIEnv *env);
// clinit_reset forgets which class-initialisation locks were named (a new
// recording in the same JVM), and what the walker's rounds left open.
void clinit_reset(void);
// clinit_enter, at a MonitorContendedEnter on o (hash h) of the calling
// thread (hash thread, ring shard), before its Enter line: when o is the
// JVM's init lock, writes its ClassInitLock line (once per object).
void clinit_enter(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o, uint32_t h);
// clinit_waited, at a MonitorWaited of the calling thread that ends no
// wait of Object.wait (HotSpot's own wait on o): when o is an init lock,
// writes its ClassInitLock line (once per object) and a ClassInitWaited
// with the thread's stack.
void clinit_waited(JNIEnv *env, int shard, uint32_t thread, int64_t ts, jobject o);
// clinit_round (the walker, each round): class-initialisation waits still
// open get their MonitorContendedEnter on the init lock, owned by the
// thread that runs the initialiser (clinit.c, "Waits still open").
// ORCA_TIME_CLINIT=1 times the rounds (printed at exit).
void clinit_round(JNIEnv *env);
#endif
