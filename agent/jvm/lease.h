// The lease of an attached recording (docs/attach.md, "The lease"): orca
// record --pid holds a lock on PREFIX.lease, a file the agent creates, for
// as long as it runs; the agent ends the recording once the lock is gone
// (orca was killed, or let go of a JVM that did not answer).
#ifndef ORCA_LEASE_H
#define ORCA_LEASE_H

// lease_open creates the recording's PREFIX.lease as its other files are
// made (writer_create_file): NULL, or why it cannot.
const char *lease_open(void);

// lease_lost tells, each round of the walker, whether the lease is over:
// the lock, once seen, is gone, or it was never taken within LEASE_FIRST_S
// seconds of the JVM's running time. 0 when no lease is open.
int lease_lost(void);

// lease_close removes the file (the recording stops), before writer_stop.
void lease_close(void);

// The time orca has to take the lock after the agent started recording.
#define LEASE_FIRST_S 15

#endif
