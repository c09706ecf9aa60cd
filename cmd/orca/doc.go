/*
Orca records what the threads of a Java program do to each other: monitor
contention (who blocked on which lock, held by whom), Object.wait/notify,
java.util.concurrent locks, conditions, latches and semaphores (every
LockSupport park, with the lock's owner), Thread.sleep, Thread.join, thread
start and end, virtual threads (JDK 21+) and class initialisation.
A C JVMTI agent, embedded in this binary, writes the events to text files while
the program runs; the orca command starts programs with it and reads the files.

# Recording a program

Put orca record in front of the command that starts your program:

	orca record -o /tmp/run1 -- java -jar app.jar
	orca record -o /tmp/tomcat -- catalina.sh run

The command may be java or any script that starts one or more JVMs, and every
JVM it starts records, the first to /tmp/run1.*, the next ones to /tmp/run1-2.*,
/tmp/run1-3.* and so on. A java command gets the agent first on its command
line (-agentpath:...), and prints nothing for it. Any other command gets it in
JAVA_TOOL_OPTIONS (after any value already set), and each JVM that reads it
prints "Picked up JAVA_TOOL_OPTIONS: -agentpath:..." on its stderr: the JVM
saying it loaded orca's agent, a line no JVM option hides (JDK_JAVA_OPTIONS,
read by the java launcher only, prints "NOTE: Picked up" alike). JVMs that a
java command starts get JAVA_TOOL_OPTIONS from the agent, and print the line. The command keeps its stdin, stdout
and stderr; orca exits with its exit status. When it ends, orca prints per JVM
the files written, the number of events of each kind, and any events that were
lost (the agent drops events rather than slow the program when its buffer is
full, and counts them). Without -o the prefix is orca-YYYYMMDD-HHMMSS in the
current directory. orca will not overwrite an earlier recording unless given
--force, and refuses a recording's name that another user took (a symbolic
link, another user's file). The files are the recording user's, mode 0600.

Options of orca record:

	-o PREFIX     output prefix (default orca-YYYYMMDD-HHMMSS)
	--depth N     stack frames kept per event, 0-256 (default 16)
	--flush MS    how often the agent writes its buffers, 10-1000 ms (default 200)
	--buffer MB   the agent's event buffer, 1-1024 MB (default 32); the JVM's
	              resident memory grows by up to about 3.8 x MB
	--kinds K     all (default): also parks (LockSupport.park: java.util.concurrent
	              locks, conditions, latches, futures, queues); seed: only the
	              16 event kinds of the original Orca format (no parks,
	              classes, virtual threads), for tools that read only those
	--format F    the encoding of PREFIX.orca: compact (default): binary, each
	              stack and thread written once per chunk (6-12 x smaller than
	              the text, less of the agent's CPU; orca dump prints it);
	              seed: the original Orca's text, one line an event with its
	              stack inline (orca export --format seed converts to it)
	--force       delete an earlier recording with the same prefix first (its
	              user's regular files only)
	--quiet       print no summary
	--pid PID     attach to the running JVM PID instead of starting a COMMAND
	              (below, "Attaching to a running JVM")
	--duration D  with --pid: stop after D (30s, 5m); default: at Ctrl-C
	--detach      with --pid: leave the recording running; orca stop PID ends it

Ctrl-C stops the program as it would without orca; the JVM then still ends
normally and the recording is complete. A JVM killed with SIGKILL leaves a
recording of the events up to the agent's last flush; its .info says
complete=false. At exit the agent gives its final writes at most 0.5 s and
counts what it could not write as dropped. When the disk fills up, the agent
says so once on stderr, the recording ends at its last complete line, and the
summary says where it was cut and how many events were dropped after it.
orca record inside orca record adds no second agent; two orca record runs with
one prefix each list only their own recording.

# Starting the JVM yourself

When you cannot put orca in front of the command, load the agent directly:

	java -agentpath:$(orca agent-path)=/tmp/run2 Main
	java -agentpath:$(orca agent-path)=prefix=/tmp/run3,depth=32,buffer=64 -jar app.jar

orca agent-path extracts the library to ~/.cache/orca (or $XDG_CACHE_HOME/orca)
and prints its path. The agent's options are a bare prefix, or key=value pairs
separated by commas:

	prefix=PATH     output prefix; %p is replaced by the JVM's pid (default orca-%p)
	depth=N         stack frames per event, 0-256 (default 16)
	flush=MS        write buffered events every MS ms, 10-1000 (default 200)
	buffer=MB       event buffer size, 1-1024 MB (default 32); up to ~3.8 x MB resident
	clobber=yes|no  yes: overwrite PREFIX.*; no: use PREFIX-2, PREFIX-3, ... (default yes);
	                a prefix another running JVM records to is never overwritten
	session=HEX     a token written to PREFIX.info (orca record sets it)
	thread_cpu=MS   read each thread's CPU and ready time every MS ms, 100-60000,
	                when changed, and at its start and end (default 1000; off: none)

An invalid option stops the JVM at startup with the list of valid ones. A
second agent in one JVM does not record and says so.

# Attaching to a running JVM

orca record --pid attaches to a HotSpot JVM (JDK 17+) that is already
running, started without any agent or option:

	orca record --pid 4242 --duration 30s -o /tmp/srv
	orca record --pid 4242 -o /tmp/srv
	orca record --pid 4242 -o /var/tmp/srv --max-size 256MB --max-age 1h --detach
	orca stop 4242

It loads the agent with HotSpot's attach protocol (no JDK tool needed), prints
"orca: recording pid 4242 (Main) to /tmp/srv; Ctrl-C stops" once the agent
records, records until --duration has passed or orca gets Ctrl-C (SIGINT) or
SIGTERM, stops the recording, waits for its files to be complete and prints the
summary. The JVM goes on running, and can be attached to again. A second Ctrl-C
while the recording stops only says so, unless the JVM is stopped (SIGSTOP),
which orca says at once: then it lets go. orca holds a lease on the recording
(a lock on PREFIX.lease): when orca ends without stopping it (kill -9, or let
go), the agent stops it, its files complete. --detach exits once the recording
runs and leaves it running, bounded (--max-size and --max-age; without them
--max-size 256MB); orca stop PID
stops it and prints the summary, orca stop -o PREFIX PID only if it records to
PREFIX. orca must run as the JVM's user or root; the JVM's user writes the
files, so -o must be in a directory that user can write (checked before
attaching). Without -o the prefix is orca-PID-YYYYMMDD-HHMMSS in the current
directory, or in the container's /tmp for a JVM in a container (another mount
namespace), whose files orca reads through /proc/PID/root. A JVM started with
-XX:+DisableAttachMechanism cannot be attached to. JDK 21 and later print a
WARNING on the JVM's stderr about a dynamically loaded agent: expected; start
the JVM with -XX:+EnableDynamicAgentLoading to hide it.

# The files

A recording is four text files sharing a prefix: PREFIX.orca (one event per
line), PREFIX.methods and PREFIX.classtable (the methods and classes its stack
traces refer to), and PREFIX.info (key=value facts about the run and counters).
docs/format.md in the source tree describes every field.

# Reading a recording

	orca report /tmp/run1

prints what the threads did to each other, worst first. The headline gives
the duration, threads, events, contended locks, deadlocks and hangs, and a
line starting with !! for anything that makes the numbers incomplete (events
the agent dropped, malformed lines, a last line cut by a kill, a JVM that did
not exit normally). Then come these sections, each ranked; an empty one is a
single line such as "No deadlocks.":

	DEADLOCKS    cycles of threads each waiting for the next (a monitor's or
	             a java.util.concurrent lock's owner, or a joined thread): each
	             thread, what it waits on, who holds it, and its stack
	POTENTIAL DEADLOCKS
	             lock-order inversions that did not deadlock in this run but
	             could: cycles of monitors and java.util.concurrent locks that
	             threads took in opposite orders (seen at their contended
	             enters and parks, with the locks they held, uncontended ones
	             too: orca record --lock-order; the monitors only by default,
	             none with --lock-order=off), less those guarded by a common
	             lock and those whose link is a read lock wanted where a read
	             lock is held;
	             per thread, where it held the first and wanted the second
	HANGS        threads that cannot proceed: still blocked, waiting, joining,
	             acquiring or parked without a timeout when the recording
	             ended, for 1 s or more by then (by the start of the JVM's
	             shutdown, when it exited), longest first; the JDK's own service
	             threads (Finalizer, Common-Cleaner, ...) idling in Object.wait
	             are named on one line, not counted as hangs, and idle pool
	             workers and queue consumers (parked waiting for work: idle)
	             are not hangs either; the other threads in a state at the
	             end are named with why they are not hangs: a park with a
	             timeout, too short, entered during the shutdown, or open at
	             a kill (kill -9)
	WAITING ALONE  threads stuck as long, but for no thread in particular (a
	             wait, a latch, a condition) with no thread behind them, while
	             other threads ran on: a server's main until its end, a
	             forgotten latch; counted in the headline, not as hangs
	             (only when there are such threads)
	CONTENTION   monitors, semaphores and java.util.concurrent locks
	             (ReentrantLock, read-write locks, StampedLock) by the time threads spent
	             blocked on them: contentions, total, mean and max; the owners
	             blamed for it (the thread holding the lock, or releasing the
	             permit, while others waited) with their share; what the
	             holders did while others were blocked (running, ready,
	             other: I/O, native, the VM; blocked on which lock, held by
	             whom; the methods their samples were in); where threads
	             blocked; how long the holders held it while others waited
	             (count, mean, p50, p99, max, and per site where they took
	             it)
	CALL SITES   the blocking call sites across all locks, one per source
	             line (class, method, file and line of each frame; the
	             bytecode index only where the line is unknown)
	WAIT/NOTIFY  per object: waits no notify ended (timeouts, interrupts),
	             threads still waiting, notifies that found no waiter,
	             notifyAll storms (100 or more within 10 ms); and the parks on
	             each blocker (a condition, latch, future, queue) with the
	             threads whose unpark ended them; short-lived objects (20 or
	             more of one class waited on at one call site, at most 5
	             times each: a future per request) are one entry, their sums
	CPU          the methods threads ran in, by their CPU samples, as HPROF's
	             cpu=samples: rank, self %, accumulated %, samples, time,
	             method with line (a native frame counts for the Java method
	             that called it); the first 20, or --top; "No samples" once
	             for a recording without
	THREADS      time each thread spent in each state, in seconds and % of
	             its life; "runnable" is time in none of the recorded states,
	             split into cpu, ready and other when the recording has
	             scheduler times or samples;
	             virtual threads (JDK 21+) one row per name pattern, digits
	             as N ("10154 virtual "virtual-N""), unless --virtual

Times are seconds since the recording's first event; the headline gives that
event's time as orca dump prints it. Threads are shown as "name" (ID) and
objects by their identity hash code (8 hex digits, as in the files); a name is
never cut, a table widens for a long one. orca report and orca view give the
same figures: both show the one aggregate of the model. Stacks
show the top frame, then, if JDK frames follow it, "... N JDK frames" up to
the first frame of your code, then the next frames: 5 frames at most.

	orca report --top 0 /tmp/run1 | less     every lock, site, thread and object (default: 10 each)
	orca report --thread worker-3 /tmp/run1  only the threads named worker-3 (or, if none
	                                         is, whose name contains it), or with that id
	orca report --virtual /tmp/run1          each virtual thread on its own row
	orca report --json -o run1.json /tmp/run1
	orca report --last 5m /tmp/server        the last 5 minutes (an always-on recording)
	orca report /tmp/run1 --from 120 --to 180  seconds 120 to 180 (as the report prints them)

--from T, --to T and --last D (orca report, view and export) keep a time range:
T in seconds since the recording's first event, a duration since it (1m30s) or
an RFC 3339 time. A compact recording is read from the chunk that holds T, so a
range costs what it holds, not what the file does; the seed's text .orca is read
whole and filtered. The state every thread was in at the range's start is
restated there: a state begun before it counts from it.

Virtual threads (JDK 21+) are threads of their own in the recording: their
sleeps, parks, waits and contention carry their identity (an unnamed one is
"virtual-ID"), the owner of a lock one holds is that virtual thread, and a park
or sleep that could not unmount parks its carrier and is marked pinned.

--json writes the same report as JSON, every stack whole; docs/report-json.md
in the source tree describes each field. For a recording over 64 MB, orca
report shows its progress on stderr when stderr is a terminal — bytes read of
all, events and events a second (orca view from 8 MB, orca export from 64 MB,
orca import after a second: none of them writes progress to a file or a pipe).

	orca dump /tmp/run1 | less

prints every event with the thread's name and the stack trace resolved to
source lines, then the reader's warnings, malformed lines and whether the last
line was cut short.

# Browsing a recording

	orca view /tmp/run1
	orca view --addr 127.0.0.1:8080 --no-browser /tmp/run1

reads the recording, prints a URL and opens it in a browser when one is
available (--no-browser only prints it), and serves until Ctrl-C. It listens
on 127.0.0.1, on a free port unless --addr names one; the page is built into
orca and fetches nothing from elsewhere. Four views:

	Timeline     a lane per thread with its states over time (blocked,
	             waiting, sleeping, joining, acquiring, parked, idle;
	             runnable between);
	             hover for the state, object, owner and duration, click for
	             the stack; arrows for who woke, blocked, started or joined
	             whom; drag or A/D to pan, Ctrl+wheel or W/S to zoom
	Locks        the contention ranking; per lock its owners, waiters and
	             call sites; a lock selects its intervals on the timeline
	Deadlocks    the deadlocks and hangs, and the wait-for graph at any
	             instant, cycles in red, each thread linked to its stack
	Flame graph  blocked and waiting time by stack, by thread, lock or range

The URL keeps the view, the time range and the selection: copy it to show
someone else the same place in the same recording. docs/web.md in the source
tree describes the JSON API the page uses.

# Importing a JDK Flight Recorder recording

	orca import --jfc > orca.jfc
	java -XX:StartFlightRecording=filename=run.jfr,settings=orca.jfc -jar app.jar
	orca import run.jfr -o /tmp/run2
	orca report /tmp/run2

converts a .jfr file into an Orca recording: jdk.JavaMonitorEnter, JavaMonitorWait,
ThreadSleep, ThreadStart, ThreadEnd and ThreadPark become Orca events, JFR's
samples (jdk.ExecutionSample, jdk.CPUTimeSample on JDK 25,
jdk.NativeMethodSample) Orca's samples, when the recording has them
(settings=profile,settings=orca.jfc: orca.jfc last, so that its 0 ms
thresholds win over profile's 10 ms); what
the Orca format has no field for (who notified a wait, timeouts, thread ids)
goes to a fifth file, PREFIX.ext. Record with stack traces and a 0 ms
threshold: orca import --jfc prints the settings file that does (orca.jfc,
built into orca). JFR has no source
file names: frames show line numbers but "Unknown Source" as the file.
PREFIX.orca is in the compact encoding, as orca record writes it;
--format seed writes the original Orca's text instead (the same events).
docs/jfr.md in the source tree has the mapping and its limits.

# Exporting to other tools

	orca export --format pprof /tmp/run1           writes /tmp/run1.pb.gz
	go tool pprof -http=: /tmp/run1.pb.gz

writes the recording in another tool's format: pprof (a gzipped pprof profile,
for go tool pprof or speedscope), perfetto (a Perfetto trace, for
ui.perfetto.dev), chrome (Trace Event Format JSON, for chrome://tracing or
ui.perfetto.dev) or collapsed (folded stacks, for flamegraph.pl or speedscope).
The profiles give the time threads spent in each stack: delay in nanoseconds
and contentions, as Go's block and mutex profiles do, with labels thread,
thread_id, state, lock, owner and open (and orca push's attribute names:
thread.name, lock.class, lock.owner.thread.name, ...); the traces show a track per thread, a
slice per state with its stack, and arrows for notify -> wake, owner ->
blocked thread, release -> acquire, start and join. --kind picks the states:
monitor, wait, sleep, join, semaphore or all, or a comma-separated list
(default monitor for pprof and collapsed, all for the traces). -o FILE names
the output (- for stdout). docs/export.md in the source tree describes each
format and how to open it; every viewer named reads the file on your machine.

	orca export --format perfetto /tmp/run1        then open /tmp/run1.pftrace in ui.perfetto.dev
	orca export --format collapsed --kind wait -o - /tmp/run1 | flamegraph.pl > waits.svg

--profile cpu or --profile wall makes pprof and collapsed weigh the threads'
samples instead of states: cpu, where threads ran (sample types samples and
cpu nanoseconds, as Go's CPU profile); wall, where they were in no recorded
state, on a CPU or not (I/O, native code). The seed export leaves samples
and scheduler times out (its format has no kind for them) and says how many.

	orca export --format pprof --profile cpu -o cpu.pb.gz /tmp/run1 && go tool pprof -top cpu.pb.gz

--format seed writes the recording itself in the seed's text encoding, one
line an event with its stack inline, for tools that read the manual's format:
-o OUT names the output's prefix (OUT.orca, with .methods, .classtable, .info
and .ext copied beside it). A recording in the compact encoding is converted
event for event; one already in text is copied byte for byte.

	orca export --format seed -o /tmp/run1-text /tmp/run1

# Pushing to an OpenTelemetry Collector

	orca push --otlp http://127.0.0.1:4318 /tmp/run1
	orca record --otlp http://127.0.0.1:4318 --max-age 10m -o /var/tmp/srv -- java -jar app.jar

sends a recording (orca push: whole, or --from/--to/--last) or a bounded
recording's chunks as they close (orca record --otlp, every --push-every) to
an OpenTelemetry Collector or Grafana Pyroscope, as OTLP profiles over
HTTP/protobuf (URL + /v1development/profiles; OTEL_EXPORTER_OTLP_ENDPOINT is
the default URL). Each kind of blocking is a pair of profiles, contentions
(count) and delay (nanoseconds), beside the cpu and wall samples; each
contention carries lock.owner.thread.name, the thread the report blames for
it, split per owner when the owner changed while the thread waited. The
attributes are orca export --format pprof's labels too. A collector that is
away is retried with back-off, a bounded backlog waits for it, and what was
dropped is said at the end; --otlp-header K=V adds headers (authentication),
--otlp-compression none (or OTEL_EXPORTER_OTLP_COMPRESSION=none) sends the
bodies as they are, not gzipped (for a collector on the same host: an
eighth less CPU, more bytes), https:// is verified against the system's roots. orca record refuses --otlp
with --detach: no orca would be left to push. docs/otlp.md in the source tree
lists the attribute names and the decisions.

# Options and operands

Every command but orca record takes its options before or after its operands:
orca view /tmp/run1 --no-browser is orca view --no-browser /tmp/run1. After
"--" everything is an operand. orca record takes its options before COMMAND:
what follows COMMAND is the command's.

# Exit status

orca exits 0 when it did what it was asked, 2 on a usage error or a refusal (no
such recording, a recording's name taken) and 1 on another error: a file that
is not an Orca recording, a recording cut short, a write that failed. Each
error is one line on stderr beginning "orca: ".

orca record -- COMMAND exits with COMMAND's status (128+N if signal N killed
it), so that a script sees its program's. Its own failures exit 125, a status
no program is likely to use (env and timeout use it alike): a usage error, a
recording's name refused, COMMAND succeeded but started no JVM that loaded the
agent, a JVM of it could not be recorded. 126: COMMAND could not be run; 127:
it was not found. orca record --pid runs no program: 1 and 2 as above.
*/
package main
