#!/bin/bash
# bench/attach.sh: what an attach costs a loaded JVM (issue 24), on H2Bench (an in-memory H2
# database, THREADS JDBC threads on 16 contended rows).
#
#   1. The pauses: each JVM runs with -Xlog:safepoint; the safepoints from `orca record --pid`'s
#      start to its end (the load, the recording, the stop), by VM operation, against those of
#      the same span of a JVM never attached. The longest is the pause the attach causes.
#   2. After the stop: H2Bench measures from WARMUP s on; the attached JVM is recorded from
#      ATTACH s to ATTACH+REC s (before WARMUP), so its throughput and CPU an operation are
#      those of a JVM after a detach, beside a JVM never attached (rounds interleaved).
#   3. The attach's own time: from `orca record --pid` to its "recording" line.
#
#   JDK=/usr/lib/jvm/java-17-openjdk-amd64 ROUNDS=3 THREADS=8 ATTACH=4 REC=5 WARMUP=14 SECS=10 bench/attach.sh
#
# Needs bin/orca (make) and /usr/share/java/h2.jar (libh2-java). Prints a table per round and
# the medians; write them in docs/PERFORMANCE.md with this command line.
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-8}
ATTACH=${ATTACH:-4}
REC=${REC:-5}
WARMUP=${WARMUP:-14}
SECS=${SECS:-10}
H2JAR=${H2JAR:-/usr/share/java/h2.jar}
ORCA=${ORCA:-bin/orca}
[ -x "$ORCA" ] || { echo "attach.sh: $ORCA missing: run make" >&2; exit 1; }
[ -r "$H2JAR" ] || { echo "attach.sh: $H2JAR missing: apt-get install libh2-java" >&2; exit 1; }
[ $((ATTACH + REC + 2)) -le "$WARMUP" ] || { echo "attach.sh: ATTACH+REC+2 must be <= WARMUP (measure after the stop)" >&2; exit 1; }
TMP=$(mktemp -d /tmp/orca-attach-bench.XXXXXX)
trap 'pkill -f "H2Bench.*$TMP" 2>/dev/null || true; rm -rf "$TMP"' EXIT
"$JDK/bin/javac" --release 17 -d "$TMP/classes" bench/java/H2Bench.java

# run MODE N: one H2Bench JVM, attached (MODE=attach) or not (none); its output in $TMP/MODE.N.*
run() {
  local mode=$1 n=$2 out=$TMP/$1.$2
  "$JDK/bin/java" -Xlog:safepoint:file="$out.sp":uptime -cp "$TMP/classes:$H2JAR" \
    H2Bench "$THREADS" "$SECS" "$WARMUP" 16 "jdbc:h2:mem:b$n$mode;DB_CLOSE_DELAY=-1" >"$out.txt" 2>"$out.err" &
  local pid=$! t0
  t0=$(date +%s.%N)
  sleep "$ATTACH"
  local a0 a1 r
  a0=$(awk -v t0="$t0" -v t="$(date +%s.%N)" 'BEGIN{printf "%.3f", t - t0}')
  if [ "$mode" = attach ]; then
    "$ORCA" record --pid "$pid" --duration "${REC}s" -o "$out.rec" >"$out.orca" 2>&1 &
    r=$!
    # The attach's own time: to the line that says it records.
    local s0 s1
    s0=$(date +%s%N)
    for _ in $(seq 1 200); do grep -qi "recording" "$out.orca" 2>/dev/null && break; sleep 0.01; done
    s1=$(date +%s%N)
    echo $(((s1 - s0) / 1000000)) >"$out.attachms"
    wait "$r"
  else
    sleep "$REC"
  fi
  a1=$(awk -v t0="$t0" -v t="$(date +%s.%N)" 'BEGIN{printf "%.3f", t - t0 + 0.5}')
  echo "$a0 $a1" >"$out.span"
  wait "$pid"
}

# pauses FILE FROM TO: the safepoints in [FROM, TO] s of uptime: "count max_ms total_ms op:max_ms..."
pauses() {
  awk -v from="$2" -v to="$3" '
    /Safepoint "/ {
      t = $0; sub(/^\[/, "", t); sub(/s\].*/, "", t); t += 0
      if (t < from || t > to) next
      op = $0; sub(/.*Safepoint "/, "", op); sub(/".*/, "", op)
      x = $0; sub(/.*Total: /, "", x); sub(/ ns.*/, "", x)
      ms = x / 1e6; n++; sum += ms; if (ms > max) max = ms
      if (ms > opmax[op]) opmax[op] = ms; opn[op]++
    }
    END { printf "%d %.3f %.3f", n, max, sum; for (k in opmax) printf " %s:%dx,max%.3f", k, opn[k], opmax[k]; print "" }' "$1"
}

field() { sed -n "s/^$2 //p" "$1" | head -1; }

printf "%-6s %-5s %12s %10s %9s %28s %s\n" round mode "ops/s" "CPU us/op" attach_ms "safepoints n/max ms/sum ms" "by operation"
for n in $(seq 1 "$ROUNDS"); do
  for mode in none attach; do
    run "$mode" "$n"
    out=$TMP/$mode.$n
    read -r a0 a1 <"$out.span"
    ops=$(field "$out.txt" OPS_PER_S)
    cpu=$(field "$out.txt" CPU)
    nops=$(field "$out.txt" OPS)
    cpuop=$(awk -v c="$cpu" -v o="$nops" 'BEGIN{ if (o > 0) printf "%.2f", c / o * 1e6; else print "-" }')
    ams=$(cat "$out.attachms" 2>/dev/null || echo -)
    read -r cnt max sum rest <<<"$(pauses "$out.sp" "$a0" "$a1")"
    printf "%-6s %-5s %12s %10s %9s %28s %s\n" "$n" "$mode" "$ops" "$cpuop" "$ams" "$cnt/$max/$sum" "${rest:-}"
    echo "$mode $ops $cpuop $max" >>"$TMP/all"
    if [ "$mode" = attach ] && ! grep -q "complete=true" "$out.rec.info" 2>/dev/null; then
      echo "attach.sh: round $n: the recording is not complete:" >&2
      cat "$out.orca" >&2
    fi
  done
done
echo
awk '{ ops[$1] = ops[$1] " " $2; cpu[$1] = cpu[$1] " " $3; mx[$1] = mx[$1] " " $4 }
  function med(s,   a, n, i, j, t) { n = split(s, a, " "); for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }; return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END {
    printf "median: never attached %.0f ops/s, %.2f us CPU/op; attached and stopped %.0f ops/s (%.3f x), %.2f us CPU/op (%.3f x)\n",
      med(ops["none"]), med(cpu["none"]), med(ops["attach"]), med(ops["attach"]) / med(ops["none"]), med(cpu["attach"]), med(cpu["attach"]) / med(cpu["none"])
    printf "longest safepoint in the attach-to-stop span: attached %s ms (medians of rounds), never attached %s ms\n", med(mx["attach"]), med(mx["none"])
  }' "$TMP/all"
