// Monitors held by virtual threads while they are unmounted (JDK 24+, JEP
// 491). A virtual thread that blocks (parks, sleeps, waits or contends)
// while it holds a fast lock unmounts, and its lock stack moves into its
// stack chunk, a heap object no contender reads (owner.c): the contender
// finds no owner, and two virtual threads that deadlock through fast locks
// would each name none. So a virtual thread about to block notes here the
// objects on its lock stack, and takes them back when it runs again
// (thread_resumed); a contender that finds no owner on a lock stack looks
// its object up here. The objects' addresses hold while no collection
// moves them (objhash_epoch, stop-the-world collectors only): an entry of
// an earlier epoch is stale, and its slot free.
#ifndef ORCA_VHELD_H
#define ORCA_VHELD_H
#include <jni.h>
#include <stdint.h>

// A virtual thread's fast locks as it blocked (its state keeps them).
enum { VHELD_MAX = 8 };   // HotSpot's LockStack::CAPACITY (8 in 21-25)
typedef struct {
  uintptr_t oops[VHELD_MAX];
  int n;
} vheld_list;

// vheld_blocking: the calling virtual thread (its hash) is about to block:
// the objects on its lock stack are noted (in held, and in the table).
// A read of the lock stack's top when it holds none.
void vheld_blocking(JNIEnv *env, uint32_t hash, vheld_list *held);
// vheld_resumed: it runs again: its entries are taken back.
void vheld_resumed(uint32_t hash, vheld_list *held);
// vheld_owner returns the hash of the unmounted virtual thread that holds
// the object at oop fast-locked, or 0; e: the object epoch (objhash.h)
// when the caller read oop.
uint32_t vheld_owner(uintptr_t oop, unsigned long e);
#endif
