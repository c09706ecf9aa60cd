#!/bin/bash
# check-includes.sh [DIR] [MAX]: the agent's structure (docs/agent.md).
# A unit is a .c with its .h (record/ring's ring.c and ring.h); a module is a
# directory of units. Unit X depends on unit Y when X.c or X.h includes
# Y.h; X calls Y when X.c or X.h names a function, macro or variable that
# Y.h declares (comments and strings aside: X includes Y.h, or is handed it
# and names it). Three rules, checked here, run by `make agent-test`:
#   1. Layers: a module uses only itself and the modules below it, in the
#      order of LAYERS (bottom first): the lower layers never call up (they
#      take callbacks instead).
#   2. No cycle among units, by includes and calls: a unit never calls one
#      that calls it back, even through a callback named after it (issue
#      32: hooks/attached.c named park.c's park_blocker, park.c used
#      attached.h's OWN_EVENT).
#   3. No chain of includes longer than MAX units (default 9): a newcomer
#      follows a call through few files.
#   4. No file under hooks/ names the attach's open states (the regex
#      attached_|ATTACHED_|OWN_EVENT): every event comes in through
#      threads.h's event_begin, which settles them (issue 32).
set -euo pipefail
export LC_ALL=C
dir=${1:-agent}
max=${2:-9}
LAYERS="core record hotspot stacks threads hooks jvm"
rank() { local i=0 l; for l in $LAYERS; do [ "$l" = "$1" ] && { echo $i; return; }; i=$((i + 1)); done; echo -1; }
bad=0
edges=""
for f in "$dir"/*/*.c "$dir"/*/*.h; do
  mod=$(basename "$(dirname "$f")")
  [ "$mod" = test ] && continue
  unit=$mod/$(basename "${f%.*}")
  r=$(rank "$mod")
  if [ "$r" -lt 0 ]; then
    echo "check-includes: $f: module $mod is not in LAYERS ($LAYERS)" >&2
    bad=1
    continue
  fi
  while read -r inc; do
    [ -n "$inc" ] || continue
    to=${inc%.h}
    [ "$to" = "$unit" ] && continue
    tm=${to%%/*}
    tr=$(rank "$tm")
    if [ "$tr" -lt 0 ] || [ "$tm" = "$to" ]; then
      echo "check-includes: $f includes \"$inc\": want \"MODULE/unit.h\" of a module in LAYERS" >&2
      bad=1
    elif [ "$tr" -gt "$r" ]; then
      echo "check-includes: $f includes \"$inc\": $mod may not use $tm, a layer above it ($LAYERS)" >&2
      bad=1
    fi
    edges+="$unit $to"$'\n'
  done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
done
edges=$(printf '%s' "$edges" | sort -u)
# The names each unit's header declares: functions (a name before "(" on a
# line at the left margin), macros with arguments, extern variables.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for h in "$dir"/*/*.h; do
  mod=$(basename "$(dirname "$h")")
  [ "$mod" = test ] && continue
  unit=$mod/$(basename "${h%.h}")
  gcc -fpreprocessed -dD -E -P -x c "$h" 2>/dev/null | sed -n '
    s/^#[[:space:]]*define[[:space:]]\{1,\}\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p
    /^[#[:space:]]/d
    /^typedef/d
    /^extern[^(]*;/{
      s/\[[^]]*\]//g
      s/^.*[^A-Za-z0-9_]\([A-Za-z_][A-Za-z0-9_]*\)[[:space:]]*;.*/\1/p
      d
    }
    s/^[A-Za-z_][^(=;]*[^A-Za-z0-9_(]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' | sed "s|\$| $unit|"
done | sort -u >"$tmp/declared"
# Who names them.
calls=""
for f in "$dir"/*/*.c "$dir"/*/*.h; do
  mod=$(basename "$(dirname "$f")")
  [ "$mod" = test ] && continue
  unit=$mod/$(basename "${f%.*}")
  gcc -fpreprocessed -dD -E -P -x c "$f" 2>/dev/null | sed 's/"\([^"\\]\|\\.\)*"/""/g' |
    grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u >"$tmp/used"
  calls+=$(join "$tmp/used" "$tmp/declared" | awk -v u="$unit" '$2 != u { print u, $2 }')$'\n'
done
calls=$(printf '%s' "$calls" | sed '/^$/d' | sort -u)
if ! out=$(printf '%s\n%s\n' "$edges" "$calls" | sed '/^$/d' | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
  echo "check-includes: the agent's units include or call each other in a cycle:" >&2
  printf '%s\n' "$out" | sed -n 's/^tsort: //p' >&2
  # Each step of it, and why.
  cyc=$(printf '%s\n' "$out" | sed -n 's/^tsort: \([a-z]*\/[a-z_]*\)$/\1/p' | sort -u)
  for u in $cyc; do
    for v in $cyc; do
      [ "$u" = "$v" ] && continue
      printf '%s\n' "$edges" | grep -qx "$u $v" && echo "  $u includes $v.h" >&2
      if printf '%s\n' "$calls" | grep -qx "$u $v"; then
        names=$(gcc -fpreprocessed -dD -E -P -x c "$dir/$u".[ch] 2>/dev/null | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u |
          join - "$tmp/declared" | awk -v v="$v" '$2 == v { printf " %s", $1 }')
        echo "  $u names $v.h's$names" >&2
      fi
    done
  done
  exit 1
fi
# The longest chain, by units: depth(X) = 1 + the deepest unit X includes.
chain=$(printf '%s\n' "$edges" | awk '
  { dep[$1] = dep[$1] " " $2; units[$1]; units[$2] }
  function depth(u,   n, a, i, d, best, via) {
    if (u in memo) return memo[u]
    best = 0; via = ""
    n = split(dep[u], a, " ")
    for (i = 1; i <= n; i++) { d = depth(a[i]); if (d > best) { best = d; via = a[i] } }
    next_[u] = via
    return memo[u] = best + 1
  }
  END {
    top = ""; for (u in units) if (depth(u) > depth(top) || top == "") top = u
    s = depth(top) ":"; for (u = top; u != ""; u = next_[u]) s = s " " u
    print s
  }')
len=${chain%%:*}
if [ "$len" -gt "$max" ]; then
  echo "check-includes: a chain of $len units, longer than $max:${chain#*:}" >&2
  bad=1
fi
if [ -d "$dir/hooks" ] && out=$(grep -nE 'attached_|ATTACHED_|OWN_EVENT' "$dir"/hooks/*.[ch]); then
  echo "check-includes: hooks/ names the attach's open states (threads/attached.h): every event comes in through event_begin (threads.h):" >&2
  printf '%s\n' "$out" | sed 's/^/  /' >&2
  bad=1
fi
[ "$bad" = 0 ] || exit 1
echo "check-includes: $dir: $(printf '%s\n' "$edges" | wc -l) unit dependencies in $(echo $LAYERS | wc -w) layers, $(printf '%s\n' "$calls" | wc -l) by the names they call, no cycle; longest chain $len units:${chain#*:}"
