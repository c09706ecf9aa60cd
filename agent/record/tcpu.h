// Threads' scheduler times (issue 33, item 3): each live platform thread's
// time on a CPU and time runnable but waiting for one, as Linux keeps them
// (/proc/self/task/TID/schedstat, its first two numbers), written as
// ThreadCPU records (docs/format.md, "Beyond the manual: samples and
// scheduler times"): a thread's baseline when it is registered (its start,
// or the recording's start for the threads alive then), then by the writer
// at most once a period when they changed (tcpu_poll), last by the thread
// itself at its end, before its ThreadEnded (tcpu_end), so a thread shorter
// than a period still has its whole times. Virtual threads have none: their
// carrier's time is the carrier's. The threads module registers the
// threads; the writer polls through writer_sources.poll (jvm/entry.c hands
// it tcpu_poll: the writer does not include this header).
#ifndef ORCA_TCPU_H
#define ORCA_TCPU_H
#include <stdint.h>

// TCPU_TEXT_MAX: the longest text of a ThreadCPU record ("CPU,READY" in
// decimal nanoseconds: the record carries them as its text bytes, the
// encoders write them as the kind's two fields: text.c, compact.c).
#define TCPU_TEXT_MAX 42

// tcpu_start begins a recording: every thread forgotten; period_ms is how
// often tcpu_poll reads (0: no ThreadCPU at all). Returns NULL, or why
// the times cannot be read (then none are written: a warning for .info).
const char *tcpu_start(int period_ms);
// tcpu_period_ms: the period tcpu_start set, 0 when off.
int tcpu_period_ms(void);

// tcpu_add registers the thread of key with OS thread id tid (its records
// go to shard) and writes its baseline ThreadCPU at once; a tid already
// registered takes the new key. Any thread; a tid <= 0 does nothing.
void tcpu_add(uint32_t key, int tid, int shard);
// tcpu_end: the thread of tid ends (called by itself, its tid gettid()):
// when write, its last ThreadCPU (before its ThreadEnded); it is forgotten
// either way.
void tcpu_end(int tid, int write);

// tcpu_poll (the writer) writes the ThreadCPU of every registered thread
// whose times changed since its last, when a period has passed since the
// last poll or when final (the recording ends: the times of the threads
// alive then); forgets the threads whose times are gone (exited).
void tcpu_poll(int64_t now, int final);
// tcpu_polled: the threads' times tcpu_poll read since tcpu_start
// (ORCA_TIME_WRITER's cost a read).
long tcpu_polled(void);

// tcpu_read reads the scheduler times of tid; 0 when they cannot be read.
int tcpu_read(int tid, uint64_t *cpu, uint64_t *ready);
#endif
