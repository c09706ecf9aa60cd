// The file sink of a recording: the files of PREFIX (created in their
// directory, opened once, exclusively, no symbolic link followed), the lock
// on PREFIX.orca, the chunk files of a bounded recording (maxsize=,
// maxage=) and their retention, .info, the cut at the first failed write
// and the exit deadline. It writes bytes it is given: the writer
// (writer.h) merges the threads' records and encodes them (the seed's text
// lines, text.h, or the compact encoding, compact.h).
#ifndef ORCA_SINK_H
#define ORCA_SINK_H
#include <stddef.h>
#include <stdint.h>

// sink_open creates the output files (choosing PREFIX-N when clobber is
// off and PREFIX exists) and writes header (hlen bytes, none when 0) at
// the start of .orca and of every chunk file; NULL or an error message.
const char *sink_open(const char *header, size_t hlen);
// sink_close closes the files (after the final .info).
void sink_close(void);
// The recording's prefix (PREFIX, or PREFIX-N), the name of its files.
const char *writer_prefix(void);
// writer_refused writes PREFIX.info saying why this agent does not record
// (refused=WHY), when no recording with that prefix exists; nothing else.
void writer_refused(const char *why);
// writer_create_file creates PREFIX+ext as the recording's own files are
// made (in its directory opened once, exclusively, no symbolic link
// followed, mode 0600; an earlier one of this user replaced, anything else
// refused): the descriptor, or -1 and why. Between writer_open and
// writer_stop.
int writer_create_file(const char *ext, char *why, size_t cap);
// writer_remove_file deletes PREFIX+ext while it is still the file fd.
void writer_remove_file(const char *ext, int fd);

// sink_put writes n bytes at fd's offset and returns how many it wrote: n,
// or fewer after an error (*err set).
size_t sink_put(int fd, const char *p, size_t n, int *err);

// The metadata files: .methods and .classtable.
enum { META_METHODS = 0, META_CLASSES = 1 };
// sink_meta appends len bytes of lines to .methods or .classtable; a failed
// write keeps the file's complete lines and cuts the recording.
void sink_meta(int which, const char *buf, size_t len);

// sink_events appends n bytes of events to the current events file
// (PREFIX.orca or its chunk file) and returns how many it wrote; on fewer
// than n (*err set) the caller calls sink_events_cut with the bytes of
// its complete records among them.
size_t sink_events(const char *p, size_t n, int *err);
// sink_events_cut truncates the events file back to keep bytes of the
// failed write (its complete records) and cuts the recording.
void sink_events_cut(size_t keep, int err);
// sink_cut: the recording is cut (a write failed): nothing more is written.
int sink_cut(void);
// sink_times notes the time of the events written: first (when none was
// noted yet; 0: none) and last (the latest so far), for .info.
void sink_times(int64_t first, int64_t last);
// sink_ev_bytes: the bytes of events written, in every file.
long long sink_ev_bytes(void);

// Chunks (the compact encoding). sink_chunk_bounds: the size and time span
// a chunk may reach before the next begins (0: unbounded) when the
// recording is bounded; a sixteenth of maxsize, an eighth of maxage.
void sink_chunk_bounds(size_t *max_bytes, int64_t *max_span);
// sink_chunk begins chunk seq at time start: in a bounded recording its own
// file PREFIX.orca.SEQ (the oldest closed ones deleted past the bounds).
// chunk_max: the encoder's bound on a chunk's bytes (retention reserves
// it for the current chunk).
void sink_chunk(uint64_t seq, int64_t start, size_t chunk_max);
// sink_prune deletes the oldest closed chunk files past the bounds at now.
void sink_prune(int64_t now, size_t chunk_max);

// sink_info writes .info: the writer's facts, then what the agent's modules
// stated and counted (counters.h); complete at the end of the recording.
// unrestated: the encoder's states it could not restate in a chunk.
void sink_info(int complete, uint64_t unrestated);

// The exit deadline: the final work at VM death ends FINAL_BUDGET_NS after
// sink_deadline_start; sink_past_deadline says when it has passed.
void sink_deadline_start(void);
int sink_past_deadline(void);

#endif
