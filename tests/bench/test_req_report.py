#!/usr/bin/env python3
"""The report's "Merged requests" verdict on one node, from planted paired
rate rows (bench/req.c: each merged row carries the median merged/default
ratio of its pairs and a 95 % interval of it): a point whose interval holds
1.0 is equal within that resolution, not met; one wholly below is MISSED.
No program is run; the values are written here and read back."""
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


class PairedVerdict(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-req-")
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump({"started": "test", "set": "req", "reps": 3, "quick": False, "jobs": [],
                       "impls": [{"name": "shimmer", "role": "shimmer", "available": True}]}, f)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

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


if __name__ == "__main__":
    unittest.main()
