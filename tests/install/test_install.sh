#!/usr/bin/env bash
# test_install.sh BUILD_DIR SOURCE_DIR -- `cmake --install` into a prefix,
# move the prefix, then build and run hello with everything a user has:
# oshcc (shared and -static), oshc++ and oshCC, -showme[:WHAT], pkg-config
# (and --static), find_package (both targets), man -M <prefix>/share/man.
set -euo pipefail
build=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cmake --install "$build" --prefix "$tmp/first" >/dev/null
for f in bin/oshcc bin/oshc++ bin/oshCC bin/oshrun bin/shimmer-info include/shmem.h include/shmemx.h \
         include/pshmem.h include/mpp/shmem.h lib/libshimmer.so lib/libshimmer.a \
         lib/pkgconfig/shimmer.pc lib/cmake/shimmer/shimmer-config.cmake \
         share/man/man3/shmem_put.3 share/man/man1/oshrun.1 share/man/man7/shimmer.7; do
  [ -e "$tmp/first/$f" ] || { echo "FAIL: $f not installed"; exit 1; }
done
mv "$tmp/first" "$tmp/moved"      # usable from any prefix
p=$tmp/moved
cd "$tmp"

grep -q -- "-I$p/include" <<<"$("$p/bin/oshcc" -showme x.c)" || { echo "FAIL: -showme"; exit 1; }
grep -q -- "-lshimmer" <<<"$("$p/bin/oshcc" -showme:link)" || { echo "FAIL: -showme:link"; exit 1; }
# Open MPI's -showme:WHAT (the paths are the moved prefix's)
[ "$("$p/bin/oshcc" -showme:incdirs)" = "$p/include" ] || { echo "FAIL: -showme:incdirs"; exit 1; }
[ "$("$p/bin/oshcc" -showme:libdirs)" = "$p/lib" ] || { echo "FAIL: -showme:libdirs"; exit 1; }
[ "$("$p/bin/oshcc" -showme:libs)" = "shimmer" ] || { echo "FAIL: -showme:libs"; exit 1; }
grep -q "^oshcc: Shimmer [0-9.]* (OpenSHMEM 1\.[0-9])" <<<"$("$p/bin/oshcc" --showme:version)" ||
  { echo "FAIL: --showme:version"; exit 1; }
"$p/bin/oshcc" "$src/examples/hello.c" -o hello
# -static: libshimmer.a linked in; fully static when nothing it needs must
# stay shared (-showme:help says which), else the note names what stays
static_err=$("$p/bin/oshcc" -static "$src/examples/hello.c" -o hello_static 2>&1)
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'; }
if grep -q "fully static" <<<"$("$p/bin/oshcc" -showme:help)"; then
  [ -z "$(needed hello_static)" ] || { echo "FAIL: -static left $(needed hello_static)"; exit 1; }
else
  grep -q "^oshcc: -static: libshimmer.a is linked in; .* stay shared" <<<"$static_err" ||
    { echo "FAIL: -static does not say what stays shared: $static_err"; exit 1; }
fi
printf '#include <shmem.h>\n#include <cstdio>\nint main(){shmem_init(); static long y; shmem_p(&y, 7L, 0);\nshmem_barrier_all(); if (shmem_my_pe()==0) std::printf("c++ %%ld\\n", y); shmem_finalize();}\n' > t.cpp
"$p/bin/oshc++" t.cpp -o hello_cxx
"$p/bin/oshCC" t.cpp -o hello_cxx2
# pkg-config: no run path in Libs (packagers strip it; the user adds one
# for a private prefix); --static's Libs.private complete libshimmer.a
pc() { PKG_CONFIG_PATH=$p/lib/pkgconfig pkg-config "$@" shimmer; }
grep -q rpath <<<"$(pc --libs)" && { echo "FAIL: shimmer.pc Libs has a run path: $(pc --libs)"; exit 1; }
cc "$src/examples/hello.c" -o hello_pc $(pc --cflags --libs) -Wl,-rpath,"$p/lib"
cc "$src/examples/hello.c" -o hello_pc_static $(pc --cflags) \
  $(pc --static --libs | sed 's/-lshimmer/-Wl,-Bstatic -lshimmer -Wl,-Bdynamic/')
mkdir cm && cat > cm/CMakeLists.txt <<CMEOF
cmake_minimum_required(VERSION 3.18)
project(t C)
find_package(shimmer REQUIRED)
add_executable(hello_cmake $src/examples/hello.c)
target_link_libraries(hello_cmake shimmer::shimmer)
add_executable(hello_cmake_static $src/examples/hello.c)
target_link_libraries(hello_cmake_static shimmer::shimmer_static)
CMEOF
cmake -S cm -B cm/b -G Ninja -DCMAKE_PREFIX_PATH="$p" >/dev/null && cmake --build cm/b >/dev/null
for prog in hello_static hello_pc_static cm/b/hello_cmake_static; do
  grep -q libshimmer <<<"$(needed $prog)" && { echo "FAIL: $prog needs libshimmer.so"; exit 1; }
done

for prog in ./hello ./hello_static ./hello_pc ./hello_pc_static ./cm/b/hello_cmake \
            ./cm/b/hello_cmake_static; do
  out=$(env -u LD_LIBRARY_PATH "$p/bin/oshrun" -n 2 "$prog")
  [ "$(grep -c "Hello from PE" <<<"$out")" = 2 ] || { echo "FAIL: $prog: $out"; exit 1; }
done
for prog in ./hello_cxx ./hello_cxx2; do
  [ "$("$p/bin/oshrun" -n 2 $prog)" = "c++ 7" ] || { echo "FAIL: C++ ($prog)"; exit 1; }
done
# (not `| grep -q`: grep leaving early would SIGPIPE shimmer-info under pipefail)
info=$("$p/bin/shimmer-info")
grep -q "OpenSHMEM 1.6" <<<"$info" || { echo "FAIL: shimmer-info"; exit 1; }
grep -qx "build:prefix:$p" <<<"$("$p/bin/shimmer-info" --parsable)" ||
  { echo "FAIL: shimmer-info does not name the moved prefix $p"; exit 1; }
# the manual pages of the moved prefix, by a typed routine's name
page=$(MANWIDTH=80 MANPAGER=cat man -M "$p/share/man" shmem_long_atomic_fetch_add 2>&1)
grep -q "^SHMEM_ATOMIC_FETCH_ADD(3)" <<<"$page" || { echo "FAIL: man -M: $page"; exit 1; }

# The UCX transport: a plugin beside the moved library, found relative to
# it; built into libshimmer.a.  (PEs made remote on purpose: the UCX path.)
plugin=$p/lib/shimmer/libshimmer-ucx.so
if [ -e "$plugin" ]; then
  grep -q "ucx (other nodes): plugin $plugin\$" <<<"$info" ||
    { echo "FAIL: shimmer-info does not name $plugin: $info"; exit 1; }
  readelf -d "$p/lib/libshimmer.so" | grep -q "libucp" &&
    { echo "FAIL: libshimmer.so links UCX (one-node jobs would load it)"; exit 1; }
  for prog in ./hello ./hello_static; do
    out=$(env -u LD_LIBRARY_PATH SHIMMER_REMOTE_PES=all "$p/bin/oshrun" -n 2 "$prog")
    [ "$(grep -c "Hello from PE" <<<"$out")" = 2 ] || { echo "FAIL: $prog over UCX: $out"; exit 1; }
  done
  # a job that needs the plugin without it: one line naming the file and the package
  rm "$plugin"
  if out=$(env -u LD_LIBRARY_PATH SHIMMER_REMOTE_PES=all "$p/bin/oshrun" -n 2 ./hello 2>&1); then
    echo "FAIL: a job with remote PEs ran without the UCX plugin: $out"; exit 1
  fi
  grep -q "shmem_init: .*libshimmer-ucx.so.*libucx0" <<<"$out" ||
    { echo "FAIL: no one-line error naming the plugin and libucx0: $out"; exit 1; }
  grep -q "ucx (other nodes): plugin $plugin MISSING" <<<"$("$p/bin/shimmer-info")" ||
    { echo "FAIL: shimmer-info does not report the missing plugin"; exit 1; }
  out=$(env -u LD_LIBRARY_PATH "$p/bin/oshrun" -n 2 ./hello)   # one node: no plugin needed
  [ "$(grep -c "Hello from PE" <<<"$out")" = 2 ] || { echo "FAIL: one-node job needs the plugin"; exit 1; }
  echo "PASS UCX plugin: found beside the moved library, built into -static, missing = one line"
fi
echo "PASS install tree (moved prefix): oshcc (-static, -showme:*), oshc++, oshCC, pkg-config" \
     "(--static), find_package (shimmer, shimmer_static), man"
