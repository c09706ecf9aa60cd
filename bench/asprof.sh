#!/usr/bin/env bash
# Builds async-profiler from source for bench/sampling.sh's comparison only:
# it is never shipped, and none of its code goes into this repository. The
# source comes from a git directory (a mirror or clone of
# github.com/async-profiler/async-profiler), the tag is checked out and built
# outside the repository, in a cache kept between runs.
#
#   bench/asprof.sh [GIT_DIR]          # prints the path of libasyncProfiler.so
#
# GIT_DIR, or $ASPROF_GIT, or /work/.mirror/async-profiler+async-profiler/repo:
# a git directory holding the tag. ASPROF_TAG (v4.5) chooses the release,
# ASPROF_CACHE ($HOME/.cache/orca-bench) where it is built: the build lands in
# $ASPROF_CACHE/async-profiler-$ASPROF_TAG, and a second call only prints the
# path. ASPROF_LIB, when set, is a library built elsewhere: it is printed and
# nothing is built. Needs g++ and a JDK's headers (JDK: JDK 17 by default).
# About a minute on 2 cores the first time.
set -euo pipefail
if [ -n "${ASPROF_LIB:-}" ]; then
  [ -f "$ASPROF_LIB" ] || { echo "asprof.sh: ASPROF_LIB=$ASPROF_LIB: no such file" >&2; exit 1; }
  echo "$ASPROF_LIB"
  exit 0
fi
git_dir=${1:-${ASPROF_GIT:-/work/.mirror/async-profiler+async-profiler/repo}}
tag=${ASPROF_TAG:-v4.5}
cache=${ASPROF_CACHE:-$HOME/.cache/orca-bench}
JDK=${JDK:-$(ls -d /usr/lib/jvm/java-17-openjdk-* 2>/dev/null | head -n1)}
dir=$cache/async-profiler-$tag
lib=$dir/build/lib/libasyncProfiler.so
if [ ! -f "$lib" ]; then
  git --git-dir="$git_dir" rev-parse -q --verify "$tag^{commit}" >/dev/null ||
    { echo "asprof.sh: no tag $tag in $git_dir (fetch github.com/async-profiler/async-profiler, or set ASPROF_GIT)" >&2; exit 1; }
  [ -d "$JDK/include" ] || { echo "asprof.sh: no JDK headers in $JDK/include (set JDK)" >&2; exit 1; }
  rm -rf "$dir.tmp"
  mkdir -p "$dir.tmp"
  git --git-dir="$git_dir" archive "$tag" | tar -x -C "$dir.tmp"
  # Only the library: the jars and the converter need javac --release 8.
  make -C "$dir.tmp" -j"$(nproc)" JAVA_HOME="$JDK" build/lib build/lib/libasyncProfiler.so >"$dir.tmp/build.log" 2>&1 ||
    { echo "asprof.sh: the build failed; its log: $dir.tmp/build.log" >&2; tail -n 20 "$dir.tmp/build.log" >&2; exit 1; }
  rm -rf "$dir"
  mv "$dir.tmp" "$dir"
fi
echo "$lib"
