#!/usr/bin/env python3
"""The report's "Shimmer vs MPI" section, its limits and faults, and quick runs.

VersusMpi: a results directory is written here with planted values (the
benchmarks' own record shapes, three repetitions), so that each verdict the
report must reach is known: a target met at every size, one missed at a
single size, one missed where the machine limit rules it out (BLOCKED), a
figure above its machine limit (a measurement fault), the link peak across
hosts, and a quick run that must give no verdict at all; with the probe's
called_us (the copy and its fence behind two library calls) a size the copy
and its fence alone would allow is out of reach, and without it (older runs)
the rule falls back to fenced_us.  With the probe's cores_MBps (both
processes copying) a limit is the larger data rate of it and the one-core
figure: a flood above one core but within both is no fault, one above both
still is; a latency's limit rises where both copying, plus a cache-line
one-way time, are faster.

VersusMpiRecorded: fixtures/vs_mpi/ is a real `bench/run --mpi` run (Shimmer
and Open MPI on one node and on two namespace hosts, three repetitions, on
the 2-core development machine) trimmed to 8 sizes; every number of the
section is recomputed from its raw files.

No timing is measured; the runner's job table and launch commands are
checked too.
"""
import io
import json
import os
import shutil
import statistics
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import report  # noqa: E402
import runner  # noqa: E402
import versus_mpi  # noqa: E402
from test_report import raw_values  # noqa: E402

RECORDED = os.path.join(HERE, "fixtures", "vs_mpi")

SIZES = [8 << k for k in range(20)]          # 8 B .. 4 MiB
REPS = 3
GET_MISS = 4096                              # the size where Shimmer's get flood loses
FAULT = 1 << 20                              # the size where Shimmer's put flood beats memcpy
PUT_LAT_MISS = 1024                          # put + quiet above 0.5x MPI's, which a copy allows
OUT_OF_REACH = 2048                          # 0.5x MPI's put and get latency is below one copy
FENCE = 0.004                                # us: what completing a copy adds (memcpy_bw fenced_us)
NOISE = 0.01                                 # the repetitions lie 1 % either side of the median
CALLS = 0.004                                # us: what the two library calls add (memcpy_bw called_us)
SHARE = 128 << 10                            # from here both processes copying pass one core


def memcpy_bw(x):
    return min(50000.0, 20.0 * x)            # MB/s: the same-pattern copy


def values(called=False, cores=None):
    """{(impl, job, key items): metric values} for one repetition (rep-independent);
    called: the probe has called_us (runs before it did not); cores: the
    probe has cores_MBps, this times the one-core bandwidth from SHARE on
    and at OUT_OF_REACH (free running, each part in its core's cache), half
    of it at the other sizes."""
    v = {}
    for x in SIZES:
        mc = memcpy_bw(x)
        v[("limit", "memcpy_bw", ("op", "put"), x)] = {"bandwidth_MBps": mc, "latency_us": x / mc,
                                                       "fenced_us": x / mc + FENCE}
        if called:
            v[("limit", "memcpy_bw", ("op", "put"), x)]["called_us"] = x / mc + FENCE + CALLS
        v[("limit", "memcpy_bw", ("op", "get"), x)] = {"bandwidth_MBps": mc, "latency_us": x / mc}
        if cores:
            for op in ("put", "get"):
                v[("limit", "memcpy_bw", ("op", op), x)]["cores_MBps"] = (cores if x >= SHARE or x == OUT_OF_REACH else 0.5) * mc
        for pre, scale in (("", 1.0), ("hosts_", 0.01)):
            put = (1.05 if (x == FAULT and not pre) else 0.9) * mc * scale
            get = 0.6 * mc * scale if x == GET_MISS else 0.8 * mc * scale
            v[("shimmer", pre + "put_bw", None, x)] = {"bandwidth_MBps": put, "blocking_MBps": put}
            v[("shimmer", pre + "get_bw", None, x)] = {"bandwidth_MBps": get, "blocking_MBps": get}
            t = x / mc / scale
            v[("shimmer", pre + "put_lat", None, x)] = {"latency_us": t, "put_quiet_us": 1.2 * t + 0.002,
                                                        "pingpong_us": 2 * t + 0.05}
            v[("shimmer", pre + "get_lat", None, x)] = {"latency_us": 1.1 * t + 0.002}
            v[("shimmer", pre + "signal_lat", None, x)] = {"latency_us": 2 * t + 0.06}
            v[("shimmer", pre + "lastbyte_lat", None, x)] = {"latency_us": 2 * t + 0.045}
            # MPI's blocking latency: 3x the copy, but at PUT_LAT_MISS just
            # under 2x Shimmer's and at OUT_OF_REACH 1.5x the copy (half of
            # it is less than the copy takes)
            lat = 2.2 * t + 0.004 if x == PUT_LAT_MISS else 1.5 * t if x == OUT_OF_REACH else 3 * t + 0.02
            v[("mpi", pre + "mpi_rma", ("op", "put"), x)] = {"bandwidth_MBps": 0.5 * mc * scale,
                                                             "latency_us": lat}
            v[("mpi", pre + "mpi_rma", ("op", "get"), x)] = {
                "bandwidth_MBps": 0.7 * mc * scale, "latency_us": 1.5 * t if x == OUT_OF_REACH else 3 * t + 0.02}
            v[("mpi", pre + "mpi_msg", None, x)] = {"bandwidth_MBps": 0.3 * mc * scale, "latency_us": 4 * t + 0.1}
    v[("limit", "cacheline_pingpong", ("mode", "flag"), None)] = {"latency_us": 0.04}
    return v


COLUMNS = {"memcpy_bw": "op: size:B bandwidth_MBps:MB/s latency_us:us fenced_us:us",
           "put_bw": "size:B bandwidth_MBps:MB/s blocking_MBps:MB/s", "get_bw": "size:B bandwidth_MBps:MB/s blocking_MBps:MB/s",
           "put_lat": "size:B latency_us:us put_quiet_us:us pingpong_us:us", "get_lat": "size:B latency_us:us",
           "signal_lat": "size:B latency_us:us", "lastbyte_lat": "size:B latency_us:us",
           "mpi_rma": "op: size:B bandwidth_MBps:MB/s latency_us:us", "mpi_msg": "size:B bandwidth_MBps:MB/s latency_us:us",
           "cacheline_pingpong": "mode: latency_us:us"}


def write_run(root, quick=False, noise=0.0, called=False, cores=None):
    raw = {}
    for (impl, job, kv, x), metrics in values(called, cores).items():
        raw.setdefault((impl, job), []).append((kv, x, metrics))
    for (impl, job), rows in raw.items():
        prog = job[len("hosts_"):] if job.startswith("hosts_") else job
        names = COLUMNS[prog] + (" called_us:us" if called and prog == "memcpy_bw" else "") + (
            " cores_MBps:MB/s" if cores and prog == "memcpy_bw" else "")
        cols = [c.split(":") + [""] if ":" not in c else c.split(":", 1) for c in names.split()]
        d = os.path.join(root, "raw", impl)
        os.makedirs(d, exist_ok=True)
        for rep in range(REPS):
            with open(os.path.join(d, "%s.r%d.jsonl" % (job, rep)), "w") as f:
                f.write(json.dumps({"type": "header", "bench": prog, "columns": cols,
                                    "impl": {"name": impl, "api": "MPI" if impl == "mpi" else "OpenSHMEM",
                                             "spec": "3.1" if impl == "mpi" else "1.6"}}) + "\n")
                for i, (kv, x, metrics) in enumerate(rows):
                    rec = {"type": "row", "point": i, "valid": True}
                    if kv:
                        rec[kv[0]] = kv[1]
                    if x is not None:
                        rec["size"] = x
                    # repetitions differ a little, the median is the planted value
                    rec.update({m: val * (1 + noise * (rep - 1)) for m, val in metrics.items()})
                    f.write(json.dumps(rec) + "\n")
                f.write(json.dumps({"type": "end", "status": "ok"}) + "\n")
                f.write(json.dumps({"type": "launch", "complete": True, "wall_s": 1.0,
                                    "load": [0.5 * rep, 1.0]}) + "\n")
    meta = {"started": "test", "set": "mpi", "reps": REPS, "quick": quick, "machine": {"hostname": "test"},
            "impls": [{"name": "shimmer", "role": "shimmer", "available": True},
                      {"name": "mpi", "role": "mpi", "available": True}],
            "hosts": {"available": True, "reason": "", "how": "planted"},
            "jobs": [{"id": "hosts_put_bw", "hosts": 2}]}
    with open(os.path.join(root, "run.json"), "w") as f:
        json.dump(meta, f)


class VersusMpi(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-vsmpi-")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_report(self, quick=False, called=False, cores=None):
        write_run(self.dir, quick=quick, noise=NOISE, called=called, cores=cores)
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(report.main([self.dir, "--no-plots"]), 0)
        with open(os.path.join(self.dir, "summary.json")) as f:
            summary = json.load(f)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        return out.getvalue(), summary, md

    def targets(self, summary, placement):
        return {t["target"]: t for t in summary["vs_mpi"][placement]["targets"]}

    def test_verdicts_at_every_size(self):
        out, summary, md = self.run_report()
        node = self.targets(summary, "node")
        by = {versus_mpi.Target(*k).text(): k for k in [
            ("node", "put_flood", "rma_put_agg", ">=", 1.0), ("node", "get_flood", "rma_get_agg", ">=", 1.0),
            ("node", "get_flood", "isend", ">=", 1.0), ("node", "put_blocking", "rma_put_flush", "<=", 0.5, 4096)]}
        put_rma, get_rma, get_isend, put_lat = (node[t] for t in by)
        get_lat = node[versus_mpi.Target("node", "get_blocking", "rma_get_flush", "<=", 0.5, 4096).text()]
        # put flood 0.9x memcpy vs MPI 0.5x: met everywhere, but one size is a fault
        self.assertEqual(put_rma["verdict"], "met (fault)")
        self.assertIn("20 sizes", put_rma["detail"])
        # get flood 0.6x memcpy at 4 KiB vs MPI_Get 0.7x: missed there only
        self.assertEqual(get_rma["verdict"], "MISSED")
        self.assertIn("missed at 1 of 20 sizes: 4 KiB", get_rma["detail"])
        # both figures as % of the copy limit (its best repetition, NOISE above
        # the median): a tie at that limit told apart from a slower copy
        self.assertIn("4 KiB %s× (Shimmer %.0f %%, MPI %.0f %% of the copy limit)" % (
            versus_mpi.fmt(0.6 / 0.7), 60 / (1 + NOISE), 70 / (1 + NOISE)), get_rma["detail"])
        self.assertEqual(get_isend["verdict"], "met")
        # put + quiet: (1.2 t + 2 ns) <= 0.5 (3 t + 20 ns) holds up to 4 KiB but
        # at two sizes: at 1 KiB a copy would allow it (MISSED), at 2 KiB
        # half of MPI's time is less than the copy takes (out of reach)
        self.assertEqual(put_lat["verdict"], "MISSED")
        self.assertIn("missed at 2 of 10 sizes: 1 KiB", put_lat["detail"])
        t = OUT_OF_REACH / memcpy_bw(OUT_OF_REACH)
        self.assertIn("out of reach (limits/memcpy_bw, this run) at 2 KiB: needs %s us, the copy and its fence "
                      "take %s" % (versus_mpi.fmt(0.75 * t), versus_mpi.fmt(0.99 * (t + FENCE))), put_lat["detail"])
        self.assertNotIn("at 1 KiB:", put_lat["detail"])
        self.assertNotIn("library calls", put_lat["detail"])     # a run without called_us: fenced_us
        # the size a copy allows carries the copy and Shimmer's own cost beside it
        self.assertIn("beside the copy (limits/memcpy_bw; own = Shimmer's 8 B time less its copy): 1 KiB needs "
                      "%s us, has " % versus_mpi.fmt(0.5 * (2.2 * PUT_LAT_MISS / memcpy_bw(PUT_LAT_MISS) + 0.004)),
                      put_lat["detail"])
        self.assertNotIn("2 KiB needs", put_lat["detail"])
        # getmem misses only where no copy could: blocked, with the measurement
        self.assertEqual(get_lat["verdict"], "BLOCKED")
        self.assertIn("missed at 1 of 10 sizes: 2 KiB", get_lat["detail"])
        t = OUT_OF_REACH / memcpy_bw(OUT_OF_REACH)
        self.assertIn("needs %s us, the copy alone takes %s" % (versus_mpi.fmt(0.75 * t), versus_mpi.fmt(0.99 * t)),
                      get_lat["detail"])
        # across hosts the link peak is what a method reached: never a bound
        hosts = self.targets(summary, "hosts")
        self.assertFalse(any(h["verdict"] == "BLOCKED" or "out of reach" in h["detail"] for h in hosts.values()))
        # % of the copy limit only for a bandwidth on one node: not for a
        # latency, nor across hosts (there the peak is no copy)
        self.assertNotIn("of the copy limit", put_lat["detail"])
        self.assertIn("4 KiB", hosts[get_rma["target"]]["detail"])
        self.assertFalse(any("of the copy limit" in h["detail"] for h in hosts.values()))
        self.assertIn("## Shimmer vs MPI", md)
        self.assertIn("Shimmer vs MPI", out)
        # the machine's load around the launches: 0, 0.5, 1 before, 1 after
        self.assertIn("Load average (1 min) around the launches: 0.0–1.0, median 1.0", md)

    def test_library_calls_put_a_size_out_of_reach(self):
        target = versus_mpi.Target("node", "put_blocking", "rma_put_flush", "<=", 0.5, 4096).text()
        _, plain, _ = self.run_report()
        self.assertEqual(self.targets(plain, "node")[target]["verdict"], "MISSED")   # fenced_us alone
        _, summary, _ = self.run_report(called=True)
        put_lat = self.targets(summary, "node")[target]
        # 1 KiB asks for 0.5 (2.2 t + 4 ns): more than the copy and its fence
        # (0.99 (t + FENCE)), less than the two calls add to them (0.99 (t +
        # FENCE + CALLS)); 2 KiB is out of reach either way: every miss is
        self.assertEqual(put_lat["verdict"], "BLOCKED")
        t = PUT_LAT_MISS / memcpy_bw(PUT_LAT_MISS)
        self.assertGreater(0.5 * (2.2 * t + 0.004), 0.99 * (t + FENCE))
        self.assertIn("out of reach (limits/memcpy_bw, this run) at 1 KiB: ", put_lat["detail"])
        for x in (PUT_LAT_MISS, OUT_OF_REACH):
            t = x / memcpy_bw(x)
            need = 0.5 * (2.2 * t + 0.004) if x == PUT_LAT_MISS else 0.75 * t
            self.assertIn("%s: needs %s us, the copy and its fence behind the program's two library calls "
                          "take %s" % (versus_mpi.human(x), versus_mpi.fmt(need),
                                       versus_mpi.fmt(0.99 * (t + FENCE + CALLS))), put_lat["detail"])
        self.assertNotIn("beside the copy", put_lat["detail"])
        # getmem is no completed put: its rule is the copy alone
        get_lat = self.targets(summary, "node")[
            versus_mpi.Target("node", "get_blocking", "rma_get_flush", "<=", 0.5, 4096).text()]
        self.assertIn("the copy alone takes", get_lat["detail"])
        # the peak stays the copy and its fence: no % of peak moves
        for pid in ("node", "hosts"):
            for mid, cells in summary["vs_mpi"][pid]["methods"].items():
                for x, c in cells.items():
                    self.assertEqual(c["pct_of_peak"], plain["vs_mpi"][pid]["methods"][mid][x]["pct_of_peak"],
                                     (pid, mid, x))

    def test_percent_of_peak_and_faults(self):
        _, summary, md = self.run_report()
        # the peak is memcpy's best repetition: 1.01x the planted bandwidth,
        # 0.99x the planted time
        node = summary["vs_mpi"]["node"]["methods"]
        self.assertAlmostEqual(node["put_flood"]["65536"]["pct_of_peak"], 0.9 / 1.01, places=6)
        self.assertAlmostEqual(node["rma_put_agg"]["65536"]["pct_of_peak"], 0.5 / 1.01, places=6)
        self.assertTrue(node["put_flood"][str(FAULT)]["fault"])
        self.assertFalse(node["put_flood"]["65536"]["fault"])
        # a latency as a data rate: size / time against the same copy; a put
        # completed by quiet or MPI_Win_flush against the copy and its fence
        t = (1 << 20) / memcpy_bw(1 << 20)
        self.assertAlmostEqual(node["get_blocking"]["1048576"]["pct_of_peak"], 0.99 * t / (1.1 * t + 0.002),
                               places=6)
        self.assertAlmostEqual(node["put_blocking"]["1048576"]["pct_of_peak"], 0.99 * (t + FENCE) / (1.2 * t + 0.002),
                               places=6)
        self.assertAlmostEqual(node["rma_put_flush"]["1048576"]["pct_of_peak"], 0.99 * (t + FENCE) / (3 * t + 0.02),
                               places=6)
        self.assertIn("Measurement faults", md)
        self.assertIn("Shimmer putmem_nbi x64 + quiet at 1 MiB", md)
        # across hosts the peak is the best rate any method reached, named
        hosts = summary["vs_mpi"]["hosts"]
        self.assertIn("best data rate any method reached", hosts["peak"])
        best = max(versus_mpi.rate(versus_mpi.BY_ID[mid], int(x), r["median"])
                   for mid, m in hosts["methods"].items() for x, r in m.items())
        self.assertIn("%.0f MB/s" % best, hosts["peak"])
        self.assertAlmostEqual(max(r["pct_of_peak"] for m in hosts["methods"].values() for r in m.values()), 1.0)
        self.assertFalse(any(r["fault"] for m in hosts["methods"].values() for r in m.values()))

    def test_quick_run_gives_no_verdicts(self):
        out, summary, md = self.run_report(quick=True)
        self.assertTrue(out.splitlines()[0].startswith("quick (smoke run)"), out.splitlines()[0])
        self.assertIn("quick (smoke run)", md.splitlines()[0])
        for pl in summary["vs_mpi"].values():
            for t in pl["targets"]:
                self.assertEqual(t["verdict"], "—")
            self.assertFalse(any(r["fault"] for m in pl["methods"].values() for r in m.values()))
        for f in summary["figures"]:
            self.assertNotIn(f["verdict"].split(" ")[0], ("met", "MISSED", "FAULT"), f["id"])
        self.assertNotIn("MISSED", out)
        self.assertNotIn("missed", out)
        self.assertNotIn("met ", out)

    def test_main_table_limit_is_best_repetition_and_flags_faults(self):
        _, summary, _ = self.run_report()
        f = {x["id"]: x for x in summary["figures"]}["put_nbi_bw_1M"]
        # memcpy 1 MiB repetitions: 0.99x, 1x, 1.01x of 50000: the limit is the best one
        self.assertAlmostEqual(f["limit_v"], 50000 * 1.01, places=3)
        self.assertTrue(f["shimmer_fault"])       # 1.01x memcpy beats even the best

    def test_limit_with_every_core_copying(self):
        # both processes copying at 1.1x one core from SHARE on: the 1 MiB
        # flood (1.05x one core) is within its limit, no fault anywhere
        _, summary, md = self.run_report(cores=1.1)
        node = summary["vs_mpi"]["node"]["methods"]
        self.assertAlmostEqual(node["put_flood"][str(FAULT)]["pct_of_peak"], 1.05 / (1.1 * 1.01), places=6)
        self.assertAlmostEqual(node["rma_get_agg"][str(FAULT)]["pct_of_peak"], 0.7 / (1.1 * 1.01), places=6)
        # below SHARE both copying are slower (0.5x): one core is the limit
        self.assertAlmostEqual(node["put_flood"]["65536"]["pct_of_peak"], 0.9 / 1.01, places=6)
        self.assertFalse(any(c["fault"] for m in node.values() for c in m.values()))
        # a latency's limit too, with a cache-line one-way time (its best
        # repetition: 0.99 x 0.04 us) for handing part of the copy over: at
        # 1 MiB both copying, at 64 KiB one core
        t = (1 << 20) / memcpy_bw(1 << 20)
        both = (1 << 20) / (1.1 * 1.01 * memcpy_bw(1 << 20)) + 0.99 * 0.04
        self.assertAlmostEqual(node["get_blocking"]["1048576"]["pct_of_peak"], both / (1.1 * t + 0.002), places=6)
        self.assertAlmostEqual(node["pp_signal"]["1048576"]["pct_of_peak"], both / (2 * t + 0.06), places=6)
        t = 65536 / memcpy_bw(65536)
        self.assertAlmostEqual(node["get_blocking"]["65536"]["pct_of_peak"], 0.99 * t / (1.1 * t + 0.002),
                               places=6)
        # at 2 KiB both copying pass one core free running (a flood's limit),
        # but not with the line's trip (a latency's): getmem stays out of reach
        x = OUT_OF_REACH
        t = x / memcpy_bw(x)
        self.assertAlmostEqual(node["put_flood"][str(x)]["pct_of_peak"], 0.9 / (1.1 * 1.01), places=6)
        self.assertAlmostEqual(node["get_blocking"][str(x)]["pct_of_peak"], 0.99 * t / (1.1 * t + 0.002), places=6)
        get_lat = self.targets(summary, "node")[
            versus_mpi.Target("node", "get_blocking", "rma_get_flush", "<=", 0.5, 4096).text()]
        self.assertEqual(get_lat["verdict"], "BLOCKED")
        self.assertIn("with every core copying where that is faster", summary["vs_mpi"]["node"]["peak"])
        self.assertIn("None: every figure is within its limit.", md)
        f = {x["id"]: x for x in summary["figures"]}
        self.assertAlmostEqual(f["put_nbi_bw_1M"]["limit_v"], 50000 * 1.1 * 1.01, places=3)
        self.assertFalse(f["put_nbi_bw_1M"]["shimmer_fault"])
        self.assertEqual(f["put_nbi_bw_1M"]["limit_note"], "same-pattern copy, every core")
        self.assertAlmostEqual(f["get_bw_1M"]["limit_v"], 50000 * 1.1 * 1.01, places=3)

    def test_fault_beyond_every_core_copying(self):
        # both copying at 1.02x one core: the 1 MiB flood (1.05x) beats even
        # that limit's best repetition (1.02 x 1.01): still a fault
        _, summary, md = self.run_report(cores=1.02)
        node = summary["vs_mpi"]["node"]["methods"]
        self.assertTrue(node["put_flood"][str(FAULT)]["fault"])
        self.assertEqual([(mid, x) for mid, m in node.items() for x, c in m.items() if c["fault"]],
                         [("put_flood", str(FAULT))])
        f = {x["id"]: x for x in summary["figures"]}["put_nbi_bw_1M"]
        self.assertAlmostEqual(f["limit_v"], 50000 * 1.02 * 1.01, places=3)
        self.assertTrue(f["shimmer_fault"])
        self.assertEqual(f["verdict"], "—")       # no target: the fault is listed, not judged
        self.assertIn("Shimmer putmem_nbi x64 + quiet at 1 MiB", md)
        self.assertIn("is beyond its limit", md)

    def test_no_mpi_is_said(self):
        write_run(self.dir)
        with open(os.path.join(self.dir, "run.json")) as f:
            meta = json.load(f)
        meta["impls"][1].update(available=False, reason="not installed (/usr/bin/mpicc, /usr/bin/mpirun)")
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)
        report.main([self.dir, "--no-plots", "--quiet"])
        with open(os.path.join(self.dir, "report.md")) as f:
            self.assertIn("MPI is not available in this run** (not installed", f.read())


class VersusMpiRecorded(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench-vsmpi-rec-")
        self.dir = os.path.join(self.tmp, "run")
        shutil.copytree(RECORDED, self.dir)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def edit_meta(self, **changes):
        with open(os.path.join(self.dir, "run.json")) as f:
            meta = json.load(f)
        meta.update(changes)
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)

    def report(self):
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(report.main([self.dir, "--no-plots"]), 0)
        with open(os.path.join(self.dir, "summary.json")) as f:
            vs = json.load(f)["vs_mpi"]
        with open(os.path.join(self.dir, "report.md")) as f:
            return out.getvalue(), vs, f.read()

    def raw(self, m, prefix, size):
        impl = "shimmer" if m.role == "shimmer" else "mpi"
        return raw_values(self.dir, impl, prefix + m.job, m.metric, size=size, **m.key)

    def limit_rate(self, m, size):
        """The one-node peak of method m at size, straight from the probe's raw files."""
        # both processes copying, where faster (runs with cores_MBps)
        both = max(raw_values(self.dir, "limit", "memcpy_bw", "cores_MBps", op=m.op, size=size), default=0.0)
        if m.shape == "bw":
            return max([both] + raw_values(self.dir, "limit", "memcpy_bw", "bandwidth_MBps", op=m.op, size=size))
        fenced = raw_values(self.dir, "limit", "memcpy_bw", "fenced_us", op=m.op, size=size)
        t = min(fenced if m.completed and fenced else
                raw_values(self.dir, "limit", "memcpy_bw", "latency_us", op=m.op, size=size))
        cl = min(raw_values(self.dir, "limit", "cacheline_pingpong", "latency_us", mode="flag"))
        if m.pingpong:
            t = max(t, cl)
        return max(size / t, size / (size / both + cl) if both else 0.0)

    def test_cells_are_medians_and_percent_of_peak(self):
        _, vs, md = self.report()
        self.assertEqual(set(vs), {"node", "hosts"})
        best = 0.0
        for pid, prefix in (("node", ""), ("hosts", "hosts_")):
            methods = vs[pid]["methods"]
            self.assertEqual(set(methods), {m.id for m in versus_mpi.METHODS}, pid)
            for mid, cells in methods.items():
                m = versus_mpi.BY_ID[mid]
                for x, c in cells.items():
                    vals = self.raw(m, prefix, int(x))
                    self.assertEqual(len(vals), 3, (pid, mid, x))
                    self.assertAlmostEqual(c["median"], statistics.median(vals), msg=(pid, mid, x))
                    r = versus_mpi.rate(m, int(x), c["median"])
                    if pid == "node":
                        self.assertAlmostEqual(c["pct_of_peak"], r / self.limit_rate(m, int(x)), places=9)
                        self.assertEqual(c["fault"], c["pct_of_peak"] > 1.0, (mid, x))
                    else:
                        best = max(best, r)
        # across hosts: the best rate any method reached is 100 %, named in the peak
        self.assertIn("%s MB/s" % versus_mpi.fmt(best), vs["hosts"]["peak"])
        hosts = [c for cells in vs["hosts"]["methods"].values() for c in cells.values()]
        self.assertAlmostEqual(max(c["pct_of_peak"] for c in hosts), 1.0)
        self.assertFalse(any(c["fault"] for c in hosts))
        self.assertIn("### One node, 2 PEs or ranks", md)
        self.assertIn("### Two hosts (network namespaces), UCX over TCP", md)

    def test_faults_are_listed(self):
        out, vs, md = self.report()
        faults = sorted((mid, int(x)) for mid, cells in vs["node"]["methods"].items()
                        for x, c in cells.items() if c["fault"])
        self.assertTrue(faults)                   # this run has some: Shimmer's copy at memcpy speed
        for mid, x in faults:
            what = "%s at %s" % (versus_mpi.BY_ID[mid].label, versus_mpi.human(x))
            self.assertIn(what, md)
            self.assertIn("Shimmer vs MPI, node: " + what, out)

    def test_verdicts_follow_the_medians(self):
        _, vs, _ = self.report()
        for pid in ("node", "hosts"):
            got = {t["target"]: t for t in vs[pid]["targets"]}
            methods = vs[pid]["methods"]
            for t in versus_mpi.TARGETS:
                if t.placement != pid:
                    continue
                ours, theirs = methods[t.ours.id], methods[t.theirs.id]
                sizes = [x for x in ours if int(x) <= t.max_size and x in theirs]
                ratio = {x: ours[x]["median"] / theirs[x]["median"] for x in sizes}
                ok = {x: r >= t.factor if t.op == ">=" else r <= t.factor for x, r in ratio.items()}
                v = got[t.text()]
                if all(ok.values()):
                    self.assertTrue(v["verdict"].startswith("met"), v)
                else:
                    self.assertTrue(v["verdict"].startswith(("MISSED", "BLOCKED")), v)
                    self.assertIn("missed at %d of %d sizes" % (sum(not o for o in ok.values()), len(sizes)),
                                  v["detail"])
                self.assertEqual("(fault)" in v["verdict"],
                                 any(methods[m][x]["fault"] for m in (t.ours.id, t.theirs.id) for x in sizes), v)

    def test_quick_run_judges_nothing(self):
        self.edit_meta(quick=True)
        out, vs, md = self.report()
        self.assertTrue(out.startswith("quick (smoke run)"))
        self.assertIn("quick (smoke run)", md.splitlines()[0])
        self.assertIn("quick (smoke run): tiny iteration counts, no verdicts.", md)
        for pl in vs.values():
            self.assertEqual({t["verdict"] for t in pl["targets"]}, {"—"})
            self.assertFalse(any(c["fault"] for cells in pl["methods"].values() for c in cells.values()))
        self.assertIn("## Measurement faults\n\nNot judged: a smoke run's few iterations bound nothing.", md)
        self.assertNotIn("Measurement faults (a figure beyond its limit", md)

    def test_mpi_set_shows_only_its_jobs(self):
        _, _, md = self.report()
        self.assertIn("**Shimmer vs MPI set**: no OpenSHMEM peer runs in it", md)
        self.assertNotIn("The peer is missing", md)
        self.assertIn("| 8 B put + flag ping-pong, half round trip (us) |", md)    # put_lat ran
        self.assertNotIn("on a global", md)                 # put_lat_global is not in the set
        self.assertNotIn("no data", md)

    def test_hosts_not_measured_is_said(self):
        for d in ("shimmer", "mpi"):
            for name in os.listdir(os.path.join(self.dir, "raw", d)):
                if name.startswith("hosts_"):
                    os.remove(os.path.join(self.dir, "raw", d, name))
        self.edit_meta(hosts={"available": False, "reason": "multi-host runs need root (network namespaces)"})
        _, vs, md = self.report()
        self.assertEqual(set(vs), {"node"})
        self.assertIn("**Across hosts: not measured in this run**: multi-host runs need root", md)


class RunnerJobs(unittest.TestCase):
    def test_across_hosts_launch(self):
        j = next(j for j in runner.JOBS if j["id"] == "hosts_mpi_rma")
        mpi = dict(next(i for i in runner.IMPLS if i["role"] == "mpi"))
        mpi["run_hosts"] = mpi["run_hosts"].replace("{root}", ROOT)
        cmd = runner.launch_prefix(mpi, j, 180)
        self.assertIn("mn_run.sh", cmd[cmd.index("2x1") - 1])
        self.assertIn("OMPI_MCA_osc=ucx", cmd)
        self.assertIn("OMPI_MCA_pml=ucx", cmd)
        self.assertEqual(cmd[cmd.index("-t") + 1], "165")    # mpirun gives up before the runner
        self.assertEqual(cmd[-1], "--")
        one = next(j for j in runner.JOBS if j["id"] == "mpi_rma")
        self.assertEqual(runner.launch_prefix(mpi, one, 180)[0], "/usr/bin/mpirun")

    def test_sets_and_roles(self):
        mpi_set = {j["id"] for j in runner.JOBS if "mpi" in j["sets"]}
        headline = {j["id"] for j in runner.JOBS if "headline" in j["sets"]}
        for m in versus_mpi.METHODS:
            self.assertIn(m.job, mpi_set, m.id)
            self.assertIn("hosts_" + m.job, mpi_set, m.id)
            self.assertIn(m.job, headline, m.id)            # one node: part of the headline run
        self.assertFalse(any(j["id"].startswith("hosts_") for j in runner.JOBS if "headline" in j["sets"]))
        for j in runner.JOBS:
            if j["kind"] == "mpi":
                self.assertEqual(j["roles"], ("mpi",))
        self.assertEqual(runner.parse_impl("mpi=/opt/mpi/bin/mpicc::mpirun -np {n}")["role"], "mpi")
        self.assertEqual(runner.parse_impl("mpi=/opt/mpi/bin/mpicc::mpirun -np {n}")["mpicc"], "/opt/mpi/bin/mpicc")


if __name__ == "__main__":
    unittest.main(verbosity=2)
