#!/usr/bin/env python3
"""Runs a command and writes the CPU it and its children used, for the benchmarks.

    bench/cpu_of.py FILE CMD...

FILE gets "USER SYS" in seconds from wait4(2), to the microsecond (/usr/bin/time
rounds to 10 ms): the whole life of the process, its exit included. The exit
status is CMD's. Signals other than SIGKILL sent to this process are passed on
to CMD.
"""
import os
import signal
import sys

pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda s, _f: os.kill(pid, s))
while True:
    try:
        _, status, ru = os.wait4(pid, 0)
        break
    except InterruptedError:
        continue
with open(sys.argv[1], "w") as f:
    f.write("%.6f %.6f\n" % (ru.ru_utime, ru.ru_stime))
sys.exit(os.waitstatus_to_exitcode(status) & 255)
