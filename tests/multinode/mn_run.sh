#!/bin/bash
# mn_run.sh -- runs one Shimmer program the multi-node way, for ctest.
#
#   mn_run.sh MODE NP [-t SECONDS] [-x VAR=VALUE]... -- PROGRAM [ARGS...]
#
# MODE
#   local      one host, oshrun -n NP, SHIMMER_REMOTE_PES=all: every PE
#              reaches every other through UCX (UCX picks its shared-memory
#              and loopback transports).  Needs no root.
#   local-tcp  the same with UCX_TLS=self,tcp (the network code path).
#   local-mix  SHIMMER_REMOTE_PES=1: PE 1 is remote to all, the others
#              share memory: both paths in one job on one host.
#   HxP        H network-namespace hosts x P PEs each (2x2, 4x1, ...),
#              started by Open MPI's mpirun through PMIx, UCX over TCP
#              between hosts and shared memory within one.  Needs root,
#              iproute2 and mpirun; exits 77 (skip) with the reason when
#              something is missing.
#   HxPc       the same with cyclic placement (mpirun --map-by node: PE i
#              on host i mod H), so a host's PEs are not consecutive.
#   A+B+...    uneven hosts: A PEs on the first, B on the second, ...
#              (3+1, 2+1+3): nodes of different sizes, nodes of one PE.
#   setup      create the namespace hosts (ctest fixture); teardown: remove
#
# The hosts come from netns-cluster (../shared/tools, or NETNS_CLUSTER=path)
# under their own prefix and subnet (MN_PREFIX/MN_NET; ctest gives each build
# tree its own, by hand the default is "shmn", 10.214.0.0/24) so that nobody
# else's namespaces are touched.  MN_HOSTS (default 4) hosts
# exist while the tests run; a test uses the first H.  setup, teardown and
# the runs on them hold the prefix's lock (mn_common.sh, with_hosts_lock):
# a run waits up to its time limit for another ctest's, a teardown 50 s
# (then it leaves the hosts to that run's own teardown).
set -u

ARGV=("$@")   # as given: with_hosts_lock runs this script again with them
MODE=${1:?usage: mn_run.sh MODE NP [-t S] [-x VAR=VAL]... -- PROGRAM [ARGS]}
shift
NP=0
if [ "$MODE" != setup ] && [ "$MODE" != teardown ]; then
    NP=${1:?missing NP}
    shift
fi
TIMEOUT=120
ENVS=()
while [ $# -gt 0 ]; do
    case $1 in
        -t) TIMEOUT=$2; shift 2 ;;
        -x) ENVS+=("$2"); shift 2 ;;
        --) shift; break ;;
        *) break ;;
    esac
done

# MN_X: more VAR=VALUE words for every PE, as -x (for callers such as
# bench/run that cannot add options: MN_X=SHIMMER_RMA_COALESCE=0 bench/run ...)
for e in ${MN_X:-}; do ENVS+=("$e"); done

. "$(dirname "$0")/mn_common.sh"
SRC=$(cd "$HERE/../.." && pwd)
# Shimmer's oshrun (not Open MPI's, which has the same name): ctest passes it
OSHRUN=${MN_OSHRUN:-$SRC/build/bin/oshrun}
MN_HOSTS=${MN_HOSTS:-4}

skip() { echo "SKIP: $*"; exit 77; }

netns_ready() {
    [ "$(id -u)" = 0 ] || skip "multi-host tests create network namespaces: run them as root"
    command -v ip >/dev/null || skip "no 'ip' command: install iproute2"
    command -v unshare >/dev/null || skip "no 'unshare': install util-linux"
    find_cluster || skip "netns-cluster not found (set NETNS_CLUSTER=path)"
    "$CLUSTER" up "$MN_HOSTS" >/tmp/mn_up.$$ 2>&1 ||
        { cat /tmp/mn_up.$$; rm -f /tmp/mn_up.$$; skip "cannot create network namespaces here (container without CAP_SYS_ADMIN?)"; }
    rm -f /tmp/mn_up.$$
}

case $MODE in
    setup)
        [ "$(id -u)" != 0 ] || with_hosts_lock 50 "$0" "${ARGV[@]}"
        netns_ready
        "$CLUSTER" status
        exit 0 ;;
    teardown)
        [ "$(id -u)" = 0 ] || exit 0
        if [ -z "${MN_LOCK_HELD:-}" ]; then
            (with_hosts_lock 50 "$0" teardown) && exit 0
            echo "teardown: hosts '$NETNS_CLUSTER_PREFIX' left up for the run that holds them"
            exit 0
        fi
        find_cluster || exit 0
        "$CLUSTER" down
        exit 0 ;;
    local|local-tcp|local-mix)
        xs=()
        for e in "${ENVS[@]}"; do xs+=(-x "$e"); done
        case $MODE in
            local) xs+=(-x SHIMMER_REMOTE_PES=all) ;;
            local-tcp) xs+=(-x SHIMMER_REMOTE_PES=all -x UCX_TLS=self,tcp) ;;
            local-mix) xs+=(-x SHIMMER_REMOTE_PES=1) ;;
        esac
        exec "$OSHRUN" -n "$NP" --timeout "$TIMEOUT" "${xs[@]}" -- "$@" ;;
    [0-9]*x[0-9]*|[0-9]*+[0-9]*)
        map=""
        if [[ $MODE == *x* ]]; then
            H=${MODE%x*}
            P=${MODE#*x}
            if [[ $P == *c ]]; then
                P=${P%c}
                map="--map-by node"
            fi
            SLOTS=()
            for ((k = 0; k < H; k++)); do SLOTS+=("$P"); done
        else
            IFS=+ read -r -a SLOTS <<< "$MODE"
            H=${#SLOTS[@]}
        fi
        [ "$H" -le "$MN_HOSTS" ] || MN_HOSTS=$H
        command -v mpirun >/dev/null || skip "no mpirun: install openmpi-bin (the PMIx launcher)"
        [ "$(id -u)" != 0 ] || with_hosts_lock "$TIMEOUT" "$0" "${ARGV[@]}"
        netns_ready
        dir=$(mktemp -d /tmp/mn.XXXXXX)
        trap 'rm -rf "$dir"' EXIT
        for ((k = 0; k < H; k++)); do echo "$NETNS_CLUSTER_PREFIX$k slots=${SLOTS[k]}"; done > "$dir/hosts"
        xs=""
        for e in "${ENVS[@]}"; do xs="$xs -x '$e'"; done
        root=""
        [ "$(id -u)" = 0 ] && root=--allow-run-as-root
        args=""
        for a in "$@"; do args="$args '$a'"; done
        # mpirun runs inside the first host (the "head node"): daemons on
        # the others connect back to it over the namespaces' network
        timeout --kill-after=10 $((TIMEOUT + 20)) "$CLUSTER" exec "${NETNS_CLUSTER_PREFIX}0" \
            "cd '$PWD' && mpirun $root --hostfile '$dir/hosts' $("$CLUSTER" mpiflags) $map --timeout $TIMEOUT -np $NP $xs $args"
        exit $? ;;
    *)
        echo "mn_run.sh: unknown mode $MODE" >&2
        exit 2 ;;
esac
