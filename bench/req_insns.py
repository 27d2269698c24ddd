#!/usr/bin/env python3
"""req_insns.py -- instructions per put of the req benchmark's rate, default
against merged, counted by callgrind in the timed blocks only (bench/req.c's
rate_block_default and rate_block_merged, --toggle-collect), 1 thread, 2 PEs
on this node.  Splits each mode into the library's put, the window's
completion (quiet, or the handle's wait) and the caller's loop.  Timing on a
shared machine cannot resolve a cycle a put; this counts it.

  bench/req_insns.py [--build build] [-W 1,8,64,512] [-i 64000]

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


def inclusive(path):
    """{function: inclusive Ir} of one callgrind output file."""
    out = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", path],
                         capture_output=True, text=True, check=True).stdout
    ir = {}
    for m in re.finditer(r"^\s*([\d,]+) \([ \d.]+%\)\s+\S*?:(\w+)(?:'\d+)? ", out, re.M):
        name = m.group(2)
        ir[name] = max(ir.get(name, 0), int(m.group(1).replace(",", "")))
    return ir


def count(build, window, iters, tmp):
    """{mode: (per put, library put, completion per window, caller per put)}."""
    for f in glob.glob(os.path.join(tmp, "cg.*")):
        os.remove(f)
    cmd = [os.path.join(build, "bin", "oshrun"), "-n", "2", "valgrind", "--tool=callgrind",
           "--callgrind-out-file=" + os.path.join(tmp, "cg.%p"),
           "--toggle-collect=" + FUNCS["default"][0], "--toggle-collect=" + FUNCS["merged"][0],
           os.path.join(build, "bench", "req"), "-x", "rate", "-t", "1", "-W", str(window),
           "-i", str(iters), "-f", "csv"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ir = {}
    for f in glob.glob(os.path.join(tmp, "cg.*")):
        ir.update({k: v for k, v in inclusive(f).items() if v})  # PE 1 collects nothing
    nwin = -(-iters // (window * PAIRS))
    windows = PAIRS * nwin
    puts = windows * window
    res = {}
    for mode, (block, put, done) in FUNCS.items():
        if block not in ir:
            sys.exit("req_insns: no callgrind count for %s; is %s/bench/req built?" % (block, build))
        lib, fin = ir.get(put, 0), ir.get(done, 0)
        res[mode] = (ir[block] / puts, lib / puts, fin / windows, (ir[block] - lib - fin) / puts)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build", help="Shimmer's build directory (default build)")
    ap.add_argument("-W", default="1,8,64,512", help="windows (default 1,8,64,512)")
    ap.add_argument("-i", type=int, default=64000, help="puts of each mode per window size")
    a = ap.parse_args()
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("req_insns: needs valgrind; apt-get install valgrind")
    print("instructions, 1 thread, timed blocks only (callgrind):")
    print("%6s  %-7s  %8s  %8s  %10s  %8s" % ("window", "mode", "per put", "put", "completion",
                                              "caller"))
    with tempfile.TemporaryDirectory(prefix="req-insns-") as tmp:
        for w in (int(x) for x in a.W.split(",")):
            for mode, v in count(a.build, w, a.i, tmp).items():
                print("%6d  %-7s  %8.2f  %8.2f  %10.2f  %8.2f" % ((w, mode) + v))
    print("per put: everything the block ran, per put; put: the library's put call; "
          "completion: quiet or the handle's wait, per window; caller: the rest, per put")


if __name__ == "__main__":
    main()
