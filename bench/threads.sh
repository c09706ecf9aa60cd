#!/bin/bash
# bench/threads.sh: how long `orca threads PID` takes on a JVM with many threads (issue 36,
# item 4), from the command's start to its exit, its output written to /dev/null. The JVM
# runs testdata/java/scenarios/ThreadsNow.java (its three deadlocks, chains and spinner) with
# N more platform threads parked (KIND=platform) or N virtual threads parked on one
# ReentrantLock (KIND=virtual, JDK 21+). The first round is the JVM's first attach (its attach
# listener starts); each round prints the command's wall time, orca's own `took` and the
# agent's time in the JVM (.info attach_ms), the CPU each side spent (the JVM's Attach Listener
# thread, where the agent runs, by /proc/PID/task/TID/stat; orca's user and system time and its peak RSS, by /usr/bin/time), which
# the machine's load does not change as it does the times, and the thread count it found; then
# orca's time by phase (ORCA_THREADS_TIMES=1: checks, attach, load — the agent in the JVM —,
# open, model, view, write), and at the end the load average.
#
#   JDK=/usr/lib/jvm/temurin-25-jdk-amd64 KIND=virtual N=100000 ROUNDS=3 bench/threads.sh
#   ORCAS='bin/orca.old bin/orca' ... bench/threads.sh   (each round runs each build in turn)
#
# Needs bin/orca (make). Run under flock /work/notes/bench.lock on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
KIND=${KIND:-platform}
N=${N:-10000}
ROUNDS=${ROUNDS:-3}
ORCA=${ORCA:-bin/orca}
# ORCAS: several builds, each round runs each in turn on the same JVM (old and new alternated).
ORCAS=${ORCAS:-$ORCA}
for o in $ORCAS; do [ -x "$o" ] || { echo "threads.sh: $o missing: run make" >&2; exit 1; }; done
TMP=$(mktemp -d /tmp/orca-threads-bench.XXXXXX)
"$JDK/bin/javac" --release 17 -d "$TMP/classes" testdata/java/scenarios/ThreadsNow.java
mkfifo "$TMP/in"
"$JDK/bin/java" -Xss256k -cp "$TMP/classes" ThreadsNow "$KIND" "$N" <"$TMP/in" >"$TMP/out" 2>"$TMP/err" &
pid=$!
exec 3>"$TMP/in"
trap 'echo EXIT >&3 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -rf "$TMP"' EXIT
for i in $(seq 600); do grep -q READY "$TMP/out" && break; sleep 0.5; done
grep -q READY "$TMP/out" || { echo "threads.sh: the JVM did not get ready:" >&2; cat "$TMP/err" >&2; exit 1; }
echo "$("$JDK/bin/java" -version 2>&1 | head -1), KIND=$KIND N=$N"
# listener: the task id of the JVM's Attach Listener thread, found once it has started (one grep
# of the tasks' names: a `cat` per task took minutes with 10 000 threads).
listener=
find_listener() {
  [ -n "$listener" ] && return
  local f
  f=$(grep -l -x 'Attach Listener' /proc/$pid/task/*/comm 2>/dev/null | head -1) || true
  [ -n "$f" ] && listener=$(basename "$(dirname "$f")")
  return 0
}
# listener_cpu: its CPU ticks so far, user and system (stat's fields 14 and 15, counted after the
# name's closing parenthesis: the name has a space); 0 before it starts.
listener_cpu() {
  [ -n "$listener" ] && sed 's/.*) //' "/proc/$pid/task/$listener/stat" 2>/dev/null | awk '{print $12 + $13}' || echo 0
}
hz=$(getconf CLK_TCK)
for r in $(seq "$ROUNDS"); do
for ORCA in $ORCAS; do
  label=$r; [ "$ORCAS" = "$ORCA" ] || label="$r $ORCA"
  find_listener
  a0=$(listener_cpu)
  t0=$(date +%s%N)
  ORCA_THREADS_TIMES=1 /usr/bin/time -f '%U %S %M' -o "$TMP/time" "$ORCA" threads --json "$pid" >"$TMP/json" 2>"$TMP/phases"
  t1=$(date +%s%N)
  find_listener
  a1=$(listener_cpu)
  python3 - "$TMP/json" "$label" $(( (t1 - t0) / 1000000 )) $(( (a1 - a0) * 1000 / hz )) $(tail -1 "$TMP/time") <<'PY'
import json, sys
v = json.load(open(sys.argv[1]))
print(f"round {sys.argv[2]}: {sys.argv[3]} ms wall, took {v['took_s']*1000:.0f} ms, agent {v['agent_ms']} ms, "
      f"CPU: Attach Listener {sys.argv[4]} ms, orca {float(sys.argv[5]) + float(sys.argv[6]):.2f} s ({sys.argv[5]}+{sys.argv[6]}), "
      f"RSS {int(sys.argv[7]) // 1024} MB, "
      f"{v['threads']} threads ({v['platform']} platform, {v['virtual']} virtual), {len(v['deadlocks'])} deadlocks")
PY
  grep -h "phases" "$TMP/phases" | sed 's/^/  /' || true   # an orca before ORCA_THREADS_TIMES prints none
done
done
uptime
