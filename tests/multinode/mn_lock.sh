#!/bin/bash
# mn_lock.sh MN_RUN -- two runs on one prefix's namespace hosts at once, as
# two ctest invocations of one build tree make them: a job on the hosts
# and, while it runs, the other invocation's teardown.  The teardown must
# wait for the job (mn_common.sh, with_hosts_lock) or leave the hosts up,
# never delete them, and kill the job's processes, under it.
set -u
MN_RUN=$1
. "$(dirname "$0")/mn_common.sh"
unset MN_LOCK_HELD
[ "$(id -u)" = 0 ] || { echo "SKIP: network namespaces need root"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$MN_RUN" 2x1 2 -t 60 -- sleep 4 > "$log" 2>&1 &
job=$!
# the job runs once its second host holds processes (mpirun's daemon, sleep)
for ((i = 0; i < 300; i++)); do
    [ -n "$(ip netns pids "${P}1" 2>/dev/null)" ] && break
    sleep 0.1
done
[ -n "$(ip netns pids "${P}1" 2>/dev/null)" ] ||
    { echo "FAIL: the job never started on ${P}1:"; cat "$log"; kill $job; exit 1; }
"$MN_RUN" teardown
wait $job
rc=$?
if [ $rc -ne 0 ]; then
    echo "FAIL: the job on the hosts ended with $rc while another run tore them down:"
    cat "$log"
    exit 1
fi
echo "ok: the teardown waited for the job on the hosts"
