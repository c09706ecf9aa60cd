#!/usr/bin/env bash
# A/B of agent builds by the contention JFR sees (perturbation), with JFR in
# every JVM, rounds interleaved in rotating order. Not part of make bench:
# the tool for finding what perturbs, one change at a time.
#
#   ./bench/ab.sh WORKLOAD ROUNDS NAME=LIB...
#   ./bench/ab.sh lock 6 old=/tmp/old.so new=$(bin/orca agent-path) floor
#   L=$(bin/orca agent-path); ./bench/ab.sh h2 8 d16=$L#depth=16 d64=$L#depth=64
#
# NAME=LIB#OPTIONS adds agent options (comma-separated, e.g. depth=64) to
# that configuration, after DEPTH's. WORKLOAD: lock | h2. "floor" is bench/jvmti_floor.c (contended-monitor
# events with empty callbacks). A config "jfr" (JFR alone) is always added.
# Prints per run: ops/s, JFR's contended enters (total, per Mop, top monitor
# classes); then per config the medians. JDK and DEPTH (orca's depth=
# option, unset: the agent's default) as in run.sh. A JVM that crashes stops
# the A/B with a non-zero status, its hs_err file or core moved to build/crash
# (or $ORCA_CRASH_DIR) and named (bench/crash.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/crash.sh
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
H2JAR=${H2JAR:-/usr/share/java/h2.jar}
DEPTH=${DEPTH:-}
WL=$1 R=$2
shift 2
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-ab.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/{LockBench,ParkBench,QueueBench,H2Bench,JfrCount}.java
case $WL in
  lock) CMD=(-cp "$TMP/classes" LockBench 8 5 2) ;;
  h2) CMD=(-cp "$TMP/classes:$H2JAR" H2Bench 8 5 2) ;;
  *) echo "ab: workload lock or h2" >&2; exit 2 ;;
esac
cfgs=("jfr=")
for c in "$@"; do
  if [ "$c" = floor ]; then
    gcc -O2 -shared -fPIC -I"$JDK/include" -I"$JDK/include/linux" -o "$TMP/floor.so" bench/jvmti_floor.c
    c="floor=$TMP/floor.so"
  fi
  cfgs+=("$c")
done
n=${#cfgs[@]}
for r in $(seq 1 "$R"); do
  for k in $(seq 0 $((n - 1))); do
    c=${cfgs[$(((k + r) % n))]}
    name=${c%%=*} lib=${c#*=} opts=
    if [[ $lib == *'#'* ]]; then opts=,${lib#*#} lib=${lib%%#*}; fi
    args=("-XX:StartFlightRecording=filename=$TMP/x.jfr,settings=bench/zero.jfc")
    [ -n "$lib" ] && args+=("-agentpath:$lib=prefix=$TMP/p${DEPTH:+,depth=$DEPTH}$opts")
    rc=0
    out=$("$JDK/bin/java" -XX:ErrorFile="$TMP/hs_err_pid%p.log" "${args[@]}" "${CMD[@]}" 2>"$TMP/err") || rc=$?
    if ! crash_check "ab-$name-$r" "$TMP" "$PWD" || [ "$rc" != 0 ]; then
      echo "ab: $name round $r: java exited $rc${CRASH_KEPT[*]:+; a JVM CRASHED: ${CRASH_KEPT[*]}}" >&2
      tail -n 20 "$TMP/err" >&2
      exit 1
    fi
    ops=$(awk '$1 == "OPS" { print $2 }' <<<"$out")
    ops_s=$(awk '$1 == "OPS_PER_S" { print $2 }' <<<"$out")
    line=$("$JDK/bin/java" -XX:ErrorFile="$TMP/hs_err_pid%p.log" -cp "$TMP/classes" JfrCount "$TMP/x.jfr") || rc=$?
    if ! crash_check "ab-$name-$r-jfrcount" "$TMP" "$PWD" || [ "$rc" != 0 ]; then
      echo "ab: JfrCount after $name round $r: java exited $rc${CRASH_KEPT[*]:+; a JVM CRASHED: ${CRASH_KEPT[*]}}" >&2
      exit 1
    fi
    en=$(sed -n 's/.* enters=\([0-9]*\) .*/\1/p' <<<"$line")
    cls=$(grep -o 'enters\[[^]]*\]=[0-9]*' <<<"$line" | sed 's/enters\[\(.*\)\]=/\1=/' | sort -t= -k2 -nr | head -3 | tr '\n' ' ')
    printf '%s %-8s round %d: %9.0f ops/s  enters %5d  per Mop %6.1f  %s\n' "$WL" "$name" "$r" "$ops_s" "$en" \
      "$(awk -v e="$en" -v o="$ops" 'BEGIN { printf "%.1f", e / o * 1e6 }')" "$cls" | tee -a "$TMP/runs"
  done
done
echo "medians of JFR's contended enters per run:"
for c in "${cfgs[@]}"; do
  name=${c%%=*}
  awk -v n="$name" '$2 == n { print $8 }' "$TMP/runs" | sort -n |
    awk -v n="$name" '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "  %-8s %8.0f  (%d runs)\n", n, m, NR }'
done
