#!/usr/bin/env bash
# Orca benchmark (make bench): throughput and CPU cost of the orca agent next
# to no agent and to JFR recording the equivalent events at 0 ms thresholds,
# and the agent's perturbation of the contention JFR sees. Results and their
# meaning: docs/PERFORMANCE.md.
#
#   ./bench/run.sh                                         JDK 17, defaults
#   JDK=/usr/lib/jvm/temurin-25-jdk-amd64 ./bench/run.sh   the same on JDK 25
#   DEPTH=64 WORKLOADS=h2 ./bench/run.sh                   orca keeping 64 frames per event
#
# Environment (defaults in brackets):
#   JDK        JDK to run and compile with [Debian JDK 17]
#   REPS       interleaved rounds per configuration [5]
#   SECS       measured seconds per run [5]
#   WARMUP     seconds before the measured window [2]
#   THREADS    worker threads [8]
#   DEPTH      orca's stack depth, frames per event (the agent's depth= option)
#              [unset: the agent's default, 16]. JFR keeps its own default, 64
#              frames (-XX:FlightRecorderOptions:stackdepth), whatever DEPTH is
#   FORMAT     the encoding orca writes, compact or seed (the agent's format= option)
#              [compact: what orca record writes]
#   WORKLOADS  throughput workloads, from: lock park queue h2 tomcat [lock park queue h2 tomcat]
#   PERTURB    workloads for the perturbation check (JFR alone vs JFR+orca) [lock park queue h2 tomcat]; "" skips it
#   LIB        agent library [$(bin/orca agent-path) if bin/orca exists, else built from agent/*.c]
#   H2JAR      H2 jar [/usr/share/java/h2.jar; installed with apt-get (package libh2-java) when root]
#              tomcat: Tomcat 10 and wrk (packages tomcat10-common, wrk; installed when root), bench/tomcat.sh
#   QUIET      % of the machine that other processes may use [15]: before each
#              run, wait up to 20 s for a second in which they use less; a run
#              during which they used more than 2*QUIET % is repeated (twice at
#              most). At most 300 s of waiting and 10 repeats in all, so that a
#              machine that is never quiet still finishes. QUIET=100 turns this off.
#   NICE       nice value for the benchmark JVMs [0]; on a machine shared with
#              other work, NICE=-10 (as root) gives them priority over it
#   KEEP=1     keep the work directory (recordings, logs) and print its path
#
# A JVM that crashes (an hs_err file, a core) fails the benchmark: the file is
# moved to build/crash (or $ORCA_CRASH_DIR) and named (bench/crash.sh).
#
# Configurations, each run in a fresh JVM:
#   none       no agent
#   orca       -agentpath:LIB=prefix=...[,depth=DEPTH],format=FORMAT
#   jfr        -XX:StartFlightRecording with bench/zero.jfc: jdk.JavaMonitorEnter,
#              JavaMonitorWait, ThreadPark, ThreadSleep at 0 ms with stack traces,
#              ThreadStart/ThreadEnd
#   jfr+orca   both in one JVM (perturbation check only)
# Rounds are interleaved (each round runs every configuration once, in a
# rotating order) so that drift and noise from other processes spread over all
# configurations. Each run prints ops/s over the measured window and the JVM's
# process CPU seconds over that window; the tables show medians and ranges.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
source bench/crash.sh

if [ -z "${JDK:-}" ]; then
  JDK=$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1 || true)
  if [ -z "$JDK" ]; then
    j=$(command -v javac || true)
    [ -n "$j" ] && JDK=$(dirname "$(dirname "$(readlink -f "$j")")")
  fi
fi
if [ -z "${JDK:-}" ] || [ ! -x "$JDK/bin/java" ] || [ ! -x "$JDK/bin/javac" ]; then
  echo "bench: no JDK found; set JDK=/path/to/jdk (or run: sudo make deps)" >&2
  exit 1
fi
REPS=${REPS:-5}
SECS=${SECS:-5}
WARMUP=${WARMUP:-2}
THREADS=${THREADS:-8}
DEPTH=${DEPTH:-}
if [ -n "$DEPTH" ] && ! [[ $DEPTH =~ ^[0-9]+$ && $DEPTH -le 256 ]]; then
  echo "bench: DEPTH=$DEPTH: want a number of frames, 0-256" >&2
  exit 2
fi
# The agent's options besides prefix=: depth only when asked for, so an
# unset DEPTH measures the agent's own default; the encoding orca record
# writes unless FORMAT says otherwise.
FORMAT=${FORMAT:-compact}
case $FORMAT in compact|seed) ;; *) echo "bench: FORMAT=$FORMAT: want compact or seed" >&2; exit 2 ;; esac
ORCA_OPTS=${DEPTH:+,depth=$DEPTH},format=$FORMAT
WORKLOADS=${WORKLOADS-lock park queue h2 tomcat}
PERTURB=${PERTURB-lock park queue h2 tomcat}
H2JAR=${H2JAR:-/usr/share/java/h2.jar}
KEEP=${KEEP:-0}
QUIET=${QUIET:-15}
NICE=${NICE:-0}
# A run that takes this long has hung: it is killed and reported.
TIMEOUT=$(awk -v s="$SECS" -v w="$WARMUP" 'BEGIN { printf "%d", s + w + 60 }')

TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-bench.XXXXXX")
cleanup() {
  if [ "$KEEP" = 1 ]; then echo "bench: work directory kept: $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT
FAILED=0

# ---- agent -------------------------------------------------------------------

if [ -z "${LIB:-}" ]; then
  if [ -x bin/orca ]; then
    LIB=$(bin/orca agent-path)
  else
    # No bin/orca: build the agent privately, against this JDK's headers.
    LIB=$TMP/liborca.so
    echo "bench: no bin/orca; building the agent into $LIB"
    gcc -O2 -g -std=gnu11 -fPIC -shared -fvisibility=hidden -Wall -Wextra \
      -I"$JDK/include" -I"$JDK/include/linux" -o "$LIB" agent/*.c -lpthread -ldl
  fi
fi
[ -f "$LIB" ] || { echo "bench: agent library $LIB not found" >&2; exit 1; }

# ---- workloads ---------------------------------------------------------------

CLASSES=$TMP/classes
mkdir -p "$CLASSES"
# The workloads and JfrCount only: the servers' load clients beside them (JmsLoad, LuceneLoad) need
# their servers' jars and are compiled by bench/servers.sh.
"$JDK/bin/javac" --release 17 -d "$CLASSES" bench/java/{LockBench,ParkBench,QueueBench,H2Bench,JfrCount}.java
cp bench/zero.jfc "$TMP/zero.jfc"

if [[ " $WORKLOADS $PERTURB " == *" h2 "* ]] && [ ! -f "$H2JAR" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && [ "$H2JAR" = /usr/share/java/h2.jar ]; then
    echo "bench: installing H2 (Debian package libh2-java)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libh2-java >/dev/null
  fi
  if [ ! -f "$H2JAR" ]; then
    echo "bench: $H2JAR missing (apt-get install libh2-java as root); skipping the h2 workload" >&2
    WORKLOADS=${WORKLOADS//h2/}
    PERTURB=${PERTURB//h2/}
    FAILED=1
  fi
fi

if [[ " $WORKLOADS $PERTURB " == *" tomcat "* ]]; then
  if { [ ! -x /usr/share/tomcat10/bin/catalina.sh ] || ! command -v wrk >/dev/null; } && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bench: installing Tomcat 10 and wrk (Debian packages tomcat10-common, wrk)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends tomcat10-common wrk >/dev/null
  fi
  if [ -x /usr/share/tomcat10/bin/catalina.sh ] && command -v wrk >/dev/null; then
    mkdir -p "$TMP/server"
    "$JDK/bin/javac" --release 17 -cp /usr/share/java/tomcat10-servlet-api.jar -d "$TMP/server" testdata/java/server/orca/test/*.java
  else
    echo "bench: no Tomcat 10 or wrk (apt-get install tomcat10-common wrk as root); skipping the tomcat workload" >&2
    WORKLOADS=${WORKLOADS//tomcat/}
    PERTURB=${PERTURB//tomcat/}
    FAILED=1
  fi
fi

# workload_cmd WL: the class path and main class with arguments.
workload_cmd() {
  case $1 in
    lock) echo "-cp $CLASSES LockBench $THREADS $SECS $WARMUP" ;;
    park) echo "-cp $CLASSES ParkBench $THREADS $SECS $WARMUP" ;;
    queue) echo "-cp $CLASSES QueueBench $THREADS $SECS $WARMUP" ;;
    h2) echo "-cp $CLASSES:$H2JAR H2Bench $THREADS $SECS $WARMUP" ;;
    *) echo "bench: unknown workload $1" >&2; return 1 ;;
  esac
}
workload_desc() {
  case $1 in
    lock) echo "LockBench (synthetic: $THREADS threads, synchronized counters on 4 shared locks, wait/notify, sleep)" ;;
    tomcat) echo "Tomcat 10 under wrk (1 thread, 16 connections) on 127.0.0.1, testdata/java/server's BlockingServlet: every way a request thread blocks (bench/tomcat.sh); ops = requests" ;;
    park) echo "ParkBench (synthetic, java.util.concurrent: $THREADS threads, ReentrantLock counters, Condition ping-pong, a CompletableFuture pipeline on a 2-worker ForkJoinPool)" ;;
    queue) echo "QueueBench (synthetic, bounded queues: $THREADS threads, producers and consumers on an ArrayBlockingQueue and a LinkedBlockingQueue of 16 items)" ;;
    h2) echo "H2Bench (H2 $(basename "$(readlink -f "$H2JAR")" .jar | sed 's/^h2-//'), in-memory, $THREADS JDBC threads: SELECT/UPDATE/INSERT on 16 contended rows)" ;;
  esac
}

# ---- one run -----------------------------------------------------------------

# child_cpu VAR: sets VAR to the CPU seconds used by this script's finished
# children so far (times must run in this shell, not in a $(...) subshell).
child_cpu() {
  times >"$TMP/times"
  printf -v "$1" '%s' "$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$TMP/times")"
}
# busy_ticks: CPU ticks spent by everything on the machine so far.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
HZ=$(getconf CLK_TCK)
NCPU=$(nproc)

# wait_quiet: wait (20 s at most) for a second in which other processes use
# less than QUIET % of the machine.
WAITED=0
wait_quiet() {
  [ "$QUIET" -ge 100 ] || [ "$WAITED" -ge 300 ] && return 0
  local k a b
  for ((k = 0; k < 20 && WAITED < 300; k++)); do
    a=$(busy_ticks)
    sleep 1
    WAITED=$((WAITED + 1))
    b=$(busy_ticks)
    if (((b - a) * 100 < QUIET * HZ * NCPU)); then return 0; fi
  done
  echo "  (other processes busy: running anyway; ${WAITED} s waited so far)"
}

RESULTS=$TMP/results.tsv # wl cfg rep ops_per_s cpu_s_per_mop events dropped others_pct enters blocked_s median_us orca_enters parks parked_s
: >"$RESULTS"

# measure WL CFG REP: run_one after wait_quiet, repeated when other processes
# took more than 2*QUIET % of the machine during the run.
measure() {
  local try
  for ((try = 0; try < 3; try++)); do
    wait_quiet
    LAST_OTHERS=0
    run_one "$@"
    if [ "$QUIET" -ge 100 ] || [ "$LAST_OTHERS" -le $((2 * QUIET)) ]; then return 0; fi
    if ((try < 2 && NOISY < 10)); then
      echo "  (other processes used ${LAST_OTHERS}% of the machine: repeating this run)"
      sed -i '$d' "$RESULTS"
      NOISY=$((NOISY + 1))
    else
      return 0
    fi
  done
}
NOISY=0

# run_one WL CFG REP: runs one JVM, appends a line to $RESULTS, under the
# workload name $TAG if set (to keep the perturbation runs apart).
run_one() {
  local wl=$1 cfg=$2 rep=$3 tag=${TAG:-$1}
  local id=$tag-$cfg-$rep id2
  id2=${id//+/_}
  local out=$TMP/$id2.out err=$TMP/$id2.err jfr=$TMP/$id2.jfr prefix=$TMP/$id2
  local -a args=()
  case $cfg in
    none) ;;
    orca) args=("-agentpath:$LIB=prefix=$prefix$ORCA_OPTS") ;;
    jfr) args=("-XX:StartFlightRecording=filename=$jfr,settings=$TMP/zero.jfc") ;;
    jfr+orca) args=("-XX:StartFlightRecording=filename=$jfr,settings=$TMP/zero.jfc" "-agentpath:$LIB=prefix=$prefix$ORCA_OPTS") ;;
  esac
  local b0 b1 t0 t1 c0 c1 rc=0
  child_cpu c0
  b0=$(busy_ticks)
  t0=$EPOCHREALTIME
  if [ "$wl" = tomcat ]; then
    mkdir -p "$TMP/$id2.tomcat"
    JDK=$JDK CLASSES=$TMP/server JVM_ARGS="-XX:ErrorFile=$TMP/hs_err_pid%p.log ${args[*]}" SECS=$SECS WARMUP=$WARMUP \
      timeout -k 10 "$TIMEOUT" nice -n "$NICE" bench/tomcat.sh "$TMP/$id2.tomcat" >"$out" 2>"$err" || rc=$?
  else
    # shellcheck disable=SC2046
    timeout -k 10 "$TIMEOUT" nice -n "$NICE" "$JDK/bin/java" -XX:ErrorFile="$TMP/hs_err_pid%p.log" "${args[@]}" $(workload_cmd "$wl") >"$out" 2>"$err" || rc=$?
  fi
  b1=$(busy_ticks)
  t1=$EPOCHREALTIME
  child_cpu c1
  # Also a run that exited 0: the crash of a JVM the workload started is a failure too.
  if ! crash_check "bench-$id2" "$TMP" "$TMP/$id2.tomcat" "$ROOT"; then
    KEEP=1
    FAILED=1
  fi
  if [ "$rc" != 0 ] || ! grep -q '^OPS_PER_S ' "$out"; then
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
      echo "bench: $id HUNG (killed after ${TIMEOUT}s); log: $err" >&2
    else
      echo "bench: $id FAILED (exit $rc)" >&2
    fi
    tail -n 20 "$err" >&2 || true
    KEEP=1
    FAILED=1
    return 0
  fi
  local ops_s ops cpu
  ops_s=$(awk '$1 == "OPS_PER_S" { print $2 }' "$out")
  ops=$(awk '$1 == "OPS" { print $2 }' "$out")
  cpu=$(awk '$1 == "CPU" { print $2 }' "$out")
  local events=- dropped=- oenters=-
  if [[ $cfg == *orca* ]]; then
    local info=$prefix.info
    if [ ! -f "$info" ] || ! grep -q '^complete=true' "$info"; then
      echo "bench: $id: orca's $info is missing or not complete=true" >&2
      FAILED=1
    else
      events=$(awk -F= '/^events\./ { n += $2 } END { print n + 0 }' "$info")
      dropped=$(awk -F= '$1 == "dropped_total" { print $2 }' "$info")
      oenters=$(awk -F= '$1 == "events.MonitorContendedEnter" { print $2 }' "$info")
      if [ "${dropped:-0}" != 0 ]; then
        echo "bench: $id: orca DROPPED $dropped events:" >&2
        grep '^dropped\.' "$info" >&2 || true
      fi
    fi
    [ "$KEEP" = 1 ] || rm -f "$prefix.orca" "$prefix.methods" "$prefix.classtable"
  fi
  local enters=- blocked=- med=- parks=- parked=-
  if [[ $cfg == jfr* ]] && [ -n "${COUNT_JFR:-}" ]; then
    local line
    line=$("$JDK/bin/java" -XX:ErrorFile="$TMP/hs_err_pid%p.log" -cp "$CLASSES" JfrCount "$jfr") || { echo "bench: $id: JfrCount $jfr failed" >&2; FAILED=1; }
    crash_check "bench-$id2-jfrcount" "$TMP" "$ROOT" || FAILED=1
    enters=$(sed -n 's/.* enters=\([0-9]*\) .*/\1/p' <<<"$line")
    blocked=$(sed -n 's/.* blocked_s=\([0-9.]*\) .*/\1/p' <<<"$line")
    med=$(sed -n 's/.* median_us=\([0-9.]*\) .*/\1/p' <<<"$line")
    parks=$(sed -n 's/.* parks=\([0-9]*\) .*/\1/p' <<<"$line")
    parked=$(sed -n 's/.* parked_s=\([0-9.]*\) .*/\1/p' <<<"$line")
    echo "$id $line" >>"$TMP/jfrcount.log"
    if [[ $line != *" other=0"* ]]; then echo "bench: $id: JFR recorded events outside zero.jfc: $line" >&2; fi
  fi
  [ "$KEEP" = 1 ] || rm -f "$jfr"
  # Other processes' CPU during the run, as % of the machine: noise indicator.
  local others
  others=$(awk -v b="$((b1 - b0))" -v hz="$HZ" -v own="$(awk -v a="$c0" -v b="$c1" 'BEGIN { print b - a }')" -v n="$NCPU" -v t0="$t0" -v t1="$t1" \
    'BEGIN { o = b / hz - own; if (o < 0) o = 0; printf "%.0f", 100 * o / (n * (t1 - t0)) }')
  LAST_OTHERS=$others
  awk -v OFS='\t' -v wl="$tag" -v cfg="$cfg" -v rep="$rep" -v ops_s="$ops_s" -v ops="$ops" -v cpu="$cpu" \
    -v ev="$events" -v dr="$dropped" -v ot="$others" -v en="$enters" -v bl="$blocked" -v md="$med" -v oe="$oenters" -v pk="$parks" -v pd="$parked" \
    'BEGIN { print wl, cfg, rep, ops_s, (ops > 0 ? cpu / ops * 1e6 : 0), ev, dr, ot, en, bl, md, oe, pk, pd }' >>"$RESULTS"
  printf '  %-5s %-9s round %d: %10.0f ops/s  CPU %6.3f s  orca events %s dropped %s  JFR enters %s  others %s%%\n' \
    "$wl" "$cfg" "$rep" "$ops_s" "$cpu" "$events" "$dropped" "$enters" "$others"
}

# ---- statistics --------------------------------------------------------------

# col WL CFG N: column N of the matching result lines, one a line.
col() { awk -F'\t' -v wl="$1" -v cfg="$2" -v n="$3" '$1 == wl && $2 == cfg && $n != "-" { print $n }' "$RESULTS"; }
# stats: "median min max count" of the numbers on stdin.
stats() {
  sort -g | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "nan nan nan 0"; exit }
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR], NR }'
}
med() { col "$@" | stats | awk '{ print $1 }'; }
# paired WL CFG BASE N: median over rounds of CFG's column N / BASE's column N
# in the same round (less sensitive to drift than a ratio of medians).
paired() {
  awk -F'\t' -v wl="$1" -v cfg="$2" -v base="$3" -v n="$4" '
    $1 == wl && $2 == cfg && $n != "-" { a[$3] = $n }
    $1 == wl && $2 == base && $n != "-" { b[$3] = $n }
    END { for (r in a) if ((r in b) && b[r] > 0) print a[r] / b[r] }' "$RESULTS" | stats |
    awk '{ if ($4 == 0) print "n/a"; else printf "%.3f", $1 }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0 || a == "nan" || b == "nan") print "n/a"; else printf "%.3f", a / b }'; }

# rounds WL CONFIGS...: REPS interleaved rounds, rotating the order.
rounds() {
  local wl=$1
  shift
  local -a cfgs=("$@")
  local n=${#cfgs[@]} r i
  for ((r = 1; r <= REPS; r++)); do
    for ((i = 0; i < n; i++)); do
      measure "$wl" "${cfgs[$(((r - 1 + i) % n))]}" "$r"
    done
  done
}

# ---- main --------------------------------------------------------------------

JVER=$("$JDK/bin/java" -version 2>&1 | head -n1)
echo "== Orca benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) CPUs ($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1))"
echo "   JDK: $JDK ($JVER)"
AGENTREV=$(git -C "$ROOT" log -1 --format=%h -- agent 2>/dev/null || true)
[ -n "$(git -C "$ROOT" status --porcelain -- agent 2>/dev/null || true)" ] && AGENTREV="$AGENTREV+uncommitted changes"
echo "   agent: $LIB (agent/ at ${AGENTREV:-unknown})"
echo "   REPS=$REPS SECS=$SECS WARMUP=$WARMUP THREADS=$THREADS DEPTH=${DEPTH:-default} FORMAT=$FORMAT QUIET=$QUIET NICE=$NICE; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
START=$SECONDS

for wl in $WORKLOADS; do
  echo
  echo "-- $wl: $(workload_desc "$wl")"
  TAG= COUNT_JFR= rounds "$wl" none orca jfr
done

for wl in $PERTURB; do
  echo
  echo "-- perturbation, $wl: JFR (zero.jfc) alone vs JFR + orca in the same JVM"
  TAG=p-$wl COUNT_JFR=1 rounds "$wl" jfr+orca jfr
done

echo
echo "== Results: $JVER, $(nproc) CPUs, $REPS interleaved rounds of ${SECS} s (+${WARMUP} s warmup), $THREADS threads"
for wl in $WORKLOADS; do
  none=$(med "$wl" none 4)
  echo
  echo "$wl: $(workload_desc "$wl")"
  printf '| %-6s | %12s | %-23s | %7s | %7s | %13s | %7s | %13s | %12s | %6s | %4s |\n' \
    config "median ops/s" "min–max ops/s" "vs none" "paired" "CPU s / M ops" "vs none" "orca events/s" "orca dropped" others runs
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' -------- -------------: ------------------------- --------: --------: --------------: --------: --------------: -------------: -------: -----:
  for cfg in none orca jfr; do
    read -r m lo hi cnt < <(col "$wl" "$cfg" 4 | stats)
    cpu=$(med "$wl" "$cfg" 5)
    ev=- dr=-
    if [ "$cfg" = orca ]; then
      ev=$(col "$wl" orca 6 | stats | awk -v s="$SECS" -v w="$WARMUP" '{ printf "%.0f", $1 / (s + w) }')
      dr=$(col "$wl" orca 7 | awk '{ n += $1 } END { print n + 0 }')
    fi
    ot=$(med "$wl" "$cfg" 8)
    printf '| %-6s | %12.0f | %10.0f – %-10.0f | %7s | %7s | %13.3f | %7s | %13s | %12s | %5.0f%% | %4s |\n' \
      "$cfg" "$m" "$lo" "$hi" "$(ratio "$m" "$none")" "$(paired "$wl" "$cfg" none 4)" "$cpu" \
      "$(ratio "$cpu" "$(med "$wl" none 5)")" "$ev" "$dr" "$ot" "$cnt/$REPS"
  done
  echo "orca/jfr: throughput $(ratio "$(med "$wl" orca 4)" "$(med "$wl" jfr 4)") (paired $(paired "$wl" orca jfr 4)), CPU per op $(ratio "$(med "$wl" orca 5)" "$(med "$wl" jfr 5)") (paired $(paired "$wl" orca jfr 5))"
done

# by_class TAG: median JFR contended enters per monitor class, without and with
# orca (the classes with most enters with orca): where the perturbation is.
by_class() {
  [ -f "$TMP/jfrcount.log" ] || return 0
  echo "by monitor class (median enters per run, jfr -> jfr+orca):"
  awk -v tag="$1" '
    index($1, tag "-") == 1 {
      cfg = substr($1, length(tag) + 2); sub(/-[0-9]+$/, "", cfg)
      run[$1] = cfg
      for (i = 2; i <= NF; i++) if ($i ~ /^enters\[/) {
        split($i, kv, "]="); c = substr(kv[1], 8); last[$1, c] = kv[2]; classes[c] = 1
      }
    }
    function median(cfg, c,   n, v, i, j, t, id) {
      n = 0
      for (id in run) if (run[id] == cfg) v[++n] = ((id, c) in last) ? last[id, c] : 0
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n ? (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2) : 0
    }
    END {
      for (c in classes) { a = median("jfr", c); b = median("jfr+orca", c); if (a + b >= 20) printf "  %-60s %8.0f -> %8.0f\n", c, a, b }
    }' "$TMP/jfrcount.log" | sort -k4 -n -r | head -8
}

for wl in $PERTURB; do
  echo
  echo "perturbation, $wl: contended monitor enters JFR records (whole run, ${WARMUP}+${SECS} s) without and with orca in the JVM"
  printf '| %-8s | %16s | %-17s | %16s | %-17s | %14s | %14s | %16s | %5s |\n' \
    config "median enters" "min–max" "median blocked s" "min–max" "median enter µs" "median ops/s" "orca's enters" runs
  printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' ---------- ------------------: ------------------- ------------------: ------------------- ----------------: ----------------: ------------------: -------:
  for cfg in jfr jfr+orca; do
    read -r em elo ehi cnt < <(col "p-$wl" "$cfg" 9 | stats)
    read -r bm blo bhi _ < <(col "p-$wl" "$cfg" 10 | stats)
    oe=-
    [ "$cfg" = jfr+orca ] && oe=$(med "p-$wl" "$cfg" 12)
    printf '| %-8s | %16.0f | %7.0f – %-7.0f | %16.3f | %6.3f – %-8.3f | %14.1f | %14.0f | %16s | %5s |\n' \
      "$cfg" "$em" "$elo" "$ehi" "$bm" "$blo" "$bhi" "$(med "p-$wl" "$cfg" 11)" "$(med "p-$wl" "$cfg" 4)" "$oe" "$cnt/$REPS"
  done
  re=$(ratio "$(med "p-$wl" jfr+orca 9)" "$(med "p-$wl" jfr 9)")
  rb=$(ratio "$(med "p-$wl" jfr+orca 10)" "$(med "p-$wl" jfr 10)")
  verdict=ok
  awk -v a="$re" -v b="$rb" 'BEGIN { exit !((a != "n/a" && a > 1.2) || (b != "n/a" && b > 1.2)) }' && verdict="ABOVE 1.2x"
  # A handful of enters (a park-heavy workload) is noise, not a measure.
  awk -v e="$(med "p-$wl" jfr 9)" 'BEGIN { exit !(e < 100) }' && verdict="too few enters to judge"
  echo "with/without orca: contended enters ${re}x (paired $(paired "p-$wl" jfr+orca jfr 9)), blocked time ${rb}x (paired $(paired "p-$wl" jfr+orca jfr 10)) (goal <= 1.2x: $verdict)"
  # Parks JFR records (jdk.ThreadPark), the same check for java.util.concurrent.
  pm=$(med "p-$wl" jfr 13)
  if [ "$pm" != nan ] && awk -v p="$pm" 'BEGIN { exit !(p >= 100) }'; then
    rp=$(ratio "$(med "p-$wl" jfr+orca 13)" "$pm")
    rt=$(ratio "$(med "p-$wl" jfr+orca 14)" "$(med "p-$wl" jfr 14)")
    pv=ok
    awk -v a="$rp" -v b="$rt" 'BEGIN { exit !((a != "n/a" && a > 1.2) || (b != "n/a" && b > 1.2)) }' && pv="ABOVE 1.2x"
    printf 'parks JFR records (median per run): jfr %.0f (%.3f s parked), jfr+orca %.0f (%.3f s)\n' "$pm" "$(med "p-$wl" jfr 14)" "$(med "p-$wl" jfr+orca 13)" "$(med "p-$wl" jfr+orca 14)"
    echo "with/without orca: parks ${rp}x (paired $(paired "p-$wl" jfr+orca jfr 13)), parked time ${rt}x (paired $(paired "p-$wl" jfr+orca jfr 14)) (goal <= 1.2x: $pv)"
  fi
  by_class "p-$wl"
done

echo
echo "bench: done in $((SECONDS - START)) s; $NOISY runs repeated because other processes were busy (QUIET=$QUIET); load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
if [ "$FAILED" != 0 ]; then
  if ((${#CRASH_KEPT[@]})); then printf 'bench: a JVM CRASHED: %s\n' "${CRASH_KEPT[@]}" >&2; fi
  echo "bench: some runs FAILED (see above)" >&2
  exit 1
fi
