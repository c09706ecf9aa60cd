#!/usr/bin/env bash
# What a crashed JVM leaves behind, for the shell scripts: the twin of internal/crash (the Go
# tests' checker; README.md, "Tests"). Every JVM a script starts gets
# -XX:ErrorFile=OUTDIR/hs_err_pid%p.log; after it, crash_check fails on what it left.
#
#   source bench/crash.sh
#   crash_check WHAT DIR...   moves every hs_err*.log, core and core.PID found directly in the
#                             DIRs into $CRASH_DIR/WHAT, names each on stderr (with an hs_err
#                             file's header: the error, the problematic frame), adds it to the
#                             array CRASH_KEPT and returns 1; returns 0 when there is none.
#   bash bench/crash.sh print [STAMP]
#                             prints the hs_err files kept in $CRASH_DIR (the first 80 lines of
#                             each) and lists the cores, then any left elsewhere in the
#                             repository or in /tmp (a JVM whose working directory was not
#                             writable writes there); with STAMP only files newer than it.
#                             Returns 1 when there is none (.ci/run).
#
# CRASH_DIR: $ORCA_CRASH_DIR, else build/crash in the repository, as for the Go tests. A core is
# written where /proc/sys/kernel/core_pattern says ("core": the crashing process's working
# directory) and only when `ulimit -c` allows; so the DIRs of a check are the JVM's output
# directory and its working directory.

CRASH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CRASH_DIR=${ORCA_CRASH_DIR:-$CRASH_ROOT/build/crash}
CRASH_KEPT=()

# crash_files DIR...: the crash files directly in the DIRs, one a line.
crash_files() {
  local d
  for d in "$@"; do
    [ -d "$d" ] || continue
    find "$d" -maxdepth 1 -type f \( -name 'hs_err*.log' -o -name core -o -regex '.*/core\.[0-9]+' \) -print
  done | sort -u
}

crash_check() {
  local what=$1 f dst found=0
  shift
  while IFS= read -r f; do
    [ -n "$f" ] || continue
    found=1
    dst=$CRASH_DIR/${what//[^A-Za-z0-9._-]/_}
    mkdir -p "$dst" && mv -f "$f" "$dst/" && dst=$dst/${f##*/} || dst=$f
    CRASH_KEPT+=("$dst")
    case ${f##*/} in
      core*) echo "$what: a process DUMPED CORE: $dst (from $f)" >&2 ;;
      *)
        echo "$what: a JVM CRASHED: $dst (from $f)" >&2
        awk '!/^#/ || /submit a bug report/ { exit } /^# *[^ ]/ { print "  " $0 }' "$dst" >&2
        ;;
    esac
  done < <(crash_files "$@")
  [ "$found" = 0 ]
}

crash_print() {
  local stamp=${1:-} f
  local -a newer=() kept=() stray=()
  [ -n "$stamp" ] && newer=(-newer "$stamp")
  [ -d "$CRASH_DIR" ] && mapfile -t kept < <(find "$CRASH_DIR" -type f "${newer[@]}" | sort)
  mapfile -t stray < <({
    find "$CRASH_ROOT" \( -path "$CRASH_ROOT/.git" -o -path "$CRASH_DIR" \) -prune -o \
      -type f \( -name 'hs_err_pid*.log' -o -name core -o -regex '.*/core\.[0-9]+' \) "${newer[@]}" -print
    find /tmp -maxdepth 1 -type f -name 'hs_err_pid*.log' "${newer[@]}" -print
  } 2>/dev/null | sort)
  ((${#kept[@]} + ${#stray[@]})) || return 1
  echo "== JVM crash files: ${#kept[@]} kept in $CRASH_DIR, ${#stray[@]} elsewhere"
  for f in "${kept[@]}" "${stray[@]}"; do
    case ${f##*/} in
      hs_err*)
        echo "--- $f (the first 80 of $(wc -l <"$f") lines)"
        head -n 80 "$f"
        ;;
      *) echo "--- core: $(ls -l "$f") (gdb JAVA_HOME/bin/java $f)" ;;
    esac
  done
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  case ${1:-} in
    print) crash_print "${2:-}" ;;
    *) echo "usage: bash bench/crash.sh print [STAMP] (or: source bench/crash.sh; crash_check WHAT DIR...)" >&2; exit 2 ;;
  esac
fi
