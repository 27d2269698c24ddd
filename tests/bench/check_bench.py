#!/usr/bin/env python3
"""Runs one benchmark (tiny sizes) and checks that its output is well formed.

    check_bench.py [--launcher "oshrun -n 2"] [--npes N] [--expect NAME]
                   [--format json|csv] [--allow-unsupported] [--positive COL,...]
                   [--thread-provided N] -- PROGRAM ARGS...

No timing is judged: only the shape of the output (header with machine, build
and PE layout; one point record before each row; every declared column in
every row; finite non-negative numbers; the data check passed; an end record).
--positive names columns that must be above zero in every row (a mode that
measured something); --thread-provided the thread level the header must
report (impl.thread_provided: the level shmem_init_thread gave, -1 after a
plain shmem_init), so that an option choosing the level is seen obeyed.
Exit 0 pass, 1 fail, 77 skip.
"""
import argparse
import json
import math
import os
import shlex
import subprocess
import sys
import tempfile

HEADER_KEYS = ("schema", "bench", "title", "columns", "impl", "machine", "build", "layout", "options", "timer")


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def check_json(lines, a):
    recs = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            recs.append(json.loads(line))
        except json.JSONDecodeError as e:
            fail("line %d is not JSON (%s): %r" % (n, e, line[:200]))
    if not recs:
        fail("no output")
    h = recs[0]
    if h.get("type") != "header":
        fail("first record is not the header: %r" % h)
    for k in HEADER_KEYS:
        if k not in h:
            fail("header lacks %r" % k)
    if a.expect and h["bench"] != a.expect:
        fail("bench is %r, expected %r" % (h["bench"], a.expect))
    if a.thread_provided is not None and h["impl"].get("thread_provided") != a.thread_provided:
        fail("impl.thread_provided is %r, expected %d" % (h["impl"].get("thread_provided"),
                                                          a.thread_provided))
    for k in ("hostname", "cpu", "online_cpus", "os"):
        if k not in h["machine"]:
            fail("machine lacks %r" % k)
    lay = h["layout"]
    if a.npes and lay.get("npes") != a.npes:
        fail("layout.npes is %r, expected %d" % (lay.get("npes"), a.npes))
    if len(lay.get("pes", [])) != lay.get("npes"):
        fail("layout.pes has %d entries for %r PEs" % (len(lay.get("pes", [])), lay.get("npes")))
    cols = [c[0] for c in h["columns"]]
    units = {c[0]: c[1] for c in h["columns"]}
    end = recs[-1]
    if end.get("type") != "end":
        fail("last record is not the end record: %r" % end)
    if end.get("status") == "unsupported":
        if a.allow_unsupported:
            print("unsupported (allowed): %s" % end.get("reason"))
            return 0
        fail("benchmark says unsupported: %s" % end.get("reason"))
    if end.get("status") != "ok":
        fail("end status %r (%s)" % (end.get("status"), end.get("reason")))
    rows, last_point = 0, None
    for r in recs[1:-1]:
        t = r.get("type")
        if t == "point":
            if last_point is not None and r["index"] <= last_point:
                fail("point indexes do not increase: %r" % r)
            last_point = r["index"]
            continue
        if t == "note":
            continue
        if t != "row":
            fail("unexpected record %r" % r)
        if r.get("point") != last_point:
            fail("row without its point record: %r" % r)
        for c in cols:
            if c not in r:
                fail("row lacks column %r: %r" % (c, r))
            v = r[c]
            if units[c] not in ("", "B") or isinstance(v, float):
                if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v < 0:
                    fail("column %r is not a finite non-negative number: %r" % (c, v))
        for c in a.positive:
            if c not in cols:
                fail("no column %r (columns: %s)" % (c, " ".join(cols)))
            if not isinstance(r[c], (int, float)) or isinstance(r[c], bool) or r[c] <= 0:
                fail("column %r is not positive: %r" % (c, r))
        if r.get("valid") is False:
            fail("data check failed in row %r" % r)
        rows += 1
    if rows == 0:
        fail("no rows")
    print("ok: %s, %d rows, %d PEs" % (h["bench"], rows, lay["npes"]))
    return 0


def check_csv(lines, a):
    body = [l for l in lines if l.strip() and not l.startswith("#")]
    comments = [l for l in lines if l.startswith("#")]
    if not comments or not comments[0].startswith("# %s:" % (a.expect or "")):
        fail("CSV lacks its '# bench: title' comment")
    if not any(l.startswith("# end: ok") for l in comments):
        fail("CSV lacks '# end: ok'")
    if len(body) < 2:
        fail("CSV has no data rows")
    ncols = len(body[0].split(","))
    for l in body[1:]:
        if len(l.split(",")) != ncols and not l.split(",")[0].isalpha():
            fail("CSV row has %d fields, header %d: %r" % (len(l.split(",")), ncols, l))
    print("ok: CSV, %d lines" % len(body))
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--launcher", default="", help="command prefix, e.g. 'oshrun -n 2'")
    ap.add_argument("--npes", type=int, default=0)
    ap.add_argument("--expect", default="")
    ap.add_argument("--format", default="json", choices=("json", "csv"))
    ap.add_argument("--allow-unsupported", action="store_true")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--positive", default="", help="columns that must be > 0 in every row")
    ap.add_argument("--thread-provided", type=int, default=None,
                    help="the header's impl.thread_provided (SHMEM_THREAD_* value; -1: shmem_init)")
    ap.add_argument("cmd", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    a.positive = [c for c in a.positive.split(",") if c]
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    if not cmd:
        ap.error("no program given")
    if not os.access(cmd[0], os.X_OK):
        print("SKIP: %s not built" % cmd[0])
        return 77
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out")
        full = shlex.split(a.launcher) + cmd + ["-o", out, "-f", a.format]
        try:
            r = subprocess.run(full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=a.timeout)
        except subprocess.TimeoutExpired:
            fail("timed out after %.0f s: %s" % (a.timeout, " ".join(full)))
        if r.returncode != 0:
            fail("exit status %d: %s\n%s" % (r.returncode, " ".join(full), r.stdout[-2000:]))
        if not os.path.exists(out):
            fail("no output file written: %s" % " ".join(full))
        with open(out, encoding="utf-8") as f:
            lines = f.read().splitlines()
    return check_json(lines, a) if a.format == "json" else check_csv(lines, a)


if __name__ == "__main__":
    sys.exit(main())
