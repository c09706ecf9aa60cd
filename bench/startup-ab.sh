#!/usr/bin/env bash
# JVM start-up with each agent build: the wall time of `java -agentpath:LIB
# StartupTouch [touch]` (a Hello; with touch, a Semaphore acquire/release and a
# Thread.join too: the classes the agent rewrites at load, called), rounds
# interleaved, the JVM without an agent first in each. Not part of make bench:
# the tool for a change that could move start-up (docs/PERFORMANCE.md, "JVM
# start-up"). Run it alone: flock /work/notes/bench.lock ./bench/startup-ab.sh …
#
#   ./bench/startup-ab.sh ROUNDS NAME=LIB...
#   ./bench/startup-ab.sh 7 old=/tmp/old.so new=$(bin/orca agent-path)
#
# JDK as in run.sh. Prints per config and program: min, median and max in ms of
# the wall time and of the CPU time (user + sys).
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
R=$1
shift
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-startup.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/StartupTouch.java
cfgs=("none=" "$@")
for ((r = 0; r < R; r++)); do
  for c in "${cfgs[@]}"; do
    name=${c%%=*} lib=${c#*=}
    for prog in hello touch; do
      agent=()
      [ -n "$lib" ] && agent=("-agentpath:$lib=prefix=$TMP/rec-$name-$r-$prog")
      args=()
      [ $prog = touch ] && args=(touch)
      TIMEFORMAT="$name $prog %R %U %S"
      { time "$JDK/bin/java" "${agent[@]}" -cp "$TMP/classes" StartupTouch "${args[@]}" >/dev/null; } 2>>"$TMP/times"
      rm -f "$TMP"/rec-*
    done
  done
done
for c in "${cfgs[@]}"; do
  name=${c%%=*}
  for prog in hello touch; do
    for col in wall cpu; do
      awk -v n="$name" -v p="$prog" -v c=$col '$1 == n && $2 == p { print int(1000 * (c == "wall" ? $3 : $4 + $5)) }' "$TMP/times" |
        sort -n | awk -v n="$name" -v p="$prog" -v c=$col '{ v[NR] = $1 }
          END { printf "%-8s %-6s %-4s min %4d  median %4d  max %4d ms (%d runs)\n", n, p, c, v[1], v[int((NR + 1) / 2)], v[NR], NR }'
    done
  done
done
