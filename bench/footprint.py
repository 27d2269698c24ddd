"""The memory prong: bench/footprint (hello + barrier_all + collect with a
256 MiB symmetric heap) at growing job sizes, Shimmer beside the peer.

runner.py takes its jobs from jobs() (the "apps" set, also in --full);
report.py calls markdown(), plots(), text_summary() and summary().

Per launch the program reports, over the PEs, the mean and largest peak RSS
(VmHWM) and PSS (shared pages divided among their mappers) per PE.  How
memory grows with the job is the least-squares slope of the per-PE mean
against the PE count (bytes per PE per extra PE).  Target (issue 13): flat,
at most 8 MiB per PE (peak RSS, worst PE) up to 256 PEs; flat is read as a
per-PE peak RSS at the largest job within 10 % of the smallest's.
"""
import os

from versus_mpi import fmt

PES = (2, 8, 32, 128, 256)
HEAP = "256M"
# both names: Shimmer reads SHMEM_SYMMETRIC_SIZE, Open MPI 4.1 SMA_SYMMETRIC_SIZE
ENV = {"SHMEM_SYMMETRIC_SIZE": HEAP, "SMA_SYMMETRIC_SIZE": HEAP}
SETS = ("full", "apps")
LIMIT_MIB = 8.0
FLAT = 0.10
# metric, label, style
METRICS = [("peak_rss_mean_kib", "peak RSS, mean", "-"), ("peak_rss_max_kib", "peak RSS, worst PE", ":"),
           ("pss_mean_kib", "PSS, mean", "--")]


def job_id(n):
    return "footprint_%d" % n


def jobs(job):
    # a launch of 256 PEs of the peer on 2 cores takes minutes
    return [job(job_id(n), "footprint", n=n, sets=SETS, env=ENV, timeout=900) for n in PES]


def curve(run, impl, metric):
    """[(npes, Stat in KiB)]"""
    out = []
    for n in PES:
        st = run.stat(impl, job_id(n), metric) if impl else None
        if st:
            out.append((n, st))
    return out


def slope(points):
    """Least-squares slope of (x, y) points, or None."""
    if len(points) < 2:
        return None
    mx = sum(x for x, _ in points) / len(points)
    my = sum(y for _, y in points) / len(points)
    sxx = sum((x - mx) ** 2 for x, _ in points)
    return sum((x - mx) * (y - my) for x, y in points) / sxx if sxx else None


class Impl:
    """One implementation's footprint: curves, growth per extra PE, verdict."""

    def __init__(self, run, impl):
        self.impl = impl
        self.curves = {m: curve(run, impl, m) for m, _, _ in METRICS}
        self.growth = {m: slope([(n, s.median * 1024) for n, s in c]) for m, c in self.curves.items()}
        worst = self.curves["peak_rss_max_kib"]
        self.worst_mib = max((s.median / 1024 for _, s in worst), default=None)
        mean = self.curves["peak_rss_mean_kib"]
        self.flat = (mean[-1][1].median <= (1 + FLAT) * mean[0][1].median) if len(mean) >= 2 else None
        self.largest = mean[-1][0] if mean else None
        self.invalid = any(s.invalid for c in self.curves.values() for _, s in c)

    def verdict(self, quick):
        if quick:
            return "—"
        if self.worst_mib is None:
            return "no data"
        if self.invalid:
            return "INVALID"
        ok = self.worst_mib <= LIMIT_MIB and self.flat is not False and self.largest == PES[-1]
        why = [] if self.largest == PES[-1] else ["largest job measured: %d PEs" % self.largest]
        return ("met" if ok else "MISSED") + (" (%s)" % "; ".join(why) if why else "")


def ran(run):
    return any(run.ran(job_id(n)) for n in PES)


def markdown(run, plot_files):
    if not ran(run):
        return []
    impls = [(name, Impl(run, name)) for name in (run.shimmer, run.peer) if name]
    L = ["## Memory footprint", "",
         "Method (the published one): a hello world with `shmem_barrier_all` and `shmem_collect`, "
         "symmetric heap %s (`SHMEM_SYMMETRIC_SIZE`, and `SMA_SYMMETRIC_SIZE` for Open MPI), at %s PEs "
         "on this machine (oversubscribed beyond its CPUs). Each PE measures itself after the collect, "
         "while every PE is alive: peak RSS (VmHWM) and PSS (Pss of smaps_rollup: a page shared by k "
         "processes counts 1/k, so the heaps and libraries the PEs share count once over the job). "
         "Values in MiB per PE, median over the repetitions. Growth: the least-squares slope of the "
         "per-PE mean against the PE count, in bytes per PE for each extra PE in the job. Target: "
         "flat (the per-PE peak RSS at %d PEs within %d %% of that at %d) and at most %s MiB per PE "
         "(worst PE) up to %d PEs. Launchers (oshrun, mpirun and its daemons) are not counted." % (
             HEAP, ", ".join(map(str, PES)), PES[-1], int(FLAT * 100), PES[0], fmt(LIMIT_MIB), PES[-1]), ""]
    head = "| PEs |" + "".join(" %s %s |" % (name, lab) for name, _ in impls for _, lab, _ in METRICS)
    L += [head, "|---:|" + "---:|" * (len(impls) * len(METRICS))]
    for n in PES:
        cells = []
        for _, im in impls:
            for m, _, _ in METRICS:
                st = dict(im.curves[m]).get(n)
                cells.append(fmt(st.median / 1024) + (" ~" if st.noisy else "") + (" !" if st.invalid else "")
                             if st else why_missing(run, im.impl, n))
        L.append("| %d | %s |" % (n, " | ".join(cells)))
    L += ["", "| implementation | peak RSS growth (B/PE per extra PE) | PSS growth | worst PE (MiB) | "
              "target | verdict |", "|---|---:|---:|---:|---|---|"]
    for name, im in impls:
        L.append("| %s | %s | %s | %s | flat, <= %s MiB per PE to %d PEs | %s |" % (
            name, fmt(im.growth["peak_rss_mean_kib"]), fmt(im.growth["pss_mean_kib"]), fmt(im.worst_mib),
            fmt(LIMIT_MIB), PES[-1], im.verdict(run.quick) if name == run.shimmer else "(reference)"))
    L.append("")
    for name in plot_files:
        if name == "footprint.png":
            L += ["![%s](%s)" % (name, name), ""]
    return L


def why_missing(run, impl, n):
    return run.missing_why(impl, job_id(n)) or "—"


def text_summary(run):
    if not ran(run):
        return []
    out = ["memory footprint (hello + barrier_all + collect, %s heap; MiB per PE, peak RSS mean / PSS mean)" % HEAP]
    for name in (run.shimmer, run.peer):
        if not name:
            continue
        im = Impl(run, name)
        pts = ", ".join("%d: %s / %s" % (n, fmt(st.median / 1024),
                                        fmt((dict(im.curves["pss_mean_kib"]).get(n) or st).median / 1024))
                        for n, st in im.curves["peak_rss_mean_kib"])
        out.append("  %-8s %s; growth %s B/PE per extra PE%s" % (
            name, pts or "no data", fmt(im.growth["peak_rss_mean_kib"]),
            "; target: %s" % im.verdict(run.quick) if name == run.shimmer else ""))
    return out


def plots(run, outdir, plt):
    if not ran(run):
        return []
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = 0
    for name, color in ((run.shimmer, "tab:blue"), (run.peer, "tab:orange")):
        if not name:
            continue
        for m, lab, style in METRICS:
            c = curve(run, name, m)
            if c:
                ax.plot([n for n, _ in c], [s.median / 1024 for _, s in c], style, color=color, marker="o",
                        markersize=3, label="%s %s" % (name, lab))
                drawn += 1
    if not drawn:
        plt.close(fig)
        return []
    ax.axhline(LIMIT_MIB, color="black", linewidth=1, label="target: %s MiB per PE" % fmt(LIMIT_MIB))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("PEs in the job")
    ax.set_ylabel("MiB per PE")
    ax.set_ylim(bottom=0)
    ax.set_title("footprint: hello + barrier_all + collect, %s heap" % HEAP, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.savefig(os.path.join(outdir, "footprint.png"), dpi=110, bbox_inches="tight")
    plt.close(fig)
    return ["footprint.png"]


def summary(run):
    out = {}
    for name in (run.shimmer, run.peer):
        if name:
            im = Impl(run, name)
            out[name] = {"curves": {m: [(n, s.as_dict()) for n, s in c] for m, c in im.curves.items()},
                         "growth_bytes_per_pe": im.growth, "worst_mib": im.worst_mib,
                         "verdict": im.verdict(run.quick)}
    return out
