#!/bin/bash
# mn_launch.sh -- launching across hosts and failing across hosts.
#   mn_launch.sh OSHRUN MN_FAULT MN_RUN
# On the namespace hosts (see mn_run.sh; root, else skip 77):
#   1. oshrun -H a,b -N 2, -H a,b,c -n 3 and --hostfile F -n 4 hand the job
#      to mpirun; PMIx gives every PE its rank, size and node, and the PEs
#      of a host share memory (SHMEM_TEAM_SHARED);
#   2. copies started without PMIx by a launcher that says there are
#      several (PMI_SIZE) stop within a second, naming the launcher;
#   3. a PE killed on another host ends the job (non-zero status, the
#      launcher's message names the rank, the host and the signal), waiting
#      in a barrier or busy on that very PE; afterwards no process of the
#      job is left on any host and nothing new in /dev/shm; through oshrun
#      --hostfile the job ends with status 137 (measured within 0.1 s of the
#      death; checked with a 2 s liveness bound);
#      a PE that returns 0 without shmem_finalize while the others wait,
#      two of them on the other host, ends the job (oshrun --hostfile)
#      with status 1 and the line naming it and its host (the library's
#      stall watch);
#   4. shmem_global_exit(7) on another host ends the job with status 7;
#      kill -9 of mpirun while every PE waits: every PE on every host ends
#      by itself (PMIx lost-connection event; measured 1.0 s, bound 5 s);
#   5. start-up: 4 PEs on 2 hosts against mpirun starting `true` (reported;
#      fails only beyond 3x, the benchmark in docs/multinode.md holds the
#      1.2x target).
set -u
OSHRUN=$1
PROG=$2
MN_RUN=$3
. "$(dirname "$0")/mn_common.sh"
[ "$(id -u)" != 0 ] || with_hosts_lock 150 "$0" "$@"   # the hosts are this script's alone

# ---- 2 first: needs no root -------------------------------------------------
t0=$(date +%s.%N)
PMI_SIZE=2 PMI_RANK=1 timeout 10 "$PROG" hello > /tmp/mn_foreign.$$ 2>&1
rc=$?
t1=$(date +%s.%N)
if [ $rc -ne 0 ] && grep -q "PMI_SIZE=2" /tmp/mn_foreign.$$ &&
   awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 1.0) }'; then
    ok "copies of a launch without PMIx are refused within a second: $(grep -m1 error /tmp/mn_foreign.$$)"
else
    fail "foreign launch (rc $rc): $(cat /tmp/mn_foreign.$$)"
fi
rm -f /tmp/mn_foreign.$$

[ "$(id -u)" = 0 ] || { echo "SKIP: the rest needs root (network namespaces)"; exit 77; }
command -v mpirun >/dev/null || { echo "SKIP: no mpirun (install openmpi-bin)"; exit 77; }
"$MN_RUN" setup > /dev/null || exit $?
find_cluster || { echo "netns-cluster not found (set NETNS_CLUSTER=path)"; exit 1; }
FLAGS=$("$CLUSTER" mpiflags)
ROOT=--allow-run-as-root
on_head() { timeout 120 "$CLUSTER" exec "${P}0" "cd /tmp && $*"; }

# ---- 1: oshrun delegating to mpirun ------------------------------------------
# oshrun takes no --mca options: the testbed's go in through the environment
export OMPI_MCA_plm_rsh_agent="$CLUSTER exec"
export OMPI_MCA_oob_tcp_if_include=$NETNS_CLUSTER_NET.0/24
export OMPI_MCA_btl_tcp_if_include=$NETNS_CLUSTER_NET.0/24
export OMPI_MCA_hwloc_base_binding_policy=none
UCXX="-x UCX_TLS=self,tcp -x UCX_NET_DEVICES=eth0"
hf=$(mktemp /tmp/mn_hosts.XXXXXX)
printf "%s0 slots=2\n%s1 slots=2\n" "$P" "$P" > "$hf"

check_layout() { # what output want_pes want_per_host
    local what=$1 out=$2 n=$3 per=$4
    if [ "$(grep -c "^PE [0-9]* of $n on ${P}[0-9]*, $per PE(s) share its memory" <<< "$out")" = "$n" ]; then
        ok "$what: $n PEs, $per per host, each host's PEs share memory"
    else
        fail "$what: $out"
    fi
}
out=$(on_head "$OSHRUN -H ${P}0,${P}1 -N 2 $UCXX $PROG hello" 2>&1) || fail "oshrun -H -N exited $?"
check_layout "oshrun -H ${P}0,${P}1 -N 2" "$out" 4 2
out=$(on_head "$OSHRUN -H ${P}0,${P}1,${P}2 -n 3 $UCXX $PROG hello" 2>&1) || fail "oshrun -H -n exited $?"
check_layout "oshrun -H ${P}0,${P}1,${P}2 -n 3" "$out" 3 1
out=$(on_head "$OSHRUN --hostfile $hf -n 4 $UCXX $PROG hello" 2>&1) || fail "oshrun --hostfile exited $?"
check_layout "oshrun --hostfile (2 slots each) -n 4" "$out" 4 2
unset OMPI_MCA_plm_rsh_agent OMPI_MCA_oob_tcp_if_include OMPI_MCA_btl_tcp_if_include \
      OMPI_MCA_hwloc_base_binding_policy

# ---- 3: a PE dies on another host ----------------------------------------------
shm_listing() { ls /dev/shm 2>/dev/null | grep -E "ucx|shimmer|pmix|mn_fault|$P" | sort; }
for mode in kill kill-busy; do
    before=$(shm_listing)
    t0=$(date +%s)
    out=$(on_head "mpirun $ROOT --hostfile $hf $FLAGS -np 4 $PROG $mode 3" 2>&1)
    rc=$?
    t1=$(date +%s)
    sleep 1
    left=""
    for ((k = 0; k < 4; k++)); do
        for pid in $(ip netns pids "$P$k" 2>/dev/null); do
            if grep -q mn_fault "/proc/$pid/cmdline" 2>/dev/null; then left="$left $P$k:$pid"; fi
        done
    done
    after=$(shm_listing)
    if [ $rc -ne 0 ] && grep -q "rank 3" <<< "$out" && grep -q "${P}1" <<< "$out" &&
       grep -q "signal 9" <<< "$out" && [ $((t1 - t0)) -le 20 ]; then
        ok "$mode: PE 3 killed on ${P}1: job ended in $((t1 - t0)) s, status $rc: $(grep -m1 "rank 3" <<< "$out")"
    else
        fail "$mode: status $rc after $((t1 - t0)) s: $out"
    fi
    [ -z "$left" ] && ok "$mode: no process left on any host" || fail "$mode: processes left:$left"
    # a new file that a live process still maps belongs to another job on
    # this machine (UCX's names do not say whose); one nobody maps is a leak
    leaked=""
    for f in $(comm -13 <(echo "$before") <(echo "$after")); do
        grep -qs "/dev/shm/$f" /proc/[0-9]*/maps || leaked="$leaked $f"
    done
    [ -z "$leaked" ] && ok "$mode: nothing of this job left in /dev/shm" ||
        fail "$mode: /dev/shm gained, mapped by no process:$leaked"
done

# through oshrun, which tells mpirun not to wait between SIGTERM and SIGKILL
export OMPI_MCA_plm_rsh_agent="$CLUSTER exec"
export OMPI_MCA_oob_tcp_if_include=$NETNS_CLUSTER_NET.0/24
export OMPI_MCA_btl_tcp_if_include=$NETNS_CLUSTER_NET.0/24
export OMPI_MCA_hwloc_base_binding_policy=none
for round in 1 2 3; do
    out=$(on_head "$OSHRUN --hostfile $hf -n 4 $UCXX $PROG kill 3; echo \"status \$? ended \$(date +%s.%N)\"" 2>&1)
    killed=$(sed -n 's/.*kills itself at \([0-9.]*\).*/\1/p' <<< "$out")
    ended=$(sed -n 's/^status [0-9]* ended \([0-9.]*\)$/\1/p' <<< "$out")
    rc=$(sed -n 's/^status \([0-9]*\) ended.*/\1/p' <<< "$out")
    took=$(awk -v a="$killed" -v b="$ended" 'BEGIN { printf "%.3f", b - a }')
    if [ "$rc" = 137 ] && grep -q "rank 3" <<< "$out" && grep -q "signal 9" <<< "$out" &&
       awk -v t="$took" 'BEGIN { exit !(t >= 0 && t <= 2.0) }'; then
        ok "oshrun --hostfile, PE 3 killed on ${P}1: status 137, job over ${took} s after the death"
    else
        fail "oshrun --hostfile kill: status $rc, ${took} s: $out"
    fi
done

# a PE returns 0 without shmem_finalize while the others wait (2 slots a
# host: PEs 0-1 on ${P}0, 2-3 on ${P}1): the library's stall watch reads the
# waiting PEs of the other host through UCX; the job ends through
# PMIx_Abort with status 1 and the line naming the PE and its host
for args in "3 0" "0 0 wait"; do
    victim=${args%% *}
    vhost=${P}$((victim / 2))
    where="a barrier"
    [[ $args == *wait ]] && where="wait_until"
    out=$(on_head "$OSHRUN --hostfile $hf -n 4 --timeout 30 $UCXX $PROG return $args; echo \"status \$? ended \$(date +%s.%N)\"" 2>&1)
    left=$(sed -n 's/.* without shmem_finalize at \([0-9.]*\)$/\1/p' <<< "$out")
    ended=$(sed -n 's/^status [0-9]* ended \([0-9.]*\)$/\1/p' <<< "$out")
    rc=$(sed -n 's/^status \([0-9]*\) ended.*/\1/p' <<< "$out")
    took=$(awk -v a="$left" -v b="$ended" 'BEGIN { printf "%.2f", b - a }')
    line="PE $victim (on $vhost) left main without calling shmem_finalize while PEs"
    if [ "$rc" = 1 ] && grep -qF "$line" <<< "$out"; then
        ok "oshrun --hostfile, PE $victim returns 0 without finalize, the others in $where: status 1, job over ${took} s after its return"
    else
        fail "oshrun --hostfile, PE $victim returns 0 without finalize: status $rc, ${took} s: $out"
    fi
done

unset OMPI_MCA_plm_rsh_agent OMPI_MCA_oob_tcp_if_include OMPI_MCA_btl_tcp_if_include \
      OMPI_MCA_hwloc_base_binding_policy

# ---- 4: shmem_global_exit on another host ---------------------------------------
on_head "mpirun $ROOT --hostfile $hf $FLAGS -np 4 $PROG exit 3 7" > /dev/null 2>&1
rc=$?
[ $rc = 7 ] && ok "shmem_global_exit(7) on ${P}1: job status 7" || fail "global_exit: status $rc"

# kill -9 of the launcher: nobody is left to end the PEs, they end themselves
job_pes() { for ((k = 0; k < 2; k++)); do
    for pid in $(ip netns pids "$P$k" 2>/dev/null); do
        # the PEs themselves: argv[0] is the program (not mpirun, not a shell)
        [ "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)" = "$PROG wait " ] &&
            echo "$P$k:$pid"
    done; done; }
"$CLUSTER" exec "${P}0" "cd /tmp && exec mpirun $ROOT --hostfile $hf $FLAGS -np 4 $PROG wait" \
    > /dev/null 2>&1 &
for ((i = 0; i < 300 && $(job_pes | wc -l) < 4; i++)); do sleep 0.05; done
sleep 0.5 # every PE in its wait
mpirun_pid=$(for pid in $(ip netns pids "${P}0"); do
    grep -qa "^mpirun" "/proc/$pid/cmdline" 2>/dev/null && echo "$pid"; done | head -1)
if [ "$(job_pes | wc -l)" != 4 ] || [ -z "$mpirun_pid" ]; then
    fail "kill -9 of mpirun: the job did not start ($(job_pes | wc -l) PEs, mpirun '$mpirun_pid')"
else
    t0=$(date +%s.%N)
    kill -9 "$mpirun_pid"
    for ((i = 0; i < 250 && $(job_pes | wc -l) > 0; i++)); do sleep 0.02; done
    took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    left=$(job_pes)
    if [ -z "$left" ]; then
        ok "kill -9 of mpirun: every PE on both hosts gone ${took} s later"
    else
        fail "kill -9 of mpirun: still running after ${took} s: $left"
        for pe in $left; do kill -9 "${pe#*:}" 2>/dev/null; done
    fi
fi
wait

# ---- 5: start-up ------------------------------------------------------------------
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
time_runs() {
    local i s e
    for i in 1 2 3 4 5; do
        s=$(date +%s.%N)
        on_head "mpirun $ROOT --hostfile $hf $FLAGS -np 4 $*" > /dev/null 2>&1
        e=$(date +%s.%N)
        awk -v a="$s" -v b="$e" 'BEGIN { printf "%.3f\n", b - a }'
    done | median
}
t_true=$(time_runs true)
t_shmem=$(time_runs "$PROG hello")
ratio=$(awk -v a="$t_true" -v b="$t_shmem" 'BEGIN { printf "%.2f", b / a }')
echo "start-up, 4 PEs on 2 hosts (median of 5): mpirun true ${t_true} s, Shimmer hello ${t_shmem} s, ratio $ratio"
awk -v r="$ratio" 'BEGIN { exit !(r <= 3.0) }' || fail "start-up ratio $ratio"

rm -f "$hf"
[ $fails = 0 ] && echo "PASS mn_launch" && exit 0
echo "FAILED: $fails check(s)"
exit 1
