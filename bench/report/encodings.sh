#!/usr/bin/env bash
# The reader and orca report on 1 GB recordings of each encoding (issue 23,
# docs/PERFORMANCE.md "Reader and model throughput"; make bench runs it):
#   text    1 GB of text (orca-gen's mix: the compact one below, exported
#           with orca export --format seed)
#   same    the same events in the compact encoding (~52 MB)
#   c1g     1 GB of the compact encoding (~84 M events)
# all written by the Go writer (orca-gen, internal/synth). For each: the
# reader alone on one core (go test -bench File ./internal/reader with
# GOMAXPROCS=1: Next and EachEvent with 1 worker; MB/cpu-s and
# Mevents/cpu-s are per core), then orca report's wall and CPU time with
# every core (/usr/bin/time).
#
#   ./bench/report/encodings.sh
#
# Environment (defaults in brackets):
#   DIR      where the recordings are kept (generated when absent; ~2.2 GB)
#            [/tmp/orca-bench-enc]
#   RUNS     runs of each measurement [2]
#   REPORT1G 1 also times orca report on c1g: ~95 s and ~7.7 GB of memory
#            on 2 cores [0]
set -euo pipefail

cd "$(dirname "$0")/../.."
command -v go >/dev/null 2>&1 || export PATH=/usr/local/go/bin:$PATH

DIR=${DIR:-/tmp/orca-bench-enc}
RUNS=${RUNS:-2}
REPORT1G=${REPORT1G:-0}
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
  echo "bench/report: $TIME not found (Debian package: time)" >&2
  exit 1
fi
if [ ! -x bin/orca ]; then
  echo "bench/report: no bin/orca: run make first" >&2
  exit 1
fi

WORK=$(mktemp -d /tmp/orca-bench-enc.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$DIR"
go build -o "$WORK/orca-gen" ./cmd/orca-gen
go test -c -o "$WORK/reader.test" ./internal/reader

if [ ! -f "$DIR/same.orca" ]; then
  echo "== generating $DIR/same (compact, 52 MiB) and $DIR/text (its seed export, ~1 GB)"
  "$WORK/orca-gen" -format compact -size 52M -o "$DIR/same"
  bin/orca export --format seed -o "$DIR/text" "$DIR/same" >/dev/null
fi
if [ ! -f "$DIR/c1g.orca" ]; then
  echo "== generating $DIR/c1g (compact, 1 GiB)"
  "$WORK/orca-gen" -format compact -size 1G -o "$DIR/c1g"
fi

for f in text same c1g; do
  cat "$DIR/$f.orca" >/dev/null # in the page cache
  echo
  echo "== reader, one core: $DIR/$f.orca, $(stat -L -c %s "$DIR/$f.orca") bytes; load $(cut -d' ' -f1-3 /proc/loadavg)"
  ORCA_BENCH_PREFIX=$DIR/$f GOMAXPROCS=1 "$WORK/reader.test" -test.run '^$' -test.bench '^BenchmarkFile$' \
    -test.benchtime 1x -test.count "$RUNS" | grep -E '^Benchmark'
done

echo
echo "== bin/orca report, $(nproc) cores"
printf '%-6s %4s %8s %8s %8s %10s  %s\n' file run wall_s user_s sys_s maxRSS_MB load
reports="text same"
[ "$REPORT1G" = 1 ] && reports="$reports c1g"
for i in $(seq "$RUNS"); do
  for f in $reports; do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    "$TIME" -f '%e %U %S %M' -o "$WORK/time" bin/orca report "$DIR/$f" >/dev/null
    read -r wall user sys rss <"$WORK/time"
    printf '%-6s %4d %8.2f %8.2f %8.2f %10.0f  %s\n' "$f" "$i" "$wall" "$user" "$sys" "$((rss / 1024))" "$load"
  done
done
