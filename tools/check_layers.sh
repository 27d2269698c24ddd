#!/usr/bin/env bash
# check_layers.sh -- enforces the include rules of docs/architecture.md:
# each folder of src/ may include only the folders listed for it, and the
# engines' headers stay inside their wrappers.  Exit 1 on any violation.
set -euo pipefail
cd "$(dirname "$0")/.."

# folder          may include (besides itself and system headers)
rules=(
  "src/util        "
  "src/boot        util"
  "src/launcher    util boot/boot_proto.h"
  "src/transport/shm  util"
  "src/transport/ucx  util core/remote.h core/remote_inline.h core/state.h core/team.h core/env.h core/amo_inline.h core/heap.h core/dtype.h core/wait_inline.h core/rma_inline.h core/check.h boot/boot.h"
  "src/coll        util core"
  "src/core        util boot transport/shm coll/coll.h"
  "src/api         util core coll/coll.h"
)

fail=0
for rule in "${rules[@]}"; do
  read -r dir allowed <<<"$rule"
  self=${dir#src/}
  while IFS= read -r line; do
    file=${line%%:*}
    inc=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"${line#*:}")
    ok=0
    case $inc in "$self"/*) ok=1 ;; esac
    for a in $allowed; do
      case $inc in "$a"|"$a"/*) ok=1 ;; esac
    done
    # a file's own private headers, included by bare name
    [[ $inc != */* ]] && ok=1
    if [ $ok = 0 ]; then
      echo "check_layers: $file includes \"$inc\", which $dir may not use" >&2
      fail=1
    fi
  done < <(grep -rn --include='*.[ch]' '#include "' "$dir" 2>/dev/null | grep -v '_test\.c:' || true)
done

# the engines' headers stay in their wrappers
for pat in "ucp/api/ucp.h:src/transport/ucx" "pmix.h:src/boot"; do
  hdr=${pat%%:*}; home=${pat#*:}
  hits=$(grep -rln --include='*.[ch]' "#include <$hdr>" src | grep -v "^$home/" || true)
  if [ -n "$hits" ]; then
    echo "check_layers: <$hdr> included outside $home: $hits" >&2
    fail=1
  fi
done

# getenv: the environment table (core/env.c) reads the user's variables; boot
# reads only the protocol variables its launcher sets; oshrun reads PATH.
hits=$(grep -rn --include='*.c' '\bgetenv(' src |
       grep -v -E '^src/core/env\.c:|^src/boot/boot_(launcher|pmix|foreign)\.c:|^src/launcher/' || true)
if [ -n "$hits" ]; then
  echo "check_layers: getenv outside src/core/env.c (use the env.def table):" >&2
  echo "$hits" >&2
  fail=1
fi

[ $fail = 0 ] && echo "check_layers: ok"
exit $fail
