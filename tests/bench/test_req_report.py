#!/usr/bin/env python3
"""The report's "Merged requests" verdicts, from planted rows: on one node
the paired rate (bench/req.c: each merged row carries the median
merged/default ratio of its pairs and a 95 % interval of it): a point whose
interval holds 1.0 is equal within that resolution, not met; one wholly
below is MISSED.  Across hosts the rate against both default paths (the
coalescing one, and job hosts_req_percall's one UCX put per put) and the
bounds the why-lines state (overlap's from the planted CPU times of a
window's phases, which differ from their wall times).  No program is run; the values are written
here and read back."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "bench"))

import report  # noqa: E402
import req_report  # noqa: E402

COLS = [["op", ""], ["mode", ""], ["size", "B"], ["threads", ""], ["window", ""],
        ["messages_per_s", "1/s"], ["ratio", "x"], ["ratio_q1", "x"], ["ratio_q3", "x"],
        ["ratio_lo", "x"], ["ratio_hi", "x"]]


def rows(points):
    """One launch: points = [(threads, window, (median, q1, q3, lo, hi))]."""
    recs = [{"type": "header", "schema": 1, "bench": "req", "columns": COLS}]
    for i, (t, w, r) in enumerate(points):
        recs.append({"type": "point", "index": i, "label": "op=rate"})
        for mode, rate, ratio in (("default", 1e8, (0,) * 5), ("merged", 1e8 * r[0], r)):
            row = {"type": "row", "point": i, "op": "rate", "mode": mode, "size": 8, "threads": t,
                   "window": w, "messages_per_s": rate, "valid": True}
            row.update(zip(("ratio", "ratio_q1", "ratio_q3", "ratio_lo", "ratio_hi"), ratio))
            recs.append(row)
    return recs + [{"type": "end", "status": "ok"}]


class ResultsDir(unittest.TestCase):
    """A results directory of a req run (run.json) that the test fills."""
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-req-")
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump({"started": "test", "set": "req", "reps": 3, "quick": False, "jobs": [],
                       "impls": [{"name": "shimmer", "role": "shimmer", "available": True}]}, f)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)


class PairedVerdict(ResultsDir):

    def verdict(self, points, *others):
        """Three repetitions: `points`, then `others` (default: `points` again)."""
        reps = (list(others) + [points] * 3)[:2]
        d = os.path.join(self.dir, "raw", "shimmer")
        os.makedirs(d, exist_ok=True)
        for rep, pts in enumerate([points] + reps):
            with open(os.path.join(d, "req.r%d.jsonl" % rep), "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows(pts))
        run = report.Run(self.dir)
        row = [r for r in req_report.targets(run, "req") if r[0].startswith("rate:")][0]
        return row[1], row[3]

    def test_above_everywhere_is_met(self):
        self.assertEqual(self.verdict([(1, 8, (1.05, 1.0, 1.1, 1.02, 1.08))]),
                         ("1 above, 0 equal, 0 below", "met"))

    def test_one_inside_the_interval_is_equal_not_met(self):
        value, verdict = self.verdict([(1, 8, (1.05, 1.0, 1.1, 1.02, 1.08)),
                                       (2, 64, (0.99, 0.95, 1.03, 0.97, 1.01))])
        self.assertEqual(value, "1 above, 1 equal (within 2.0-2.0 %), 0 below")
        self.assertEqual(verdict, "equal within resolution 2.0 %")

    def test_below_the_interval_is_missed(self):
        value, verdict = self.verdict([(1, 8, (0.99, 0.95, 1.03, 0.97, 1.01)),
                                       (4, 512, (0.95, 0.93, 0.99, 0.94, 0.96))])
        self.assertEqual(value, "0 above, 1 equal (within 2.0-2.0 %), 1 below: 4 thr w512: 0.950")
        self.assertEqual(verdict, "MISSED")
        self.assertTrue(any("1 below: 4 thr w512 0.950 (0.940-0.960)" in x
                            for x in req_report.why(report.Run(self.dir), "req")))

    def test_below_in_one_launch_only_is_equal(self):
        # pairs cancel changes within a launch, not between launches
        below, equal = (0.95, 0.93, 0.99, 0.94, 0.96), (1.01, 0.97, 1.05, 0.99, 1.03)
        value, verdict = self.verdict([(1, 64, below)], [(1, 64, equal)], [(1, 64, equal)])
        self.assertEqual(value, "0 above, 1 equal (within 4.5-4.5 %), 0 below")
        self.assertEqual(verdict, "equal within resolution 4.5 %")


HOST_COLS = COLS[:6] + [["time_us", "us"], ["overlap_pct", "%"], ["issue_us", "us"], ["test_us", "us"],
                        ["compute_us", "us"], ["wait_us", "us"], ["comm_us", "us"],
                        ["issue_cpu_us", "us"], ["test_cpu_us", "us"], ["compute_cpu_us", "us"],
                        ["wait_cpu_us", "us"]]


def launch(rows):
    """One launch's records of planted rows (dicts of the row's columns)."""
    recs = [{"type": "header", "schema": 1, "bench": "req", "columns": HOST_COLS}]
    for i, r in enumerate(rows):
        recs.append({"type": "point", "index": i, "label": "p%d" % i})
        recs.append(dict({"type": "row", "point": i, "size": 8, "threads": 1, "window": 64,
                          "valid": True}, **r))
    return recs + [{"type": "end", "status": "ok"}]


def rate(mode, window, per_put_us, window_us):
    """A 1-thread rate row whose window of w puts takes w * per_put_us + window_us."""
    return {"op": "rate", "mode": mode, "window": window,
            "messages_per_s": window / (window * per_put_us + window_us) * 1e6}


class AcrossHosts(ResultsDir):
    """hosts_req: default 0.01 us/put + 15 us a window, merged the same;
    hosts_req_percall: default 7.5 us/put + 35 us (a send per put), merged
    0.02 us/put + 15 us."""
    HOSTS = [rate(m, w, 0.01, 15) for w in (64, 512) for m in ("default", "merged")] + [
        {"op": "lat", "mode": "put+quiet", "time_us": 14.5}, {"op": "lat", "mode": "merged", "time_us": 14.9},
        {"op": "lat", "mode": "get", "time_us": 14.7}, {"op": "lat", "mode": "inject", "time_us": 0.02},
        {"op": "overlap", "mode": "merged", "size": 256, "time_us": 40, "overlap_pct": 25,
         "issue_us": 1.5, "test_us": 0, "compute_us": 22, "wait_us": 16.5, "comm_us": 22,
         "issue_cpu_us": 1.4, "test_cpu_us": 0, "compute_cpu_us": 22, "wait_cpu_us": 3},
        # wall 1.5 + 8.5 + 2 = 12 us of t_comm 24 (what the measured 45 % nearly is by
        # construction); CPU 1.4 + 5.6 + 1 = 8 us: the bound is 67 %, not 50 %
        {"op": "overlap", "mode": "merged+test", "size": 256, "time_us": 34, "overlap_pct": 45,
         "issue_us": 1.5, "test_us": 8.5, "compute_us": 22, "wait_us": 2, "comm_us": 24,
         "issue_cpu_us": 1.4, "test_cpu_us": 5.6, "compute_cpu_us": 17, "wait_cpu_us": 1}]
    PERCALL = [rate("default", w, 7.5, 35) for w in (1, 64, 512)] + [
        rate("merged", w, 0.02, 15) for w in (1, 64, 512)]

    def run_of(self, **jobs):
        """jobs: each job's rows, or a tuple of rows per repetition."""
        d = os.path.join(self.dir, "raw", "shimmer")
        os.makedirs(d, exist_ok=True)
        for job, reps in jobs.items():
            for rep, rows in enumerate(reps if isinstance(reps, tuple) else (reps,)):
                with open(os.path.join(d, "%s.r%d.jsonl" % (job, rep)), "w") as f:
                    f.writelines(json.dumps(r) + "\n" for r in launch(rows))
        return report.Run(self.dir)

    def test_both_defaults_side_by_side(self):
        run = self.run_of(hosts_req=self.HOSTS, hosts_req_percall=self.PERCALL)
        rows = req_report.targets(run, "hosts_req")
        coalescing, percall = rows[0], rows[1]
        self.assertIn("coalescing", coalescing[0])
        self.assertEqual(coalescing[1], "1.00x (25.45 M vs 25.45 M msg/s)")
        self.assertTrue(coalescing[3].startswith("MISSED: the default path coalesces"))
        self.assertIn("SHIMMER_RMA_COALESCE=0", percall[0])
        # 512 / (512 * 7.5 + 35) us against 512 / (512 * 0.02 + 15) us
        self.assertEqual(percall[1], "154x (20.29 M vs 0.13 M msg/s)")
        self.assertEqual(percall[3], "met")
        # its row is hosts_req's; the job's own section has none
        self.assertEqual(req_report.targets(run, "hosts_req_percall"), [])
        self.assertEqual(req_report.why(run, "hosts_req_percall"), [])
        rate_why = req_report.why(run, "hosts_req")[0]
        self.assertIn("a default put costs 7.50 us (+ 35.0 us a window", rate_why)
        self.assertIn("merged / default = 154x", rate_why)

    def test_percall_alone_keeps_its_row(self):
        run = self.run_of(hosts_req_percall=self.PERCALL)
        rows = req_report.targets(run, "hosts_req_percall")
        self.assertEqual([r[3] for r in rows], ["met"])
        self.assertIn("7.50 us", req_report.why(run, "hosts_req_percall")[0])

    def test_without_percall_the_row_says_not_measured(self):
        run = self.run_of(hosts_req=self.HOSTS)
        self.assertEqual(req_report.targets(run, "hosts_req")[1][1:], ("—", ">= 2.2x", "—"))

    def test_latency_and_overlap_state_target_bound_measured(self):
        lines = req_report.why(self.run_of(hosts_req=self.HOSTS), "hosts_req")
        lat = [x for x in lines if x.startswith("Latency")][0]
        self.assertIn("target handle <= 0.4x put + quiet = 5.8 us; bound one network round trip, "
                      "a blocking 8 B get, 14.7 us", lat)
        self.assertIn("measured handle 14.9 us", lat)
        ov = [x for x in lines if x.startswith("Overlap")][0]
        # this CPU's own work 1.4 + 5.6 + 1 = 8 us of CPU of t_comm 24 us: at most 67 %
        self.assertIn("target 95 %; bound 67 %", ov)
        self.assertIn("issuing 1.4 of 1.5 us, the test (sending the buffer, over TCP a system call) "
                      "5.6 of 8.5 us, the wait after the computation (taking the reply) 1.0 of 2.0 us: "
                      "8.0 us of CPU, 33 % of the window's communication alone (t_comm 24.0 us)", ov)
        # the wall times' 12 us, 4 of them waiting; the computation lost 5 us of 22 to another thread
        self.assertIn("wall times sum to 12.0 us, 4.0 us of it with the thread not running (blocked "
                      "or preempted: the test 2.9, the wait 1.0)", ov)
        self.assertIn("the computation ran 17.0 us of CPU in 22.0 us (5.0 us preempted", ov)
        self.assertIn("longer than a round trip (14.7 us): the reply has arrived", ov)
        self.assertIn("measured merged 25 % (256 B), default not measured, merged + one test 45 % "
                      "(256 B)", ov)
        self.assertIn("(a window of 40.0 us: issuing 1.5 (CPU 1.4), computing 22.0 (CPU 22.0), "
                      "the wait after it 16.5 (CPU 3.0))", ov)

    def test_cpu_as_wall_ran_throughout(self):
        # the CPU pass within 0.1 us of the wall times: no waiting to speak of
        busy = [dict(r, issue_cpu_us=1.5, test_cpu_us=8.6, wait_cpu_us=1.9)
                if r.get("mode") == "merged+test" else r for r in self.HOSTS]
        ov = [x for x in req_report.why(self.run_of(hosts_req=busy), "hosts_req")
              if x.startswith("Overlap")][0]
        self.assertIn("target 95 %; bound 50 %", ov)
        self.assertIn("wall times sum to 12.0 us, the CPU times within 0.1 us of them: the thread "
                      "ran throughout", ov)

    def test_a_short_computation_may_poll(self):
        # the computation (12 us) is shorter than a round trip (14.7 us)
        short = [dict(r, compute_us=12, compute_cpu_us=12) if r.get("mode") == "merged+test" else r
                 for r in self.HOSTS]
        ov = [x for x in req_report.why(self.run_of(hosts_req=short), "hosts_req")
              if x.startswith("Overlap")][0]
        self.assertIn("the computation ran 12.0 us of CPU in 12.0 us, shorter than a round trip "
                      "(14.7 us): the wait's CPU time may be polling", ov)

    def test_without_cpu_times_no_bound(self):
        # results from before the CPU columns: the wall times alone are no bound
        old = [{k: v for k, v in r.items() if not k.endswith("_cpu_us")} for r in self.HOSTS]
        ov = [x for x in req_report.why(self.run_of(hosts_req=old), "hosts_req")
              if x.startswith("Overlap")][0]
        self.assertIn("no bound: this run has no CPU times", ov)
        self.assertNotIn("bound 50", ov)

    def test_a_repetition_above_its_bound_is_named(self):
        # the second repetition's compute loop timed alone ran long: 100 %, its bound still 67 %
        stalled = [dict(r, overlap_pct=100) if r.get("mode") == "merged+test" else r for r in self.HOSTS]
        ov = [x for x in req_report.why(self.run_of(hosts_req=(self.HOSTS, stalled, self.HOSTS)),
                                        "hosts_req") if x.startswith("Overlap")][0]
        self.assertIn("its repetitions, measured / bound: 45 / 67, 100 / 67, 45 / 67 %", ov)
        self.assertIn("t_compute, took at least 34.0 us against 22.0 us in the window", ov)


if __name__ == "__main__":
    unittest.main()
