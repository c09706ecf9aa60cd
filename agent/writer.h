// The writer thread: drains the event rings every flush period, sorts each
// batch by time, formats the .orca lines and writes them with write(2) so a
// kill -9 loses at most one period. Also owns .methods, .classtable and formats .info
// (from counters.h).
#ifndef ORCA_WRITER_H
#define ORCA_WRITER_H
#include <stddef.h>
#include <stdatomic.h>

// writer_open creates the output files (choosing PREFIX-N when clobber is
// off and PREFIX exists); NULL or an error message.
const char *writer_open(void);
const char *writer_prefix(void);
// writer_refused writes PREFIX.info saying why this agent does not record
// (refused=WHY), when no recording with that prefix exists; nothing else.
void writer_refused(const char *why);
// writer_start starts the thread; writer_stop drains, writes the final
// .info with complete=true and closes the files.
const char *writer_start(void);
void writer_stop(void);

// The facts and counters of .info are stated in counters.h; the writer
// formats them.

#endif
