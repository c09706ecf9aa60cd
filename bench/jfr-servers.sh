#!/usr/bin/env bash
# Orca and JDK Flight Recorder in the same JVM of a real server, compared kind by kind
# (docs/perf/2026-12-02-jfr-servers.md): bench/servers.sh SERVER JN load TAG with JFR recording
# bench/zero.jfc's events at 0 ms beside orca record, then `orca import` of the JFR file,
# `jfr summary`, and bench/jfrcmp over the load window (window.txt): per kind the intervals that
# began and ended in it, by both.
#
#   bench/jfr-servers.sh SERVER 17|25 TAG       -> $OUT/TAG (OUT=/tmp/h20/runs): jfr.jfr, imp.*, cmp.txt
#   LOADSECS=12 MVCC=1 VIRTUAL=1 …               passed on to bench/servers.sh
#   JFC=FILE …                                   JFR's settings instead of bench/zero.jfc
#   LOCK=/work/notes/bench.lock bench/jfr-servers.sh …   the server's run under flock LOCK
set -u
repo=$(cd "$(dirname "$0")/.." && pwd)
srv=$1 jn=$2 tag=$3
case $jn in 17) JDK=/usr/lib/jvm/java-17-openjdk-amd64;; 25) JDK=/usr/lib/jvm/temurin-25-jdk-amd64;; esac
W=${OUT:-/tmp/h20/runs}/$tag
jfr="-XX:StartFlightRecording=filename=$W/jfr.jfr,settings=${JFC:-$repo/bench/zero.jfc}"
if [ -n "${LOCK:-}" ]; then
  flock "$LOCK" bash "$repo/bench/servers.sh" "$srv" "$jn" load "$tag" "$jfr"
else
  bash "$repo/bench/servers.sh" "$srv" "$jn" load "$tag" "$jfr"
fi
cd "$W" 2>/dev/null && [ -s jfr.jfr ] || { echo "jfr-servers: no JFR recording in $W: the server's run failed (its message above; $W/server.log)" >&2; exit 1; }
ls hs_err* 2>/dev/null && { echo "jfr-servers: a JVM CRASHED: $W/$(ls hs_err* | head -1)"; exit 1; }
$JDK/bin/jfr summary jfr.jfr >jfr-summary.txt
$repo/bin/orca import jfr.jfr -o imp >import.log 2>&1 || { echo "jfr-servers: orca import failed"; cat import.log; }
read -r a b <window.txt
(cd "$repo" && go run ./bench/jfrcmp -from "$a" -to "$b" "$W/rec" "$W/imp") | tee cmp.txt
grep -E '^ *jdk\.(JavaMonitor|Thread)' jfr-summary.txt
grep -E '^(dropped_total|events\.)' rec.info | tr '\n' ' '; echo
python3 "$repo/bench/report-cmp.py" "$W" | tee repcmp.txt
