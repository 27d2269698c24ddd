#!/usr/bin/env python3
"""The report's "Applications" and "Memory footprint" sections, from planted
results: speed-ups, verdicts against the targets, a failed self-check, a
kernel that crashed, and the footprint's growth per extra PE.  No program is
run and no timing is judged: the values are written here and read back."""
import json
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))

import app_kernels  # noqa: E402
import footprint  # noqa: E402
import report  # noqa: E402
import runner  # noqa: E402


def app_records(kernel, npes, time_s, rate, valid=True):
    return [{"type": "header", "schema": 1, "bench": kernel,
             "columns": [["kernel", ""], ["class", ""], ["variant", ""], ["npes", ""], ["time_s", "s"],
                         ["rate", "GUP/s"]], "impl": {"label": "x"}},
            {"type": "point", "index": 0, "label": "npes=%d" % npes},
            {"type": "row", "point": 0, "kernel": kernel, "class": "A", "variant": "", "npes": npes,
             "time_s": time_s, "rate": rate, "valid": valid},
            {"type": "note", "point": 0, "text": "check"},
            {"type": "end", "status": "ok"}]


def footprint_records(npes, kib):
    return [{"type": "header", "schema": 1, "bench": "footprint",
             "columns": [["npes", ""]] + [[m, "KiB"] for m in (
                 "peak_rss_mean_kib", "peak_rss_max_kib", "rss_max_kib", "pss_mean_kib", "pss_max_kib",
                 "pss_shmem_mean_kib", "pss_total_kib")]},
            {"type": "point", "index": 0, "label": "npes=%d" % npes},
            {"type": "row", "point": 0, "npes": npes, "peak_rss_mean_kib": kib, "peak_rss_max_kib": kib + 100,
             "rss_max_kib": kib, "pss_mean_kib": kib / 2, "pss_max_kib": kib / 2, "pss_shmem_mean_kib": 10,
             "pss_total_kib": npes * kib / 2, "valid": True},
            {"type": "end", "status": "ok"}]


class AppsSections(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="bench-apps-")
        jobs = app_kernels.jobs(runner.job) + footprint.jobs(runner.job)
        meta = {"started": "test", "set": "apps", "reps": 3, "quick": False, "jobs": jobs,
                "impls": [{"name": "shimmer", "role": "shimmer", "available": True},
                          {"name": "oshmem", "role": "peer", "available": True}],
                "hosts": {"available": True, "how": "two namespace hosts"}}
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def plant(self, impl, job, reps):
        d = os.path.join(self.dir, "raw", impl)
        os.makedirs(d, exist_ok=True)
        for rep, recs in enumerate(reps):
            with open(os.path.join(d, "%s.r%d.jsonl" % (job, rep)), "w") as f:
                for r in recs:
                    f.write(json.dumps(r) + "\n")

    def test_speedups_and_verdicts(self):
        # one node: peer 2x slower (met), hosts: peer 2x faster (missed)
        self.plant("shimmer", "app_gups_n2", [app_records("gups", 2, t, 1 / t) for t in (1.0, 1.1, 0.9)])
        self.plant("oshmem", "app_gups_n2", [app_records("gups", 2, t, 1 / t) for t in (2.0, 2.2, 1.8)])
        self.plant("shimmer", "app_gups_h2x2", [app_records("gups", 4, t, 1) for t in (2.0, 2.0, 2.0)])
        self.plant("oshmem", "app_gups_h2x2", [app_records("gups", 4, t, 1) for t in (1.0, 1.0, 1.0)])
        # a failed self-check is INVALID whatever the time
        self.plant("shimmer", "app_isx_n4", [app_records("isx", 4, 0.1, 1, valid=False)] * 3)
        self.plant("oshmem", "app_isx_n4", [app_records("isx", 4, 1.0, 1)] * 3)
        # Shimmer crashed: the runner's record says so
        self.plant("shimmer", "app_ssca2_n2", [[{"type": "crash", "label": "start-up",
                                                 "reason": "segmentation fault"}]])
        self.plant("oshmem", "app_ssca2_n2", [app_records("ssca2", 2, 1.0, 1)] * 3)
        run = report.Run(self.dir)
        got = {(r.kernel, r.pid): r for r in app_kernels.results(run)}
        n2, h = got[("gups", "n2")], got[("gups", "h2x2")]
        self.assertAlmostEqual(n2.speedup, 2.0)
        self.assertEqual(n2.verdict, "met")
        self.assertEqual(n2.unit, "GUP/s")
        self.assertAlmostEqual(h.speedup, 0.5)
        self.assertEqual(h.verdict, "MISSED")
        self.assertEqual(got[("isx", "n4")].verdict, "INVALID")
        self.assertEqual(got[("ssca2", "n2")].verdict, "crashed")
        self.assertNotIn(("daxpy", "n2"), got)         # nothing ran: no row
        md = "\n".join(app_kernels.markdown(run, ["app_gups.png"]))
        self.assertIn("| gups | 2 PEs, one node | `A` | 1.00 [0.9–1.10] | 2.00 [1.80–2.20] | 2.00× |", md)
        self.assertIn("Met: 1 of 2 judged.", md)
        self.assertIn("![app_gups.png](app_gups.png)", md)
        self.assertTrue(any("MISSED" in line for line in app_kernels.text_summary(run)))

    def test_peer_timed_out(self):
        # the peer's launcher ended the job at its time limit (mpirun's message;
        # the runner of the time recorded it as a crash): a lower bound
        self.plant("shimmer", "app_heat2d_h2x2", [app_records("heat2d", 4, 10.0, 1)] * 2)
        timed_out = [{"type": "launch", "complete": False, "exit": 110, "wall_s": 170.0,
                      "stderr_tail": "The user-provided time limit for job execution has been reached:"},
                     {"type": "crash", "label": "start-up", "reason": "exit status 110: ---"}]
        self.plant("oshmem", "app_heat2d_h2x2", [timed_out] * 2)
        run = report.Run(self.dir)
        (r,) = app_kernels.results(run)
        self.assertEqual(r.verdict, "met (peer timed out)")
        self.assertAlmostEqual(r.speedup_above, 17.0)
        md = "\n".join(app_kernels.markdown(run, []))
        self.assertIn("| > 170 s (timed out) | > 17.0× |", md)
        self.assertIn("Met: 1 of 1 judged.", md)
        self.assertTrue(runner.launcher_timed_out("oshrun: timeout: the job ran longer than --timeout 5 s"))

    def test_footprint_growth_and_target(self):
        for n in footprint.PES:
            # Shimmer flat at 4.5 MiB; the peer 20 MiB + 10 KiB per PE in the job
            self.plant("shimmer", footprint.job_id(n), [footprint_records(n, 4608)] * 2)
            self.plant("oshmem", footprint.job_id(n), [footprint_records(n, 20480 + 10 * n)] * 2)
        run = report.Run(self.dir)
        shim, peer = footprint.Impl(run, "shimmer"), footprint.Impl(run, "oshmem")
        self.assertAlmostEqual(shim.growth["peak_rss_mean_kib"], 0.0, places=6)
        self.assertAlmostEqual(peer.growth["peak_rss_mean_kib"], 10 * 1024, places=3)
        self.assertEqual(shim.verdict(False), "met")
        self.assertEqual(peer.verdict(False), "MISSED")        # 22.6 MiB > 8 MiB
        md = "\n".join(footprint.markdown(run, ["footprint.png"]))
        self.assertIn("| 256 |", md)
        self.assertIn("![footprint.png](footprint.png)", md)

    def test_footprint_not_up_to_256(self):
        for n in footprint.PES[:3]:
            self.plant("shimmer", footprint.job_id(n), [footprint_records(n, 4608)])
        run = report.Run(self.dir)
        self.assertEqual(footprint.Impl(run, "shimmer").verdict(False),
                         "MISSED (largest job measured: 32 PEs)")

    def test_report_main_writes_the_sections(self):
        self.plant("shimmer", "app_daxpy_n4", [app_records("daxpy", 4, 1.0, 5.0)])
        self.plant("oshmem", "app_daxpy_n4", [app_records("daxpy", 4, 1.6, 3.0)])
        self.plant("shimmer", footprint.job_id(2), [footprint_records(2, 4608)])
        self.assertEqual(report.main([self.dir, "--no-plots", "--quiet"]), 0)
        with open(os.path.join(self.dir, "report.md")) as f:
            md = f.read()
        self.assertIn("## Applications (apps/)", md)
        self.assertIn("## Memory footprint", md)
        self.assertNotIn("## Figures and targets", md)     # no headline figure ran
        with open(os.path.join(self.dir, "summary.json")) as f:
            s = json.load(f)
        self.assertEqual(s["apps"][0]["verdict"], "met")
        self.assertIn("shimmer", s["footprint"])

    def plant_profile(self, job, table):
        d = os.path.join(self.dir, "raw", "shimmer")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, job + ".prof"), "w") as f:
            f.write("\n".join(table) + "\n")

    def plant_copy_probe(self, mbps, cores=None):
        """The probe at best `mbps` one core; with `cores`, both processes
        copying at best that (a run before the column: without)."""
        cols = [["op", ""], ["size", "B"], ["bandwidth_MBps", "MB/s"]] + ([["cores_MBps", "MB/s"]] if cores else [])
        recs = [{"type": "header", "schema": 1, "bench": "memcpy_bw", "columns": cols}]
        for i, (op, size, bw) in enumerate([("put", 65536, mbps), ("get", 65536, mbps / 2),
                                            ("put", 1 << 26, mbps / 4)]):
            row = {"type": "row", "point": i, "op": op, "size": size, "bandwidth_MBps": bw, "valid": True}
            if cores:
                row["cores_MBps"] = cores * bw / mbps
            recs += [{"type": "point", "index": i, "label": "op=%s size=%d" % (op, size)}, row]
        self.plant("limit", app_kernels.COPY_JOB, [recs + [{"type": "end", "status": "ok"}]])

    # the table SHIMMER_PROFILE=1 writes (src/core/prof.c): 10 s from init to
    # finalize, of which `recorded` s in the timed region
    @staticmethod
    def profile_table(recorded, put_s, barrier_s, put_bytes):
        return [
            "shimmer profile: 4 PEs, 10.000000 s from init to finalize, %.6f s recorded "
            "(shmem_pcontrol; means over PEs); per PE, min / mean / max over the PEs" % recorded,
            "family      calls.min   calls.mean  calls.max   time.min_s time.mean_s  time.max_s  %wall"
            "       bytes.min       bytes.mean      bytes.max",
            "init                1          1.0          1     0.100000    0.500000    0.900000   5.0%"
            "               0              0.0              0",
            "put               100        100.0        100     1.000000 %11.6f    3.000000  20.0%%"
            "            800 %16.1f            800" % (put_s, put_bytes),
            "barrier             5          5.0          5     2.000000 %11.6f    4.000000  30.0%%"
            "               0              0.0              0" % barrier_s,
            "alltoall            2          2.0          2     0.900000    1.000000    1.100000  10.0%"
            "              64             64.0             64",
            "finalize            1          1.0          1     0.010000    0.020000    0.030000   0.2%"
            "               0              0.0              0",
        ]

    def test_runner_keeps_the_quietest_profile(self):
        # every repetition writes <job>.r<rep>.prof; <job>.prof is the one
        # that recorded the least time (a slowed run waits in the library)
        job = app_kernels.profile_job_id("heat2d", "n2")
        d = os.path.join(self.dir, "raw", "shimmer")
        os.makedirs(d, exist_ok=True)
        for rep, recorded in enumerate((8.0, 3.0, 5.0)):
            with open(os.path.join(d, "%s.r%d.prof" % (job, rep)), "w") as f:
                f.write("\n".join(self.profile_table(recorded, 1.0, 1.0, 800)) + "\n")
            runner.keep_quietest_profile(d, job, rep)
            kept = app_kernels.read_profile(os.path.join(d, job + ".prof"))
            self.assertEqual(kept["recorded_s"], 8.0 if rep == 0 else 3.0)
        runner.keep_quietest_profile(d, job, 3)        # a repetition that wrote none
        self.assertEqual(app_kernels.read_profile(os.path.join(d, job + ".prof"))["recorded_s"], 3.0)

    def test_profile_split(self):
        # 8 s recorded: put 2, barrier 3, alltoall 1 (other), outside 2; init
        # and finalize are outside the timed region and left out
        job = app_kernels.profile_job_id("isx", "n4")
        self.plant_profile(job, self.profile_table(8.0, 2.0, 3.0, 800))
        self.plant("shimmer", job, [app_records("isx", 4, 5.0, 1)])
        run = report.Run(self.dir)
        (s,) = app_kernels.splits(run)
        self.assertEqual((s.prof["pes"], s.prof["recorded_s"]), (4, 8.0))
        self.assertAlmostEqual(s.pct["put"], 25.0)
        self.assertAlmostEqual(s.pct["barrier"], 37.5)
        self.assertNotIn("init", s.pct)
        self.assertAlmostEqual(s.pct["other"], 12.5)          # alltoall, not finalize
        self.assertAlmostEqual(s.pct["outside"], 25.0)
        self.assertAlmostEqual(s.bytes, 864.0)
        md = "\n".join(app_kernels.markdown(run, []))
        self.assertIn("| isx | 4 PEs, one node | 8.00 | 25.0 % | 0.0 % | 0.0 % | 37.5 % |", md)
        self.assertIn("alltoall 12.5 %", md)
        # the profiled run is not a timed figure
        self.assertEqual(app_kernels.results(run), [])
        # an older table (no recorded time): shares of the wall time, init included
        old = self.profile_table(8.0, 2.0, 3.0, 800)
        old[0] = ("shimmer profile: 4 PEs, 10.000000 s from init to finalize (mean over PEs); per PE, "
                  "min / mean / max over the PEs")
        self.plant_profile(job, old)
        (s,) = app_kernels.splits(report.Run(self.dir))
        self.assertIsNone(s.prof["recorded_s"])
        self.assertAlmostEqual(s.pct["init"], 5.0)
        self.assertAlmostEqual(s.pct["other"], 10.2)          # alltoall + finalize

    def test_reach_blocks_a_target_no_library_could_meet(self):
        # isx at 4 PEs: Shimmer 2.0 s, the peer 2.4 s (1.2x, missed).  Its
        # timed region is 50 % outside the library: a floor of 1.0 s plus
        # the copy of 8e8 bytes at 8 GB/s (the probe's best), 4 PEs on 2
        # CPUs: 0.2 s; reach 2.4 / 1.2 = 2.0x >= 1.5: still MISSED
        self.plant_copy_probe(8000.0)
        job = app_kernels.profile_job_id("isx", "n4")
        self.plant_profile(job, self.profile_table(8.0, 1.0, 2.0, 8e8))
        self.plant("shimmer", "app_isx_n4", [app_records("isx", 4, 2.0, 1)] * 3)
        self.plant("oshmem", "app_isx_n4", [app_records("isx", 4, 2.4, 1)] * 3)
        with open(os.path.join(self.dir, "run.json")) as f:
            meta = json.load(f)
        meta["machine"] = {"online_cpus": 2}
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)
        (r,) = app_kernels.results(report.Run(self.dir))
        self.assertAlmostEqual(r.reach.outside_s, 1.0)
        self.assertAlmostEqual(r.reach.copy_s, 0.2)
        self.assertAlmostEqual(r.reach.speedup, 2.0)
        self.assertEqual(r.verdict, "MISSED")
        # 75 % outside: floor 1.5 + 0.2 s, reach 1.41x < 1.5: BLOCKED
        self.plant_profile(job, self.profile_table(8.0, 0.5, 0.5, 8e8))
        run = report.Run(self.dir)
        (r,) = app_kernels.results(run)
        self.assertAlmostEqual(r.reach.speedup, 2.4 / 1.7)
        self.assertEqual(r.verdict, "BLOCKED")
        md = "\n".join(app_kernels.markdown(run, []))
        self.assertIn("Met: 0 of 1 judged. Blocked (below): 1.", md)
        self.assertIn("- isx, 4 PEs, one node: 1.20× (Shimmer 2.00 s, peer 2.40 s); profile: outside 75 %", md)
        self.assertIn("reach 1.41× (floor 1.70 s: outside the library 1.50 s + copy 0.2 s)", md)
        self.assertIn("`-m 64k,64M`: 8.00 GB/s", md)
        self.assertIn("| 75.0 % | 800 | alltoall 12.5 % |", md)             # MB per PE
        self.assertEqual(app_kernels.summary(run)[0]["verdict"], "BLOCKED")
        # both processes copying at 12 GB/s: less than a core on each CPU
        # (16 GB/s), the floor is unchanged
        self.plant_copy_probe(8000.0, cores=12000.0)
        (r,) = app_kernels.results(report.Run(self.dir))
        self.assertAlmostEqual(r.reach.copy_s, 0.2)
        # ... at 24 GB/s (each part in its core's cache): all 4 PEs' 8e8
        # bytes at that rate, 0.133 s; reach 2.4 / 1.633 = 1.47x: BLOCKED
        self.plant_copy_probe(8000.0, cores=24000.0)
        run = report.Run(self.dir)
        (r,) = app_kernels.results(run)
        self.assertAlmostEqual(r.reach.copy_s, 4 * 8e8 / 24e9)
        self.assertAlmostEqual(r.reach.speedup, 2.4 / (1.5 + 4 * 8e8 / 24e9))
        self.assertEqual(r.verdict, "BLOCKED")
        self.assertIn("`-m 64k,64M`: 8.00 GB/s one core, on each CPU; every core copying 24.0 GB/s",
                      "\n".join(app_kernels.markdown(run, [])))

    def plant_heat2d_on_two_cpus(self):
        # 2 CPUs.  At 2 PEs heat2d is 67.5 % outside the library (8 s
        # recorded, 2.6 in routines) of 1.0 s: 1.35 CPU-s in all; at 4 PEs
        # only 27.5 % (0.275 s), but PEs that share a CPU compute in turn:
        # the floor is 1.35 / 2 = 0.675 s
        with open(os.path.join(self.dir, "run.json")) as f:
            meta = json.load(f)
        meta["machine"] = {"online_cpus": 2}
        with open(os.path.join(self.dir, "run.json"), "w") as f:
            json.dump(meta, f)
        self.plant_copy_probe(8000.0)
        for pid, n, put_s in (("n2", 2, 1.6), ("n4", 4, 4.8)):
            job = app_kernels.profile_job_id("heat2d", pid)
            self.plant_profile(job, self.profile_table(8.0, put_s, 0.0, 0))
            self.plant("shimmer", "app_heat2d_" + pid, [app_records("heat2d", n, 1.0, 1)] * 3)
            self.plant("oshmem", "app_heat2d_" + pid, [app_records("heat2d", n, 1.1, 1)] * 3)
        return {r.pid: r for r in app_kernels.results(report.Run(self.dir))}

    def test_reach_with_more_pes_than_cpus(self):
        got = self.plant_heat2d_on_two_cpus()
        self.assertAlmostEqual(got["n2"].reach.floor_s, 0.675)
        r4 = got["n4"]
        self.assertEqual(r4.reach.work[0], 2)
        self.assertAlmostEqual(r4.reach.floor_s, 0.675)
        self.assertIn("its computation at 2 PEs", r4.reach.text())
        # an estimate above Shimmer's own time is not used
        self.plant("shimmer", "app_heat2d_n4", [app_records("heat2d", 4, 0.6, 1)] * 3)
        r4 = {r.pid: r for r in app_kernels.results(report.Run(self.dir))}["n4"]
        self.assertIsNone(r4.reach.work)

    def test_reach_counts_cpu_handoffs(self):
        # the same run with the hand-off probe at 25 ms: at 4 PEs on 2 CPUs
        # each of the 7 synchronisations a PE made (5 barriers, 2
        # alltoalls) hands each CPU over at least once: 0.175 s more floor
        self.plant("limit", app_kernels.HANDOFF_JOB, [[
            {"type": "header", "schema": 1, "bench": "cpu_handoff",
             "columns": [["mode", ""], ["latency_us", "us"]]},
            {"type": "point", "index": 0, "label": "mode=yield"},
            {"type": "row", "point": 0, "mode": "yield", "latency_us": 25000.0, "valid": True},
            {"type": "end", "status": "ok"}]])
        got = self.plant_heat2d_on_two_cpus()
        self.assertIsNone(got["n2"].reach.handoffs)           # a CPU each: none
        self.assertAlmostEqual(got["n2"].reach.floor_s, 0.675)
        r4 = got["n4"].reach
        self.assertAlmostEqual(r4.handoffs, 7.0)
        self.assertAlmostEqual(r4.floor_s, 0.675 + 0.175)
        self.assertIn("+ 7 CPU hand-offs (its synchronisations), 0.175 s", r4.text())

    def test_reach_of_a_kernel_with_a_direct_variant(self):
        # daxpy at 2 PEs: Shimmer 1.0 s, the peer 1.3 s, the kernel by memcpy
        # through shmem_ptr 0.95 s: reach 1.37x < 1.5, whatever the profile says
        self.plant("shimmer", "app_daxpy_n2", [app_records("daxpy", 2, 1.0, 1)] * 3)
        self.plant("oshmem", "app_daxpy_n2", [app_records("daxpy", 2, 1.3, 1)] * 3)
        self.plant("shimmer", app_kernels.direct_job_id("daxpy", "n2"),
                   [app_records("daxpy", 2, 0.95, 1)] * 3)
        run = report.Run(self.dir)
        (r,) = app_kernels.results(run)
        self.assertAlmostEqual(r.reach.floor_s, 0.95)
        self.assertEqual(r.verdict, "BLOCKED")
        md = "\n".join(app_kernels.markdown(run, []))
        self.assertIn("reach 1.37× (floor 0.95 s: the kernel with `-V direct`, memcpy through shmem_ptr)", md)
        # a direct run whose self-check failed is no floor
        self.plant("shimmer", app_kernels.direct_job_id("daxpy", "n2"),
                   [app_records("daxpy", 2, 0.95, 1, valid=False)] * 3)
        (r,) = app_kernels.results(report.Run(self.dir))
        self.assertEqual((r.reach, r.verdict), (None, "MISSED"))

    def test_runner_jobs(self):
        ids = {j["id"]: j for j in runner.JOBS}
        j = ids["app_heat2d_h2x2"]
        self.assertEqual((j["kind"], j["n"], j["hosts"], j["quick_args"]), ("app", 4, 2, ["tiny"]))
        self.assertIn("apps", j["sets"])
        self.assertEqual(ids["footprint_256"]["env"]["SMA_SYMMETRIC_SIZE"], "256M")
        peer = next(i for i in runner.IMPLS if i["role"] == "peer")
        cmd = runner.launch_prefix(dict(peer, asroot=""), j, 100)
        self.assertIn("2x2", cmd)
        self.assertTrue(runner.program_path("/b", j).endswith("/b/apps/heat2d"))
        p = ids[app_kernels.profile_job_id("gups", "n4")]
        self.assertEqual((p["n"], p["hosts"], p["roles"], p["profile"]), (4, 1, ("shimmer",), True))
        self.assertEqual(ids[app_kernels.profile_job_id("gups", "n2")]["n"], 2)
        self.assertNotIn(app_kernels.profile_job_id("gups", "h2x2"), ids)   # one node only
        self.assertEqual(ids[app_kernels.COPY_JOB]["kind"], "limit")
        self.assertEqual(ids[app_kernels.HANDOFF_JOB]["prog"], "cpu_handoff")
        d = ids[app_kernels.direct_job_id("daxpy", "n4")]
        self.assertEqual((d["args"], d["roles"], d["n"]), (["A", "-V", "direct"], ("shimmer",), 4))


if __name__ == "__main__":
    unittest.main()
