#!/usr/bin/env bash
# Reader + model throughput (make bench): `orca report` on a generated 1 GB
# recording, timed with /usr/bin/time -v (wall, CPU, peak RSS), with all
# cores and with one (GOMAXPROCS=1), then the in-memory Go benchmarks of the
# reader and the fold. Results and their meaning: bench/report/RESULTS.md.
#
#   ./bench/report/run.sh
#
# Environment (defaults in brackets):
#   PREFIX   recording to time; generated with orca-gen when PREFIX.orca is
#            absent [/tmp/orca-bench-1g]
#   SIZE     its size when generated [1G]
#   RUNS     timed runs per configuration [3]
#   PROCS    GOMAXPROCS values to time, "all" for every core [all 1]
#   GOBENCH  0 skips the go test -bench part [1]
#
# The machine may be shared: the load average is printed before each run;
# MB/s per core (file size / CPU seconds) moves much less with load than
# wall-clock MB/s.
set -euo pipefail

cd "$(dirname "$0")/../.."
command -v go >/dev/null 2>&1 || export PATH=/usr/local/go/bin:$PATH

PREFIX=${PREFIX:-/tmp/orca-bench-1g}
SIZE=${SIZE:-1G}
RUNS=${RUNS:-3}
PROCS=${PROCS:-all 1}
GOBENCH=${GOBENCH:-1}
TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
  echo "bench/report: $TIME not found (Debian package: time)" >&2
  exit 1
fi

WORK=$(mktemp -d /tmp/orca-bench-report.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

if [ ! -f "$PREFIX.orca" ]; then
  echo "== generating $PREFIX.orca ($SIZE)"
  go build -o "$WORK/orca-gen" ./cmd/orca-gen
  "$WORK/orca-gen" -size "$SIZE" -o "$PREFIX"
fi
bytes=$(stat -c %s "$PREFIX.orca")

# What is timed: orca report when bin/orca has it, else the model's
# TestBuildFile (reader.Open + model.Build, no rendering).
if [ -x bin/orca ] && bin/orca report --help >/dev/null 2>&1; then
  what="bin/orca report $PREFIX"
  run() { bin/orca report "$PREFIX" >/dev/null; }
else
  go test -c -o "$WORK/model.test" ./internal/model
  what="model.Build via TestBuildFile (no bin/orca with a report command)"
  run() { ORCA_BENCH_PREFIX=$PREFIX "$WORK/model.test" -test.run '^TestBuildFile$' >/dev/null; }
fi
export -f run
export PREFIX WORK

# Read the file once so every run finds it in the page cache.
cat "$PREFIX.orca" >/dev/null

echo "== $what"
printf '%s: %d bytes; %s cores; %s\n' "$PREFIX.orca" "$bytes" "$(nproc)" "$(uname -srm)"
printf '%-10s %4s %8s %8s %8s %9s %9s %10s  %s\n' GOMAXPROCS run wall_s user_s sys_s MB/s MB/cpu-s maxRSS_MB load
for procs in $PROCS; do
  [ "$procs" = all ] && procs=""
  for i in $(seq "$RUNS"); do
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    if ! env ${procs:+GOMAXPROCS=$procs} "$TIME" -v -o "$WORK/time" bash -c run 2>"$WORK/stderr"; then
      cat "$WORK/stderr" >&2
      exit 1
    fi
    awk -v bytes="$bytes" -v procs="${procs:-$(nproc)}" -v i="$i" -v load="$load" -F': ' '
      /Elapsed \(wall clock\)/ { n = split($2, p, ":"); wall = 0; for (k = 1; k <= n; k++) wall = wall*60 + p[k] }
      /User time/   { user = $2 }
      /System time/ { sys = $2 }
      /Maximum resident set size/ { rss = $2 }
      END {
        printf "%-10s %4d %8.2f %8.2f %8.2f %9.0f %9.0f %10.0f  %s\n", procs, i, wall, user, sys,
          bytes/wall/1e6, bytes/(user+sys)/1e6, rss/1024, load
      }' "$WORK/time"
  done
done

if [ "$GOBENCH" != 0 ]; then
  echo
  echo "== go test -bench (generated 64 MiB recording in memory; MB/cpu-s is per core)"
  go test -run '^$' -bench 'NextSynth|EachEvent' -benchtime 5x ./internal/reader | grep -E '^Benchmark'
  go test -run '^$' -bench 'Fold|Build' -benchtime 5x ./internal/model | grep -E '^Benchmark'
fi
