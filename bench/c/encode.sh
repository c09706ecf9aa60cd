#!/usr/bin/env bash
# The compact encoder's cost a record, this tree against REV (default HEAD~1):
#   flock /work/notes/bench.lock bench/c/encode.sh [REV] [ROUNDS]
# Builds bench/c/encode.c against agent/ of the working tree and of REV (git
# archive), then runs them alternately ROUNDS times (default 2). Before
# version 3 (no compact_end) the trailer's work is left out (the same
# records otherwise). Results: docs/PERFORMANCE.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
REV=${1:-HEAD~1}; ROUNDS=${2:-2}
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
mkdir -p "$T/rev"; git archive "$REV" agent | tar -x -C "$T/rev"
build() {   # build OUT AGENT_DIR
  local d=$2 def=()
  grep -q compact_end "$d/record/compact.h" && def=(-DCOMPACT_HAS_TRAILER)
  gcc -O2 -std=gnu11 "${def[@]}" -I"$JDK/include" -I"$JDK/include/linux" -I"$d" -o "$1" bench/c/encode.c \
    "$d"/record/compact.c "$d"/record/tkeys.c "$d"/core/*.c -lpthread -ldl
}
build "$T/tree" agent
build "$T/rev.bin" "$T/rev/agent"
for ((r = 1; r <= ROUNDS; r++)); do
  echo "$REV:"; "$T/rev.bin"
  echo "tree:"; "$T/tree"
done
