"""The applications prong: the kernels of apps/, Shimmer beside the peer.

runner.py takes its jobs from jobs() (the "apps" set, also in --full);
report.py calls markdown(), plots(), text_summary() and summary() for the
report's "Applications" section.

Beside the timed runs, one untimed run per kernel under Shimmer's built-in
profile (SHIMMER_PROFILE=1, 4 PEs on one node, docs/profile.md) splits the
kernel's time by routine family; read_profile() is the one parser of that
table.

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


# The profile split: PEs of its one-node run, and the columns it shows:
# label, the profile families (src/core/prof.def) summed into it.  "other"
# is every other family; "outside" is the wall time in none (the program's
# own computation, data generation and self-check).
PROFILE_PES = 4
SPLIT = [("put", ("put",)), ("get", ("get",)), ("amo", ("amo",)), ("barrier", ("barrier",)),
         ("reduction", ("reduce",)), ("wait", ("wait",)), ("init", ("init",))]


def job_id(kernel, pid):
    return "app_%s_%s" % (kernel, pid)


def profile_job_id(kernel):
    return "appprof_%s" % kernel


def jobs(job):
    """The apps set's jobs, made with the runner's job(): every kernel at
    every placement, then its profiled run (Shimmer only)."""
    return [job(job_id(k, pid), k, node if hosts == 1 else across, n=n, sets=SETS, kind="app",
                hosts=hosts, quick_args=QUICK_ARGS)
            for k, node, across in KERNELS for pid, _, n, hosts in PLACEMENTS] + \
        [job(profile_job_id(k), k, node, n=PROFILE_PES, sets=SETS, kind="app", roles=("shimmer",),
             quick_args=QUICK_ARGS, profile=True) for k, node, _ in KERNELS]


def read_profile(path):
    """The aggregated table of SHIMMER_PROFILE=1 (docs/profile.md), or None:
    {"pes": n, "wall_s": mean wall time, "families": {family: {"calls": mean,
    "time_s": mean, "time_max_s": max, "bytes": mean}}}."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    if not lines or not lines[0].startswith("shimmer profile:"):
        return None
    head = lines[0].split()
    out = {"pes": int(head[2]), "wall_s": float(head[4]), "families": {}}
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
    """One kernel's profiled run: % of the wall time (init to finalize, mean
    over the PEs) in each column of SPLIT, in "other" and outside the library."""

    def __init__(self, run, kernel):
        self.kernel = kernel
        self.prof = read_profile(os.path.join(run.root, "raw", run.shimmer or "-",
                                              profile_job_id(kernel) + ".prof"))
        self.timed = run.stat(run.shimmer, profile_job_id(kernel), "time_s") if run.shimmer else None
        self.pct, self.others = {}, []
        if not self.prof or self.prof["wall_s"] <= 0:
            return
        wall = self.prof["wall_s"]
        fam = self.prof["families"]
        named = set()
        for label, families in SPLIT:
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
    return [s for s in (Split(run, k) for k, _, _ in KERNELS) if s.prof]


def split_markdown(run):
    ss = splits(run)
    if not ss:
        return []
    cols = [label for label, _ in SPLIT] + ["other", "outside"]
    L = ["### Where Shimmer's time goes", "",
         "One untimed run per kernel under the built-in profile (`SHIMMER_PROFILE=1`, docs/profile.md), "
         "%d PEs on one node, the same arguments as the timed runs: the share of each PE's wall time, "
         "from the start of `shmem_init` to the end of `shmem_finalize` (mean over the PEs), spent in "
         "each family of routines. reduction: `reduce`; other: every other family (the largest named); "
         "outside: in no OpenSHMEM routine (the kernel's own computation, data generation and "
         "self-check). Time in barrier, wait and the collectives includes waiting for slower PEs. "
         "Timed region: the kernel's own timed region in this run, as a share of the wall time." % PROFILE_PES,
         "", "| kernel | wall (s) | timed region | " + " | ".join(cols) + " | largest in other |",
         "|---|---:|---:|" + "---:|" * len(cols) + "---|"]
    for s in ss:
        timed = "%.0f %%" % (100.0 * s.timed.median / s.prof["wall_s"]) if s.timed else "—"
        L.append("| %s | %s | %s | %s | %s |" % (
            s.kernel, fmt(s.prof["wall_s"]), timed,
            " | ".join("%.1f %%" % s.pct[c] for c in cols),
            ", ".join("%s %.1f %%" % o for o in s.others) or "—"))
    return L + [""]


class Result:
    """One kernel at one placement: both implementations' times and rates."""

    def __init__(self, run, kernel, pid, label, n, hosts):
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
        return v + (" (noisy)" if self.shim.noisy or self.peer.noisy else "")

    def ran(self, run):
        return run.ran(self.job) and (self.shim or self.peer or self.shim_why or self.peer_why)


def results(run):
    return [r for r in (Result(run, k, pid, label, n, hosts)
                        for k, _, _ in KERNELS for pid, label, n, hosts in PLACEMENTS) if r.ran(run)]


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
    judged = [r for r in rs if r.verdict.startswith(("met", "MISSED"))]
    L += ["", "Met: %d of %d judged." % (sum(r.verdict.startswith("met") for r in judged), len(judged)), ""]
    missed = [r for r in judged if r.verdict.startswith("MISSED")]
    if missed:
        split = {s.kernel: s for s in splits(run)}
        L += ["Missed, with where Shimmer's time went in its profiled run (%d PEs, one node; below):"
              % PROFILE_PES, ""]
        for r in missed:
            sp = split.get(r.kernel)
            L.append("- %s, %s: %s× (Shimmer %s s, peer %s s)%s" % (
                r.kernel, r.label, fmt(r.speedup), fmt(r.shim.median), fmt(r.peer.median),
                "; profile: " + sp.brief() if sp else ""))
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
        out.append("where Shimmer's time goes (SHIMMER_PROFILE, %d PEs, %% of the wall time)" % PROFILE_PES)
        for s in ss:
            out.append("  %-10s " % s.kernel + "  ".join(
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
             "peer_s": st(r.peer), "speedup": r.speedup, "speedup_at_least": r.speedup_above, "shimmer_rate": st(r.shim_rate),
             "peer_rate": st(r.peer_rate), "rate_unit": r.unit, "target": r.target, "verdict": r.verdict}
            for r in results(run)]


def profile_summary(run):
    return [{"kernel": s.kernel, "pes": s.prof["pes"], "wall_s": s.prof["wall_s"],
             "timed_s": s.timed.median if s.timed else None, "percent": s.pct,
             "families": s.prof["families"]} for s in splits(run)]
