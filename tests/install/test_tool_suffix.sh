#!/usr/bin/env bash
# test_tool_suffix.sh SOURCE_DIR -- -DSHIMMER_TOOL_SUFFIX=.shimmer installs
# the programs that share their names with Open MPI's OpenSHMEM (oshcc,
# oshc++, oshcxx, oshCC, oshrun) and their man pages under suffixed names,
# and nothing under the plain ones.  Builds only what those need in a tree
# of its own (oshrun and the pages) and installs the components `tools`
# and `man`.
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake -S "$src" -B "$tmp/b" -G Ninja -DSHIMMER_TOOL_SUFFIX=.shimmer -DSHIMMER_TESTS=OFF >/dev/null
cmake --build "$tmp/b" --target oshrun man >/dev/null
for c in tools man; do cmake --install "$tmp/b" --component $c --prefix "$tmp/p" >/dev/null; done
p=$tmp/p
for t in oshcc oshc++ oshcxx oshCC oshrun; do
  [ -x "$p/bin/$t.shimmer" ] || { echo "FAIL: bin/$t.shimmer not installed"; exit 1; }
  [ -e "$p/bin/$t" ] && { echo "FAIL: bin/$t installed despite the suffix"; exit 1; }
  [ -e "$p/share/man/man1/$t.shimmer.1" ] || { echo "FAIL: man1/$t.shimmer.1 not installed"; exit 1; }
  [ -e "$p/share/man/man1/$t.1" ] && { echo "FAIL: man1/$t.1 installed despite the suffix"; exit 1; }
done
[ -e "$p/share/man/man1/shimmer-info.1" ] || { echo "FAIL: shimmer-info.1 (no suffix) missing"; exit 1; }
grep -q "^oshcc.shimmer: Shimmer" <<<"$("$p/bin/oshcc.shimmer" -showme:version)" ||
  { echo "FAIL: oshcc.shimmer does not name itself"; exit 1; }
"$p/bin/oshrun.shimmer" --version >/dev/null || { echo "FAIL: oshrun.shimmer does not run"; exit 1; }
page=$(MANWIDTH=80 MANPAGER=cat man -M "$p/share/man" oshc++.shimmer 2>&1)
grep -q "^OSHCC(1)" <<<"$page" || { echo "FAIL: man oshc++.shimmer: $page"; exit 1; }
echo "PASS SHIMMER_TOOL_SUFFIX=.shimmer: oshcc, oshc++, oshcxx, oshCC, oshrun and their pages"
