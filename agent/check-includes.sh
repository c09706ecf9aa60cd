#!/bin/bash
# check-includes.sh [DIR]: the agent's modules (X.c with X.h) must include
# each other without a cycle: X depends on Y when X.c or X.h includes Y.h,
# and the dependencies must form a DAG (a module's parts are composed from
# below, never by calling up). Run by `make agent-test`.
set -euo pipefail
dir=${1:-agent}
edges=$(for f in "$dir"/*.c "$dir"/*.h; do
  m=$(basename "${f%.*}")
  sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"/]*\)\.h".*/\1/p' "$f" | while read -r d; do
    [ "$d" = "$m" ] || echo "$m $d"
  done
done | sort -u)
if ! out=$(printf '%s\n' "$edges" | tsort 2>&1 >/dev/null) || [ -n "$out" ]; then
  echo "check-includes: the agent's modules include each other in a cycle:" >&2
  printf '%s\n' "$out" | sed -n 's/^tsort: //p' >&2
  exit 1
fi
echo "check-includes: $dir: $(printf '%s\n' "$edges" | wc -l) module dependencies, no cycle"
