#!/usr/bin/env bash
# The fold's work an event counted, not timed: `orca report --json` of a
# generated 32 MB compact recording (2.49 M events) under valgrind's
# cachegrind, which counts each function's instructions and first-level
# data misses the same at any load (docs/perf/2026-12-02-fold-piece2.md:
# c1G's CPU-s spread by ±15 % at load 7–20, the profile's parts as much,
# so a step of the fold worth a few per cent cannot be told from it).
# It prints, an event: the instructions of the whole run, of the model
# package's functions, of Builder.event's own lines (with what the
# compiler inlined in it); the data reads of each missed in the first
# level (cachegrind's D1, the machine's size).
#
#   ./bench/report/foldcost.sh BIN [BIN...]   (BIN: absolute, or from the repository's root)
#
# Environment (defaults in brackets):
#   PREFIX   recording; generated with orca-gen (seed 1, compact, 32 MB)
#            when PREFIX.orca is absent [/tmp/orca-foldcost-32m]
#   KEEP     a directory to keep each binary's cachegrind output in, as
#            N.cg (N: its place in the arguments, from 1), for cg_annotate's
#            function by function [none]
#
# ~85 CPU-s a binary (~40× the run); one binary at a time. Cachegrind
# models no latency: a change that only overlaps misses (a read ahead)
# shows its instructions, not its gain; time that under the bench lock.
set -euo pipefail

cd "$(dirname "$0")/../.."
command -v go >/dev/null 2>&1 || export PATH=/usr/local/go/bin:$PATH
[ $# -ge 1 ] || { echo "usage: $0 BIN [BIN...]" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "$0: valgrind is not installed (Debian: apt-get install valgrind)" >&2; exit 1; }

PREFIX=${PREFIX:-/tmp/orca-foldcost-32m}
if [ ! -f "$PREFIX.orca" ]; then
	go build -o "$PREFIX.gen" ./cmd/orca-gen
	"$PREFIX.gen" -seed 1 -size 33554432 -format compact -o "$PREFIX" -q
	rm -f "$PREFIX.gen"
fi
events=$(grep '^events\.' "$PREFIX.info" | awk -F= '{s += $2} END {print s}')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

n=0
for bin in "$@"; do
	n=$((n + 1))
	# GODEBUG: the Go runtime reads the clock with RDTSCP where the CPU
	# has it, which this valgrind (3.19) does not decode: SIGILL in
	# runtime.cputicks at once, on the session's VM of 2026-12-02 17:00.
	# (x/sys/cpu warns that it knows no "rdtscp": harmless.)
	if ! GODEBUG=cpu.rdtscp=off valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$work/cg.out" \
		"$bin" report --json "$PREFIX" >"$work/json" 2>"$work/err"; then
		echo "$0: $bin failed under valgrind:" >&2
		tail -n 30 "$work/err" >&2
		exit 1
	fi
	hash=$(sha256sum <"$work/json" | cut -c1-8)
	cg_annotate --show=Ir,D1mr --threshold=0 --auto=no --show-percs=no "$work/cg.out" | tr -d , |
		awk -v n="$events" -v bin="$bin" -v hash="$hash" '
		/PROGRAM TOTALS/ { ir = $1; d1 = $2 }
		$3 ~ /:orca\/internal\/model\./ { mir += $1; md1 += $2 }
		$3 ~ /:orca\/internal\/model\.\(\*Builder\)\.event$/ { eir += $1; ed1 += $2 }
		END {
			printf "%s (json %s, %d events), an event: instructions %.0f, of the model package %.0f, of Builder.event'"'"'s own lines (with what is inlined in it) %.0f; D1 read misses %.2f, %.2f, %.2f\n",
				bin, hash, n, ir / n, mir / n, eir / n, d1 / n, md1 / n, ed1 / n
		}'
	if [ -n "${KEEP:-}" ]; then
		mkdir -p "$KEEP" && cp "$work/cg.out" "$KEEP/$n.cg"
	fi
done
