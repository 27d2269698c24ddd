#!/usr/bin/env python3
"""req_insns.py -- instructions per put of the req benchmark's rate, default
against merged, counted by callgrind in the timed blocks only (bench/req.c's
rate_block_default and rate_block_merged, --toggle-collect), 1 thread, 2 PEs
on this node.  Splits each mode into the library's put, the window's
completion (quiet, or the handle's wait) and the caller's loop.  Timing on a
shared machine cannot resolve a cycle a put; this counts it.
--issue CTX counts req's issue loops instead (-x issue -T CTX: private,
shared or single; issue_block_default and issue_block_merged), two PEs
through UCX over TCP (SHIMMER_REMOTE_PES=all UCX_TLS=self,tcp), the clock
reads around each window's loop left out of the caller's share: the
instruction column of docs/requests.md's table of issue cost.

  bench/req_insns.py [--build build] [-W 1,8,64,512] [-i 64000] [--issue CTX]

Needs valgrind (callgrind_annotate)."""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

PAIRS = 32  # bench/req.c: a rate point's blocks of each mode
FUNCS = {"default": ("rate_block_default", "shmem_ctx_putmem_nbi", "shmem_ctx_quiet"),
         "merged": ("rate_block_merged", "shmemx_ctx_putmem_req", "shmemx_req_wait")}
# -x issue: on the default context (-T single, shared) the routines without ctx_
ISSUE_FUNCS = {"default": ("issue_block_default", "shmem_putmem_nbi", "shmem_quiet"),
               "merged": ("issue_block_merged", "shmemx_putmem_req", "shmemx_req_wait")}
ISSUE_CTX_FUNCS = {"default": ("issue_block_default", "shmem_ctx_putmem_nbi", "shmem_ctx_quiet"),
                   "merged": ("issue_block_merged", "shmemx_ctx_putmem_req", "shmemx_req_wait")}
REMOTE_ENV = {"SHIMMER_REMOTE_PES": "all", "UCX_TLS": "self,tcp"}


def inclusive(path):
    """{function: inclusive Ir} of one callgrind output file."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    ir = {}
    # file:function, a recursion mark ('2) or a symbol version (@@GLIBC_2.17) after it
    for m in re.finditer(r"^\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(\w+)(?:'\d+)?(?:@@?[\w.]+)? ",
                         out, re.M):
        name = m.group(2)
        ir[name] = max(ir.get(name, 0), int(m.group(1).replace(",", "")))
    return ir


def count(build, window, iters, tmp, issue=None):
    """{mode: (per put, library put, completion per window, caller per put)};
    issue: the context of -x issue, else the rate."""
    for f in glob.glob(os.path.join(tmp, "cg.*")):
        os.remove(f)
    funcs = FUNCS if not issue else ISSUE_CTX_FUNCS if issue == "private" else ISSUE_FUNCS
    op = ["-x", "rate", "-t", "1"] if not issue else ["-x", "issue", "-T", issue]
    cmd = [os.path.join(build, "bin", "oshrun"), "-n", "2", "valgrind", "--tool=callgrind",
           "--callgrind-out-file=" + os.path.join(tmp, "cg.%p"),
           "--toggle-collect=" + funcs["default"][0], "--toggle-collect=" + funcs["merged"][0],
           os.path.join(build, "bench", "req")] + op + ["-W", str(window), "-i", str(iters), "-f", "csv"]
    env = dict(os.environ, **REMOTE_ENV) if issue else None
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    ir = {}
    for f in glob.glob(os.path.join(tmp, "cg.*")):
        ir.update({k: v for k, v in inclusive(f).items() if v})  # PE 1 collects nothing
    nwin = -(-iters // (window * PAIRS))
    # the issue blocks also run the warm-up windows (bench_warmup: a tenth, >= 2)
    windows = PAIRS * nwin + (max(nwin // 10, 2) if issue else 0)
    puts = windows * window
    # two clock reads a window in each mode's issue loops (none in the rate's)
    clock = ir.get("clock_gettime", 0) / 2 if issue else 0
    res = {}
    for mode, (block, put, done) in funcs.items():
        if block not in ir:
            sys.exit("req_insns: no callgrind count for %s; is %s/bench/req built?" % (block, build))
        lib, fin = ir.get(put, 0), ir.get(done, 0)
        res[mode] = ((ir[block] - clock) / puts, lib / puts, fin / windows,
                     (ir[block] - clock - lib - fin) / puts)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="Shimmer's build directory (default build)")
    ap.add_argument("-W", default="1,8,64,512", help="windows (default 1,8,64,512)")
    ap.add_argument("-i", type=int, default=64000, help="puts of each mode per window size")
    ap.add_argument("--issue", choices=("private", "shared", "single"),
                    help="count req -x issue -T ISSUE through UCX instead of the rate")
    a = ap.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("req_insns: needs valgrind; apt-get install valgrind")
    if a.issue:
        print("instructions, -x issue -T %s through UCX, issue blocks only, clock reads left out "
              "(callgrind):" % a.issue)
    else:
        print("instructions, 1 thread, timed blocks only (callgrind):")
    print("%6s  %-7s  %8s  %8s  %10s  %8s  %8s" % ("window", "mode", "per put", "put", "completion",
                                                    "caller", "issue"))
    with tempfile.TemporaryDirectory(prefix="req-insns-") as tmp:
        for w in (int(x) for x in a.W.split(",")):
            for mode, v in count(a.build, w, a.i, tmp, a.issue).items():
                print("%6d  %-7s  %8.2f  %8.2f  %10.2f  %8.2f  %8.2f" % ((w, mode) + v + (v[1] + v[3],)))
    print("per put: everything the block ran, per put; put: the library's put call; "
          "completion: quiet or the handle's wait, per window; caller: the rest, per put; "
          "issue: put + caller, what a put costs before its completion")


if __name__ == "__main__":
    main()
