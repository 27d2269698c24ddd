#!/bin/bash
# mn_gexit.sh -- a job that ends by shmem_global_exit prints no line of UCX's.
#
#   mn_gexit.sh MN_RUN PROGRAM LAYOUT [RUNS]
#
# PE 0 calls shmem_global_exit(7) right after shmem_init while the other
# PEs enter a barrier, shmem_finalize, or put to every PE (mn_fault.c,
# mode gexit): their first connection to PE 0 (or to a PE the launcher
# ended already) is refused.  Every run, RUNS per case, must end with
# status 7, and neither its stdout (UCX prints there) nor its stderr may
# carry a "UCX WARN"/"UCX ERROR" line or a "shimmer: error/warning" line:
# the launcher's own line says how the job ended (docs/errors.md,
# "Endings").  LAYOUT is a mode of mn_run.sh: local-tcp (one host, oshrun,
# every PE remote over TCP loopback) or HxP (namespace hosts, root).
set -u
MN_RUN=$1
PROG=$2
LAYOUT=$3
RUNS=${4:-4}
. "$(dirname "$0")/mn_common.sh"
case $LAYOUT in
    local*) ;;
    *) [ "$(id -u)" != 0 ] || with_hosts_lock 150 "$0" "$@" ;;  # the hosts are this script's
esac

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
noise='UCX  *(WARN|ERROR)|^shimmer: (error|warning)'
for what in barrier finalize put; do
    bad=0
    for ((i = 1; i <= RUNS; i++)); do
        "$MN_RUN" "$LAYOUT" 4 -t 60 -- "$PROG" gexit 0 7 "$what" > "$dir/out" 2> "$dir/err"
        rc=$?
        [ $rc = 77 ] && { cat "$dir/out"; exit 77; }
        lines=$(grep -hE "$noise" "$dir/out" "$dir/err")
        if [ $rc != 7 ] || [ -n "$lines" ]; then
            bad=$((bad + 1))
            echo "run $i of $what: status $rc (want 7)${lines:+, printed:}"
            [ -n "$lines" ] && echo "$lines" | sed 's/^/    /'
        fi
    done
    if [ $bad = 0 ]; then
        ok "$LAYOUT: PE 0 calls shmem_global_exit(7), the others $what: $RUNS runs, status 7, no UCX line"
    else
        fail "$LAYOUT: PE 0 calls shmem_global_exit(7), the others $what: $bad of $RUNS runs failed"
    fi
done
[ $fails = 0 ]
