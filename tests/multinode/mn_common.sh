# mn_common.sh -- sourced by the scripts that drive the namespace hosts
# themselves (mn_launch.sh, mn_slurm.sh): the hosts' prefix and subnet (as
# mn_run.sh takes them), the tally of checks, and the netns-cluster tool.
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
