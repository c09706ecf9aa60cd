#!/usr/bin/env bash
# bench/held.sh: what the held monitors cost the application (issue 36
# item 2; docs/perf/2026-11-30-issue-36-held-thread.md). Rounds of three
# configurations in rotating order, on HeldBench and H2Bench, JFR in every
# JVM:
#   frames  lockorder=monitors: read from the thread's own frames, JVMTI
#           asked by the held thread only for an enter whose monitors are
#           not all hashed and named yet (the default)
#   thread  lockorder=monitors, ORCA_HELD_JVMTI=1: every enter asked by the
#           agent's held thread (2026-11-30 before the read from the frames)
#   off     lockorder=no
# (CFGS="frames thread inline off" adds inline: ORCA_HELD_IN_THREAD=1 with
# ORCA_HELD_JVMTI=1, asked in the contending thread, as before 2026-11-30.)
# With ORCA_TIME_HELD=1 the agent prints its calls' and reads' times and the
# time of those during which the caller got its monitor (an upper bound of
# what they added to the holds of the monitors it holds). Per run: ops/s, JFR's
# contended enters, the recording's contentions and blocked time
# (orca report --json), the agent's line.
#
#   flock /work/notes/bench.lock bench/held.sh ROUNDS [held|h2]...
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
H2JAR=${H2JAR:-/usr/share/java/h2.jar}
R=$1
shift
[ $# -gt 0 ] && WLS=("$@") || WLS=(held h2)
ORCA=${ORCA:-bin/orca}
LIB=$($ORCA agent-path)
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-held.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/{HeldBench,NestBench,H2Bench,JfrCount}.java
read -r -a cfgs <<<"${CFGS:-frames thread off}"
nc=${#cfgs[@]}
for r in $(seq 1 "$R"); do
  for wl in "${WLS[@]}"; do
    case $wl in
      held) CMD=(-cp "$TMP/classes" HeldBench 4 1) ;;
      h2) CMD=(-cp "$TMP/classes:$H2JAR" H2Bench 8 4 2) ;;
    esac
    for k in $(seq 0 $((nc - 1))); do
      c=${cfgs[$(((k + r) % nc))]}
      opts=lockorder=monitors env=()
      case $c in
        thread) env=(ORCA_HELD_JVMTI=1) ;;
        inline) env=(ORCA_HELD_IN_THREAD=1 ORCA_HELD_JVMTI=1) ;;
        off) opts=lockorder=no ;;
      esac
      rm -rf "$TMP/p"*
      load=$(cut -d' ' -f1 /proc/loadavg)
      out=$(env ORCA_TIME_HELD=1 "${env[@]}" "$JDK/bin/java" -XX:StartFlightRecording=filename="$TMP/x.jfr",settings=bench/zero.jfc \
        -agentpath:"$LIB"=prefix="$TMP/p",format=compact,$opts "${CMD[@]}" 2>"$TMP/err")
      ops_s=$(awk '$1 == "OPS_PER_S" { print $2 }' <<<"$out")
      en=$("$JDK/bin/java" -cp "$TMP/classes" JfrCount "$TMP/x.jfr" | sed -n 's/.* enters=\([0-9]*\) .*/\1/p')
      rep=$($ORCA report --json "$TMP/p" | python3 -c '
import json, sys
r = json.load(sys.stdin)
n = sum(l.get("contentions", 0) for l in r.get("locks", []))
b = sum(l.get("blocked_s", 0) for l in r.get("locks", []))
print("contentions %d blocked %.3f s, %.1f us each" % (n, b, b / n * 1e6 if n else 0))')
      info=$(grep -h '^held_monitors_\(dropped\|skipped\|unread\|read\|asked\)' "$TMP/p.info" | tr '\n' ' ' || true)
      printf '%s %-6s round %d load %s: %8.0f ops/s, JFR enters %s, %s; %s\n  %s\n' "$wl" "$c" "$r" "$load" "$ops_s" "$en" "$rep" "$info" \
        "$(grep 'orca: held' "$TMP/err" | paste -sd'\n' | sed '2,$s/^/  /' || echo 'orca: held: none')"
    done
  done
done
