#!/usr/bin/env bash
# Issue 35's cost goal: orca's own CPU while it pushes an always-on recording of a busy server
# every 10 s to a real OpenTelemetry Collector. Per round, SERVER under load (bench/servers.sh,
# LOADSECS=60) recorded with `--max-age 2m`, then with `--max-age 2m --otlp URL --push-every
# 10s` too: orca record's CPU (user + system of its process, /proc, not the JVM's) over the load
# window, and the recording's rate in it. Run it alone (flock /work/notes/bench.lock).
#
#   bench/otlp-push.sh [SERVER [17|25 [ROUNDS]]]     (activemq 25 3) -> $OUT (/tmp/otlp-push)
#   OTELCOL=PATH   the collector's binary (default the tests' cached build, ~/.cache/orca/otelcol-*:
#                  go test ./cmd/orca -run TestPushSynthetic builds it)
#   ORCA_PUSH_FLAGS="…"   more orca record flags for the pushing runs
#   ORCA_BIN=PATH  the orca that records (default bin/orca; e.g. bin/orca.old for the build before)
#   MODES="push"   the runs of a round (default "off push": without --otlp, then with)
#   WARMSECS=N     N s of load before the measured window (bench/servers.sh): orca's first
#                  pushes, which resolve every stack and grow its heap, left out; with it
#                  MAXAGE=5m, so that no chunk file is deleted in the window (default 2m)
#
# Prints per run: orca_cpu_s, its share of one core over the window, MB/s and events/s of the
# recording in the window (events: the whole recording's events per byte, from orca dump), the
# bytes pushed per byte of the whole recording (gzipped, as sent; MAXAGE=5m when the run lasts
# more than 2 min, so that no chunk file is deleted), orca's page faults in the window and its
# peak RSS (VmHWM) at the window's end.
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
srv=${1:-activemq} jn=${2:-25} rounds=${3:-3}
export OUT=${OUT:-/tmp/otlp-push} LOADSECS=${LOADSECS:-60} NOREPORT=1
col=${OTELCOL:-$(ls -t ~/.cache/orca/otelcol-* 2>/dev/null | grep -v '\.lock$' | head -1)}
[ -x "$col" ] || { echo "bench/otlp-push.sh: no collector binary (OTELCOL; go test ./cmd/orca -run TestPushSynthetic builds one)" >&2; exit 1; }
mkdir -p $OUT/col
port=14318
cat >$OUT/col/config.yaml <<X
receivers: {otlp: {protocols: {http: {endpoint: 127.0.0.1:$port}}}}
exporters: {file: {path: $OUT/col/profiles.pb, format: proto}}
service:
  telemetry: {metrics: {level: none}, logs: {level: warn}}
  pipelines: {profiles: {receivers: [otlp], exporters: [file]}}
X
rm -f $OUT/col/profiles.pb
$col --config $OUT/col/config.yaml --feature-gates=service.profilesSupport >$OUT/col/log 2>&1 &
cpid=$!
trap 'kill $cpid 2>/dev/null' EXIT
for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
for r in $(seq $rounds); do
  for mode in ${MODES:-off push}; do
    tag=$srv$jn-$mode-$r flags="--max-age ${MAXAGE:-2m}"
    [ $mode = push ] && flags="$flags --otlp http://127.0.0.1:$port --push-every 10s ${ORCA_PUSH_FLAGS:-}"
    ORCA_FLAGS="$flags" $repo/bench/servers.sh $srv $jn load $tag >$OUT/$tag.log 2>&1
    W=$OUT/$tag
    read -r _ _ _ _ _ _ _ jcpu _ ocpu _ win _ rb _ flt _ hwm <$W/result.txt
    ev=$($repo/bin/orca dump --resolve=false $W/rec 2>/dev/null | grep -c '^[0-9]')
    tot=$(cat $W/rec.orca* | wc -c)
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    pushed=$(grep -ho 'pushed [0-9]* chunk.*' $W/server.log $OUT/$tag.log 2>/dev/null | head -1)
    # bytes sent (orca record's last line) per byte of the whole recording (MAXAGE keeps it all)
    sentb=$(echo "$pushed" | sed -n 's/.*requests*, \([0-9]*\) bytes.*/\1/p')
    awk -v m=$mode -v r=$r -v o=$ocpu -v j=$jcpu -v w=$win -v rb=$rb -v ev=$ev -v tot=$tot -v p="$pushed" -v la="$load" -v flt="${flt:-0}" -v hwm="${hwm:-0}" -v sb="${sentb:-0}" 'BEGIN {
      printf "%s round %d: orca_cpu_s %.2f over %.1f s = %.2f %% of a core; jvm_cpu_s %.1f; recording %.3f MB/s, %.0f events/s (%d events, %d bytes in all) %s; %.3f bytes sent per byte recorded, %.1f an event; %d page faults; orca peak RSS %.1f MB; load %s\n",
        m, r, o, w, 100 * o / w, j, rb / w / 1e6, ev / tot * rb / w, ev, tot, p, sb / tot, (ev ? sb / ev : 0), flt, hwm / 1024, la }'
  done
done
