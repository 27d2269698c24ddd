#!/usr/bin/env python3
"""Huge pages for the symmetric heap (SHIMMER_HUGEPAGES, docs/env.md).

on without enough free huge pages: one line saying how many are needed and
how to reserve them; auto: normal pages then; on with a pool: the heap is
made of huge pages (the debug log says so) and a data test passes; a
hugetlbfs mount without a size limit holds what the pool has free (it used
to be refused as "0 B free").  Cases that need a pool reserve one when run
as root and the pool is short (vm.nr_hugepages, restored afterwards; ctest
runs them one at a time, RESOURCE_LOCK hugepages), else skip.
  test_hugepages.py --oshrun OSHRUN --prog err_cases --rma test_rma_sizes CASE|all
"""
import contextlib
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from casekit import CASES, Fail, Skip, case, main  # noqa: E402

PAGE = 2 << 20
NR = "/proc/sys/vm/nr_hugepages"
SMALL = {"SHMEM_SYMMETRIC_SIZE": "32m", "SHIMMER_INTERNAL_HEAP_SIZE": "16m"}  # 24 pages/PE


def run(prog, env, n=2, wrap=()):
    """prog under oshrun (err_cases in its mode "ok"); (status, stdout + stderr)."""
    full = {k: v for k, v in os.environ.items() if not k.startswith(("SHMEM_", "SHIMMER_"))}
    full.update(env)
    args = ["ok"] if prog == A.prog else []
    p = subprocess.run([*wrap, A.oshrun, "-n", str(n), prog, *args], env=full,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout + p.stderr


def free_pages():
    with open("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages") as f:
        return int(f.read())


@contextlib.contextmanager
def pool(pages):
    """At least `pages` free huge pages of 2 MiB for the block: the pool as
    it is, or (as root) grown for the block and given back after."""
    if not os.path.exists(NR):
        raise Skip("this kernel has no huge pages")
    if free_pages() >= pages:
        yield
        return
    if os.geteuid() != 0:
        raise Skip("the huge page pool has %d free pages, %d needed; reserving needs root"
                   % (free_pages(), pages))
    with open(NR) as f:
        before = int(f.read())
    try:
        with open(NR, "w") as f:
            f.write(str(before + pages - free_pages()))
        if free_pages() < pages:
            raise Skip("the kernel gave only %d free huge pages" % free_pages())
        yield
    finally:
        with open(NR, "w") as f:
            f.write(str(before))


def check(rc, out, status, *patterns):
    if rc != status:
        raise Fail("exit status %d, want %d:\n%s" % (rc, status, out))
    for pat in patterns:
        if not re.search(pat, out):
            raise Fail("no line matching %r in:\n%s" % (pat, out))


def more_than_the_pool():
    """A heap size (for SHMEM_SYMMETRIC_SIZE) the free pool cannot hold."""
    free = free_pages() if os.path.exists(NR) else 0
    return "%dm" % ((free + 64) * 2)


@case
def on_without_enough_pages_says_so():
    rc, out = run(A.prog, {"SHIMMER_HUGEPAGES": "on", "SHMEM_SYMMETRIC_SIZE": more_than_the_pool()})
    check(rc, out, 1, r"(?m)^shimmer: error: \[pe \d+ \S+\] shmem_init: SHIMMER_HUGEPAGES=on but the "
          r"symmetric heap \(.*\) needs \d+ huge pages of 2 MiB and the kernel's pool has \d+ free "
          r"huge pages of 2 MiB; reserve them \(the 2 PE\(s\) of this node need \d+: sysctl "
          r"vm.nr_hugepages, as root\) or set SHIMMER_HUGEPAGES=auto$")


@case
def auto_without_enough_pages_uses_normal_pages():
    rc, out = run(A.prog, {"SHIMMER_HUGEPAGES": "auto", "SHMEM_SYMMETRIC_SIZE": more_than_the_pool(),
                           "SHIMMER_LOG_LEVEL": "debug", "SHIMMER_LOG_CATEGORIES": "shm"})
    check(rc, out, 0, r"symmetric heap: normal pages \(SHIMMER_HUGEPAGES=auto\)")


@case
def on_with_file_backing_needs_hugetlbfs():
    d = tempfile.mkdtemp(prefix="shimmer-huge-")
    try:
        rc, out = run(A.prog, {"SHIMMER_HUGEPAGES": "on", "SHIMMER_SHM_BACKING": "file",
                               "SHIMMER_SHM_DIR": d})
        check(rc, out, 1, r"shmem_init: SHIMMER_HUGEPAGES=on with SHIMMER_SHM_BACKING=file needs "
              r"SHIMMER_SHM_DIR on a hugetlbfs mount, and %s is not one" % re.escape(d))
    finally:
        os.rmdir(d)


@case
def on_with_a_pool_puts_the_heap_on_huge_pages():
    with pool(2 * 24):
        for mode in ("on", "auto"):
            rc, out = run(A.rma, dict(SMALL, SHIMMER_HUGEPAGES=mode, SHIMMER_LOG_LEVEL="debug",
                                      SHIMMER_LOG_CATEGORIES="shm"))
            check(rc, out, 0, r"PASS rma sizes")
            if len(re.findall(r"symmetric heap: 24 huge pages of 2 MiB", out)) != 2:
                raise Fail("SHIMMER_HUGEPAGES=%s: not both heaps on huge pages:\n%s" % (mode, out))


@case
def unsized_hugetlbfs_mount_holds_the_pool():
    """SHIMMER_SHM_BACKING=file on a hugetlbfs mount without size=: its
    room is the pool's free pages (statvfs reports none)."""
    if os.geteuid() != 0:
        raise Skip("mounting hugetlbfs needs root")
    d = tempfile.mkdtemp(prefix="shimmer-hugetlbfs-")
    env = dict(SMALL, SHIMMER_SHM_BACKING="file", SHIMMER_SHM_DIR=d)
    # a private mount namespace: the mount goes away with the job
    wrap = ["unshare", "-m", "sh", "-c", 'mount -t hugetlbfs none "$0" && exec "$@"', d]
    try:
        with pool(2 * 24):
            rc, out = run(A.rma, env, wrap=wrap)
            check(rc, out, 0, r"PASS rma sizes")
            env["SHMEM_SYMMETRIC_SIZE"] = "%dm" % (free_pages() * 2)  # 2 PEs: twice the pool
            rc, out = run(A.prog, env, wrap=wrap)
            check(rc, out, 1, r"shmem_init: %s is a hugetlbfs mount with \S+ \S+ of free huge pages "
                  r"but the symmetric heap of 2 PE\(s\) needs" % re.escape(d))
        if os.listdir(d):
            raise Fail("files left in %s: %s" % (d, os.listdir(d)))
    finally:
        os.rmdir(d)


A = None


def setup(args):
    global A
    A = args

    def call(name):
        CASES[name]()
    return call


if __name__ == "__main__":
    sys.exit(main(["oshrun", "prog", "rma"], setup))
