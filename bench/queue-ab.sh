#!/usr/bin/env bash
# A/B of QueueBench with parts of orca switched off (issue 23's cost goals: where the cost is),
# next to JFR (bench/zero.jfc):   bench/queue-ab.sh JDK OUTDIR   (ROUNDS=3)
# Configurations: orca (format=compact), walkcache0 (ORCA_WALK_CACHE=0), kinds_seed (kinds=seed: no
# park hooks), jfr, timed (ORCA_TIME_WRITER=1 ORCA_TIME_STACKS=1: the timers in OUTDIR/timed-*.err).
# Per run, on stdout and in OUTDIR/diag.tsv: config, round, ops/s, CPU µs an op, CPU s in the window,
# exit, orca events, JFR's jdk.ThreadPark count. Every JVM gets -XX:ErrorFile in OUTDIR; a crash fails.
# ROUNDS interleaved rounds in a rotating order, at nice -10.
set -u
JDK=$1; ROUNDS=${ROUNDS:-3}; OUTD=$2
cd "$(dirname "$0")/.."; LIB=$(bin/orca agent-path)
C=$OUTD/classes; mkdir -p $C; $JDK/bin/javac --release 17 -d $C bench/java/QueueBench.java
cfgs=(orca walkcache0 kinds_seed jfr timed)
n=${#cfgs[@]}
for ((r = 1; r <= ROUNDS; r++)); do for ((i = 0; i < n; i++)); do
  c=${cfgs[$(((r - 1 + i) % n))]}; p=$OUTD/$c-$r; env=(); a=()
  case $c in
    orca) a=(-agentpath:$LIB=prefix=$p,format=compact) ;;
    walkcache0) env=(ORCA_WALK_CACHE=0); a=(-agentpath:$LIB=prefix=$p,format=compact) ;;
    kinds_seed) a=(-agentpath:$LIB=prefix=$p,format=compact,kinds=seed) ;;
    timed) env=(ORCA_TIME_WRITER=1 ORCA_TIME_STACKS=1); a=(-agentpath:$LIB=prefix=$p,format=compact) ;;
    jfr) a=(-XX:StartFlightRecording=filename=$p.jfr,settings=bench/zero.jfc) ;;
  esac
  env ${env[@]+"${env[@]}"} nice -n -10 $JDK/bin/java -XX:ErrorFile=$OUTD/hs_err_pid%p.log "${a[@]}" -cp $C QueueBench 8 5 2 >$p.out 2>$p.err
  rc=$?
  ev=-; [ -f $p.info ] && ev=$(awk -F= '/^events\./ { n += $2 } END { print n }' $p.info)
  jp=-; [ -f $p.jfr ] && jp=$($JDK/bin/jfr summary $p.jfr | awk '$1 == "jdk.ThreadPark" { print $2 }')
  printf '%s\t%d\t%s\t%s\t%s\trc=%s\tevents=%s\tjfr_parks=%s\n' $c $r $(awk '$1=="OPS_PER_S"{print $2}' $p.out) $(awk '$1=="CPU"{c=$2} $1=="OPS"{o=$2} END { printf "%.3f", c/o*1e6 }' $p.out) "$(awk '$1=="CPU"{print $2}' $p.out)" $rc $ev $jp | tee -a $OUTD/diag.tsv
  rm -f $p.orca $p.jfr
done; done
if ls $OUTD/hs_err* $OUTD/core* >/dev/null 2>&1; then echo "queue-ab: a JVM CRASHED: $(ls $OUTD/hs_err* $OUTD/core* 2>/dev/null)" >&2; exit 1; fi
