#!/usr/bin/env bash
# bench/held-virtual.sh: what the held monitors of virtual threads cost
# (issue 36 item 2; docs/perf/2026-11-30-issue-36-virtual-held.md). Rounds of
# NestBench with virtual threads (and platform threads) under two builds of
# orca in alternation, the agent's defaults (lockorder=monitors) with
# ORCA_TIME_HELD=1 (its reads' and the held thread's calls' times, and those
# during which the contender got its monitor). Per run: ops/s, CPU
# (user+sys) and peak RSS of the JVM, the recording's contentions and blocked
# time (orca report --json), the held_monitors_* counters, the agent's lines.
#
#   flock /work/notes/bench.lock bench/held-virtual.sh ROUNDS OLD_ORCA NEW_ORCA [virtual|platform]...
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
R=$1 OLD=$2 NEW=$3
shift 3
[ $# -gt 0 ] && MODES=("$@") || MODES=(virtual platform)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-heldv.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/NestBench.java 2>/dev/null
for r in $(seq 1 "$R"); do
  for mode in "${MODES[@]}"; do
    if [ $((r % 2)) = 1 ]; then bins=("old:$OLD" "new:$NEW"); else bins=("new:$NEW" "old:$OLD"); fi
    for nb in "${bins[@]}"; do
      name=${nb%%:*} orca=${nb#*:}
      lib=$($orca agent-path)
      rm -rf "$TMP/p"*
      load=$(cut -d' ' -f1 /proc/loadavg)
      out=$(ORCA_TIME_HELD=1 /usr/bin/time -f 'TIME %U %S %e %M' "$JDK/bin/java" -agentpath:"$lib"=prefix="$TMP/p",format=compact \
        -cp "$TMP/classes" NestBench 4 1 "$mode" 2>&1)
      ops=$(awk '$1 == "OPS_PER_S" { print $2 }' <<<"$out")
      cpu=$(awk '$1 == "TIME" { printf "%.2f CPU-s, %d MB", $2 + $3, $5 / 1024 }' <<<"$out")
      rep=$(bin/orca report --json "$TMP/p" | python3 -c '
import json, sys
r = json.load(sys.stdin)
n = sum(l.get("contentions", 0) for l in r.get("locks", []))
b = sum(l.get("blocked_s", 0) for l in r.get("locks", []))
print("contentions %d blocked %.3f s, %.1f us each, potential deadlocks %d" % (n, b, b / n * 1e6 if n else 0, len(r.get("potential_deadlocks", []))))')
      info=$(grep -h '^held_monitors_\|^dropped_total' "$TMP/p.info" | tr '\n' ' ' || true)
      printf '%s %s round %d load %s: %8.0f ops/s, %s; %s; %s\n%s\n' "$mode" "$name" "$r" "$load" "$ops" "$cpu" "$rep" "$info" \
        "$(grep 'orca: held' <<<"$out" | sed 's/^/  /' || echo '  orca: held: none')"
    done
  done
done
