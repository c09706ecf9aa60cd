#!/usr/bin/env bash
# Paired A/B of JVM configurations on one bench program: CPU per operation of each configuration
# divided by the first configuration's in the same round (issue 23: orca against JFR, and
# throw-away agent builds against both).
#
#   bench/cfg-ab.sh NAME='JVM ARGS' NAME='JVM ARGS' ...
#   ROUNDS=10 WL="ParkBench 8 5 2" bench/cfg-ab.sh jfr="-XX:StartFlightRecording=filename=@DIR@/x.jfr,settings=$PWD/bench/zero.jfc" \
#       none= orca="-agentpath:$(bin/orca agent-path)=prefix=@DIR@/x,format=compact"
#
# @DIR@ is a fresh directory for each run; ENV=VAR=VALUE as the first word of a configuration sets
# an environment variable for that JVM only (e.g. a test switch of a throw-away build). Rounds are
# interleaved in a rotating order at nice -10 (root) ; every JVM gets -XX:ErrorFile, a crash stops the
# script. Per run: round, config, ops, CPU s, CPU ns an op; then, per configuration, the ratios to
# the first configuration in each round, sorted, and their median.
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-/usr/lib/jvm/java-17-openjdk-amd64}
ROUNDS=${ROUNDS:-5}
WL=${WL:-ParkBench 8 5 2}
[ $# -ge 2 ] || { sed -n 2,14p "$0" >&2; exit 2; }
TMP=$(mktemp -d /tmp/orca-cfg-ab.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/cls"
"$JDK/bin/javac" -d "$TMP/cls" bench/java/"${WL%% *}".java
names=() args=()
for c in "$@"; do names+=("${c%%=*}"); args+=("${c#*=}"); done
n=${#names[@]}
NICE=()
[ "$(id -u)" = 0 ] && NICE=(nice -n -10)
declare -A v
for r in $(seq 1 "$ROUNDS"); do
  for k in $(seq 0 $((n - 1))); do
    i=$(((k + r) % n))
    d=$TMP/run-$r-$i
    mkdir -p "$d"
    a=${args[$i]//@DIR@/$d}
    envs=()
    if [[ $a == ENV=* ]]; then envs=("${a%% *}"); envs=("${envs[0]#ENV=}"); a=${a#* }; [[ ${args[$i]} == *" "* ]] || a=; fi
    # shellcheck disable=SC2086
    if ! out=$(cd "$d" && env "${envs[@]}" "${NICE[@]}" "$JDK/bin/java" -XX:ErrorFile="$d/hs_err_pid%p.log" $a -cp "$TMP/cls" $WL 2>"$d/err"); then
      echo "cfg-ab: ${names[$i]} round $r failed:" >&2
      cat "$d/err" >&2
      ls "$d"/hs_err* 2>/dev/null && cp "$d"/hs_err* . >&2
      exit 1
    fi
    ops=$(awk '/^OPS /{print $2}' <<<"$out")
    cpu=$(awk '/^CPU /{print $2}' <<<"$out")
    ns=$(awk -v c="$cpu" -v o="$ops" 'BEGIN{printf "%.1f", (o > 0 ? c * 1e9 / o : 0)}')
    v[$r,$i]=$ns
    echo "round $r ${names[$i]} ops=$ops cpu=$cpu cpu_ns_per_op=$ns"
    rm -rf "$d"
  done
done
for i in $(seq 1 $((n - 1))); do
  ratios=$(for r in $(seq 1 "$ROUNDS"); do awk -v a="${v[$r,$i]}" -v b="${v[$r,0]}" 'BEGIN{printf "%.3f\n", a / b}'; done | sort -n)
  med=$(awk '{x[NR]=$1} END{print NR % 2 ? x[(NR+1)/2] : (x[NR/2] + x[NR/2+1]) / 2}' <<<"$ratios")
  echo "${names[$i]} / ${names[0]}: $(tr '\n' ' ' <<<"$ratios")median $med"
done
