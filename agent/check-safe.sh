#!/bin/bash
# check-safe.sh LIB: the code of the section orca_safe (agent/safe.h: reads
# of VM memory whose faults the agent recovers) must not call out of the
# section, except into functions that read only the agent's own memory
# (string functions on copies, vms_thread's arithmetic, anchor_stub on a
# copied name). A fault in code outside the section goes to the JVM's
# handler: a crash. And in the sources: only the HotSpot layer
# (vmstructs.{c,h}) knows HotSpot's layout and reads VM memory; the others
# call its typed accessors, on VM addresses of type vm_ptr (safe.h), which
# the compiler does not let them read through. Run by `make test`.
set -euo pipefail
lib=${1:?usage: check-safe.sh LIB}
src=$(dirname "$0")
bad=0
# Outside the layer (and safe.c, the read itself): no layout (`hs.` or a
# lookup in the VM's tables) and no read of VM memory but the accessors';
# the guarded accessors (direct loads) only in walk.c, whose code runs in
# the section under a guard.
for f in "$src"/*/*.c "$src"/*/*.h; do
  case $f in "$src"/test/*) continue ;; esac
  case ${f##*/} in vmstructs.c | vmstructs.h | safe.c | safe.h) continue ;; esac
  if grep -nE '(^|[^A-Za-z0-9_])hs\.[a-z_]|vms_(offset|offset_typed|thread_offset|static|constant|size)\(|safe_(read|word|probe)\(' "$f" >&2; then
    echo "check-safe: ${f##*/} reads HotSpot's layout or VM memory itself: use the layer's accessors (vmstructs.h)" >&2
    bad=1
  fi
  if grep -n 'vm_bits_' "$f" >&2; then
    echo "check-safe: ${f##*/} takes the address out of a vm_ptr: only the layer reads through one" >&2
    bad=1
  fi
  if [ "${f##*/}" != walk.c ] && grep -nE '^#define HS_GUARDED' "$f" >&2; then
    echo "check-safe: ${f##*/} uses the guarded accessors outside the walker's guard" >&2
    bad=1
  fi
done
# The type does the rest: a vm_ptr (safe.h) cannot be dereferenced,
# indexed, offset or cast to a pointer. Checked here, so that a change to
# the type that would let one through fails.
compiles() {
  printf '#include "hotspot/safe.h"\nuintptr_t f(vm_ptr p) { return (uintptr_t)(%s); }\n' "$1" |
    gcc -std=gnu11 -fsyntax-only -I"$src" -x c - 2>/dev/null
}
if ! command -v gcc >/dev/null; then
  echo "check-safe: no gcc: vm_ptr not checked"
elif ! compiles 'vm_names(p, 0)'; then
  echo "check-safe: cannot compile a use of vm_ptr (hotspot/safe.h)" >&2
  bad=1
else
  for expr in '*(const uintptr_t *)p' 'p[0]' '*(p + 1)' '((const char *)p)[8]' '*p'; do
    if compiles "$expr"; then
      echo "check-safe: a vm_ptr can be read through without the layer: $expr compiles" >&2
      bad=1
    fi
  done
fi
command -v objdump >/dev/null || { echo "check-safe: no objdump: skipped"; exit 0; }
dis=$(objdump -d --no-show-raw-insn -j orca_safe "$lib")
if [ -z "$dis" ]; then echo "check-safe: $lib has no section orca_safe" >&2; exit 1; fi
# Functions of the section.
inside=$(printf '%s\n' "$dis" | sed -n 's/^[0-9a-f]* <\(.*\)>:$/\1/p')
while read -r target; do
  name=${target%@plt}
  case " $(echo $inside) " in *" $target "*) continue ;; esac
  case $name in
    strcmp | strncmp | strlen | strstr | vms_thread | anchor_stub | anchor_stub.*) continue ;;
  esac
  echo "check-safe: code in orca_safe calls $target, outside the section" >&2
  bad=1
done < <(printf '%s\n' "$dis" | sed -n 's/.*\(call\|jmp\)[a-z]* *[0-9a-f]* <\([^>+]*\)\(+0x[0-9a-f]*\)\?>.*/\2/p' | sort -u)
# Hot/cold splitting would move parts of a function out of the section.
if objdump -t "$lib" | grep -E '(walk|compiled|interpreted|method_id|kind_of|safe_copy_)\.cold' >&2; then
  echo "check-safe: a function of orca_safe was split (.cold part outside the section)" >&2
  bad=1
fi
[ $bad = 0 ] && echo "check-safe: $lib: orca_safe calls nothing outside ($(echo $inside | wc -w) functions); only the layer reads HotSpot's layout"
exit $bad
