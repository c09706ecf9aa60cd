#!/usr/bin/env bash
# The cost of frequent events in the application thread (issue 23 item 4):
# NotifyBench (a notifyAll storm with no waiter, or unparks of a thread that
# is not parked, from a call site DEPTH frames deep), ParkBench and LockBench, with no
# agent, with JFR recording the equivalent events (bench/zero.jfc; JFR has no
# notify or unpark event) and with each agent given, rounds interleaved in a
# rotating order. Not part of make bench: short runs for A/B on a shared
# machine.
#
#   ./bench/notify.sh ROUNDS NAME=LIB...
#   ./bench/notify.sh 4 old=/tmp/old.so new=internal/agentlib/liborca.so
#   JDK=/usr/lib/jvm/temurin-25-jdk-amd64 WORKLOADS="notifyAll unpark" ./bench/notify.sh 3 new=$(bin/orca agent-path)
#
# NAME=LIB#OPTIONS adds agent options (format=compact is the default here,
# as orca record's). Environment: JDK [Debian 17], WORKLOADS [notifyAll
# unpark park; also lock: LockBench], THREADS [1 for NotifyBench, 4 for
# ParkBench and LockBench], SECS [3],
# DEPTH [20: NotifyBench's call depth], AGENV (environment for the agent's
# runs, e.g. ORCA_WALK_CACHE=0). Prints one line a run: NotifyBench's
# APP_NS_PER_OP (the calling threads' own CPU per call, without the writer's
# thread) and CPU_NS_PER_OP (the whole process), ParkBench's and
# LockBench's ops/s and CPU µs an op; then the medians per configuration.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/crash.sh
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
WORKLOADS=${WORKLOADS:-notifyAll unpark park}
SECS=${SECS:-3}
DEPTH=${DEPTH:-20}
R=$1
shift
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-notify.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/NotifyBench.java bench/java/ParkBench.java bench/java/LockBench.java
cfgs=("none=" "jfr=")
for c in "$@"; do cfgs+=("$c"); done
n=${#cfgs[@]}
for wl in $WORKLOADS; do
  case $wl in
    park) CMD=(-cp "$TMP/classes" ParkBench "${THREADS:-4}" "$SECS" 1) ;;
    lock) CMD=(-cp "$TMP/classes" LockBench "${THREADS:-4}" "$SECS" 1) ;;
    notifyAll | unpark) CMD=(-cp "$TMP/classes" NotifyBench "${THREADS:-1}" "$SECS" 1 "$DEPTH" "$wl") ;;
    *) echo "notify.sh: workload notifyAll, unpark, park or lock" >&2; exit 2 ;;
  esac
  for r in $(seq 1 "$R"); do
    for k in $(seq 0 $((n - 1))); do
      c=${cfgs[$(((k + r) % n))]}
      name=${c%%=*} lib=${c#*=} opts=
      if [[ $lib == *'#'* ]]; then opts=,${lib#*#} lib=${lib%%#*}; fi
      args=() envs=()
      [ "$name" = jfr ] && args+=("-XX:StartFlightRecording=filename=$TMP/x.jfr,settings=bench/zero.jfc")
      if [ -n "$lib" ]; then
        args+=("-agentpath:$(readlink -f "$lib")=prefix=$TMP/p,format=compact$opts")
        read -r -a envs <<<"${AGENV:-}"
      fi
      rc=0
      out=$(env "${envs[@]}" "$JDK/bin/java" -XX:ErrorFile="$TMP/hs_err_pid%p.log" "${args[@]}" "${CMD[@]}" 2>"$TMP/err") || rc=$?
      if ! crash_check "notify-$name-$r" "$TMP" "$PWD" || [ "$rc" != 0 ]; then
        echo "notify.sh: $wl $name round $r: java exited $rc${CRASH_KEPT[*]:+; a JVM CRASHED: ${CRASH_KEPT[*]}}" >&2
        tail -n 20 "$TMP/err" >&2
        exit 1
      fi
      if [ "$wl" = park ] || [ "$wl" = lock ]; then
        awk -v w="$wl" -v n="$name" -v r="$r" '$1 == "OPS" { o = $2 } $1 == "OPS_PER_S" { s = $2 } $1 == "CPU" { c = $2 }
          END { printf "%s %-6s round %d: %9.0f ops/s  %6.2f us CPU an op\n", w, n, r, s, c / o * 1e6 }' <<<"$out"
      else
        awk -v w="$wl" -v n="$name" -v r="$r" '$1 == "APP_NS_PER_OP" { a = $2 } $1 == "CPU_NS_PER_OP" { c = $2 }
          END { printf "%s %-6s round %d: %7.1f ns an op in the application thread, %7.1f ns process CPU\n", w, n, r, a, c }' <<<"$out"
      fi
    done
  done | tee -a "$TMP/runs"
done
echo "medians (NotifyBench: application ns an op, process ns an op; ParkBench, LockBench: ops/s, CPU us an op):"
for wl in $WORKLOADS; do
  for c in "${cfgs[@]}"; do
    name=${c%%=*}
    awk -v w="$wl" -v n="$name" '$1 == w && $2 == n { print $5, (w == "park" || w == "lock" ? $7 : $13) }' "$TMP/runs" |
      awk -v w="$wl" -v n="$name" '{ a[NR] = $1; b[NR] = $2 } END {
        m = NR; if (!m) exit
        for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) { if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } if (b[j] < b[i]) { t = b[i]; b[i] = b[j]; b[j] = t } }
        ma = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2; mb = m % 2 ? b[(m + 1) / 2] : (b[m / 2] + b[m / 2 + 1]) / 2
        printf "  %-9s %-6s %9.1f %9.2f  (%d runs; range %s-%s)\n", w, n, ma, mb, m, a[1], a[m] }'
  done
done
