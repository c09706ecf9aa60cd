// The writer thread: drains the event rings every flush period, merges
// each batch in time order, formats the .orca lines (text.h) or encodes
// them (compact.h, format=compact) and hands them to the file sink
// (sink.h: the files, their rotation and retention, .info, the exit
// deadline), which writes them with write(2) so a kill -9 loses at most
// one period. The sink's functions for the recording's files
// (writer_prefix, writer_create_file, ...) come with this header.
#ifndef ORCA_WRITER_H
#define ORCA_WRITER_H
#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>
#include "record/sink.h"

// writer_open creates the output files (choosing PREFIX-N when clobber is
// off and PREFIX exists); NULL or an error message.
const char *writer_open(void);
// writer_start starts the thread; writer_stop drains, writes the final
// .info with complete=true and closes the files.
const char *writer_start(void);
void writer_stop(void);
// writer_drain writes what the rings hold now on the calling thread, when
// no writer thread runs (a snapshot writes more than the rings hold, with
// no thread of its own: jvm/entry.c's attach_snapshot).
void writer_drain(void);
// writer_stopped_now: the recording stops while the JVM goes on; its end
// (.info end_s) is the stop's time, not its last event's.
void writer_stopped_now(void);

// What the writer drains besides the rings, from the modules above it (the
// record layer never calls up; the jvm module registers them before
// writer_start). Any may be NULL.
typedef struct {
  // deferred writes the records held back (threads/pending.h: deferred
  // Entered, waits) that are older than cutoff or stale, and returns the time
  // from which the rings' lines must wait for the next flush (INT64_MAX:
  // none).
  int64_t (*deferred)(int64_t cutoff, int64_t stale_before);
  // walker_alive: an agent thread walks long waits' stacks (waits then get
  // 10 s before they are written without one, else 1 s).
  int (*walker_alive)(void);
  // walk_all, at the end: the waits still open get their stacks.
  void (*walk_all)(int64_t old_before);
  // meta hands over the lines of .methods (META_METHODS) or .classtable
  // (META_CLASSES) not written yet; the writer frees them.
  char *(*meta)(int which, size_t *len);
  // describe makes the metadata lines of what the lines just taken from the
  // rings refer to (the methods first seen by their captures), before
  // meta is asked; thread_exit: the writer's thread ends.
  void (*describe)(void);
  void (*thread_exit)(void);
  // samples hands over the samples taken since its last drain (threads/
  // samples.h) as records in one buffer, valid until its next call; their
  // methods are queued for describe before it returns. It drains when must
  // is set or when its slots need it, else it gives none (NULL).
  const char *(*samples)(size_t *len, int must);
  // poll reads what is read once a period rather than recorded as it
  // happens (the threads' scheduler times: tcpu.h), before each flush, and
  // at the end (final); polled: the reads it made (ORCA_TIME_WRITER).
  void (*poll)(int64_t now, int final);
  long (*polled)(void);
  // forget_class: the compact encoder's table of objects' classes let go
  // of obj's (compact_enc.forget): its class is to be named again.
  void (*forget_class)(uint32_t obj);
} writer_sources;
void writer_set_sources(const writer_sources *s);

// The facts and counters of .info are stated in counters.h; the writer
// formats them.

#endif
