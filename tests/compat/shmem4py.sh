#!/bin/bash
# shmem4py.sh BUILD_DIR -- builds mpi4py's shmem4py (from PyPI) against this
# build's oshcc with the complete-1.5 configuration, and runs its own test
# suite at 1 and 2 PEs under oshrun.  Skips (77) when there is no pip, no
# venv or no way to reach the package index.  Nothing is written outside
# BUILD_DIR/tests/compat.
#
# shmem4py knows implementations by their headers' macros; for one it does
# not know it compiles fallbacks that raise NotImplementedError.  Shimmer
# has everything 1.5 asks for, so every feature macro is set: this is the
# command docs/python.md gives users.
set -u
BUILD=$(cd "$1" && pwd)
WORK=$BUILD/tests/compat/shmem4py
SHMEM4PY_VERSION=1.0.0
skip() { echo "SKIP: $*"; exit 77; }

FEATURES="SHMEM_CTX_INVALID shmem_team_t shmem_malloc_with_hints shmem_amo_nbi
  shmem_put_signal shmem_signal_fetch shmem_signal_wait_until shmem_broadcast
  shmem_collect shmem_fcollect shmem_alltoall shmem_alltoalls shmem_broadcastmem
  shmem_collectmem shmem_fcollectmem shmem_alltoallmem shmem_alltoallsmem shmem_reduce
  shmem_wait_test_many shmem_pcontrol"
CFLAGS=""
for f in $FEATURES; do CFLAGS="$CFLAGS -DPySHMEM_HAVE_$f=1"; done

rm -rf "$WORK" && mkdir -p "$WORK" || exit 1
python3 -m venv "$WORK/venv" > "$WORK/venv.log" 2>&1 || skip "python3 -m venv failed (Debian: python3-venv)"
PY=$WORK/venv/bin/python
# shmem4py 1.0 predates numpy 2's copy semantics
timeout 300 "$PY" -m pip install -q wheel setuptools cffi "numpy<2" > "$WORK/pip.log" 2>&1 ||
    skip "cannot install shmem4py's build dependencies from the package index: $(tail -1 "$WORK/pip.log")"
timeout 120 "$PY" -m pip download -q --no-deps --no-binary :all: -d "$WORK" \
    "shmem4py==$SHMEM4PY_VERSION" >> "$WORK/pip.log" 2>&1 ||
    skip "cannot download shmem4py $SHMEM4PY_VERSION: $(tail -1 "$WORK/pip.log")"
OSHCC=$BUILD/bin/oshcc CFLAGS="$CFLAGS" timeout 600 "$PY" -m pip install -q --no-build-isolation \
    --no-deps "$WORK/shmem4py-$SHMEM4PY_VERSION.tar.gz" > "$WORK/build.log" 2>&1 ||
    { echo "FAIL: building shmem4py against Shimmer:"; tail -30 "$WORK/build.log"; exit 1; }
tar xzf "$WORK/shmem4py-$SHMEM4PY_VERSION.tar.gz" -C "$WORK" || exit 1
cd "$WORK/shmem4py-$SHMEM4PY_VERSION/test" || exit 1
status=0
for n in 1 2; do
    out=$("$BUILD/bin/oshrun" -n $n --timeout 300 "$PY" -m unittest discover 2>&1)
    rc=$?
    # the PEs' outputs share one stream and may interleave within a line
    # ("Ran 110 tests in 0.72sRan 110 tests in 0.75s"): count the runs
    # anywhere, and trust the job's status (any PE's failure is non-zero)
    summary=$(grep -oE "Ran [0-9]+ tests" <<< "$out" | sort -u | paste -sd ' ')
    runs=$(grep -oE "Ran [0-9]+ tests" <<< "$out" | wc -l)
    if [ $rc -eq 0 ] && [ "$runs" -eq $n ] && ! grep -qE "FAILED \(|(FAIL|ERROR): " <<< "$out"; then
        echo "ok: shmem4py $SHMEM4PY_VERSION's suite at $n PE(s): $summary, all passed"
    else
        echo "FAIL: shmem4py's suite at $n PE(s) (status $rc):"
        grep -E "^(FAIL|ERROR):|^Ran|^FAILED" <<< "$out" | head -40
        status=1
    fi
done
exit $status
