#!/usr/bin/env bash
# callfiles.sh: which of the agent's .c files a contended monitor enter and a
# park run functions of (issue 32: at most 8 each; docs/agent.md, "One way
# into the event path"). Builds the agent with -finstrument-functions and
# bench/c/calltrace.c, runs a program whose every monitor enter is
# contended (4 threads, one monitor held 200 us at a time, 5 s) and ParkBench
# briefly with it, and
# prints, for each event's entry points (the JVMTI callbacks and the
# wrappers of the natives), the functions reached from them on the calling
# thread, by source file. A count, not a timing: not run under the bench lock.
#
#   ./bench/callfiles.sh            JDK 17
#   JDK=/usr/lib/jvm/temurin-25-jdk-amd64 ./bench/callfiles.sh
set -euo pipefail
cd "$(dirname "$0")/.."
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/orca-calls.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
src=$(ls agent/*/*.c | grep -v '^agent/test/')
gcc -O2 -g -std=gnu11 -fPIC -shared -fvisibility=hidden -finstrument-functions -I"$JDK/include" -I"$JDK/include/linux" \
  -Iagent -o "$TMP/lib.so" $src bench/c/calltrace.c -lpthread -ldl
cat >"$TMP/Contend.java" <<'EOF'
public final class Contend {
  static final Object lock = new Object();
  static volatile long sink;
  public static void main(String[] a) throws Exception {
    long end = System.nanoTime() + (long) (Double.parseDouble(a[1]) * 1e9);
    Thread[] ts = new Thread[Integer.parseInt(a[0])];
    for (int i = 0; i < ts.length; i++) {
      ts[i] = new Thread(() -> {
        while (System.nanoTime() < end) {
          synchronized (lock) {
            long t = System.nanoTime() + 200000;
            while (System.nanoTime() < t) sink++;
          }
          long u = System.nanoTime() + 200000;   // outside: no barging back in
          while (System.nanoTime() < u) sink++;
        }
      });
      ts[i].start();
    }
    for (Thread t : ts) t.join();
  }
}
EOF
"$JDK/bin/javac" --release 17 -d "$TMP/classes" "$TMP/Contend.java" bench/java/ParkBench.java
run() {   # run NAME CLASS
  ORCA_CALLTRACE=$TMP/$1.edges "$JDK/bin/java" -agentpath:"$TMP/lib.so=prefix=$TMP/$1" -cp "$TMP/classes" "$2" ${ARGS:-4 2 1} >/dev/null
}
ARGS="4 5" run lock Contend
ARGS="4 3 2" run park ParkBench
# Names and files of every function seen (offsets in hex).
cat "$TMP"/*.edges | awk '{ print $1; print $2 }' | sort -u | grep -v '^0$' >"$TMP/offs"
sed 's/^/0x/' "$TMP/offs" | addr2line -f -e "$TMP/lib.so" | paste - - |
  awk '{ f = $2; sub(/:.*/, "", f); sub(/.*\/agent\//, "", f); print $1, f }' | paste -d' ' "$TMP/offs" - >"$TMP/names"
# show TITLE EDGES ROOT...: the functions reached from the roots on their
# thread, by file. A function entered from the functions reached less than
# once per 100 entries of the roots, or less than 32 times (a thread's first
# event, a new monitor's class, a state of an attach), is listed apart, as
# rare, and not followed. Only the calls from the event's own functions
# count: a function the writer's thread runs often (mutf8_to_utf8, naming
# methods) is not thereby frequent on the event's path.
show() {
  local t=$1 e=$2
  shift 2
  awk -v roots="$*" 'FNR == NR { name[$1] = $2; file[$1] = $3; byname[$2] = $1; next }
    { ne++; from[ne] = $1; to[ne] = $2; cnt[ne] = $3; total[$2] += $3 }
    END {
      n = split(roots, r, " "); rt = 0
      for (i = 1; i <= n; i++) if (r[i] in byname) { o = byname[r[i]]; seen[o] = 1; rt += total[o] }
      # Until nothing more is reached: each callee counted from the callers reached so far.
      do {
        grew = 0
        delete got
        for (i = 1; i <= ne; i++) if (from[i] in seen && !(to[i] in seen)) got[to[i]] += cnt[i]
        for (c in got) if (got[c] * 100 >= rt && got[c] >= 32) { seen[c] = 1; grew = 1 }
      } while (grew)
      for (c in got) rare[c] = 1
      for (o in seen) print "F", file[o], name[o]
      for (o in rare) print "R", file[o], name[o]
      print "N", rt
    }' "$TMP/names" "$e" | sort >"$TMP/r"
  echo "$t: $(awk '$1 == "F" && $2 ~ /\.c$/ {print $2}' "$TMP/r" | sort -u | wc -l) .c files ($(awk '$1 == "N" {print $2}' "$TMP/r") entries)"
  awk '$1 == "F" { fn[$2] = fn[$2] " " $3 } END { for (f in fn) print "  " f ":" fn[f] }' "$TMP/r" | sort
  awk '$1 == "R" { fn[$2] = fn[$2] " " $3 } END { for (f in fn) print "  rare " f ":" fn[f] }' "$TMP/r" | sort
}
show "contended enter (MonitorContendedEnter, MonitorContendedEntered)" "$TMP/lock.edges" monitor_on_contended_enter monitor_on_contended_entered
show "park (Unsafe.park's wrapper)" "$TMP/park.edges" my_park
show "unpark (Unsafe.unpark's wrapper)" "$TMP/park.edges" my_unpark
