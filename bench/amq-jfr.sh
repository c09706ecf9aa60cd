#!/usr/bin/env bash
# Issue 23's ActiveMQ goals: ActiveMQ 5.17 (Debian package activemq) under JMS load (bench/java/
# JmsLoad.java: 6 producers + 6 consumers, LOADSECS s) with JFR recording the equivalent events
# (bench/zero.jfc) in the same JVM, alone and with orca record (bench/servers.sh), in interleaved
# rounds with a rotating order. Per run: messages sent a second, the server JVM's CPU over the load
# window (/proc), and the recordings' sizes: orca's bytes an event (every PREFIX.* file ÷ every
# event in PREFIX.info) and JFR's (its file ÷ the events `jfr summary` counts, all of them and the
# zero.jfc kinds alone), and bytes a second of each over the JVM's life.
#
#   bench/amq-jfr.sh                        JDK 17, 3 rounds of jfr and jfr+orca
#   JN=25 ROUNDS=5 bench/amq-jfr.sh         JDK 25, 5 rounds
#   CONFIGS="jfr jfr+orca none orca" bench/amq-jfr.sh
#   ORCA_ENV="ORCA_WALK_CACHE=0" bench/amq-jfr.sh   environment for the runs with orca (A/B)
#
# Environment: JN (17|25) [17], ROUNDS [3], LOADSECS [15], CONFIGS [jfr jfr+orca], ORCA_FLAGS
# (orca record flags) [none: the compact encoding], ORCA_ENV, NICE [-10 as root, else 0], QUIET [15]:
# before each run wait (20 s at most) for a second in which other processes use < QUIET % of the
# machine (run.sh's rule); OUT [/tmp/orca-amq]: runs in OUT/CFG-ROUND, a table in OUT/results.tsv.
# A JVM crash (hs_err file in a run's directory: servers.sh gives every JVM -XX:ErrorFile there)
# fails the script.
set -u
cd "$(dirname "$0")/.."
ROOT=$PWD
JN=${JN:-17}
ROUNDS=${ROUNDS:-3}
export LOADSECS=${LOADSECS:-15}
CONFIGS=${CONFIGS:-jfr jfr+orca}
QUIET=${QUIET:-15}
if [ -z "${NICE:-}" ]; then if [ "$(id -u)" = 0 ]; then NICE=-10; else NICE=0; fi; fi
export NICE
export OUT=${OUT:-/tmp/orca-amq}
mkdir -p "$OUT"
case $JN in 17) JDK=/usr/lib/jvm/java-17-openjdk-amd64 ;; 25) JDK=/usr/lib/jvm/temurin-25-jdk-amd64 ;; *) echo "JN=17 or 25" >&2; exit 2 ;; esac
RES=$OUT/results.tsv
echo -e "cfg\tround\tsent_per_s\tjvm_cpu_ms_per_kmsg\torca_events\torca_bytes\torca_B_per_event\tjfr_events\tjfr_equiv_events\tjfr_bytes\tjfr_B_per_event\tjfr_B_per_equiv\tjvm_secs\torca_B_per_s\tjfr_B_per_s\tothers_pct" >"$RES"
FAILED=0
HZ=$(getconf CLK_TCK); NCPU=$(nproc)
busy() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
wait_quiet() {
  local k a b
  for ((k = 0; k < 20; k++)); do
    a=$(busy); sleep 1; b=$(busy)
    if (((b - a) * 100 < QUIET * HZ * NCPU)); then return 0; fi
  done
  echo "  (other processes busy: running anyway)"
}
read -ra cfgs <<<"$CONFIGS"
n=${#cfgs[@]}
for ((r = 1; r <= ROUNDS; r++)); do
  for ((i = 0; i < n; i++)); do
    cfg=${cfgs[$(((r - 1 + i) % n))]}
    tag=${cfg//+/_}-$r
    W=$OUT/$tag
    jfr=
    case $cfg in jfr | jfr+orca) jfr="-XX:StartFlightRecording=filename=$W/jfr.jfr,settings=$ROOT/bench/zero.jfc" ;; esac
    off=0
    case $cfg in jfr | none) off=1 ;; esac
    envs=()
    [ $off = 0 ] && [ -n "${ORCA_ENV:-}" ] && read -ra envs <<<"$ORCA_ENV"
    wait_quiet
    s0=$(busy); t0=$EPOCHREALTIME
    env ${envs[@]+"${envs[@]}"} ORCA_OFF=$off NOREPORT=1 bash bench/servers.sh activemq "$JN" load "$tag" "$jfr" >"$OUT/$tag.log" 2>&1
    s1=$(busy); t1=$EPOCHREALTIME
    if ls "$W"/hs_err* "$W"/core* >/dev/null 2>&1; then echo "amq: $tag: a JVM CRASHED: $(ls "$W"/hs_err* "$W"/core* 2>/dev/null)" >&2; FAILED=1; fi
    if ! grep -q '^sent [1-9]' "$W/result.txt" 2>/dev/null; then echo "amq: $tag FAILED (no load result); log $OUT/$tag.log" >&2; tail -5 "$OUT/$tag.log" >&2; FAILED=1; continue; fi
    read -r _ sent _ recv _ ls _ cpu _ <"$W/result.txt"
    oev=- obytes=- obpe=- jev=- jeq=- jbytes=- jbpe=- jbpq=- obps=- jbps=-
    # bytes a second over the JVM's life: orca's start_s to end_s (.info) when orca ran, else the
    # run's wall time (servers.sh's start to its end: a little longer)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    if [ $off = 0 ]; then
      if ! grep -q '^complete=true' "$W/rec.info"; then echo "amq: $tag: rec.info not complete=true" >&2; FAILED=1; fi
      d=$(awk -F= '$1 == "dropped_total" { print $2 }' "$W/rec.info"); [ "${d:-0}" = 0 ] || { echo "amq: $tag: orca DROPPED $d events" >&2; FAILED=1; }
      oev=$(awk -F= '/^events\./ { n += $2 } END { print n + 0 }' "$W/rec.info")
      obytes=$(cat "$W"/rec.* | wc -c) # every PREFIX.* file of orca's (JFR's is jfr.jfr)
      obpe=$(awk -v b="$obytes" -v e="$oev" 'BEGIN { printf "%.1f", b / e }')
      ds=$(awk -F= '$1 == "start_s" { a = $2 } $1 == "end_s" { b = $2 } END { if (b > a) printf "%.1f", b - a }' "$W/rec.info"); [ -n "$ds" ] && secs=$ds
      obps=$(awk -v b="$obytes" -v s="$secs" 'BEGIN { printf "%.0f", b / s }')
    fi
    if [ -n "$jfr" ]; then
      "$JDK/bin/jfr" summary "$W/jfr.jfr" >"$W/jfr-summary.txt" 2>&1 || { echo "amq: $tag: jfr summary failed" >&2; FAILED=1; }
      jev=$(awk '$1 ~ /^jdk\./ && $2 ~ /^[0-9]+$/ { n += $2 } END { print n + 0 }' "$W/jfr-summary.txt")
      jeq=$(awk '$1 ~ /^jdk\.(JavaMonitorEnter|JavaMonitorWait|ThreadPark|ThreadSleep|ThreadStart|ThreadEnd)$/ { n += $2 } END { print n + 0 }' "$W/jfr-summary.txt")
      jbytes=$(stat -c %s "$W/jfr.jfr")
      jbpe=$(awk -v b="$jbytes" -v e="$jev" 'BEGIN { printf "%.1f", b / e }')
      jbpq=$(awk -v b="$jbytes" -v e="$jeq" 'BEGIN { printf "%.1f", b / e }')
      jbps=$(awk -v b="$jbytes" -v s="$secs" 'BEGIN { printf "%.0f", b / s }')
    fi
    others=$(awk -v b="$((s1 - s0))" -v hz="$HZ" -v n="$NCPU" -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" -v c="$cpu" -v ls="$ls" \
      'BEGIN { printf "%.0f", 100 * (b / hz / n / t) }')
    sps=$(awk -v s="$sent" -v l="$ls" 'BEGIN { printf "%.0f", s / l }')
    cpk=$(awk -v c="$cpu" -v s="$sent" 'BEGIN { printf "%.1f", 1e6 * c / s }')
    echo -e "$cfg\t$r\t$sps\t$cpk\t$oev\t$obytes\t$obpe\t$jev\t$jeq\t$jbytes\t$jbpe\t$jbpq\t$secs\t$obps\t$jbps\t$others" >>"$RES"
    printf '  %-9s round %d: %6d msgs/s  JVM CPU %5s ms/1000 msgs  orca %s B/event (%s events, %s B/s)  JFR %s B/event (%s B per zero.jfc event, %s B/s)  machine busy %s%%\n' \
      "$cfg" "$r" "$sps" "$cpk" "$obpe" "$oev" "$obps" "$jbpe" "$jbpq" "$jbps" "$others"
    rm -rf "$W/data" # ActiveMQ's KahaDB store
  done
done
echo
echo "== ActiveMQ, JDK $JN, $ROUNDS interleaved rounds, LOADSECS=$LOADSECS, NICE=$NICE${ORCA_ENV:+, orca runs with $ORCA_ENV}${ORCA_FLAGS:+, ORCA_FLAGS=$ORCA_FLAGS}: median (min–max)"
for cfg in "${cfgs[@]}"; do
  awk -F'\t' -v c="$cfg" 'function st(k,   n, i, j, t, v) { n = 0; for (i = 2; i <= NR; i++) if ($0 != "" && col[i, 1] == c && col[i, k] != "-") v[++n] = col[i, k] + 0
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      if (n == 0) return "-"; return sprintf("%g (%g–%g)", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n]) }
    { for (k = 1; k <= NF; k++) col[NR, k] = $k }
    END { printf "%-9s msgs/s %s | JVM CPU ms/1000 msgs %s | orca B/event %s, B/s %s | JFR B/event %s, per zero.jfc event %s, B/s %s\n", c, st(3), st(4), st(7), st(14), st(11), st(12), st(15) }' "$RES"
done
if [[ " $CONFIGS " == *" jfr "* && " $CONFIGS " == *" jfr+orca "* ]]; then
  awk -F'\t' 'NR > 1 && $1 == "jfr" { a[$2] = $3 } NR > 1 && $1 == "jfr+orca" { b[$2] = $3 }
    END { n = 0; for (r in b) if (r in a) v[++n] = b[r] / a[r]
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      s = ""; for (i = 1; i <= n; i++) s = s sprintf(" %.3f", v[i])
      printf "throughput jfr+orca / jfr, paired by round: median %.3f, all:%s (goal >= 0.90)\n", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, s }' "$RES"
fi
exit $FAILED
