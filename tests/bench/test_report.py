#!/usr/bin/env python3
"""Report generation on recorded JSON, and the runner's crash handling.

Fixture: fixtures/run/ is a trimmed results directory of a real two-repetition
run (Shimmer and Open MPI's OSHMEM on the 2-core development machine), with a
recorded crash (the peer's int compare_swap) and an unsupported figure.
No timing is judged anywhere: values are only recomputed from the raw files.
"""
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import report  # noqa: E402
import runner  # noqa: E402

FIXTURE = os.path.join(HERE, "fixtures", "run")


def raw_values(root, impl, job, metric, **key):
    """The metric over repetitions, straight from the raw files (worst PE within a launch)."""
    vals = []
    d = os.path.join(root, "raw", impl)
    for name in sorted(os.listdir(d)):
        if not name.startswith(job + ".r"):
            continue
        best = None
        for rec in report.load_jsonl(os.path.join(d, name)):
            if rec.get("type") == "row" and all(rec.get(k) == v for k, v in key.items()) and metric in rec:
                best = rec[metric] if best is None else max(best, rec[metric])
        if best is not None:
            vals.append(best)
    return vals


class ReportFromFixture(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="bench-report-")
        self.dir = os.path.join(self.tmp, "run")
        shutil.copytree(FIXTURE, self.dir)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def summary(self):
        with open(os.path.join(self.dir, "summary.json")) as f:
            return {fig["id"]: fig for fig in json.load(f)["figures"]}

    def test_writes_report_and_summary(self):
        self.assertEqual(report.main([self.dir, "--no-plots", "--quiet"]), 0)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        self.assertIn("| figure | Shimmer | peer | limit | Shimmer/peer | Shimmer/limit | target | verdict |", md)
        self.assertIn("## Collectives against the peer", md)
        self.assertIn("stack smashing", md)            # the recorded crash is reported, not lost
        self.assertIn("OpenSHMEM 1.5", md)             # the unsupported figure says why
        self.assertIn("No plots: disabled", md)
        figs = self.summary()
        for fid in ("pingpong_8", "putmem_bw_1048576", "amo_fetch_add", "startup_2", "rss_2"):
            self.assertIn(fid, figs)

    def test_values_are_medians_of_raw_runs(self):
        report.main([self.dir, "--no-plots", "--quiet"])
        figs = self.summary()
        for impl, col in (("shimmer", "shimmer"), ("oshmem", "peer")):
            vals = raw_values(self.dir, impl, "put_lat", "pingpong_us", size=8)
            self.assertGreaterEqual(len(vals), 2)
            got = figs["pingpong_8"][col]
            self.assertAlmostEqual(got["median"], statistics.median(vals))
            self.assertEqual(got["min"], min(vals))
            self.assertEqual(got["max"], max(vals))
        # a machine limit is its best repetition (a time: the lowest)
        lim = min(raw_values(self.dir, "limit", "cacheline_pingpong", "latency_us", mode="flag"))
        f = figs["pingpong_8"]
        self.assertAlmostEqual(f["limit_v"], lim)
        self.assertAlmostEqual(f["ratio_limit"], f["shimmer"]["median"] / lim)
        self.assertAlmostEqual(f["ratio_peer"], f["shimmer"]["median"] / f["peer"]["median"])
        expect = "met" if f["ratio_limit"] <= 1.5 else "MISSED"
        self.assertTrue(f["verdict"].startswith(expect), f["verdict"])

    def test_a_probes_setting_column_keeps_one_series(self):
        # cacheline_pingpong reports the answer delay that won (`delay`):
        # a column that differs between repetitions must not split the limit
        # into one series a repetition, which no figure can then find
        d = os.path.join(self.dir, "raw", "limit")
        for rep, name in enumerate(sorted(n for n in os.listdir(d) if n.startswith("cacheline_pingpong.r"))):
            path = os.path.join(d, name)
            with open(path) as f:
                lines = f.read().splitlines()
            with open(path, "w") as f:
                for line in lines:
                    rec = json.loads(line) if line.startswith("{") else None
                    if isinstance(rec, dict) and rec.get("type") == "row":
                        rec["delay"] = 4 * rep
                        line = json.dumps(rec)
                    f.write(line + "\n")
        report.main([self.dir, "--no-plots", "--quiet"])
        lim = min(raw_values(self.dir, "limit", "cacheline_pingpong", "latency_us", mode="flag"))
        self.assertAlmostEqual(self.summary()["pingpong_8"]["limit_v"], lim)

    def test_pause_turn_is_reported(self):
        # cacheline_pingpong's mode=pause row: the report gives its best repetition
        d = os.path.join(self.dir, "raw", "limit")
        names = sorted(n for n in os.listdir(d) if n.startswith("cacheline_pingpong.r"))
        self.assertGreaterEqual(len(names), 2)
        for rep, name in enumerate(names):
            path = os.path.join(d, name)
            with open(path) as f:
                recs = [json.loads(line) for line in f if line.startswith("{")]
            with open(path, "w") as f:
                for rec in recs:
                    if rec.get("type") == "header":
                        rec["columns"].insert(2, ["tsc_cycles", "cycles"])
                    if rec.get("type") == "end":
                        f.write(json.dumps({"type": "point", "index": 99, "label": "mode=pause"}) + "\n")
                        f.write(json.dumps({"type": "row", "point": 99, "mode": "pause",
                                            "latency_us": 0.0245 - 0.001 * rep, "tsc_cycles": 64.0 - rep,
                                            "pinned": False, "delay": 0, "iterations": 5000,
                                            "valid": True}) + "\n")
                    f.write(json.dumps(rec) + "\n")
        report.main([self.dir, "--no-plots", "--quiet"])
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        best = len(names) - 1
        self.assertIn("A turn of a pause loop (the step of a polling wait): %s ns, %s TSC cycles"
                      % (report.fmt(24.5 - best), report.fmt(64.0 - best)), md)

    def test_collective_rows_compare_with_peer(self):
        report.main([self.dir, "--no-plots", "--quiet"])
        f = self.summary()["bcast_2_8"]
        self.assertEqual(f["target"], "<= 1/3× peer")
        if f["shimmer"] and f["peer"]:
            ok = f["shimmer"]["median"] / f["peer"]["median"] <= 1 / 3
            self.assertTrue(f["verdict"].startswith("met" if ok else "MISSED"))

    def test_missing_peer_is_said(self):
        with open(os.path.join(self.dir, "run.json")) as f:
            meta = json.load(f)
        for i in meta["impls"]:
            if i["role"] == "peer":
                i["available"] = False
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)
        report.main([self.dir, "--no-plots", "--quiet"])
        with open(os.path.join(self.dir, "report.md")) as f:
            self.assertIn("The peer is missing", f.read())
        f = self.summary()["pingpong_8"]
        self.assertIsNone(f["peer"])
        self.assertIsNone(f["ratio_peer"])
        self.assertIsNotNone(f["limit_v"])       # still compared with the limit

    def test_quick_run_says_so_and_judges_nothing(self):
        with open(os.path.join(self.dir, "run.json")) as f:
            meta = json.load(f)
        meta["quick"] = True
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)
        out = io.StringIO()
        with redirect_stdout(out):
            report.main([self.dir, "--no-plots"])
        self.assertTrue(out.getvalue().startswith("quick (smoke run)"))
        with open(os.path.join(self.dir, "report.md")) as f:
            self.assertIn("quick (smoke run)", f.readline())
        for fid, f in self.summary().items():
            self.assertEqual(f["verdict"], "—", fid)
            self.assertFalse(f["shimmer_fault"] or f["peer_fault"], fid)

    def test_torn_line_is_ignored(self):
        path = os.path.join(self.dir, "raw", "shimmer", "put_lat.r0.jsonl")
        with open(path, "a") as f:
            f.write('{"type": "row", "point": 99, "size": 8, "pingpo')
        self.assertEqual(report.main([self.dir, "--no-plots", "--quiet"]), 0)

    def test_noise_flag(self):
        self.assertTrue(report.Stat([1.0, 1.2, 1.6]).noisy)
        self.assertFalse(report.Stat([1.0, 1.2, 1.4]).noisy)
        self.assertFalse(report.Stat([5.0]).noisy)
        self.assertEqual(report.Stat([3.0, 1.0, 2.0]).median, 2.0)

    def test_plots(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("matplotlib not available to %s" % sys.executable)
        report.main([self.dir, "--quiet"])
        for png in ("put_latency.png", "pingpong_latency.png", "put_bandwidth.png"):
            p = os.path.join(self.dir, png)
            self.assertTrue(os.path.exists(p), png)
            with open(p, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


FAKE_BENCH = r'''#!%(py)s
# A stand-in benchmark: 5 points; point 2 aborts unless skipped.
import json, os, sys
args = sys.argv[1:]
out = args[args.index("-o") + 1]
skip = int(args[args.index("--skip-points") + 1]) if "--skip-points" in args else 0
with open(out, "w") as f:
    f.write(json.dumps({"type": "header", "bench": "fake", "columns": [["x", ""], ["latency_us", "us"]]}) + "\n")
    for i in range(5):
        if i < skip:
            continue
        f.write(json.dumps({"type": "point", "index": i, "label": "x=%%d" %% i}) + "\n")
        f.flush()
        if i == 2:
            sys.stderr.write("*** stack smashing detected ***: terminated\n")
            os.abort()
        f.write(json.dumps({"type": "row", "point": i, "x": i, "latency_us": 1.0 + i}) + "\n")
    f.write(json.dumps({"type": "end", "status": "ok"}) + "\n")
'''


class RunnerLaunch(unittest.TestCase):
    def test_launch_keeps_the_runners_autogroup_nice(self):
        if runner.autogroup_nice() is None:
            self.skipTest("no autogroup scheduling here (/proc/self/autogroup)")
        saved = runner.AUTOGROUP_NICE
        runner.AUTOGROUP_NICE = 3           # a lower weight needs no privilege
        try:
            rc, out, _, _, _ = runner.launch(["cat", "/proc/self/autogroup"], 30)
        finally:
            runner.AUTOGROUP_NICE = saved
        self.assertEqual(rc, 0)
        self.assertTrue(out.strip().endswith("nice 3"), out)


class RunnerJobs(unittest.TestCase):
    def test_quick_runs_every_operation_of_a_job(self):
        # --quick is a smoke run of every row: its arguments may shrink the
        # sweep but not drop an operation the job measures (-x)
        def ops(args):
            return args[args.index("-x") + 1] if "-x" in args else None
        for j in runner.JOBS:
            if j["quick_args"] is not None:
                self.assertEqual(ops(j["quick_args"]), ops(j["args"]), j["id"])


class RunnerCrashResume(unittest.TestCase):
    def test_crash_costs_only_that_point(self):
        tmp = tempfile.mkdtemp(prefix="bench-runner-")
        try:
            prog = os.path.join(tmp, "fake")
            with open(prog, "w") as f:
                f.write(FAKE_BENCH % {"py": sys.executable})
            os.chmod(prog, 0o755)
            j = {"id": "fake", "prog": "fake", "args": [], "full_args": None, "n": 1, "kind": "limit"}
            st = runner.run_job({"name": "limit", "run": ""}, j, prog, 0, tmp, 30, "headline")
            self.assertEqual(st, "partial")
            recs = report.load_jsonl(os.path.join(tmp, "fake.r0.jsonl"))
            rows = [r["x"] for r in recs if r.get("type") == "row"]
            self.assertEqual(rows, [0, 1, 3, 4])
            crashes = [r for r in recs if r.get("type") == "crash"]
            self.assertEqual(len(crashes), 1)
            self.assertEqual(crashes[0]["label"], "x=2")
            self.assertIn("stack smashing", crashes[0]["reason"])
            launches = [r for r in recs if r.get("type") == "launch"]
            self.assertEqual(len(launches), 2)
            self.assertIn("--skip-points", launches[1]["cmd"])
            self.assertEqual(len(launches[0]["load"]), 2)     # the machine's load before and after
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_crash_reason(self):
        self.assertEqual(runner.crash_reason("", -11, False), "killed by SIGSEGV")
        self.assertEqual(runner.crash_reason("x", 0, True), "timed out")
        self.assertIn("stack smashing", runner.crash_reason("*** stack smashing detected ***", 134, False))


if __name__ == "__main__":
    if not os.path.isdir(FIXTURE):
        print("SKIP: no fixture at %s" % FIXTURE)
        sys.exit(77)
    unittest.main(verbosity=2)
