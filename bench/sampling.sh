#!/usr/bin/env bash
# The cost of a sample (issue 33's goal): the CPU that Orca's CPU and wall
# sampling add per 1 000 samples, beside async-profiler's and JFR's, in paired
# rounds of one workload under every profiler configuration. Not part of make
# bench (async-profiler is built from source for it, and it takes a while).
#
#   bench/sampling.sh [WORKLOAD...]        # cpu h2 tomcat idle; default: cpu h2
#   LOCK=/work/notes/bench.lock ROUNDS=5 bench/sampling.sh cpu
#
# Configurations (ARMS, default all; those this JDK or agent cannot run are
# left out and said):
#   none        no profiler
#   orca-off    Orca, cpu=off,wall=off: its blocking record only
#   orca-cpu    Orca, cpu=$CPU_INT,wall=off
#   orca-wall   Orca, cpu=off,wall=$WALL_INT
#   orca-wall-b the same with ORCA_LIB_B, another build of the agent (a
#               before and after in the same rounds)
#   ap-idle     async-profiler loaded, not started
#   ap-cpu      async-profiler event=cpu,interval=$CPU_INT (perf_events)
#   ap-ctimer   async-profiler event=ctimer,interval=$CPU_INT (timer_create)
#   ap-wall     async-profiler event=wall,interval=$WALL_INT
#   jfr-idle    JFR recording with no event on
#   jfr-cpu     JFR jdk.CPUTimeSample, throttle $CPU_INT (JDK 25+, JEP 509)
#   jfr-exec    JFR jdk.ExecutionSample, period $CPU_INT (for reference)
# Orca's arms run with an agent that has the cpu= and wall= options; async-
# profiler is built by bench/asprof.sh (ASPROF_LIB: a library built elsewhere).
#
# Workloads: cpu, bench/java/CpuBurn.java: CPU_THREADS (4) threads, CPU_OPS
# (2000) operations each, a fixed amount of work (about 8 s of CPU); h2,
# bench/java/H2Bench.java with -Dh2bench.ops: H2_THREADS (8) threads, H2_OPS
# (200000) operations each, fixed too (about 10 s of CPU; needs
# /usr/share/java/h2.jar, H2JAR: Debian libh2-java); tomcat, bench/tomcat.sh:
# Tomcat 10 under wrk for SECS (10) after 2 s of warm-up, a fixed time; idle,
# bench/java/WallIdle.java: IDLE_PARKED (50) threads parked and IDLE_NATIVE
# (3) blocked in accept for IDLE_MS (20000) ms, the wall samplers' case with no
# work at all (every CPU the profiler adds is its own; ARMS="none orca-off
# orca-wall ap-idle ap-wall" for it).
# Fixed work makes the comparison robust to a loaded machine: a run's CPU is
# its own, however long it waited for one.
#
# Measured per run: the JVM's CPU over its whole life R (user + sys, from
# wait4(2) by bench/cpu_of.py: its exit and the profiler's last write
# included), the CPU W and operations N of the workload's window (the
# workload's own figures), the samples the profiler wrote S (Orca: .info
# samples.cpu / samples.wall; async-profiler: the sum of its collapsed
# output's counts; JFR: `jfr summary`) and those it says it lost. The CPU a
# configuration A adds over a base B in the same round, for A's work:
#     added = (R_A - W_A) - (R_B - W_B) + (W_A / N_A - W_B / N_B) * N_A
# (outside the window: as is, same length; inside: per operation, since on a
# saturated machine a cost shows as fewer operations, not more CPU; for the
# fixed work of cpu and h2, N_A = N_B and this is R_A - R_B), and per 1 000 samples
# added / S_A * 1000, printed in ms (= µs a sample). Per round, then the
# median and the range over the rounds; the ratios Orca ÷ async-profiler and
# Orca ÷ JFR are taken per round (paired) and their median and range said.
# Orca's sampling is charged over orca-off (the goal's base), the others over
# none; the idle bases (ap-idle, jfr-idle) are printed too. A run of fewer
# than 100 samples gives no figure (noise). The pooled figures: the sum of
# the rounds' added CPU over the sum of their samples. bench/sampling_summary.py
# prints the summary again from a kept OUT/runs.tsv.
#
# The steady window (WINDOW="WARM LENGTH", seconds; the idle workload
# only): R is then the process's CPU clock read at WARM and at WARM + LENGTH
# after the start (bench/cpu_of.py CPU_OF_AT; the JVM's start, JIT, first
# drains and exit, a profiler's last write, all outside it), and S the
# samples at the run's rate (all of them ÷ its seconds) times LENGTH;
# WallIdle runs a second past the window. The whole-process totals of idle
# could not decide the wall goal: orca-off alone moved 0.2-0.35 s a run,
# several times the samplers' cost. Each run's per-thread CPU over the
# window is kept in its time.threads. PARALLEL=1 starts a round's
# configurations at once (idle JVMs on 2 cores), so that they share the
# window and the machine's load, and a round takes one window:
#   LOCK=/work/notes/bench.lock WINDOW="15 60" PARALLEL=1 ROUNDS=5 \
#     ARMS="none orca-off orca-wall ap-wall" bench/sampling.sh idle
#
# Environment: JDK (Temurin 25), ROUNDS (5), ARMS, CPU_INT (10ms), WALL_INT
# (50ms), CPU_THREADS, CPU_OPS, H2_THREADS, H2_OPS, SECS, IDLE_PARKED,
# IDLE_NATIVE, IDLE_MS, WINDOW, PARALLEL, ORCA_LIB (the
# agent: $(bin/orca agent-path), after make), ORCA_LIB_B (orca-wall-b's), FORMAT (Orca's encoding,
# compact as orca record writes), ASPROF_LIB, OUT (a
# directory kept with every run's output and runs.tsv; default: a temporary
# one, removed), LOCK (a file each round holds with flock(1), so that other
# benchmarks on the machine run between rounds, never inside one).
# Duration: about ROUNDS × 11 configurations × (5 s for cpu on 2 idle cores,
# 8 s for h2, SECS + 8 s for tomcat): with the defaults, ~5 min for cpu,
# ~8 min for h2 and ~16 min for tomcat; more on a loaded machine.
#
# At 10 ms a run of cpu takes ~800 samples, whose cost is well inside the
# run-to-run spread of a shared machine; CPU_INT=1ms takes more (perf_events
# 1 000 a CPU-second; per-thread CPU timers, Orca's, ctimer's and JFR's
# CPUTimeSample's, fire at the scheduler's tick: 250 a CPU-second with
# CONFIG_HZ=250) and makes the cost measurable.
#
# The load average is printed at the start of each round and at the end; a
# JVM that crashes stops the run (bench/crash.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source bench/crash.sh
JDK=${JDK:-/usr/lib/jvm/temurin-25-jdk-amd64}
ROUNDS=${ROUNDS:-5}
CPU_INT=${CPU_INT:-10ms}
WALL_INT=${WALL_INT:-50ms}
FORMAT=${FORMAT:-compact}
H2JAR=${H2JAR:-/usr/share/java/h2.jar}
WORKLOADS=("$@")
[ ${#WORKLOADS[@]} -gt 0 ] || WORKLOADS=(cpu h2)
ALL_ARMS="none orca-off orca-cpu orca-wall ap-idle ap-cpu ap-ctimer ap-wall jfr-idle jfr-cpu jfr-exec"
read -r -a ARMS <<<"${ARMS:-$ALL_ARMS}"

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  TMP=$(cd "$OUT" && pwd)
else
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-sampling.XXXXXX")
  trap 'rm -rf "$TMP"' EXIT
fi

# The interval as JFR writes it ("10 ms").
jfr_int() { sed 's/\([0-9]\)\([a-z]\)/\1 \2/' <<<"$1"; }

# ---- what can run --------------------------------------------------------------
jv=$("$JDK/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1)
have() { [[ " ${ARMS[*]} " == *" $1 "* ]]; }
drop() {
  echo "sampling: leaving out $1: $2" >&2
  local a keep=()
  for a in "${ARMS[@]}"; do [ "$a" = "$1" ] || keep+=("$a"); done
  ARMS=("${keep[@]}")
}
if [[ " ${ARMS[*]} " == *" orca-"* ]]; then
  ORCA_LIB=${ORCA_LIB:-$(bin/orca agent-path)}
  [ -f "$ORCA_LIB" ] || { echo "sampling: no agent at $ORCA_LIB (make, or set ORCA_LIB)" >&2; exit 1; }
  # An agent without sampling refuses the options and records nothing.
  probe=$("$JDK/bin/java" "-agentpath:$ORCA_LIB=prefix=$TMP/probe,cpu=off,wall=off" -version 2>&1 || true)
  if grep -q 'bad agent options' <<<"$probe"; then
    for a in orca-off orca-cpu orca-wall; do have $a && drop $a "the agent $ORCA_LIB has no cpu= and wall= options"; done
  fi
  rm -f "$TMP"/probe*
fi
if have orca-wall-b && [ ! -f "${ORCA_LIB_B:-}" ]; then
  echo "sampling: orca-wall-b needs ORCA_LIB_B, another build of the agent" >&2
  exit 1
fi
if [[ " ${ARMS[*]} " == *" ap-"* ]]; then
  ASPROF_LIB=$(bench/asprof.sh)
fi
if have jfr-cpu && [ "${jv:-0}" -lt 25 ]; then drop jfr-cpu "JDK $jv has no jdk.CPUTimeSample (JDK 25+)"; fi
if [[ " ${WORKLOADS[*]} " == *" h2 "* ]] && [ ! -f "$H2JAR" ]; then
  echo "sampling: no $H2JAR (apt-get install libh2-java, or set H2JAR)" >&2
  exit 1
fi

jfc() { # NAME EVENT-XML: a JFR configuration with only those events on
  cat >"$TMP/$1.jfc" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<configuration version="2.0" label="$1" description="bench/sampling.sh: $1" provider="Orca">
$2
</configuration>
EOF
}
jfc idle ""
jfc cpu "  <event name=\"jdk.CPUTimeSample\"><setting name=\"enabled\">true</setting><setting name=\"throttle\">$CPU_INT</setting><setting name=\"stackTrace\">true</setting></event>
  <event name=\"jdk.CPUTimeSamplesLost\"><setting name=\"enabled\">true</setting></event>"
jfc exec "  <event name=\"jdk.ExecutionSample\"><setting name=\"enabled\">true</setting><setting name=\"period\">$(jfr_int "$CPU_INT")</setting></event>"

CLASSES=$TMP/classes
mkdir -p "$CLASSES"
"$JDK/bin/javac" --release 17 -d "$CLASSES" bench/java/{CpuBurn,H2Bench,WallIdle}.java
if [[ " ${WORKLOADS[*]} " == *" tomcat "* ]]; then
  mkdir -p "$TMP/server"
  "$JDK/bin/javac" --release 17 -cp /usr/share/java/tomcat10-servlet-api.jar -d "$TMP/server" testdata/java/server/orca/test/*.java
fi

# ---- one run -------------------------------------------------------------------
# profiler_args ARM DIR: the JVM options of that configuration, writing into DIR.
profiler_args() {
  local o="${ORCA_LIB:-}=prefix=$2/orca,format=$FORMAT"
  case $1 in
    none) ;;
    orca-off) echo "-agentpath:$o,cpu=off,wall=off" ;;
    orca-cpu) echo "-agentpath:$o,cpu=$CPU_INT,wall=off" ;;
    orca-wall) echo "-agentpath:$o,cpu=off,wall=$WALL_INT" ;;
    orca-wall-b) echo "-agentpath:$ORCA_LIB_B=prefix=$2/orca,format=$FORMAT,cpu=off,wall=$WALL_INT" ;;
    ap-idle) echo "-agentpath:$ASPROF_LIB" ;;
    ap-cpu) echo "-agentpath:$ASPROF_LIB=start,event=cpu,interval=$CPU_INT,collapsed,file=$2/ap.txt" ;;
    ap-ctimer) echo "-agentpath:$ASPROF_LIB=start,event=ctimer,interval=$CPU_INT,collapsed,file=$2/ap.txt" ;;
    ap-wall) echo "-agentpath:$ASPROF_LIB=start,event=wall,interval=$WALL_INT,collapsed,file=$2/ap.txt" ;;
    jfr-idle | jfr-cpu | jfr-exec) echo "-XX:StartFlightRecording=filename=$2/x.jfr,settings=$TMP/${1#jfr-}.jfc" ;;
  esac
}

# samples ARM DIR: "SAMPLES LOST" the profiler wrote in DIR.
samples() {
  local info=$2/orca.info
  case $1 in
    orca-cpu | orca-wall | orca-wall-b)
      [ -f "$info" ] || { echo "sampling: no $info" >&2; return 1; }
      local k=${1#orca-}
      awk -F= -v k="samples.${k%-b}" '$1 == k { s = $2 } $1 ~ /^samples_lost\./ { l += $2 }
        END { print s + 0, l + 0 }' "$info" ;;
    ap-cpu | ap-ctimer | ap-wall)
      [ -f "$2/ap.txt" ] || { echo "sampling: no $2/ap.txt" >&2; return 1; }
      awk '{ s += $NF } END { print s + 0, 0 }' "$2/ap.txt" ;;
    jfr-cpu | jfr-exec)
      local ev=jdk.CPUTimeSample lost=0
      [ "$1" = jfr-exec ] && ev=jdk.ExecutionSample
      if [ "$1" = jfr-cpu ]; then
        lost=$("$JDK/bin/jfr" print --events jdk.CPUTimeSamplesLost "$2/x.jfr" | awk '$1 == "lostSamples" { s += $3 } END { print s + 0 }')
      fi
      "$JDK/bin/jfr" summary "$2/x.jfr" | awk -v e="$ev" -v l="$lost" '$1 == e { s = $2 } END { print s + 0, l }' ;;
    *) echo "0 0" ;;
  esac
}

# run WORKLOAD ARM ROUND: one JVM; appends a line to runs.tsv.
run() {
  local wl=$1 arm=$2 r=$3 dir=$TMP/$1-$2-$3 rc=0 out R
  rm -rf "$dir"
  mkdir -p "$dir"
  local -a pa
  read -r -a pa <<<"$(profiler_args "$arm" "$dir")"
  case $wl in
    cpu | h2 | idle)
      local -a cmd=(-cp "$CLASSES" CpuBurn "${CPU_THREADS:-4}" "${CPU_OPS:-2000}")
      [ "$wl" = idle ] && cmd=(-cp "$CLASSES" WallIdle "${IDLE_PARKED:-50}" "${IDLE_NATIVE:-3}" "${IDLE_MS:-20000}")
      [ "$wl" = h2 ] && cmd=(-Dh2bench.ops="${H2_OPS:-200000}" -cp "$CLASSES:$H2JAR" H2Bench "${H2_THREADS:-8}")
      out=$(cd "$dir" && CPU_OF_AT="$AT" "$ROOT/bench/cpu_of.py" "$dir/time" \
        "$JDK/bin/java" -XX:ErrorFile="$dir/hs_err_pid%p.log" "${pa[@]}" "${cmd[@]}" 2>"$dir/err") || rc=$?
      R=$(awk 'END { print $1 + $2 }' "$dir/time" 2>/dev/null || echo 0) ;;
    tomcat)
      out=$(JDK=$JDK CLASSES=$TMP/server SECS=${SECS:-10} WARMUP=2 JVM_ARGS="${pa[*]}" TOTAL_CPU=1 \
        bench/tomcat.sh "$dir" 2>"$dir/err") || rc=$?
      R=$(awk '$1 == "CPU_TOTAL" { print $2 }' <<<"$out") ;;
  esac
  if ! crash_check "sampling-$wl-$arm-$r" "$dir" || [ "$rc" != 0 ]; then
    echo "sampling: $wl $arm round $r: exited $rc${CRASH_KEPT[*]:+; a JVM CRASHED: ${CRASH_KEPT[*]}}; $dir/err:" >&2
    tail -n 20 "$dir/err" >&2
    exit 1
  fi
  local n w s
  n=$(awk '$1 == "OPS" { print $2 }' <<<"$out")
  w=$(awk '$1 == "CPU" { print $2 }' <<<"$out")
  s=$(samples "$arm" "$dir")
  if [ -n "$AT" ]; then
    # The steady window: R is the process's CPU between the two reads, S the
    # samples at the run's rate (all of them ÷ its seconds) times the window.
    read -r R s < <(awk -v s="$s" -v t0="$WARM" -v t1="$WEND" '$1 == t0 { a = $2 } $1 == t1 { b = $2 } $1 == "elapsed" { e = $2 }
      END { if (a == "" || b == "" || !e) { print "sampling: no window read" > "/dev/stderr"; exit 1 }
        split(s, x, " "); printf "%.9f %.0f %.0f\n", (b - a) / 1e9, x[1] * (t1 - t0) / e, x[2] }' "$dir/time.at")
  fi
  printf '%s\t%s\t%d\t%s\t%s\t%s\t%s\n' "$wl" "$arm" "$r" "$R" "$w" "$n" "${s// /$'\t'}" >>"$TMP/runs.tsv"
  printf '  %-6s %-9s R %7.2f s  W %7.2f s  ops %9d  samples %7d  lost %d\n' "$wl" "$arm" "$R" "$w" "$n" ${s}
  if [ "$arm" = orca-wall ] || [ "$arm" = orca-wall-b ]; then
    # The wall sampler's own thread, measured by itself (.info): its part of the
    # cost without the run-to-run noise; the handler's part is a CPU sample's.
    awk -F= -v wl="$wl" -v r="$r" '$1 == "sample_wall_sampler_cpu_ns" { c = $2 } $1 == "samples.wall" { s = $2 }
      END { printf "%s\t%d\t%d\t%d\n", wl, r, c, s }' "$dir/orca.info" | sed "s/^/$arm /" >>"$TMP/wall-sampler.tsv"
  fi
  # The recordings are large and read: only the counts are kept.
  rm -f "$dir"/orca.orca "$dir"/x.jfr "$dir"/ap.txt
}

# The steady window (WINDOW="WARM LENGTH", seconds; idle only): each run's
# CPU is read at WARM and at WARM + LENGTH after its start, and WallIdle runs
# a second past that.
AT=""
if [ -n "${WINDOW:-}" ]; then
  read -r WARM WLEN <<<"$WINDOW"
  WEND=$((WARM + WLEN))
  AT="$WARM $WEND"
  IDLE_MS=${IDLE_MS:-$(((WEND + 1) * 1000))}
  for wl in "${WORKLOADS[@]}"; do
    [ "$wl" = idle ] || { echo "sampling: WINDOW is for the idle workload only" >&2; exit 1; }
  done
fi
echo "sampling: JDK $jv ($JDK), ${ROUNDS} rounds, cpu $CPU_INT, wall $WALL_INT, workloads ${WORKLOADS[*]}"
echo "  arms: ${ARMS[*]}"
[ -n "${ORCA_LIB:-}" ] && echo "  orca: $ORCA_LIB"
[ -n "${ASPROF_LIB:-}" ] && echo "  async-profiler: $ASPROF_LIB"
: >"$TMP/runs.tsv"
: >"$TMP/wall-sampler.tsv"
n=${#ARMS[@]}
for wl in "${WORKLOADS[@]}"; do
  for r in $(seq 1 "$ROUNDS"); do
    [ -n "${LOCK:-}" ] && { exec {lockfd}>"$LOCK"; flock "$lockfd"; }
    echo "$wl round $r: load $(cut -d' ' -f1-3 /proc/loadavg)"
    # The order rotates by a round, so each configuration runs early and late.
    for k in $(seq 0 $((n - 1))); do
      if [ -n "${PARALLEL:-}" ]; then
        run "$wl" "${ARMS[$(((k + r) % n))]}" "$r" &
      else
        run "$wl" "${ARMS[$(((k + r) % n))]}" "$r"
      fi
    done
    if [ -n "${PARALLEL:-}" ]; then
      for k in $(jobs -p); do wait "$k" || { echo "sampling: a run of $wl round $r failed" >&2; exit 1; }; done
    fi
    [ -n "${LOCK:-}" ] && exec {lockfd}>&-
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"

# ---- the summary ---------------------------------------------------------------
python3 bench/sampling_summary.py "$TMP/runs.tsv"
if [ -s "$TMP/wall-sampler.tsv" ]; then
  echo
  echo "orca-wall: the wall sampler thread's own CPU (.info sample_wall_sampler_cpu_ns), per run"
  awk -F'\t' '{ printf "  %-18s round %d: %8.2f ms for %6d samples = %7.1f µs a sample\n", $1, $2, $3 / 1e6, $4, $4 ? $3 / $4 / 1e3 : 0 }' "$TMP/wall-sampler.tsv"
fi
