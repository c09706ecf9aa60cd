#!/bin/bash
# check-includes.sh [DIR] [MAX]: the agent's structure (docs/agent.md).
# A unit is a .c with its .h (record/ring's ring.c and ring.h); a module is a
# directory of units. Unit X depends on unit Y when X.c or X.h includes
# Y.h. Three rules, checked here, run by `make agent-test`:
#   1. Layers: a module uses only itself and the modules below it, in the
#      order of LAYERS (bottom first): the lower layers never call up (they
#      take callbacks instead).
#   2. No cycle among units.
#   3. No chain of includes longer than MAX units (default 9): a newcomer
#      follows a call through few files.
set -euo pipefail
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
if ! out=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
  echo "check-includes: the agent's units include each other in a cycle:" >&2
  printf '%s\n' "$out" | sed -n 's/^tsort: //p' >&2
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
[ "$bad" = 0 ] || exit 1
echo "check-includes: $dir: $(printf '%s\n' "$edges" | wc -l) unit dependencies in $(echo $LAYERS | wc -w) layers, no cycle; longest chain $len units:${chain#*:}"
