#!/bin/bash
# check_includes_test.sh: check-includes.sh fails on what it forbids (run by
# `make agent-test` after it passes on agent/): a loop of two units by a
# callback named after the other's function (issue 32: hooks/attached.c
# and park.c), and a hook that names the attach's open states. Each case is
# a small tree of units written here.
set -euo pipefail
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# expect NAME REGEXP: check-includes.sh on $tmp/NAME fails, saying REGEXP.
expect() {
  local out
  if out=$(bash agent/check-includes.sh "$tmp/$1" 2>&1); then
    echo "check_includes_test: $1: passed, want a failure" >&2
    fail=1
  elif ! grep -qE "$2" <<<"$out"; then
    printf 'check_includes_test: %s: want /%s/, got:\n%s\n' "$1" "$2" "$out" >&2
    fail=1
  fi
}
# pass NAME: check-includes.sh on $tmp/NAME passes.
pass() {
  local out
  if ! out=$(bash agent/check-includes.sh "$tmp/$1" 2>&1); then
    printf 'check_includes_test: %s: want a pass, got:\n%s\n' "$1" "$out" >&2
    fail=1
  fi
}
# A lower unit that names an upper one's function (a callback parameter
# named after it) while the upper one includes it: a loop, though no
# include goes up.
mkdir -p "$tmp/loop/threads" "$tmp/loop/hooks"
cat >"$tmp/loop/threads/state.h" <<'X'
void state_own(int thread);
X
cat >"$tmp/loop/threads/state.c" <<'X'
#include "threads/state.h"
// park_blocker is hooks/park.h's, handed in.
int state_snapshot(int (*park_blocker)(int)) { return park_blocker(1); }
void state_own(int thread) { (void)thread; }
X
cat >"$tmp/loop/hooks/park.h" <<'X'
int park_blocker(int thread);
X
cat >"$tmp/loop/hooks/park.c" <<'X'
#include "hooks/park.h"
#include "threads/state.h"
int park_blocker(int thread) { state_own(thread); return 0; }
X
expect loop 'threads/state names hooks/park.h.s park_blocker'
# The same without the parameter's name: no loop.
mkdir -p "$tmp/noloop"
cp -r "$tmp/loop/threads" "$tmp/loop/hooks" "$tmp/noloop/"
sed -i 's/park_blocker/blocker/g' "$tmp/noloop/threads/state.c"
pass noloop
# A comment or a string naming it is no call.
mkdir -p "$tmp/comment"
cp -r "$tmp/noloop/threads" "$tmp/noloop/hooks" "$tmp/comment/"
printf '// see park_blocker\nconst char *why = "park_blocker";\n' >>"$tmp/comment/threads/state.c"
pass comment
# A hook that settles an attach's state itself.
mkdir -p "$tmp/own"
cp -r "$tmp/noloop/threads" "$tmp/noloop/hooks" "$tmp/own/"
printf 'void park_end(void) { OWN_EVENT(s, 0); }\n' >>"$tmp/own/hooks/park.c"
expect own 'hooks/ names the attach.s open states'
[ "$fail" = 0 ] || exit 1
echo "check_includes_test: 4 cases passed"
