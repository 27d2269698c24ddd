"""The applications prong: the kernels of apps/, Shimmer beside the peer.

runner.py takes its jobs from jobs() (the "apps" set, also in --full);
report.py calls markdown(), plots(), text_summary() and summary() for the
report's "Applications" section.

Beside the timed runs, one untimed run per kernel and one-node placement
under Shimmer's built-in profile (SHIMMER_PROFILE=1, docs/profile.md; the
kernels record their timed region only) splits the kernel's time by routine
family; read_profile() is the one parser of that table.  With the copy
probe of the same run (memcpy_apps) the split bounds what any library could
reach: a missed target beyond that bound reads BLOCKED (Reach below).

Each kernel prints the time of its own timed region (barrier-bounded, data
generation and checks excluded) and writes it with -o; a job is one kernel
at one placement.  Target (issue 13): Shimmer at least 1.5x faster than the
peer on one node, at least as fast across hosts, kernel by kernel.
"""
import os

from versus_mpi import fmt

# kernel, arguments on one node, arguments across hosts: sizes that run 1-5 s
# with Shimmer on the development machine (2 cores); the same for every
# implementation.  Across hosts the remote path is TCP, so the kernels that
# are latency-bound there get smaller problems.
KERNELS = [
    ("heat_image", ["A"], ["B"]),
    ("heat2d", ["A"], ["-S", "96"]),
    ("daxpy", ["A"], ["A"]),
    ("gups", ["A"], ["-S", "16"]),
    ("ssca2", ["A"], ["A"]),
    ("isx", ["A"], ["B"]),
]
# id, label, PEs, hosts
PLACEMENTS = [
    ("n2", "2 PEs, one node", 2, 1),
    ("n4", "4 PEs, one node", 4, 1),
    ("h2x2", "2 hosts x 2 PEs", 4, 2),
]
# hosts -> least speed-up over the peer (peer's time / Shimmer's)
TARGET = {1: 1.5, 2: 1.0}
SETS = ("full", "apps")
QUICK_ARGS = ["tiny"]


# The profile split: the columns it shows: label, the profile families
# (src/core/prof.def) summed into it.  "other" is every other family;
# "outside" is the recorded time in none (the kernel's own computation).
SPLIT = [("put", ("put",)), ("get", ("get",)), ("amo", ("amo",)), ("barrier", ("barrier",)),
         ("reduction", ("reduce",)), ("wait", ("wait",)), ("init", ("init",))]
# families outside any timed region: left out when the profile recorded one
UNTIMED = ("init", "finalize")
# The copy probe for the reach: one core copying daxpy's chunk (64 KiB, in
# cache) and buffers the size of its vectors (64 MiB, from memory), and both
# processes copying their parts of it (cores_MBps); the best of its sizes,
# directions and repetitions, so that no kernel's copies can be faster than
# the floor assumes.
COPY_JOB, COPY_ARGS = "memcpy_apps", ["-m", "64k,64M"]
# Kernels with a variant that moves their data by memcpy through shmem_ptr
# (a library that costs nothing): its time is the kernel's floor on one node.
DIRECT = {"daxpy": ["-V", "direct"]}
# The CPU hand-off probe for the reach with more PEs than CPUs: two
# processes on one CPU taking turns (limits/cpu_handoff).  Every full
# synchronisation (no member leaves before every member arrived: the
# families below) costs each CPU that holds k PEs at least k - 1 hand-offs:
# each of its PEs must run between the completion of the previous one and
# this one's, and only one runs at a time.
HANDOFF_JOB = "cpu_handoff"
SYNC_FAMILIES = ("barrier", "reduce", "collect", "fcollect", "alltoall", "alltoalls")


def job_id(kernel, pid):
    return "app_%s_%s" % (kernel, pid)


def profile_job_id(kernel, pid):
    return "appprof_%s_%s" % (kernel, pid)


def direct_job_id(kernel, pid):
    return "appdirect_%s_%s" % (kernel, pid)


def profiled_placements():
    return [(pid, label, n) for pid, label, n, hosts in PLACEMENTS if hosts == 1]


def jobs(job):
    """The apps set's jobs, made with the runner's job(): every kernel at
    every placement, its profiled runs on one node (Shimmer only), the copy
    probe and the CPU hand-off probe."""
    return [job(job_id(k, pid), k, node if hosts == 1 else across, n=n, sets=SETS, kind="app",
                hosts=hosts, quick_args=QUICK_ARGS)
            for k, node, across in KERNELS for pid, _, n, hosts in PLACEMENTS] + \
        [job(profile_job_id(k, pid), k, node, n=n, sets=SETS, kind="app", roles=("shimmer",),
             quick_args=QUICK_ARGS, profile=True)
         for k, node, _ in KERNELS for pid, _, n in profiled_placements()] + \
        [job(direct_job_id(k, pid), k, node + DIRECT[k], n=n, sets=SETS, kind="app", roles=("shimmer",),
             quick_args=QUICK_ARGS + DIRECT[k])
         for k, node, _ in KERNELS if k in DIRECT for pid, _, n in profiled_placements()] + \
        [job(COPY_JOB, "memcpy_bw", COPY_ARGS, kind="limit", sets=SETS),
         job(HANDOFF_JOB, "cpu_handoff", kind="limit", sets=SETS)]


def read_profile(path):
    """The aggregated table of SHIMMER_PROFILE=1 (docs/profile.md), or None:
    {"pes": n, "wall_s": mean wall time, "recorded_s": mean recorded time
    (None from a table that has none), "families": {family: {"calls": mean,
    "time_s": mean, "time_max_s": max, "bytes": mean}}}."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not lines or not lines[0].startswith("shimmer profile:"):
        return None
    head = lines[0].split()
    recorded = float(head[10]) if len(head) > 12 and head[12] == "recorded" else None
    out = {"pes": int(head[2]), "wall_s": float(head[4]), "recorded_s": recorded, "families": {}}
    for line in lines[2:]:
        if line.startswith("shimmer profile per PE:"):
            break
        f = line.split()
        if len(f) != 11:
            continue
        out["families"][f[0]] = {"calls": float(f[2]), "time_s": float(f[5]),
                                 "time_max_s": float(f[6]), "bytes": float(f[9])}
    return out


class Split:
    """One kernel's profiled run at one placement: % of the recorded time
    (the timed region; a table without one: init to finalize), mean over the
    PEs, in each column of SPLIT, in "other" and outside the library."""

    def __init__(self, run, kernel, pid, label):
        self.kernel, self.pid, self.label = kernel, pid, label
        self.job = profile_job_id(kernel, pid)
        self.prof = read_profile(os.path.join(run.root, "raw", run.shimmer or "-", self.job + ".prof"))
        self.timed = run.stat(run.shimmer, self.job, "time_s") if run.shimmer else None
        self.pct, self.others, self.bytes, self.syncs = {}, [], 0.0, 0.0
        if not self.prof:
            return
        region = bool(self.prof["recorded_s"])
        self.base_s = self.prof["recorded_s"] if region else self.prof["wall_s"]
        if self.base_s <= 0:
            self.prof = None
            return
        wall = self.base_s
        fam = {f: r for f, r in self.prof["families"].items() if not (region and f in UNTIMED)}
        self.bytes = sum(r["bytes"] for r in fam.values())
        # full synchronisations per PE (calls, mean over the PEs)
        self.syncs = sum(fam[f]["calls"] for f in SYNC_FAMILIES if f in fam)
        named = set()
        for label, families in SPLIT:
            if region and set(families) <= set(UNTIMED):
                continue
            self.pct[label] = 100.0 * sum(fam[f]["time_s"] for f in families if f in fam) / wall
            named.update(families)
        rest = {f: r["time_s"] for f, r in fam.items() if f not in named}
        self.pct["other"] = 100.0 * sum(rest.values()) / wall
        self.pct["outside"] = 100.0 - sum(self.pct.values())
        # the largest families in "other", for the reader
        self.others = [(f, 100.0 * t / wall) for f, t in sorted(rest.items(), key=lambda kv: -kv[1])
                       if 100.0 * t / wall >= 0.5][:3]

    def brief(self, n=3):
        """The n largest shares, e.g. "barrier 41 %, outside 30 %, put 12 %"."""
        top = sorted(self.pct.items(), key=lambda kv: -kv[1])[:n]
        return ", ".join("%s %.0f %%" % kv for kv in top)


def splits(run):
    return [s for s in (Split(run, k, pid, label) for k, _, _ in KERNELS
                        for pid, label, _ in profiled_placements()) if s.prof]


def handoff_s(run):
    """Seconds per CPU hand-off (the probe's best), or None."""
    st = run.stat("limit", HANDOFF_JOB, "latency_us", mode="yield")
    return st.min / 1e6 if st and not st.invalid else None


def copy_bandwidth(run):
    """(one core, every core copying) in bytes per second of the copy probe,
    each the best of both directions, or None where the run lacks it."""
    def best(metric):
        b = max((bw for op in ("put", "get") for _, bw in run.limit_curve(COPY_JOB, metric, op=op)), default=None)
        return b * 1e6 if b else None
    return best("bandwidth_MBps"), best("cores_MBps")


class Reach:
    """The largest speed-up over the peer that any library could give a kernel
    on one node, from the run's own measurements: the kernel cannot take
    less than its time outside the library (the recorded share outside any
    routine, times Shimmer's timed median) plus the copy of the bytes the
    library moved for it: all PEs' bytes at the machine's best copy rate,
    one core's bandwidth on each CPU (PEs beyond the CPUs share them) or,
    where faster, every core copying (a PE that waits may copy part of
    another's put, as Shimmer's shared copies do).  Every other part of
    the library's time, waiting for slower PEs included, counts as
    removable, so the floor is low and the reach generous.  With more PEs than CPUs, PEs that share a CPU
    compute in turn, so the floor is also at least the kernel's computation
    measured where each PE had a CPU (`work`: its outside time times its
    PEs, in CPU-seconds, the same problem) spread over the CPUs, unless
    that exceeds Shimmer's time (then the estimate does not hold), plus the
    CPU hand-offs its synchronisations force (SYNC_FAMILIES: the split's
    calls times PEs per CPU - 1, at the probe's time each), during which
    that CPU computes nothing."""

    def __init__(self, result, split=None, bandwidth=None, cpus=1, direct=None, work=None, handoff=None):
        """direct: the time of the kernel's DIRECT variant, which is then the
        floor (tighter: its copies are the kernel's own, from memory or cache
        as they are); else the floor from the split, the copy probe
        (`bandwidth`: copy_bandwidth's pair),
        `work` (PEs, CPU-seconds) and `handoff` (seconds per CPU hand-off)
        when the PEs outnumber the CPUs."""
        self.kernel, self.direct, self.cpus = result.kernel, direct, cpus
        self.handoffs = self.handoff_s = None
        if direct is None and handoff and result.n > cpus:
            self.handoffs = split.syncs * (-(-result.n // cpus) - 1)
            self.handoff_s = self.handoffs * handoff
        # an estimate (the same computation at both PE counts): one above
        # Shimmer's own time shows it does not hold (smaller shares can
        # compute faster), and is not used
        self.work = (work if work and result.n > cpus and work[1] / cpus <= result.shim.median
                     else None)
        if direct is not None:
            self.outside_s = self.copy_s = None
            self.floor_s = direct.median
        else:
            self.outside_s = result.shim.median * split.pct["outside"] / 100.0
            one, every = bandwidth
            self.copy_s = split.bytes * result.n / max(one * min(result.n, cpus), every or 0.0)
            self.floor_s = max(self.outside_s + self.copy_s,
                               (self.work[1] / cpus if self.work else 0.0) + (self.handoff_s or 0.0))
        self.speedup = result.peer.median / self.floor_s if self.floor_s > 0 else None

    def text(self):
        if self.direct is not None:
            return "reach %s× (floor %s s: the kernel with `%s`, memcpy through shmem_ptr)" % (
                fmt(self.speedup), fmt(self.floor_s), " ".join(DIRECT.get(self.kernel, [])))
        shared = ("; its computation at %d PEs, %s CPU-s, over %d CPUs: %s s" % (
            self.work[0], fmt(self.work[1]), self.cpus, fmt(self.work[1] / self.cpus))
            if self.work else "")
        if self.handoffs:
            shared += "%s %.0f CPU hand-offs (its synchronisations), %s s" % (
                " +" if self.work else "; ", self.handoffs, fmt(self.handoff_s))
        return "reach %s× (floor %s s: outside the library %s s + copy %s s%s)" % (
            fmt(self.speedup), fmt(self.floor_s), fmt(self.outside_s), fmt(self.copy_s), shared)


def split_markdown(run):
    ss = splits(run)
    if not ss:
        return []
    cols = [label for label, _ in SPLIT if any(label in s.pct for s in ss)] + ["other", "outside"]
    L = ["### Where Shimmer's time goes", "",
         "One untimed run per kernel and one-node placement under the built-in profile "
         "(`SHIMMER_PROFILE=1`, docs/profile.md), the same arguments as the timed runs. The kernels "
         "pause the profile outside their timed region (`shmem_pcontrol`), so the shares are of the "
         "timed region (recorded, mean over the PEs; init and finalize left out): each family of "
         "routines, reduction: `reduce`; other: every other family (the largest named); outside: in "
         "no OpenSHMEM routine (the kernel's own computation). Time in barrier, wait and the "
         "collectives includes waiting for slower PEs. MB: what the routines moved per PE (1e6 bytes).",
         "", "| kernel | placement | recorded (s) | " + " | ".join(cols) + " | MB per PE | largest in other |",
         "|---|---|---:|" + "---:|" * len(cols) + "---:|---|"]
    for s in ss:
        L.append("| %s | %s | %s | %s | %s | %s |" % (
            s.kernel, s.label, fmt(s.base_s),
            " | ".join("%.1f %%" % s.pct[c] if c in s.pct else "—" for c in cols), fmt(s.bytes / 1e6),
            ", ".join("%s %.1f %%" % o for o in s.others) or "—"))
    return L + [""]


class Result:
    """One kernel at one placement: both implementations' times and rates."""

    def __init__(self, run, kernel, pid, label, n, hosts, reach_from=None):
        """reach_from: (splits by (kernel, pid), copy bandwidth, CPUs, seconds
        per CPU hand-off), for Reach."""
        self.kernel, self.pid, self.label, self.n, self.hosts = kernel, pid, label, n, hosts
        self.job = job_id(kernel, pid)
        self.shim = run.stat(run.shimmer, self.job, "time_s")
        self.peer = run.stat(run.peer, self.job, "time_s")
        self.shim_rate = run.stat(run.shimmer, self.job, "rate")
        self.peer_rate = run.stat(run.peer, self.job, "rate")
        hdr = run.headers.get((run.shimmer, self.job)) or run.headers.get((run.peer, self.job)) or {}
        self.unit = dict(hdr.get("columns", [])).get("rate", "")
        self.target = TARGET[hosts]
        self.speedup = (self.peer.median / self.shim.median
                        if self.shim and self.peer and self.shim.median > 0 else None)
        self.shim_why = run.missing_why(run.shimmer, self.job) if not self.shim else None
        self.peer_why = run.missing_why(run.peer, self.job) if not self.peer else None
        # the peer never finished in its time limit: its time exceeds the
        # shortest timed-out launch, so the speed-up is at least that over Shimmer's
        walls = run.timeouts.get((run.peer, self.job)) if not self.peer else None
        self.peer_above = min(walls) if walls and self.peer_why == "timed out" else None
        if self.peer_above and self.shim and self.shim.median > 0:
            self.speedup_above = self.peer_above / self.shim.median
            self.peer_why = "> %s s (timed out)" % fmt(self.peer_above)
        else:
            self.speedup_above = None
        self.split = self.reach = None
        if reach_from and hosts == 1:
            by_job, bandwidth, cpus, handoff = reach_from
            self.split = by_job.get((kernel, pid))
            direct = run.stat(run.shimmer, direct_job_id(kernel, pid), "time_s") if kernel in DIRECT else None
            if self.shim and self.peer and direct and not direct.invalid:
                self.reach = Reach(self, direct=direct)
            elif self.split and bandwidth[0] and self.shim and self.peer:
                self.reach = Reach(self, self.split, bandwidth, cpus, work=computation(run, by_job, kernel, cpus),
                                   handoff=handoff)
        self.verdict = self._judge(run)

    def _judge(self, run):
        if run.quick:
            return "—"
        if not self.shim:
            return self.shim_why or "no data"
        if self.shim.invalid:
            return "INVALID"
        if not self.peer and self.speedup_above is not None:
            return "met (peer timed out)" if self.speedup_above >= self.target else "no ref (peer timed out)"
        if not self.peer:
            return "no ref"
        if self.peer.invalid:
            return "peer INVALID"
        v = "met" if self.speedup >= self.target else "MISSED"
        if v == "MISSED" and self.reach and self.reach.speedup and self.reach.speedup < self.target:
            v = "BLOCKED"      # no library could reach the target here: Reach
        return v + (" (noisy)" if self.shim.noisy or self.peer.noisy else "")

    def ran(self, run):
        return run.ran(self.job) and (self.shim or self.peer or self.shim_why or self.peer_why)


def computation(run, by_job, kernel, cpus):
    """(PEs, CPU-seconds) of a kernel's own computation at the one-node
    placement with the most PEs that still had a CPU each, or None."""
    best = None
    for pid, _, n in profiled_placements():
        split = by_job.get((kernel, pid))
        shim = run.stat(run.shimmer, job_id(kernel, pid), "time_s")
        if n <= cpus and split and shim and not shim.invalid and (best is None or n > best[0]):
            best = (n, shim.median * split.pct["outside"] / 100.0 * n)
    return best


def results(run):
    cpus = (run.meta.get("machine") or {}).get("online_cpus") or os.cpu_count() or 1
    reach_from = ({(s.kernel, s.pid): s for s in splits(run)}, copy_bandwidth(run), cpus, handoff_s(run))
    return [r for r in (Result(run, k, pid, label, n, hosts, reach_from)
                        for k, _, _ in KERNELS for pid, label, n, hosts in PLACEMENTS) if r.ran(run)]


def human_bw(bps):
    return "%s GB/s" % fmt(bps / 1e9) if bps else "not measured"


def speedup_cell(r, times):
    if r.speedup:
        return fmt(r.speedup) + times
    if r.speedup_above:
        return "> " + fmt(r.speedup_above) + times
    return "—"


def stat_cell(st, why=None, spread=True):
    if st is None:
        return why or "—"
    s = fmt(st.median)
    if spread and st.n > 1:
        s += " [%s–%s]" % (fmt(st.min), fmt(st.max))
    return s + (" ~" if st.noisy else "") + (" !" if st.invalid else "")


def markdown(run, plot_files):
    rs = results(run)
    if not rs:
        split = split_markdown(run)
        return ["## Applications (apps/)", ""] + split if split else []
    L = ["## Applications (apps/)", ""]
    if run.quick:
        L += ["quick (smoke run): tiny problems, no verdicts.", ""]
    L += ["Each kernel's own timed region (barrier to barrier; data generation and the self-check "
          "excluded), Shimmer beside the peer, implementations interleaved, median [min–max] over the "
          "repetitions. The sources are the same for both (apps/README.md: what each kernel computes "
          "and how it checks itself; Shimmer builds them with the 1.5 team collectives, the 1.4 peer "
          "with the active-set forms). Speed-up = peer's time / Shimmer's. Target: >= %sx on one node, "
          ">= %sx across hosts. `!`: the kernel's self-check failed." % (fmt(TARGET[1]), fmt(TARGET[2])), ""]
    jobs = {j["id"]: j for j in run.meta.get("jobs", [])}
    if any(r.hosts > 1 for r in rs):
        L += ["Across hosts: two network-namespace hosts on this machine (tests/multinode/mn_run.sh 2x2, "
              "netns-cluster), 2 PEs per host, UCX over TCP between the hosts. The peer's UCX runs with "
              "`UCX_TLS=self,tcp` there (netns-cluster mpiflags), so its two PEs on one host also talk "
              "over TCP: UCX takes the namespace hosts for one machine (one kernel boot id), and with its "
              "shared-memory transports allowed it would bypass the network between hosts as well. "
              "Shimmer maps the PEs of its host (a node is a host name to it).", ""]
    L += ["| kernel | placement | arguments | Shimmer (s) | peer (s) | speed-up | Shimmer rate | peer rate "
          "| target | verdict |", "|---|---|---|---:|---:|---:|---:|---:|---|---|"]
    for r in rs:
        args = " ".join((jobs.get(r.job) or {}).get("args", []))
        L.append("| %s | %s | `%s` | %s | %s | %s | %s | %s | >= %s× | %s |" % (
            r.kernel, r.label, args, stat_cell(r.shim, r.shim_why), stat_cell(r.peer, r.peer_why),
            speedup_cell(r, "×"),
            stat_cell(r.shim_rate, spread=False) + (" " + r.unit if r.shim_rate else ""),
            stat_cell(r.peer_rate, spread=False) + (" " + r.unit if r.peer_rate else ""),
            fmt(r.target), r.verdict))
    judged = [r for r in rs if r.verdict.startswith(("met", "MISSED", "BLOCKED"))]
    blocked = sum(r.verdict.startswith("BLOCKED") for r in judged)
    L += ["", "Met: %d of %d judged.%s" % (sum(r.verdict.startswith("met") for r in judged), len(judged),
                                           " Blocked (below): %d." % blocked if blocked else ""), ""]
    missed = [r for r in judged if r.verdict.startswith(("MISSED", "BLOCKED"))]
    if missed:
        one, every = copy_bandwidth(run)
        L += ["Missed, with where Shimmer's time went in its profiled run at the same placement "
              "(below) and, on one node, the reach: the largest speed-up over the peer any library "
              "could give, from this run: the peer's time over the kernel's floor, its time outside "
              "the library (the profile's share outside, times Shimmer's time) plus the copy of the "
              "bytes the library moved, all PEs' at the machine's best copy rate (limits/memcpy_bw "
              "`%s`: %s one core, on each CPU; every core copying %s, where faster); "
              "for a kernel with a direct variant, that variant's time (its data moved by memcpy "
              "through shmem_ptr: a library that costs nothing). With more PEs than CPUs the floor "
              "is also at least the computation at the largest placement where each PE had a CPU, "
              "spread over the CPUs, plus the CPU hand-offs the synchronisations force (per barrier, "
              "reduction, collect or alltoall: PEs per CPU - 1, at the hand-off probe's %s). "
              "BLOCKED: the reach is below the target." % (
                  " ".join(COPY_ARGS), human_bw(one), human_bw(every),
                  "%s µs" % fmt(handoff_s(run) * 1e6) if handoff_s(run) else "not measured"), ""]
        for r in missed:
            L.append("- %s, %s: %s× (Shimmer %s s, peer %s s)%s%s" % (
                r.kernel, r.label, fmt(r.speedup), fmt(r.shim.median), fmt(r.peer.median),
                "; profile: " + r.split.brief() if r.split else "",
                "; " + r.reach.text() if r.reach else ""))
        L.append("")
    L += split_markdown(run)
    for name in plot_files:
        if name.startswith("app_"):
            L += ["![%s](%s)" % (name, name), ""]
    return L


def text_summary(run):
    rs = results(run)
    if not rs:
        return []
    out = ["applications (time of each kernel's timed region, s; speed-up = peer / Shimmer)"]
    for r in rs:
        out.append("  %-10s %-16s Shimmer %-9s peer %-9s speed-up %-7s target >= %sx  %s" % (
            r.kernel, r.label, fmt(r.shim.median) if r.shim else (r.shim_why or "—"),
            fmt(r.peer.median) if r.peer else (r.peer_why or "—"),
            speedup_cell(r, "x"), fmt(r.target), r.verdict))
    ss = splits(run)
    if ss:
        out.append("where Shimmer's time goes (SHIMMER_PROFILE, %% of the timed region)")
        for s in ss:
            out.append("  %-10s %-16s " % (s.kernel, s.label) + "  ".join(
                "%s %.0f%%" % (c, p) for c, p in sorted(s.pct.items(), key=lambda kv: -kv[1]) if p >= 0.5))
    return out


def plots(run, outdir, plt):
    """app_<kernel>.png: the timed region's time by placement, both
    implementations (bars: medians, whiskers: min-max)."""
    rs = results(run)
    made = []
    impls = [(run.shimmer, "shim", "tab:blue"), (run.peer, "peer", "tab:orange")]
    for kernel, _, _ in KERNELS:
        kr = [r for r in rs if r.kernel == kernel]
        if not any(r.shim or r.peer for r in kr):
            continue
        fig, ax = plt.subplots(figsize=(6.5, 4))
        width = 0.38
        for k, (impl, attr, color) in enumerate(impls):
            if impl is None:
                continue
            xs, meds, lo, hi = [], [], [], []
            for i, r in enumerate(kr):
                st = getattr(r, attr)
                if st:
                    xs.append(i + (k - 0.5) * width)
                    meds.append(st.median)
                    lo.append(st.median - st.min)
                    hi.append(st.max - st.median)
            if xs:
                ax.bar(xs, meds, width, yerr=[lo, hi], color=color, alpha=0.85, capsize=3, label=impl)
        for i, r in enumerate(kr):
            if r.speedup:
                top = max(s.max for s in (r.shim, r.peer) if s)
                ax.annotate("%s×" % fmt(r.speedup), (i, top * 1.05), ha="center", va="bottom", fontsize=8)
        ax.set_xticks(range(len(kr)))
        ax.set_xticklabels([r.label for r in kr], fontsize=8)
        ax.set_yscale("log")           # across hosts the problem and the times differ
        ax.set_ylabel("time of the timed region (s, log)")
        ax.set_title("%s: time by placement (lower is better; label: speed-up)" % kernel, fontsize=10)
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(fontsize=8)
        name = "app_%s.png" % kernel
        fig.savefig(os.path.join(outdir, name), dpi=110, bbox_inches="tight")
        plt.close(fig)
        made.append(name)
    return made


def summary(run):
    def st(s):
        return s.as_dict() if s else None
    return [{"kernel": r.kernel, "placement": r.pid, "label": r.label, "shimmer_s": st(r.shim),
             "peer_s": st(r.peer), "speedup": r.speedup, "speedup_at_least": r.speedup_above,
             "reach": r.reach.speedup if r.reach else None,
             "floor_s": r.reach.floor_s if r.reach else None, "shimmer_rate": st(r.shim_rate),
             "peer_rate": st(r.peer_rate), "rate_unit": r.unit, "target": r.target, "verdict": r.verdict}
            for r in results(run)]


def profile_summary(run):
    return [{"kernel": s.kernel, "placement": s.pid, "pes": s.prof["pes"], "wall_s": s.prof["wall_s"],
             "recorded_s": s.prof["recorded_s"], "timed_s": s.timed.median if s.timed else None,
             "percent": s.pct, "bytes": s.bytes, "families": s.prof["families"]} for s in splits(run)]
