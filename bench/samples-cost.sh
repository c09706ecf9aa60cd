#!/usr/bin/env bash
# The CPU the CPU sampler adds (issue 33): CpuBurn (a fixed amount of work in 2 threads)
# recorded with `cpu=INTERVAL,wall=off` against `cpu=off,wall=off` (the same agent, the same
# events), rounds interleaved. Prints per round the process's CPU (user + sys, the shell's
# getrusage of the JVM, in ms) of each, the CPU samples taken (.info samples.cpu), and the added CPU per 1 000
# samples; then the medians. Not part of make bench. Run it alone:
#   flock /work/notes/bench.lock ./bench/samples-cost.sh [ROUNDS] [INTERVAL] [ITERS]
#   flock /work/notes/bench.lock ./bench/samples-cost.sh 5 10ms 400
# JDK=... picks the JDK (default: 17 as run.sh); LIB=... another agent build.
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
LIB=${LIB:-$(bin/orca agent-path)}
R=${1:-5} IV=${2:-10ms} ITERS=${3:-400}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-samples.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/CpuBurn.java
cpu() { # cpu OPTS: the run's CPU seconds (getrusage of the child: microseconds, not /usr/bin/time's 10 ms)
  local TIMEFORMAT="%3U %3S"
  { time "$JDK/bin/java" "-agentpath:$LIB=prefix=$TMP/r,$1" -cp "$TMP/classes" CpuBurn 2 "$ITERS" 2>/dev/null; } 2>"$TMP/t"
  awk '{printf "%.3f", $1 + $2}' "$TMP/t"
}
echo "round  off_s  on_s  samples  added_ms_per_1000"
adds=()
for ((i = 1; i <= R; i++)); do
  off=$(cpu "cpu=off,wall=off")
  on=$(cpu "cpu=$IV,wall=off")
  n=$(sed -n 's/^samples.cpu=//p' "$TMP/r.info")
  add=$(awk -v a="$on" -v b="$off" -v n="$n" 'BEGIN { printf "%.1f", n ? (a - b) * 1e6 / n : 0 }')
  adds+=("$add")
  echo "$i  $off  $on  $n  $add"
done
printf '%s\n' "${adds[@]}" | sort -g | awk '{ a[NR] = $1 } END { printf "median added CPU per 1000 samples: %s ms (min %s, max %s, %d rounds)\n", a[int((NR + 1) / 2)], a[1], a[NR], NR }'
