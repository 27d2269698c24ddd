#!/usr/bin/env python3
"""Turns one run of the benchmark suite into a report.

    bench/report.py RESULTS_DIR [--no-plots] [--quiet]

RESULTS_DIR is what bench/runner.py wrote: run.json (what ran: implementations,
jobs, repetitions) and raw/<impl>/<job>.r<rep>.jsonl (the benchmarks' own JSON
lines plus the runner's launch/crash records).  Writes RESULTS_DIR/report.md,
RESULTS_DIR/summary.json and PNG plots, and prints the figure table.

The numbers need only the standard library; the plots need matplotlib and are
skipped (with a line in the report saying so) when it is missing.
"""
import argparse
import glob
import json
import math
import os
import statistics
import sys

import app_kernels
import footprint
import req_report
import wait_report
import runner
import versus_mpi

NOISY_RATIO = 1.5          # max/min over repetitions above this: the figure is flagged noisy
NOT_KEYS = {"iterations", "valid", "pinned", "delay", "pe", "point", "type"}


# ---------------------------------------------------------------- loading

def load_jsonl(path):
    """Records of one raw file; a torn last line (a crash mid-write) is skipped."""
    out = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out


class Stat:
    """Median and spread of one figure over the repetitions of a run."""

    def __init__(self, values, invalid=False):
        self.values = sorted(values)
        self.median = statistics.median(self.values)
        self.min = self.values[0]
        self.max = self.values[-1]
        self.n = len(self.values)
        self.invalid = invalid

    def best(self, higher_better):
        """The best repetition: what a limit is (the machine at its best in this run)."""
        return self.max if higher_better else self.min

    @property
    def noisy(self):
        if self.n < 2 or self.min <= 0:
            return False
        return self.max / self.min > NOISY_RATIO

    def as_dict(self):
        return {"median": self.median, "min": self.min, "max": self.max, "n": self.n,
                "noisy": self.noisy, "invalid": self.invalid, "values": self.values}


class Run:
    """Everything one results directory holds, aggregated over repetitions."""

    def __init__(self, root):
        self.root = root
        with open(os.path.join(root, "run.json"), encoding="utf-8") as f:
            self.meta = json.load(f)
        self.impls = self.meta.get("impls", [])
        self.shimmer = next((i["name"] for i in self.impls
                             if i.get("role") == "shimmer" and i.get("available")), None)
        self.peer = next((i["name"] for i in self.impls
                          if i.get("role") == "peer" and i.get("available")), None)
        self.mpi = next((i["name"] for i in self.impls
                         if i.get("role") == "mpi" and i.get("available")), None)
        self.quick = bool(self.meta.get("quick"))
        self.headers = {}       # (impl, job) -> first header record
        self.series = {}        # (impl, job, keystr) -> {"key": {...}, "metrics": {m: [values]}, "invalid": bool}
        self.events = []        # crashes, unsupported, timeouts, finalize faults
        self.walls = {}         # (impl, job) -> [wall seconds of complete launches]
        self.timeouts = {}      # (impl, job) -> [wall seconds of launches ended by a time limit]
        self.loads = []         # 1-minute load averages before and after each launch
        self._load()

    def _load(self):
        for path in sorted(glob.glob(os.path.join(self.root, "raw", "*", "*.jsonl"))):
            impl = os.path.basename(os.path.dirname(path))
            base = os.path.basename(path)[:-len(".jsonl")]
            job, _, rep = base.rpartition(".r")
            per_rep = {}
            last = {}            # the last launch record
            for rec in load_jsonl(path):
                t = rec.get("type")
                if t == "header":
                    self.headers.setdefault((impl, job), rec)
                elif t == "row":
                    key = {k: v for k, v in rec.items()
                           if k not in NOT_KEYS and isinstance(v, (str, int)) and not isinstance(v, bool)
                           and not _is_metric(self.headers.get((impl, job)), k)}
                    ks = keystr(key)
                    metrics = {k: v for k, v in rec.items()
                               if _is_metric(self.headers.get((impl, job)), k) and isinstance(v, (int, float))}
                    slot = per_rep.setdefault(ks, {"key": key, "metrics": {}, "invalid": False})
                    for m, v in metrics.items():
                        # duplicate keys within one launch (one row per PE): keep the worst PE
                        slot["metrics"][m] = max(v, slot["metrics"].get(m, v))
                    if rec.get("valid") is False:
                        slot["invalid"] = True
                elif t == "launch":
                    self.loads += [x for x in rec.get("load") or [] if isinstance(x, (int, float))]
                    if rec.get("complete"):
                        self.walls.setdefault((impl, job), []).append(rec.get("wall_s"))
                    last = rec
                elif t in ("crash", "unsupported", "timeout", "fault", "error"):
                    if t == "crash" and not last.get("complete") and runner.launcher_timed_out(
                            last.get("stderr_tail")):
                        t = "timeout"      # the launcher's own time limit (runs before it said so)
                    if t == "timeout" and isinstance(last.get("wall_s"), (int, float)):
                        self.timeouts.setdefault((impl, job), []).append(last["wall_s"])
                    ev = dict(rec, type=t)
                    ev.update(impl=impl, job=job, rep=rep)
                    self.events.append(ev)
            for ks, slot in per_rep.items():
                s = self.series.setdefault((impl, job, ks), {"key": slot["key"], "metrics": {}, "invalid": False})
                for m, v in slot["metrics"].items():
                    s["metrics"].setdefault(m, []).append(v)
                s["invalid"] = s["invalid"] or slot["invalid"]

    # -- lookups
    def find(self, impl, job, metric, **key):
        """The one series of (impl, job) whose row key contains `key` and has `metric`.

        Exact key first; else the unique series the given items select (so a
        figure need not name columns that do not vary, like the window of
        put_bw).  A key column the job's header does not declare selects
        nothing (results of an older version of the benchmark).  None when
        absent or ambiguous."""
        key = self._own_key(impl, job, key)
        exact = self.series.get((impl, job, keystr(key)))
        if exact and metric in exact["metrics"]:
            return exact
        hits = [s for (i, j, _), s in self.series.items()
                if i == impl and j == job and metric in s["metrics"]
                and all(s["key"].get(k) == v for k, v in key.items())]
        return hits[0] if len(hits) == 1 else None

    def _own_key(self, impl, job, key):
        hdr = self.headers.get((impl, job))
        if not hdr or "columns" not in hdr:
            return key
        cols = {c[0] for c in hdr["columns"]}
        return {k: v for k, v in key.items() if k in cols}

    def stat(self, impl, job, metric, **key):
        if impl is None:
            return None
        s = self.find(impl, job, metric, **key)
        return Stat(s["metrics"][metric], s["invalid"]) if s else None

    def limit_curve(self, job, metric, **key):
        """[(size, best value over the repetitions)] of a machine-limit series."""
        hb = metric.endswith(("_MBps", "_per_s"))
        return [(x, s.best(hb)) for x, s in self.curve("limit", job, metric, **key)]

    def copy_limit(self, op, size):
        """(Stat, how) of the copy limit of a bandwidth: the larger best
        repetition of memcpy_bw's one core (bandwidth_MBps) and both
        processes copying (cores_MBps; absent in runs recorded before the
        probe had it): a target waiting in a barrier may copy part of the
        data.  (None, None) without the probe."""
        one = self.stat("limit", "memcpy_bw", "bandwidth_MBps", op=op, size=size)
        both = self.stat("limit", "memcpy_bw", "cores_MBps", op=op, size=size)
        if both and (not one or both.max > one.max):
            return both, "every core"
        return (one, "one core") if one else (None, None)

    def copy_limit_curve(self, op):
        """[(size, copy limit)] of a bandwidth (copy_limit), every size."""
        return [(x, self.copy_limit(op, x)[0].max) for x, _ in self.limit_curve("memcpy_bw", "bandwidth_MBps", op=op)]

    def pingpong_floor(self):
        """[(size, floor)] of a data ping-pong's one-way time: the cache line
        must cross and the data must be copied (the longer of the two)."""
        cl = self.stat("limit", "cacheline_pingpong", "latency_us", mode="flag")
        mc = self.limit_curve("memcpy_bw", "latency_us", op="put")
        return [(x, max(cl.min, v)) for x, v in mc] if cl else []

    def ran(self, job):
        """Whether the run's set includes `job` (runs recorded without a job list: yes)."""
        jobs = {j["id"] for j in self.meta.get("jobs") or []}
        return not jobs or job in jobs

    def wall(self, impl, job):
        w = [x for x in self.walls.get((impl, job), []) if x is not None]
        return Stat([x * 1e3 for x in w]) if w else None

    def curve(self, impl, job, metric, **key):
        """[(size, Stat)] for every size of a series family, sorted by size."""
        out = []
        key = self._own_key(impl, job, key)
        for (i, j, _), s in self.series.items():
            if i != impl or j != job or metric not in s["metrics"]:
                continue
            k = s["key"]
            if "size" not in k or any(k.get(a) != b for a, b in key.items()):
                continue
            out.append((k["size"], Stat(s["metrics"][metric], s["invalid"])))
        return sorted(out, key=lambda x: x[0])

    def missing_why(self, impl, job, **key):
        """Why (impl, job, key) has no value: "crashed", "timed out", "n/a" or None.

        A crash names its point by label ("op=compare_swap dtype=int"); it is
        this figure's if every value of the key appears in it as "=value"."""
        if impl is None:
            return None
        for e in self.events:
            if e["impl"] != impl or e["job"] != job:
                continue
            if e["type"] == "unsupported":
                return "n/a"
            tokens = set(t.partition("=")[2] for t in str(e.get("label", "")).split())
            if e["type"] in ("crash", "timeout") and all(str(v) in tokens for v in key.values()):
                return "crashed" if e["type"] == "crash" else "timed out"
        return None


def _is_metric(header, name):
    if not header:
        return name.endswith(("_us", "_MBps", "_ms", "_kib", "_per_s")) or name in ("mops", "MBps")
    for col in header.get("columns", []):
        if col[0] == name:
            return col[1] not in ("", "B")
    return False


def keystr(key):
    return ",".join("%s=%s" % (k, key[k]) for k in sorted(key))


# ---------------------------------------------------------------- figures and targets
#
# A figure names where its value comes from (job, metric, row key), how a
# reference ("limit") is obtained, and the target from the issues.  Targets:
#   ("limit", "<=", x)  Shimmer <= x * limit      ("limit", ">=", x) Shimmer >= x * limit
#   ("peer",  "<=", x)  Shimmer <= x * peer       ("abs", "<=", v)   Shimmer <= v (figure's unit)
#   ("abs",   ">=", v)  Shimmer >= v

class Src:
    def __init__(self, job, metric, kind="value", **key):
        self.job, self.metric, self.kind, self.key = job, metric, kind, key

    def get(self, run, impl):
        if self.kind == "wall":
            return run.wall(impl, self.job)
        return run.stat(impl, self.job, self.metric, **self.key)

    def describe(self, run):
        """What the value is in this run, where the figure's note cannot say (None)."""
        return None


class CopyLimit(Src):
    """The copy limit of a bandwidth (Run.copy_limit): one core or every core
    copying, whichever is faster; describe() says which."""

    def __init__(self, op, size):
        super().__init__("memcpy_bw", "bandwidth_MBps", op=op, size=size)

    def get(self, run, impl):
        return run.copy_limit(self.key["op"], self.key["size"])[0]

    def describe(self, run):
        how = run.copy_limit(self.key["op"], self.key["size"])[1]
        return "same-pattern copy, %s" % how if how else None


class Fig:
    def __init__(self, fid, title, unit, src, limit=None, limit_note="", limit_same_impl=False,
                 target=None, target_note="", scale=1.0, group="main", limit_scale=1.0):
        self.id, self.title, self.unit, self.src = fid, title, unit, src
        self.limit, self.limit_note, self.limit_same_impl = limit, limit_note, limit_same_impl
        self.target, self.target_note, self.scale, self.group = target, target_note, scale, group
        self.limit_scale = limit_scale


def L(job, metric, **key):
    return Src(job, metric, **key)


CL = L("cacheline_pingpong", "latency_us", mode="flag")
CL_NOTE = "cache-line ping-pong, one way"
MEMCPY_NOTE = "same-pattern copy, every core copying where that is faster"


def figures():
    F = []
    # -- foundation issue: point-to-point against the machine's limits
    F.append(Fig("pingpong_8", "8 B put + flag ping-pong, half round trip", "us",
                 L("put_lat", "pingpong_us", size=8), CL, CL_NOTE,
                 target=("limit", "<=", 1.5)))
    F.append(Fig("pingpong_8_global", "8 B put + flag ping-pong on a global (vs heap)", "us",
                 L("put_lat_global", "pingpong_us", size=8), L("put_lat", "pingpong_us", size=8),
                 "same impl on the heap", limit_same_impl=True, target=("limit", "<=", 1.2)))
    F.append(Fig("put_quiet_8", "8 B put + quiet", "us", L("put_lat", "put_quiet_us", size=8)))
    F.append(Fig("put_quiet_8_global", "8 B put + quiet on a global (vs heap)", "us",
                 L("put_lat_global", "put_quiet_us", size=8), L("put_lat", "put_quiet_us", size=8),
                 "same impl on the heap", limit_same_impl=True, target=("limit", "<=", 1.2)))
    F.append(Fig("put_lat_8", "8 B put latency (OSU method)", "us", L("put_lat", "latency_us", size=8)))
    F.append(Fig("get_lat_8", "8 B get latency", "us", L("get_lat", "latency_us", size=8)))
    F.append(Fig("get_lat_8_global", "8 B get latency on a global (vs heap)", "us",
                 L("get_lat_global", "latency_us", size=8), L("get_lat", "latency_us", size=8),
                 "same impl on the heap", limit_same_impl=True, target=("limit", "<=", 1.2)))
    # memcpy in the benchmark's own pattern: into the other process's buffer
    # (put) or out of it (get), the same sizes, iterations and warm-up
    for sz, lab in ((1 << 20, "1 MiB"), (4 << 20, "4 MiB")):
        F.append(Fig("putmem_bw_%d" % sz, "shmem_putmem %s bandwidth" % lab, "MB/s",
                     L("put_bw", "blocking_MBps", size=sz), CopyLimit("put", sz),
                     MEMCPY_NOTE, target=("limit", ">=", 0.9)))
    F.append(Fig("put_nbi_bw_1M", "put_nbi flood bandwidth, 1 MiB", "MB/s",
                 L("put_bw", "bandwidth_MBps", size=1 << 20), CopyLimit("put", 1 << 20),
                 MEMCPY_NOTE))
    F.append(Fig("get_bw_1M", "getmem bandwidth, 1 MiB", "MB/s",
                 L("get_bw", "blocking_MBps", size=1 << 20), CopyLimit("get", 1 << 20),
                 MEMCPY_NOTE))
    F.append(Fig("rate_nbi_w64", "8 B put_nbi rate, window 64", "M/s",
                 L("msg_rate", "messages_per_s", op="put_nbi", size=8, threads=1, window=64),
                 target=("abs", ">=", 100.0), scale=1e-6))
    for w in (1, 512):
        F.append(Fig("rate_nbi_w%d" % w, "8 B put_nbi rate, window %d" % w, "M/s",
                     L("msg_rate", "messages_per_s", op="put_nbi", size=8, threads=1, window=w), scale=1e-6))
    F.append(Fig("rate_put", "8 B blocking put rate (OSU method)", "M/s",
                 L("msg_rate", "messages_per_s", op="put", size=8, threads=1, window=0), scale=1e-6))
    for t in (1, 2, 4):
        F.append(Fig("rate_ctx_t%d" % t, "8 B put_nbi rate, %d thread%s, private contexts" % (t, "s" if t > 1 else ""),
                     "M/s", L("msg_rate_threads", "messages_per_s", op="ctx_put_nbi", size=8, threads=t, window=64),
                     scale=1e-6))
    # In `amo` nothing else touches PE 1's word: its line stays with PE 0, the
    # pattern of the uncontended local atomic (the hand-off, where the line
    # moves every time, is slower than what amo measures: not a bound).
    LOCAL = L("atomic_pingpong", "latency_us", mode="local")
    F.append(Fig("amo_fetch_add", "atomic_fetch_add, back to back", "us",
                 L("amo", "latency_us", op="fetch_add", dtype="long"), LOCAL, "uncontended CPU atomic",
                 target=("limit", "<=", 1.5)))
    F.append(Fig("amo_fetch_add_global", "atomic_fetch_add on a global (vs heap)", "us",
                 L("amo_global", "latency_us", op="fetch_add", dtype="long"),
                 L("amo", "latency_us", op="fetch_add", dtype="long"),
                 "same impl on the heap", limit_same_impl=True, target=("limit", "<=", 1.2)))
    F.append(Fig("amo_contended", "atomic_fetch_add, both PEs on one variable", "us",
                 L("amo", "latency_us", op="fetch_add_contended", dtype="long"),
                 L("atomic_pingpong", "latency_us", mode="contended"), "contended CPU atomic"))
    for op in ("add", "compare_swap", "swap", "fetch", "set"):
        F.append(Fig("amo_" + op, "atomic_%s (long)" % op, "us", L("amo", "latency_us", op=op, dtype="long")))
    for op in ("fetch_add", "compare_swap"):
        F.append(Fig("amo_int_" + op, "atomic_%s (int)" % op, "us", L("amo_int", "latency_us", op=op, dtype="int")))
    F.append(Fig("signal_8", "8 B put_signal ping-pong, half round trip", "us",
                 L("signal_lat", "latency_us", size=8), CL, CL_NOTE))
    F.append(Fig("startup_2", "oshrun -n 2 hello: wall", "ms", Src("hello_2", None, "wall"),
                 target=("abs", "<=", 50.0)))
    F.append(Fig("startup_16", "oshrun -n 16 hello: wall", "ms", Src("hello_16", None, "wall"),
                 target=("abs", "<=", 300.0)))
    for n in (8, 32):
        F.append(Fig("startup_%d" % n, "oshrun -n %d hello: wall" % n, "ms", Src("hello_%d" % n, None, "wall")))
    F.append(Fig("rss_2", "hello peak RSS per PE (-n 2, worst PE)", "MiB",
                 L("hello_2", "peak_rss_kib", npes=2), target=("abs", "<=", 8.0), scale=1 / 1024))
    for n in (8, 32):
        F.append(Fig("rss_%d" % n, "hello peak RSS per PE (-n %d, worst PE)" % n, "MiB",
                     L("hello_%d" % n, "peak_rss_kib", npes=n), scale=1 / 1024))

    # -- API issue: collectives
    F.append(Fig("barrier_2_cl", "barrier_all, 2 PEs (vs ping-pong)", "us",
                 L("coll_2", "latency_us", coll="barrier", api="active_set", npes=2, size=0), CL, CL_NOTE,
                 target=("limit", "<=", 3.0)))
    # the slowest PE (the PEs' average is no bound of anything): the 1 MiB
    # must be copied, and two PEs may split that copy (Shimmer's active-set
    # broadcast does: the root writes the last half while the receiver reads
    # the first), so the bound is one core copying half of it; a whole 1 MiB
    # memcpy was no bound (5.7 us measured against its 14.3)
    F.append(Fig("bcast_1M_memcpy", "broadcast 1 MiB, 2 PEs, slowest PE (vs memcpy)", "us",
                 L("coll_2", "max_us", coll="bcast", api="active_set", npes=2, size=1 << 20),
                 L("memcpy_bw", "latency_us", op="get", size=1 << 19),
                 "one 512 KiB memcpy (each PE may copy half)", target=("limit", "<=", 2.0)))
    F.append(Fig("barrier_16", "barrier_all, 16 PEs on this machine", "us",
                 L("barrier_16", "latency_us", coll="barrier", api="active_set", npes=16, size=0),
                 target=("abs", "<=", 1000.0)))
    for npes in (2, 4, 8):
        for coll in ("barrier", "bcast", "collect", "fcollect", "alltoall", "reduce"):
            sizes = (0,) if coll == "barrier" else (8, 4096, 1 << 20)
            for sz in sizes:
                tgt = ("peer", "<=", 1 / 3 if sz in (0, 8) else 1.0)
                F.append(Fig("%s_%d_%d" % (coll, npes, sz), "%s%s, %d PEs" % (coll, "" if coll == "barrier" else " " + human_size(sz), npes),
                             "us", L("coll_%d" % npes, "latency_us", coll=coll, api="active_set", npes=npes, size=sz),
                             target=tgt, group="coll"))
    return F


def human_size(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    return "%d B" % n


# ---------------------------------------------------------------- evaluation

def fmt(v, unit=""):
    if v is None:
        return "—"
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1000:
        s = "%.0f" % v
    elif a >= 100:
        s = "%.0f" % v
    elif a >= 10:
        s = "%.1f" % v
    elif a >= 1:
        s = "%.2f" % v
    else:
        s = "%.3g" % v
    return s


def fmt_stat(st, scale=1.0, spread=False, why=None, fault=False):
    if st is None:
        return why or "—"
    s = fmt(st.median * scale)
    if spread and st.n > 1:
        s += " [%s–%s]" % (fmt(st.min * scale), fmt(st.max * scale))
    if st.noisy:
        s += " ~"
    if st.invalid:
        s += " !"
    if fault:
        s += " *"
    return s


def evaluate(run, fig):
    """One table row: values, ratios, target text and verdict."""
    shim = fig.src.get(run, run.shimmer) if run.shimmer else None
    peer = fig.src.get(run, run.peer) if run.peer else None
    if fig.limit is None:
        lim = None
    elif fig.limit_same_impl:
        lim = fig.limit.get(run, run.shimmer) if run.shimmer else None
    else:
        lim = fig.limit.get(run, "limit")
    sc = fig.scale
    # A limit from another job is in its own unit (us, MB/s: figures with a limit
    # use those, unscaled); a same-implementation reference shares the figure's scale.
    lsc = fig.limit_scale * (sc if fig.limit_same_impl else 1.0)
    # A machine limit bounds the figure: its best repetition is the value, and
    # a figure beyond it is a measurement fault, not a result.  A same-impl
    # reference ("on the heap") is a median like the figure.
    bound = lim is not None and not fig.limit_same_impl
    hb = higher_better(fig.unit)
    lim_v = (lim.best(hb) if bound else lim.median) * lsc if lim else None
    shim_v = shim.median * sc if shim else None
    peer_v = peer.median * sc if peer else None
    r_peer = shim_v / peer_v if shim_v is not None and peer_v else None
    r_lim = shim_v / lim_v if shim_v is not None and lim_v else None

    def beyond(v):             # a smoke run's few iterations bound nothing
        return bound and not run.quick and v is not None and lim_v is not None and (v > lim_v if hb else v < lim_v)
    shim_fault, peer_fault = beyond(shim_v), beyond(peer_v)

    target_txt, verdict = "—", "—"
    if fig.target:
        kind, op, x = fig.target
        if kind == "limit":
            target_txt = "%s %s× limit" % (op, fmt(x))
            val = r_lim
        elif kind == "peer":
            target_txt = "%s %s× peer" % (op, "1/3" if abs(x - 1 / 3) < 1e-9 else fmt(x))
            val = r_peer
        else:
            target_txt = "%s %s %s" % (op, fmt(x), fig.unit)
            val, x = shim_v, x
        if shim is None:
            verdict = "no data"
        elif shim.invalid:
            verdict = "INVALID"
        elif val is None:
            verdict = "no ref"
        else:
            met = val <= x if op == "<=" else val >= x
            verdict = "met" if met else "MISSED"
            noisy = shim.noisy or (peer is not None and kind == "peer" and peer.noisy) or \
                (lim is not None and kind == "limit" and lim.noisy)
            if noisy:
                verdict += " (noisy)"
            if kind == "limit" and shim_fault:
                verdict = "FAULT"
    def why(impl, st):
        if st is not None or impl is None or fig.src.kind == "wall":
            return None
        return run.missing_why(impl, fig.src.job, **fig.src.key)
    shim_why, peer_why = why(run.shimmer, shim), why(run.peer, peer)
    if shim is None and shim_why and fig.target:
        verdict = shim_why
    if run.quick and fig.target:
        verdict = "—"          # a smoke run measures nothing worth a verdict
    return {"id": fig.id, "title": fig.title, "unit": fig.unit, "group": fig.group,
            "ran": run.ran(fig.src.job), "shimmer_why": shim_why, "peer_why": peer_why,
            "shimmer_fault": shim_fault, "peer_fault": peer_fault,
            "shimmer": shim, "peer": peer, "limit": lim, "scale": sc, "limit_scale": lsc,
            "shimmer_v": shim_v, "peer_v": peer_v, "limit_v": lim_v,
            "ratio_peer": r_peer, "ratio_limit": r_lim,
            "limit_note": (lim and fig.limit.describe(run)) or fig.limit_note,
            "target": target_txt, "verdict": verdict}


def higher_better(unit):
    """Bandwidths and rates are better high; times and sizes low."""
    return unit in ("MB/s", "M/s")


def faults(rows):
    """One line per figure beyond its machine limit."""
    out = []
    for r in rows:
        for who, col in (("shimmer", "shimmer_fault"), ("peer", "peer_fault")):
            if r.get(col):
                out.append("%s: %s %s %s is beyond its limit %s %s (%s): a measurement fault — the "
                           "probe does not bound it" % (r["title"], who, fmt(r[who + "_v"]), r["unit"],
                                                        fmt(r["limit_v"]), r["unit"], r["limit_note"]))
    return out


def has_any(row):
    """Whether a row belongs in the tables: its job ran in this set and something has a value."""
    return row["ran"] and any(row[k] is not None for k in ("shimmer", "peer", "limit", "shimmer_why", "peer_why"))


# ---------------------------------------------------------------- output: table

def text_table(rows, shim_name, peer_name):
    head = ["figure", "unit", shim_name or "Shimmer", peer_name or "peer", "limit",
            "Shimmer/peer", "Shimmer/limit", "target", "verdict"]
    body = []
    for r in rows:
        body.append([r["title"], r["unit"],
                     fmt_stat(r["shimmer"], r["scale"], why=r["shimmer_why"], fault=r["shimmer_fault"]),
                     fmt_stat(r["peer"], r["scale"], why=r["peer_why"], fault=r["peer_fault"]),
                     fmt(r["limit_v"]), fmt(r["ratio_peer"]), fmt(r["ratio_limit"]), r["target"], r["verdict"]])
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head))]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) if i < 7 else str(c).ljust(w)
                       for i, (c, w) in enumerate(zip(row, widths))).rstrip()
             for row in [head] + body]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def md_table(rows, spread=True):
    out = ["| figure | Shimmer | peer | limit | Shimmer/peer | Shimmer/limit | target | verdict |",
           "|---|---:|---:|---:|---:|---:|---|---|"]
    for r in rows:
        lim = fmt(r["limit_v"])
        if r["limit_v"] is not None and r["limit_note"]:
            lim += " (%s)" % r["limit_note"]
        out.append("| %s (%s) | %s | %s | %s | %s | %s | %s | %s |" % (
            r["title"], r["unit"], fmt_stat(r["shimmer"], r["scale"], spread, r["shimmer_why"], r["shimmer_fault"]),
            fmt_stat(r["peer"], r["scale"], spread, r["peer_why"], r["peer_fault"]), lim, fmt(r["ratio_peer"]),
            fmt(r["ratio_limit"]),
            r["target"], r["verdict"]))
    return "\n".join(out)


# ---------------------------------------------------------------- output: plots

PLOTS = [
    # file, title, y label, [(job, metric, extra key, style label)], limit spec (job, metric, key, label;
    # job "pingpong": Run.pingpong_floor, "copy_bw": Run.copy_limit_curve)
    ("put_latency.png", "put latency (OSU method) vs size", "latency (us)",
     [("put_lat", "latency_us", {}, "heap"), ("put_lat_global", "latency_us", {}, "global")],
     ("memcpy_bw", "latency_us", {"op": "put"}, "memcpy of that size")),
    ("pingpong_latency.png", "put + flag ping-pong, half round trip", "latency (us)",
     [("put_lat", "pingpong_us", {}, "heap"), ("put_lat_global", "pingpong_us", {}, "global"),
      ("signal_lat", "latency_us", {}, "put_signal")],
     ("pingpong", None, {}, "cache-line one way or memcpy, the longer")),
    ("get_latency.png", "get latency vs size", "latency (us)",
     [("get_lat", "latency_us", {}, "heap"), ("get_lat_global", "latency_us", {}, "global")],
     ("memcpy_bw", "latency_us", {"op": "get"}, "memcpy of that size")),
    ("put_bandwidth.png", "put bandwidth vs size", "bandwidth (MB/s)",
     [("put_bw", "bandwidth_MBps", {}, "nbi flood"), ("put_bw", "blocking_MBps", {}, "blocking")],
     ("copy_bw", None, {"op": "put"}, "copy, every core where faster")),
    ("get_bandwidth.png", "get bandwidth vs size", "bandwidth (MB/s)",
     [("get_bw", "bandwidth_MBps", {}, "nbi flood"), ("get_bw", "blocking_MBps", {}, "blocking")],
     ("copy_bw", None, {"op": "get"}, "copy, every core where faster")),
]



QUICK_LINE = "quick (smoke run): tiny sizes and iterations, no verdicts"


def make_plots(run, outdir, pls):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except Exception as e:  # noqa: BLE001 - any import failure means "no plots"
        return [], "matplotlib is not available to %s (%s); install python3-matplotlib" % (sys.executable, e)
    impls = [i for i in (run.shimmer, run.peer) if i]
    colors = {run.shimmer: "tab:blue", run.peer: "tab:orange"}
    styles = ["-", "--", ":"]
    made = []

    def draw(ax, xs, st_list, label, color, ls):
        med = [s.median for s in st_list]
        ax.plot(xs, med, ls, color=color, marker="o", markersize=3, label=label)
        if any(s.n > 1 for s in st_list):
            ax.fill_between(xs, [s.min for s in st_list], [s.max for s in st_list], color=color, alpha=0.15)

    def limit_line(spec):
        job, metric, key, label = spec
        c = (run.pingpong_floor() if job == "pingpong" else run.copy_limit_curve(key["op"]) if job == "copy_bw"
             else run.limit_curve(job, metric, **key))
        return ([x for x, _ in c], [v for _, v in c], label) if c else None

    for fname, title, ylabel, series, lim in PLOTS:
        fig, ax = plt.subplots(figsize=(7, 4.5))
        drawn = 0
        for impl in impls:
            for k, (job, metric, key, lab) in enumerate(series):
                c = run.curve(impl, job, metric, **key)
                if c:
                    draw(ax, [x for x, _ in c], [s for _, s in c], "%s (%s)" % (impl, lab), colors[impl], styles[k % 3])
                    drawn += 1
        lc = limit_line(lim) if lim else None
        if lc:
            ax.plot(lc[0], lc[1], "-", color="black", linewidth=1.2, label="limit: " + lc[2])
        if not drawn:
            plt.close(fig)
            continue
        finish(ax, title, ylabel)
        fig.savefig(os.path.join(outdir, fname), dpi=110, bbox_inches="tight")
        plt.close(fig)
        made.append(fname)

    # collectives: one panel per collective, lines per implementation and PE count
    colls = ["barrier", "bcast", "collect", "fcollect", "alltoall", "reduce"]
    fig, axes = plt.subplots(2, 3, figsize=(13, 7.5))
    drawn = 0
    for ax, coll in zip(axes.flat, colls):
        for impl in impls:
            for k, npes in enumerate((2, 4, 8)):
                if coll == "barrier":
                    xs, ys = [], []
                    for n in (2, 4, 8, 16):
                        job = "barrier_16" if n == 16 else "coll_%d" % n
                        st = run.stat(impl, job, "latency_us", coll="barrier", api="active_set", npes=n, size=0)
                        if st:
                            xs.append(n)
                            ys.append(st)
                    if xs and k == 0:
                        draw(ax, xs, ys, impl, colors[impl], "-")
                        drawn += 1
                    continue
                c = run.curve(impl, "coll_%d" % npes, "latency_us", coll=coll, api="active_set", npes=npes)
                if c:
                    draw(ax, [x for x, _ in c], [s for _, s in c], "%s, %d PEs" % (impl, npes), colors[impl], styles[k])
                    drawn += 1
        if coll == "bcast":
            mc = run.limit_curve("memcpy_bw", "latency_us", op="get")
            if mc:
                ax.plot([x for x, _ in mc], [v for _, v in mc], "-", color="black", linewidth=1, label="limit: memcpy")
        finish(ax, coll + (" (x: PEs)" if coll == "barrier" else ""), "latency (us)", small=True)
    if drawn:
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, "collectives.png"), dpi=100, bbox_inches="tight")
        made.append("collectives.png")
    plt.close(fig)
    made += versus_mpi.plots(run, pls, outdir, plt, finish)
    made += app_kernels.plots(run, outdir, plt)
    made += footprint.plots(run, outdir, plt)
    made += req_report.plots(run, outdir, plt)
    made += wait_report.plots(run, outdir, plt)
    return made, None


def finish(ax, title, ylabel, small=False):
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(title, fontsize=9 if small else 11)
    ax.set_xlabel("PEs" if "PEs" in title else "message size (bytes)", fontsize=8 if small else 10)
    ax.set_ylabel(ylabel, fontsize=8 if small else 10)
    ax.grid(True, which="both", alpha=0.3)
    if ax.get_legend_handles_labels()[0]:    # a panel without data (e.g. a set with no collectives) has none
        ax.legend(fontsize=6 if small else 7)


# ---------------------------------------------------------------- output: report.md

def describe_events(events):
    """One line per distinct event, with the repetitions it happened in."""
    seen = {}
    for e in events:
        k = (e["impl"], e["job"], e.get("label") or "whole run", e.get("reason", e.get("type")))
        seen.setdefault(k, []).append(str(e["rep"]))
    return ["%s / %s: %s — %s (rep %s)" % (i, j, what, why, ", ".join(reps))
            for (i, j, what, why), reps in seen.items()]


def write_report(run, rows, pls, plots, plot_err, path):
    m = run.meta
    L = []
    L.append("# Shimmer benchmark report" + (" — quick (smoke run)" if run.quick else ""))
    L.append("")
    if run.quick:
        L.append("**%s**: the figures show that every benchmark runs, not how fast." % (QUICK_LINE[0].upper()
                                                                                          + QUICK_LINE[1:]))
        L.append("")
    L.append("Run `%s` on %s: %s set, %d repetition(s) per figure, implementations interleaved; "
             "took %.0f s." % (m.get("started", "?"), m.get("machine", {}).get("hostname", "?"),
                               m.get("set", "?"), m.get("reps", 0), m.get("wall_s", 0)))
    mach = m.get("machine", {})
    if mach:
        L.append("Machine: %s, %s CPUs, %s." % (mach.get("cpu", "?"), mach.get("online_cpus", "?"), mach.get("os", "?")))
    pause = run.stat("limit", "cacheline_pingpong", "latency_us", mode="pause")
    if pause:
        # the step of every polling loop, and of the ping-pong probe's answer-delay sweep
        cyc = run.stat("limit", "cacheline_pingpong", "tsc_cycles", mode="pause")
        L.append("A turn of a pause loop (the step of a polling wait): %s ns%s (`cacheline_pingpong` "
                 "`mode=pause`, best repetition)." % (fmt(pause.min * 1e3),
                                                      ", %s TSC cycles" % fmt(cyc.min) if cyc else ""))
    if run.loads:
        L.append("Load average (1 min) around the launches: %.1f–%.1f, median %.1f (what else the machine ran; "
                 "a shared machine's builds show here)." % (min(run.loads), max(run.loads),
                                                            statistics.median(run.loads)))
    L.append("")
    L.append("| implementation | role | available | reports itself as | detail |")
    L.append("|---|---|---|---|---|")
    for i in run.impls:
        hdr = next((h for (im, _), h in run.headers.items() if im == i["name"]), None)
        ident = ""
        if hdr:
            ident = "%s, %s %s" % (hdr["impl"].get("name", "?"), hdr["impl"].get("api", "OpenSHMEM"),
                                   hdr["impl"].get("spec", "?"))
        detail = i.get("detail", "") or i.get("reason", "")
        if i.get("version"):
            detail += "; " + i["version"]
        L.append("| %s | %s | %s | %s | %s |" % (i["name"], i.get("role", ""), "yes" if i.get("available") else "**no**",
                                               ident, detail.replace("|", "/")))
    if m.get("env"):
        L.append("")
        L.append("Environment: " + ", ".join("`%s=%s`" % kv for kv in sorted(m["env"].items())))
    L.append("")
    if not run.shimmer:
        L.append("**Shimmer is not available in this run** (see above): its columns are empty and every "
                 "target reads \"no data\".")
        L.append("")
    if m.get("set") == "mpi":
        L.append("**Shimmer vs MPI set**: no OpenSHMEM peer runs in it; the first table holds the figures "
                 "of the one-node jobs it shares with the headline set.")
        L.append("")
    elif not run.peer:
        L.append("**The peer is missing in this run**: figures are compared with the machine's limits only.")
        L.append("")
    if any(i.get("stand_in") for i in run.impls):
        L.append("**Stand-in run**: the implementation labelled Shimmer is not Shimmer (see the table); "
                 "the numbers test the suite, not the library.")
        L.append("")
    L.append("Each value is the median over repetitions, with [min–max]; `~` marks a noisy figure "
             "(max/min > %.1f), `!` a figure whose data check failed, `*` a figure beyond its machine "
             "limit (a measurement fault: the probe did not bound it). A limit is the best repetition of "
             "its probe, which measures the figure's own access pattern; a bandwidth's is the copy "
             "limit of the same pattern and size, with every core copying where that is faster. Ratios "
             "are of medians; for bandwidths and rates higher is better, for times lower is better."
             % NOISY_RATIO)
    L.append("")
    main_rows = [r for r in rows if r["group"] == "main" and has_any(r)]
    if main_rows:
        L.append("## Figures and targets")
        L.append("")
        L.append(md_table(main_rows))
        L.append("")
    coll_rows = [r for r in rows if r["group"] == "coll" and has_any(r)]
    if coll_rows:
        met = sum(1 for r in coll_rows if r["verdict"].startswith("met"))
        judged = sum(1 for r in coll_rows if r["verdict"].startswith(("met", "MISSED")))
        L.append("## Collectives against the peer")
        L.append("")
        L.append("Target (API issue): at 2, 4 and 8 PEs each collective at 8 B, 4 KiB and 1 MiB at least as fast "
                 "as the peer, and at 8 B (and barrier) at least 3x faster. Met: %d of %d judged." % (met, judged))
        L.append("")
        L.append(md_table(coll_rows))
        L.append("")
    if m.get("set") != "apps":
        L.extend(versus_mpi.markdown(run, pls, plots))
    L.extend(app_kernels.markdown(run, plots))
    L.extend(footprint.markdown(run, plots))
    L.extend(req_report.markdown(run, plots))
    L.extend(wait_report.markdown(run, plots))
    L.append("## Measurement faults")
    L.append("")
    fl = faults(rows) + versus_mpi.fault_lines(pls)
    if run.quick:
        L.append("Not judged: a smoke run's few iterations bound nothing.")
    else:
        L.extend(["- " + f for f in fl] or ["None: every figure is within its limit."])
    L.append("")
    L.append("## Crashes, unsupported figures and faults")
    L.append("")
    if run.events:
        for line in describe_events(run.events):
            L.append("- " + line)
    else:
        L.append("None.")
    L.append("")
    L.append("## Plots")
    L.append("")
    if plot_err:
        L.append("No plots: " + plot_err + ".")
    for p in plots:
        if p.startswith(("vs_mpi_", "app_", "req_")) or p == "footprint.png":
            continue               # shown in their section
        L.append("![%s](%s)" % (p, p))
        L.append("")
    L.append("## Raw data")
    L.append("")
    L.append("`raw/<implementation>/<job>.r<rep>.jsonl`: the benchmarks' own output (header with machine, build "
             "and PE layout; one record per point) followed by the runner's launch record; `summary.json`: "
             "the aggregated figures. Method and columns: `bench/README.md`.")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(L) + "\n")


def summary_json(run, rows, pls, path):
    def st(s):
        return s.as_dict() if s else None
    out = {"meta": run.meta, "figures": [
        {k: (st(v) if isinstance(v, Stat) else v) for k, v in r.items()} for r in rows],
        "vs_mpi": versus_mpi.summary(run, pls),
        "apps": app_kernels.summary(run),
        "apps_profile": app_kernels.profile_summary(run),
        "footprint": footprint.summary(run),
        "requests": req_report.summary(run),
        "waiting": wait_report.summary(run),
        "events": run.events}
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, default=str)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", help="results directory written by bench/runner.py")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--quiet", action="store_true", help="do not print the table")
    a = ap.parse_args(argv)
    run = Run(a.results)
    rows = [evaluate(run, f) for f in figures()]
    pls = versus_mpi.placements(run)
    plots, err = ([], "disabled (--no-plots)") if a.no_plots else make_plots(run, a.results, pls)
    write_report(run, rows, pls, plots, err, os.path.join(a.results, "report.md"))
    summary_json(run, rows, pls, os.path.join(a.results, "summary.json"))
    if not a.quiet:
        if run.quick:
            print(QUICK_LINE)
        shown = [r for r in rows if has_any(r) and (r["group"] == "main" or r["target"] != "—")]
        if any(r["group"] == "main" for r in shown):
            print(text_table([r for r in shown if r["group"] == "main"], run.shimmer, run.peer))
        coll = [r for r in shown if r["group"] == "coll"]
        if coll:
            print()
            print(text_table(coll, run.shimmer, run.peer))
        for sec in (versus_mpi.text_summary(run, pls), app_kernels.text_summary(run),
                    footprint.text_summary(run), req_report.text_summary(run),
                    wait_report.text_summary(run)):
            if sec:
                print()
                print("\n".join(sec))
        fl = faults(rows) + versus_mpi.fault_lines(pls)
        if fl:
            print()
            for line in fl:
                print("fault: " + line)
        if run.events:
            print()
            for line in describe_events(run.events):
                print("note: " + line)
        print()
        print("report: %s" % os.path.join(a.results, "report.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
