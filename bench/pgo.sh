#!/usr/bin/env bash
# cmd/orca/default.pgo: the CPU profile `go build` compiles orca with
# (profile-guided optimisation: Go inlines and lays out the hot calls the
# profile shows; -pgo=auto, the default, takes default.pgo from the main
# package's directory). It is made here, not by hand: orca built without
# it reads recordings orca-gen writes (the real mix of issue 23) the ways
# users read them — the report in text and JSON, every thread listed, a
# time range, every export, the viewer until it serves and its first
# answers — each with ORCA_CPUPROFILE, and the profiles merged. Run it
# again when the hot code has changed much (a stale profile still builds:
# the compiler ignores what no longer matches); the measure of the gain is
# in docs/perf/2026-12-05-pgo.md.
#
#   ./bench/pgo.sh            (~3 minutes; writes cmd/orca/default.pgo)
#
# Environment (defaults in brackets):
#   SIZE   the compact recording's size, for orca-gen [96M]
#   OUT    the profile written [cmd/orca/default.pgo]
set -euo pipefail

cd "$(dirname "$0")/.."
command -v go >/dev/null 2>&1 || export PATH=/usr/local/go/bin:$PATH
command -v curl >/dev/null || { echo "$0: curl is not installed (Debian: apt-get install curl)" >&2; exit 1; }

SIZE=${SIZE:-96M}
OUT=${OUT:-cmd/orca/default.pgo}
work=$(mktemp -d)
view=
trap '[ -z "$view" ] || kill "$view" 2>/dev/null; rm -rf "$work"' EXIT

# Without the profile: a profile of a binary built with one would show
# what the last one inlined, not what the code calls.
go build -pgo=off -o "$work/orca" ./cmd/orca
go build -o "$work/orca-gen" ./cmd/orca-gen
# Seeds of their own (the benchmarks' recordings use seed 1), the compact
# encoding users record in and the seed's text one.
"$work/orca-gen" -seed 11 -size "$SIZE" -format compact -o "$work/c" -q
"$work/orca-gen" -seed 12 -size 16M -o "$work/t" -q

n=0
profiled() {
  n=$((n + 1))
  echo "pgo: orca $*" >&2
  ORCA_CPUPROFILE="$work/p$n.prof" "$work/orca" "$@" >/dev/null
}
profiled report --json "$work/c"
profiled report "$work/c"
profiled report --json --top 0 "$work/c"
profiled report --last 5s "$work/c"
profiled report --json "$work/t"
for f in pprof perfetto chrome collapsed; do
  profiled export --format "$f" -o "$work/x.$f" "$work/c"
done
profiled export --format pprof --profile cpu -o "$work/x.cpu" "$work/c"

# The viewer: until it serves (the model and the index), then its answers.
n=$((n + 1))
echo "pgo: orca view $work/c" >&2
ORCA_CPUPROFILE="$work/p$n.prof" "$work/orca" view --no-browser "$work/c" >"$work/view.out" 2>&1 &
view=$!
url=
for _ in $(seq 600); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*/?token=[0-9a-f]*' "$work/view.out" || true)
  [ -n "$url" ] && break
  kill -0 "$view" 2>/dev/null || { cat "$work/view.out" >&2; exit 1; }
  sleep 1
done
[ -n "$url" ] || { echo "$0: orca view did not serve in 10 minutes" >&2; exit 1; }
base=${url%%/?token=*}
token=${url##*token=}
for p in summary overview locks groups deadlocks edges flame "flame/samples" threads; do
  curl -fsS -o /dev/null "$base/api/$p?token=$token"
done
kill -TERM "$view"
wait "$view" || true
view=

go tool pprof -proto "$work"/p*.prof >"$work/merged.pgo" 2>/dev/null
mv "$work/merged.pgo" "$OUT"
echo "pgo: wrote $OUT ($(wc -c <"$OUT") bytes, $n profiles)" >&2
