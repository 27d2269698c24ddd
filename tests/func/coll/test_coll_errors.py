#!/usr/bin/env python3
"""Debug-mode diagnostics of the collectives (and the active-set checks that are
always on).

Each case runs coll_err (one misuse) under oshrun on 3 PEs and checks the
exit status and one line naming the routine, the PE(s), the problem and the
fix; the hang cases check that a late PE is reported (by the others, while
they wait) and that the job then completes.
  test_coll_errors.py --list
  test_coll_errors.py --oshrun build/bin/oshrun --prog build/tests/bin/coll_err CASE|all
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from casekit import CASES, Fail, case, main  # noqa: E402

DEBUG = {"SHMEM_DEBUG": "1"}


def run(name, env=None, n=3, timeout=60):
    full_env = {k: v for k, v in os.environ.items()
                if not k.startswith(("SHMEM_", "SMA_", "SHIMMER_"))}
    full_env.update(env or {})
    cmd = [OSHRUN, "-n", str(n), PROG, name]
    p = subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def expect(result, status, patterns):
    rc, out, err = result
    if rc != status:
        raise Fail("exit status %d, want %d\nstdout: %s\nstderr: %s" % (rc, status, out, err))
    for pat in patterns:
        if not re.search(pat, err):
            raise Fail("no line matching %r in stderr:\n%s" % (pat, err))


def error(routine, *what):
    """One line 'shimmer: error: [pe N host] routine: ...what...'."""
    return r"(?m)^shimmer: error: \[pe \d+ \S+\] %s: .*%s" % (re.escape(routine), ".*".join(what))


def warning(routine, *what):
    return r"(?m)^shimmer: warn(ing)?: \[pe \d+ \S+\] %s: .*%s" % (re.escape(routine),
                                                                  ".*".join(what))


# ---------------------------------------------------------------- mismatches
@case
def fcollect_nelems():
    expect(run("fcollect_nelems", DEBUG), 1, [error(
        "shmem_fcollectmem", r"nelems \(in bytes\) is 16 on PE 1 but 8 on PE 0 of "
        "SHMEM_TEAM_WORLD", "every member must pass the same nelems")])


@case
def bcast_root():
    expect(run("bcast_root", DEBUG), 1, [error(
        "shmem_broadcastmem", "PE_root is 1 on PE 2 but 0 on PE 0", "same PE_root")])


@case
def reduce_nreduce():
    expect(run("reduce_nreduce", DEBUG), 1, [error(
        "shmem_long_sum_to_all", r"nreduce is 4 on PE 2 but 2 on PE 0 of the active set "
        r"\(PE_start 0, logPE_stride 0, PE_size 3\)", "same nreduce")])


@case
def kind():
    expect(run("kind", DEBUG), 1, [error(
        "shmem_fcollectmem", "PE [12] called a fcollect on SHMEM_TEAM_WORLD while PE 0 called "
        "a broadcast", "same collectives in the same order")])


# ---------------------------------------------------------------- local checks
@case
def invalid_team():
    expect(run("invalid_team", DEBUG), 1, [error(
        "shmem_broadcastmem", "team is SHMEM_TEAM_INVALID", "must not call")])


@case
def reduce_overlap():
    expect(run("reduce_overlap", DEBUG), 1, [error(
        "shmem_long_sum_reduce", "overlap partially", "same array .in place. or arrays that "
        "do not overlap")])


@case
def fcollect_overlap():
    # source = dest + 8 bytes: PE 1's block, so in place on PE 1 only
    expect(run("fcollect_overlap", DEBUG), 1, [error(
        "shmem_fcollectmem", r"dest 0x[0-9a-f]+ \(24 bytes\) and source 0x[0-9a-f]+ \(8 bytes\) "
        "overlap but source is not this PE's block", r"pass source = dest \+ (0|16) bytes "
        r".in place. or separate arrays")])


@case
def fcollect_mixed():
    expect(run("fcollect_mixed", DEBUG), 1, [error(
        "shmem_fcollectmem", "PE [12] passes a separate source but PE 0 of SHMEM_TEAM_WORLD "
        "does it in place", "block of dest as its source .in place. or one separate source")])


@case
def collect_overlap():
    # every PE passes dest itself: in place only on PE 0
    expect(run("collect_overlap", DEBUG), 1, [error(
        "shmem_collect64", r"source 0x[0-9a-f]+ \(8 bytes\) overlaps dest 0x[0-9a-f]+ \(24 "
        r"bytes\) but is not this PE's block, which starts at byte (8|16)",
        r"pass source = dest \+ (8|16) bytes .in place. or separate arrays")])


@case
def bcast_overlap():
    expect(run("bcast_overlap", DEBUG), 1, [error(
        "shmem_broadcastmem", "dest .* and source .* overlap partially",
        "same array .in place. or separate arrays")])


@case
def aset_member():
    expect(run("aset_member", DEBUG), 1, [error(
        "shmem_barrier", r"PE 2 is not in the active set \(PE_start 0, logPE_stride 0, "
        r"PE_size 2\)", "only its members")])


@case
def aset_outsider_nodebug():
    """Undefined in the standard; as with Open MPI's OSHMEM, a PE outside the
    set returns at once without effect (one warning per routine) and the
    members compute the right results."""
    rc, out, err = run("aset_outsider")
    expect((rc, out, err), 0, [r"shimmer: warning: \[pe 2 \S+\] shmem_broadcast64: PE 2 is not in the "
                               r"active set \(PE_start 0, logPE_stride 0, PE_size 2\): the call returns "
                               r"without effect", r"warning: .*shmem_long_sum_to_all: PE 2 is not"])
    if err.count("is not in the active set") != 2:
        raise Fail("expected one warning per routine:\n" + err)
    if sorted(out.split("\n"))[1:] != ["PE 0 ok", "PE 1 ok", "PE 2 ok"]:
        raise Fail("stdout: " + out)


@case
def aset_too_big():
    # checked without debug mode too: a set beyond the job would fault
    expect(run("aset_too_big"), 1, [error(
        "shmem_broadcast64", r"the active set \(PE_start 0, logPE_stride 0, PE_size 4\) does "
        r"not fit the 3 PEs of the job", r"PE_start \+ \(PE_size - 1\) \* 2\^logPE_stride < 3")])


@case
def root_range():
    expect(run("root_range", DEBUG), 1, [error(
        "shmem_broadcastmem", r"PE_root is 5, valid range 0\.\.2",
        "pass the root's number in the team or active set")])


@case
def alltoalls_stride():
    expect(run("alltoalls_stride", DEBUG), 1, [error(
        "shmem_alltoallsmem", "dst is 0 and sst is 1", "at least 1")])


@case
def psync_overlap():
    expect(run("psync_overlap", DEBUG), 1, [error(
        "shmem_broadcast64", "pSync .* overlaps dest or source", "its own symmetric array")])


@case
def algo_name():
    expect(run("algo_name", {"SHIMMER_COLL_REDUCE_ALGO": "bogus"}), 1, [
        r'shmem_long_sum_reduce: SHIMMER_COLL_REDUCE_ALGO is "bogus", which is not an algorithm of REDUCE; use one '
        r"of auto, eager, rsag, tree"])


# ---------------------------------------------------------------- a PE missing
HANG = {"SHMEM_DEBUG": "1", "SHIMMER_HANG_TIMEOUT": "1"}


@case
def late_barrier():
    expect(run("late_barrier", HANG), 0, [warning(
        "shmem_barrier_all", r"has waited \d+ s on SHMEM_TEAM_WORLD: 1 PE\(s\) have not "
        r"arrived: PE 2 \(not in a collective of this team", "same collectives in the same "
        "order")])


@case
def late_reduce():
    expect(run("late_reduce", HANG), 0, [warning(
        "shmem_long_sum_reduce", r"has waited \d+ s on SHMEM_TEAM_WORLD: 1 PE\(s\) have not "
        r"arrived: PE 2 \(not in a collective of this team")])


@case
def late_aset():
    expect(run("late_aset", HANG), 0, [warning(
        "shmem_broadcast64", r"has waited \d+ s on the active set \(PE_start 0, logPE_stride "
        r"0, PE_size 3\): 1 PE\(s\) have not arrived: PE 2 \(not in an active-set "
        r"collective\)")])


def setup(args):
    global OSHRUN, PROG
    OSHRUN, PROG = args.oshrun, args.prog
    return lambda name: CASES[name]()


if __name__ == "__main__":
    sys.exit(main(["oshrun", "prog"], setup))
