# mn_common.sh -- sourced by the scripts that use the namespace hosts
# (mn_run.sh, mn_launch.sh, mn_slurm.sh): the hosts' prefix and subnet, the
# tally of checks, the netns-cluster tool and the hosts' lock.
# shellcheck shell=bash
HERE=$(cd "$(dirname "$0")" && pwd)
export NETNS_CLUSTER_PREFIX=${MN_PREFIX:-shmn}
export NETNS_CLUSTER_NET=${MN_NET:-10.214.0}
P=$NETNS_CLUSTER_PREFIX

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# Sets CLUSTER to the netns-cluster tool (NETNS_CLUSTER, the shared tools,
# or this folder's copy).
find_cluster() {
    local c
    for c in "${NETNS_CLUSTER:-}" "$HERE/../../../shared/tools/netns-cluster" \
             "$HERE/netns-cluster"; do
        if [ -n "$c" ] && [ -x "$c" ]; then CLUSTER=$c; return 0; fi
    done
    return 1
}

# The hosts of one prefix serve one job at a time.  ctest's RESOURCE_LOCK
# mn_cpu orders the tests of one ctest only: a second ctest of the same
# build tree (same prefix) ran its tests beside them, and its teardown
# deleted the hosts, killing the processes in them, under a running test.
# with_hosts_lock SECONDS "$0" "$@" runs the calling script again under the
# prefix's lock (flock on a file in the run-time lock directory, MN_LOCK_DIR
# to choose another), waiting up to SECONDS, unless it holds the lock
# already (MN_LOCK_HELD: the scripts it calls, mn_run.sh under
# mn_launch.sh, take it as theirs).  Exits 75 when the wait runs out.
hosts_lock_file() {
    local dir=${MN_LOCK_DIR:-/run/lock}
    [ -d "$dir" ] && [ -w "$dir" ] || dir=/var/tmp
    echo "$dir/shimmer-netns-$NETNS_CLUSTER_PREFIX.lock"
}
with_hosts_lock() {
    [ -n "${MN_LOCK_HELD:-}" ] && return 0
    local wait=$1 f
    shift
    f=$(hosts_lock_file)
    flock -n "$f" true ||
        echo "$(basename "$0"): namespace hosts '$NETNS_CLUSTER_PREFIX' in use by another run" \
             "($f): waiting up to $wait s" >&2
    # -o: the lock stays with flock, not with daemons the script leaves behind
    MN_LOCK_HELD=1 exec flock -o -w "$wait" -E 75 "$f" "$@"
}
