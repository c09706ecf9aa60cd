#!/usr/bin/env python3
"""Runs a command and writes the CPU it and its children used, for the benchmarks.

    bench/cpu_of.py FILE CMD...
    CPU_OF_AT="15 75" bench/cpu_of.py FILE CMD...

FILE gets "USER SYS" in seconds from wait4(2), to the microsecond (/usr/bin/time
rounds to 10 ms): the whole life of the process, its exit included. The exit
status is CMD's. Signals other than SIGKILL sent to this process are passed on
to CMD.

With CPU_OF_AT (seconds after the start, ascending), FILE.at gets a line
"T NS" at each of those times: the process's CPU clock (every thread of it,
those ended included; clock_getcpuclockid(3), to the nanosecond) read then,
and at the end "elapsed S", the seconds from the start to the exit; and
FILE.threads a line "T TID NS NAME" for each thread alive at each read (its
schedstat's on-CPU time), to tell which threads a window's CPU went to. A
steady window's CPU is the difference of two reads: the JVM's start, its JIT
warm-up and its exit (an agent's last write) are outside it (bench/sampling.sh
WINDOW). A read the process did not live to is left out.
"""
import os
import signal
import sys
import threading
import time

start = time.monotonic()
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda s, _f: os.kill(pid, s))

at = [float(t) for t in os.environ.get("CPU_OF_AT", "").split()]
reads = []


def threads_now():
    """(tid, name, on-CPU ns) of each thread of the process now, from its
    schedstat (the kernel's sum_exec_runtime, the clock's own figure)."""
    rows = []
    base = "/proc/%d/task" % pid
    try:
        tids = os.listdir(base)
    except OSError:
        return rows
    for tid in tids:
        try:
            with open("%s/%s/schedstat" % (base, tid)) as f:
                ns = int(f.read().split()[0])
            with open("%s/%s/comm" % (base, tid)) as f:
                name = f.read().strip().replace(" ", "_")
        except (OSError, ValueError, IndexError):
            continue  # ended meanwhile
        rows.append((int(tid), name, ns))
    return rows


def read_at():
    # The process CPU clock of another process: MAKE_PROCESS_CPUCLOCK(pid,
    # CPUCLOCK_SCHED) of the kernel's posix-timers.h, what
    # clock_getcpuclockid(3) returns (Python has no binding for it).
    clk = ((~pid) << 3) | 2
    for t in at:
        time.sleep(max(0.0, start + t - time.monotonic()))
        try:
            reads.append((t, time.clock_gettime_ns(clk), threads_now()))
        except OSError:
            return  # ended before


reader = threading.Thread(target=read_at, daemon=True)
if at:
    reader.start()
while True:
    try:
        _, status, ru = os.wait4(pid, 0)
        break
    except InterruptedError:
        continue
elapsed = time.monotonic() - start
with open(sys.argv[1], "w") as f:
    f.write("%.6f %.6f\n" % (ru.ru_utime, ru.ru_stime))
if at:
    # The reads taken while the process lived; a read racing its exit fails.
    with open(sys.argv[1] + ".at", "w") as f:
        for t, ns, _ in list(reads):
            f.write("%g %d\n" % (t, ns))
        f.write("elapsed %.6f\n" % elapsed)
    with open(sys.argv[1] + ".threads", "w") as f:
        for t, _, rows in list(reads):
            for tid, name, ns in rows:
                f.write("%g %d %d %s\n" % (t, tid, ns, name))
sys.exit(os.waitstatus_to_exitcode(status) & 255)
