"""The report's section "Shimmer vs MPI": Shimmer's one-sided routines beside
MPI one-sided (RMA) and MPI message passing, by the methods of the GASNet-EX
performance pages and IMB, on one node and across two hosts.

report.py calls section(run, outdir, plt) with its Run; everything here is
driven by two tables: METHODS (one line per method on the graphs, one column
in the tables) and TARGETS (the issue's goals, judged at every size).

Peak (each figure as % of it):
  one node     the copy limit of the same pattern and size, with every core
               copying where that is faster: memcpy_bw (op=put or get: into
               or out of the other process's buffer), the larger data rate of
               one core's copy (for a latency: for a put completed by quiet
               or MPI_Win_flush the copy then a full fence, for a ping-pong
               the longer of the cache-line one-way time and the copy) and
               both processes copying (cores_MBps: a target waiting in a
               barrier or a wait_until may copy part of the data; for a
               latency plus one cache-line one-way time, the least a copy
               handed to another core and awaited back costs beyond its
               part); the best repetition (a limit is the best case).  A
               figure beyond it is a measurement fault and is flagged.
  across hosts the best data rate any method reached over the link (bandwidth,
               or size / time for a latency): named with its method and size.
Out of reach (one node): a size whose target asks for less time than the
same run's limit allows; for a put completed by quiet or MPI_Win_flush that
limit is the copy and its fence behind the program's two library calls
(memcpy_bw called_us: every library a program links pays them), in runs
recorded before the probe had it the copy and its fence.
Latencies count as data rates: size / time, so that a 4 MiB blocking put and
a 4 MiB flood compare with the same peak.
"""
import os


class Method:
    def __init__(self, mid, short, label, role, job, metric, key, shape, op, pingpong=False, completed=False):
        self.id, self.short, self.label, self.role, self.job, self.metric = mid, short, label, role, job, metric
        self.key, self.shape, self.op, self.pingpong = key, shape, op, pingpong
        self.completed = completed


# id, short name, label, who, job (one node; "hosts_" + job across hosts),
# metric, row key, bw (MB/s) or lat (us), the memcpy pattern bounding it,
# ping-pong (one way), completed (a put whose every copy is made visible to
# later loads too: its floor is the copy then a full fence)
METHODS = [
    Method("put_flood", "put flood", "Shimmer putmem_nbi x64 + quiet", "shimmer", "put_bw", "bandwidth_MBps", {},
           "bw", "put"),
    Method("get_flood", "get flood", "Shimmer getmem_nbi x64 + quiet", "shimmer", "get_bw", "bandwidth_MBps", {},
           "bw", "get"),
    Method("rma_put_agg", "MPI_Put flood", "MPI_Put x64 + MPI_Win_flush", "mpi", "mpi_rma", "bandwidth_MBps",
           {"op": "put"}, "bw", "put"),
    Method("rma_get_agg", "MPI_Get flood", "MPI_Get x64 + MPI_Win_flush", "mpi", "mpi_rma", "bandwidth_MBps",
           {"op": "get"}, "bw", "get"),
    Method("isend", "Isend flood", "MPI_Isend/Irecv x64 + ack", "mpi", "mpi_msg", "bandwidth_MBps", {}, "bw", "put"),
    Method("put_blocking", "put+quiet", "Shimmer putmem + quiet", "shimmer", "put_lat", "put_quiet_us", {},
           "lat", "put", completed=True),
    Method("get_blocking", "getmem", "Shimmer getmem", "shimmer", "get_lat", "latency_us", {}, "lat", "get"),
    Method("rma_put_flush", "MPI_Put+flush", "MPI_Put + MPI_Win_flush", "mpi", "mpi_rma", "latency_us",
           {"op": "put"}, "lat", "put", completed=True),
    Method("rma_get_flush", "MPI_Get+flush", "MPI_Get + MPI_Win_flush", "mpi", "mpi_rma", "latency_us",
           {"op": "get"}, "lat", "get"),
    Method("pp_mpi", "MPI ping-pong", "MPI_Send/Recv ping-pong (1/2 RTT)", "mpi", "mpi_msg", "latency_us", {},
           "lat", "put", True),
    Method("pp_fence_flag", "put+fence+flag", "Shimmer put + fence + flag ping-pong (1/2 RTT)", "shimmer",
           "put_lat", "pingpong_us", {}, "lat", "put", True),
    Method("pp_signal", "put_signal", "Shimmer put_signal ping-pong (1/2 RTT)", "shimmer", "signal_lat",
           "latency_us", {}, "lat", "put", True),
    Method("pp_lastbyte", "last bytes", "Shimmer put, poll on its last bytes (1/2 RTT)", "shimmer",
           "lastbyte_lat", "latency_us", {}, "lat", "put", True),
]
BY_ID = {m.id: m for m in METHODS}

PLACEMENTS = [
    # id, title, job prefix
    ("node", "one node, 2 PEs or ranks", ""),
    ("hosts", "two hosts (network namespaces), UCX over TCP", "hosts_"),
]
SHORT = {"node": "one node", "hosts": "two hosts, UCX over TCP"}


class Target:
    def __init__(self, placement, ours, theirs, op, factor, max_size=4 << 20):
        self.placement, self.ours, self.theirs = placement, BY_ID[ours], BY_ID[theirs]
        self.op, self.factor, self.max_size = op, factor, max_size

    def text(self, short=False):
        upto = "8 B–%s" % human(self.max_size)
        fac = "%g× " % self.factor
        if short:
            return "%s %s %s%s" % (self.ours.short, self.op, fac, self.theirs.short)
        what = "bandwidth" if self.ours.shape == "bw" else "latency"
        return "%s %s %s %s%s, %s" % (self.ours.label, what, self.op, fac, self.theirs.label, upto)


# The targets: on one node flood bandwidth >= MPI RMA and >= Isend at
# every size, blocking latency <= 0.5x MPI RMA's up to 4 KiB; across hosts at
# least as good as MPI RMA at every size.
TARGETS = [
    Target("node", "put_flood", "rma_put_agg", ">=", 1.0),
    Target("node", "put_flood", "isend", ">=", 1.0),
    Target("node", "get_flood", "rma_get_agg", ">=", 1.0),
    Target("node", "get_flood", "isend", ">=", 1.0),
    Target("node", "put_blocking", "rma_put_flush", "<=", 0.5, 4096),
    Target("node", "get_blocking", "rma_get_flush", "<=", 0.5, 4096),
    Target("hosts", "put_flood", "rma_put_agg", ">=", 1.0),
    Target("hosts", "get_flood", "rma_get_agg", ">=", 1.0),
    Target("hosts", "put_blocking", "rma_put_flush", "<=", 1.0),
    Target("hosts", "get_blocking", "rma_get_flush", "<=", 1.0),
]
MIN_SIZE = 8


def human(n):
    for unit, div in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d %s" % (n // div, unit)
    return "%d B" % n


def fmt(v):
    if v is None:
        return "—"
    a = abs(v)
    return "%.0f" % v if a >= 100 else "%.1f" % v if a >= 10 else "%.2f" % v if a >= 1 else "%.3g" % v


class Placement:
    """The data of one placement: each method's curve, the peak, the faults."""

    def __init__(self, run, pid, title, prefix):
        self.id, self.title, self.prefix = pid, title, prefix
        self.impl = {"shimmer": run.shimmer, "mpi": run.mpi}
        self.curves = {}                          # method id -> {size: Stat}
        for m in METHODS:
            impl = self.impl[m.role]
            if impl is None:
                continue
            c = {x: s for x, s in run.curve(impl, prefix + m.job, m.metric, **m.key) if x >= MIN_SIZE}
            if c:
                self.curves[m.id] = c
        self.sizes = sorted({x for c in self.curves.values() for x in c})
        self._limits(run)
        # one node: a figure above its limit (> 100 % of peak) is a measurement
        # fault; a smoke run's few iterations bound nothing
        self.faults = {(mid, x) for mid in self.curves for x in self.curves[mid]
                       if pid == "node" and not run.quick and (self.pct(mid, x) or 0) > 1.0}

    def _limits(self, run):
        """Per (method, size) the limit as a data rate (MB/s), and what it is
        called; and what judges a size out of reach (reach): the limit, for a
        completed put the copy and its fence behind the program's two library
        calls (called_us) where the run has it; a flood's is the copy limit
        (Run.copy_limit), a latency's also both processes copying where that
        is faster (cores_MBps plus a cache-line one-way time, and only where
        the run has that)."""
        self.limit, self.reach, self.called = {}, {}, False
        if self.id == "node":
            bw = {op: dict(run.copy_limit_curve(op)) for op in ("put", "get")}   # a flood's
            cores = {op: dict(run.limit_curve("memcpy_bw", "cores_MBps", op=op)) for op in ("put", "get")}
            lat = {op: dict(run.limit_curve("memcpy_bw", "latency_us", op=op)) for op in ("put", "get")}
            # runs recorded before the probe had fenced_us: the copy alone
            fenced = dict(run.limit_curve("memcpy_bw", "fenced_us", op="put")) or lat["put"]
            # ... and before it had called_us: the copy and its fence
            called = dict(run.limit_curve("memcpy_bw", "called_us", op="put"))
            self.called = bool(called)
            floor = dict(run.pingpong_floor())
            # a latency's copy shared with another core: the helper learns of
            # its part and the caller of its end by a cache line each way, so
            # at best the caller's part is two trips longer than the helper's
            # and the copy takes the whole at both processes' rate plus a trip
            cl = run.stat("limit", "cacheline_pingpong", "latency_us", mode="flag")
            for m in METHODS:
                for x in self.sizes:
                    if m.shape == "bw":
                        v, both = bw[m.op].get(x), 0.0
                    else:
                        t = floor.get(x) if m.pingpong else fenced.get(x) if m.completed else lat[m.op].get(x)
                        v = x / t if t else None
                        both = cores[m.op].get(x)    # runs before the probe had it: none
                        both = x / (x / both + cl.min) if both and cl else 0.0
                    if v:
                        self.limit[(m.id, x)] = self.reach[(m.id, x)] = max(v, both)
                    if m.completed and self.called and called.get(x):
                        self.reach[(m.id, x)] = max(x / called[x], both)
            self.peak_text = ("the copy limit of the same pattern and size, with every core copying where "
                              "that is faster (limits/memcpy_bw: into the other process's buffer for puts and "
                              "messages, out of it for gets; the larger data rate of one core, "
                              "`bandwidth_MBps`, for a latency one core's copy, for a put completed by quiet "
                              "or MPI_Win_flush the copy then a full fence, for a ping-pong the longer of the "
                              "copy and the cache-line one-way time, and both processes copying, "
                              "`cores_MBps`, for a latency plus one cache-line one-way time), best repetition")
            self.have_peak = bool(self.limit)
            return
        best, where = 0.0, None
        for mid, c in self.curves.items():
            for x, s in c.items():
                r = rate(BY_ID[mid], x, s.median)
                if r and r > best:
                    best, where = r, (mid, x)
        for m in METHODS:
            for x in self.sizes:
                self.limit[(m.id, x)] = best or None
        self.have_peak = where is not None
        self.peak_text = ("the best data rate any method reached over this link: %s MB/s (%s, %s)" % (
            fmt(best), BY_ID[where[0]].label, human(where[1]))) if where else "no data"

    def pct(self, mid, x):
        """The figure at size x as a fraction of its peak (None: no figure or no peak)."""
        s = self.curves.get(mid, {}).get(x)
        lim = self.limit.get((mid, x))
        r = rate(BY_ID[mid], x, s.median) if s else None
        return r / lim if r and lim else None


def rate(m, size, value):
    """A figure as a data rate in MB/s (bytes per microsecond)."""
    if not value:
        return None
    return value if m.shape == "bw" else size / value


def cell(pl, mid, x):
    s = pl.curves.get(mid, {}).get(x)
    if s is None:
        return "—"
    v = fmt(s.median)
    p = pl.pct(mid, x)
    if p is not None:
        v += " (%s%%)" % ("%.0f" % (100 * p) if p >= 0.01 else "%.2g" % (100 * p))
    if s.noisy:
        v += " ~"
    if s.invalid:
        v += " !"
    if (mid, x) in pl.faults:
        v += " *"
    return v


def floor_text(pl, m):
    """What bounds method m's time on one node (Placement.reach)."""
    if not m.completed:
        return "copy", "the copy alone takes"
    if pl.called:
        return "copy+fence+calls", "the copy and its fence behind the program's two library calls take"
    return "copy+fence", "the copy and its fence take"


def out_of_reach(pl, t, x):
    """What the target asks of Shimmer at size x, if that is beyond the
    machine limit measured in the same run (the same-pattern copy, for a
    completed put with its fence and the program's two library calls: no
    implementation of the pattern reaches it here); None otherwise.  Only on
    one node: the link peak across hosts is what some method reached."""
    s, lim = pl.curves.get(t.theirs.id, {}).get(x), pl.reach.get((t.ours.id, x))
    if pl.id != "node" or s is None or not lim:
        return None
    r = rate(t.theirs, x, s.median)       # a latency target: time <= f x theirs is rate >= theirs / f
    need = r * t.factor if t.op == ">=" else r / t.factor
    if need <= lim:
        return None
    if t.ours.shape == "bw":
        return "needs %s MB/s, the copy reaches %s" % (fmt(need), fmt(lim))
    return "needs %s us, %s %s" % (fmt(x / need), floor_text(pl, t.ours)[1], fmt(x / lim))


def copy_beside(pl, t, missed):
    """For a latency target missed on one node at sizes a copy would allow:
    each size's time asked beside the same-pattern copy (limits/memcpy_bw;
    for a completed put with its fence and the two library calls, as
    out_of_reach) and Shimmer's own cost, its figure at the smallest size
    less that size's copy.  Copy plus own cost above what is asked: the
    size is out of reach for any put or get that copies and then does what
    Shimmer does at 8 B.  None when there is nothing to show."""
    ours = pl.curves.get(t.ours.id, {})
    theirs = pl.curves.get(t.theirs.id, {})
    if pl.id != "node" or t.ours.shape != "lat" or not ours or not missed:
        return None
    x0 = min(ours)
    lim0 = pl.reach.get((t.ours.id, x0))
    if not lim0:
        return None
    own = max(0.0, ours[x0].median - x0 / lim0)
    rows = []
    for x in missed:
        lim = pl.reach.get((t.ours.id, x))
        if not lim or x not in theirs:
            continue
        copy = x / lim
        need = theirs[x].median * t.factor
        rows.append("%s needs %s us, has %s; %s %s + own %s = %s%s" % (
            human(x), fmt(need), fmt(ours[x].median), floor_text(pl, t.ours)[0],
            fmt(copy), fmt(own), fmt(copy + own), " (beyond)" if copy + own > need else ""))
    if not rows:
        return None
    return "beside the copy (limits/memcpy_bw; own = Shimmer's %s time less its copy): %s" % (
        human(x0), "; ".join(rows))


def of_limit(pl, t, x):
    """For a bandwidth missed on one node: both figures as % of the same
    run's copy limit, which shows a tie at that limit (two copies of one
    core, neither able to pass it) apart from a slower copy.  "" otherwise."""
    if pl.id != "node" or t.ours.shape != "bw":
        return ""
    ours, theirs = pl.pct(t.ours.id, x), pl.pct(t.theirs.id, x)
    if ours is None or theirs is None:
        return ""
    return " (Shimmer %.0f %%, MPI %.0f %% of the copy limit)" % (100 * ours, 100 * theirs)


def judge(pl, t, quick):
    """(verdict, detail) of one target at every size it covers.  BLOCKED: every
    size it misses asks for more than the same run's machine limit allows."""
    ours, theirs = pl.curves.get(t.ours.id, {}), pl.curves.get(t.theirs.id, {})
    sizes = [x for x in pl.sizes if x <= t.max_size and x in ours and x in theirs]
    if not sizes:
        return "no data", "no size with both figures"
    ratios = {x: ours[x].median / theirs[x].median for x in sizes if theirs[x].median}
    missed = [x for x, r in ratios.items() if not (r >= t.factor if t.op == ">=" else r <= t.factor)]
    worst = (min if t.op == ">=" else max)(ratios, key=lambda x: ratios[x])
    detail = "%d sizes, worst %s× at %s" % (len(sizes), fmt(ratios[worst]), human(worst))
    if quick:
        return "—", detail
    blocked = {x: out_of_reach(pl, t, x) for x in missed}
    blocked = {x: why for x, why in blocked.items() if why}
    if missed:
        detail = "missed at %d of %d sizes: %s" % (len(missed), len(sizes), ", ".join(
            "%s %s×%s" % (human(x), fmt(ratios[x]), of_limit(pl, t, x))
            for x in missed[:6]) + (", …" if len(missed) > 6 else ""))
    if blocked:
        detail += "; out of reach (%s, this run) at %s" % (
            "limits/memcpy_bw", ", ".join("%s: %s" % (human(x), why) for x, why in sorted(blocked.items())))
    beside = copy_beside(pl, t, sorted(x for x in missed if x not in blocked))
    if beside:
        detail += "; " + beside
    invalid = any(ours[x].invalid or theirs[x].invalid for x in sizes)
    fault = any((t.ours.id, x) in pl.faults or (t.theirs.id, x) in pl.faults for x in sizes)
    verdict = ("INVALID" if invalid else "BLOCKED" if missed and len(blocked) == len(missed)
               else "MISSED" if missed else "met")
    if fault:
        verdict += " (fault)"
    elif any(ours[x].noisy or theirs[x].noisy for x in missed or sizes):
        verdict += " (noisy)"
    return verdict, detail


def placements(run):
    return [Placement(run, *p) for p in PLACEMENTS]


def target_rows(run, pls):
    rows = []
    for pl in pls:
        for t in TARGETS:
            if t.placement == pl.id and pl.curves:
                v, d = judge(pl, t, run.quick)
                rows.append((pl, t, v, d))
    return rows


def text_summary(run, pls):
    """Lines for the console: the targets, one line each."""
    rows = target_rows(run, pls)
    if not rows:
        return []
    w = max(len(t.text(short=True)) for _, t, _, _ in rows)
    out = ["Shimmer vs MPI, every size from 8 B (latency up to 4 KiB on one node)" +
           (" — quick (smoke run): no verdicts" if run.quick else "")]
    for pl, t, v, d in rows:
        out.append("  %-5s  %s  %-15s %s" % (pl.id, t.text(short=True).ljust(w), v, d))
    return out


def plots(run, pls, outdir, plt, finish):
    made = []
    colors = {"shimmer": ["tab:blue", "tab:cyan", "tab:green", "tab:olive", "navy", "tab:purple", "teal"],
              "mpi": ["tab:orange", "tab:red", "tab:brown", "tab:pink", "goldenrod"]}
    for pl in pls:
        for shape, ylabel in (("bw", "bandwidth (MB/s)"), ("lat", "latency (us)")):
            ms = [m for m in METHODS if m.shape == shape and m.id in pl.curves]
            if not ms:
                continue
            fig, ax = plt.subplots(figsize=(8, 5))
            used = {"shimmer": 0, "mpi": 0}
            for m in ms:
                c = pl.curves[m.id]
                xs = sorted(c)
                col = colors[m.role][used[m.role] % len(colors[m.role])]
                used[m.role] += 1
                ax.plot(xs, [c[x].median for x in xs], "-" if m.role == "shimmer" else "--", color=col,
                        marker="o", markersize=3, label=m.label)
                if any(c[x].n > 1 for x in xs):
                    ax.fill_between(xs, [c[x].min for x in xs], [c[x].max for x in xs], color=col, alpha=0.12)
            if pl.have_peak:
                ref = ms[0]
                xs = [x for x in pl.sizes if (ref.id, x) in pl.limit]
                ys = [pl.limit[(ref.id, x)] if shape == "bw" else x / pl.limit[(ref.id, x)] for x in xs]
                label = ("copy limit (%s), every core where faster" % ref.op if pl.id == "node"
                         else "best rate over the link")
                ax.plot(xs, ys, "-", color="black", linewidth=1.2, label="peak: " + label)
            finish(ax, "Shimmer vs MPI, %s: %s vs size" % (SHORT[pl.id], "bandwidth" if shape == "bw" else "latency"),
                   ylabel)
            name = "vs_mpi_%s_%s.png" % (pl.id, "bandwidth" if shape == "bw" else "latency")
            fig.savefig(os.path.join(outdir, name), dpi=110, bbox_inches="tight")
            plt.close(fig)
            made.append(name)
    return made


def markdown(run, pls, plot_files):
    """The section's lines for report.md."""
    L = ["## Shimmer vs MPI", ""]
    if run.quick:
        L += ["quick (smoke run): tiny iteration counts, no verdicts.", ""]
    mpi = next((i for i in run.impls if i.get("role") == "mpi"), None)
    if run.mpi is None:
        L += ["**MPI is not available in this run** (%s): Shimmer's figures are shown alone." % (
            (mpi or {}).get("reason") or "no MPI implementation configured"), ""]
    hosts = run.meta.get("hosts") or {}
    L += ["Methods (GASNet-EX's flood bandwidth and blocking latency; IMB-RMA's Unidir_put/get in "
          "aggregate and non-aggregate mode; IMB's Uniband and PingPong): bandwidth is a flood of 64 "
          "operations of one size then one completion, repeated; latency is one operation completed "
          "before the next (a round trip), or half the round trip of a ping-pong. The programs: "
          "put_bw, get_bw, put_lat, get_lat, signal_lat, lastbyte_lat (Shimmer) and mpi/mpi_rma, "
          "mpi/mpi_msg (MPI); bench/README.md. Each cell: median over the repetitions, then the "
          "figure as % of the peak (latencies as size / time); `~` noisy, `!` data check failed, "
          "`*` beyond its limit: a measurement fault.", ""]
    if hosts and not hosts.get("available") and any(j.get("hosts", 1) > 1 for j in run.meta.get("jobs", [])):
        L += ["**Across hosts: not measured in this run**: %s." % hosts.get("reason", "?"), ""]
    rows = target_rows(run, pls)
    if rows:
        L += ["| placement | target | verdict | sizes |", "|---|---|---|---|"]
        for pl, t, v, d in rows:
            L.append("| %s | %s | %s | %s |" % (pl.title, t.text(), v, d))
        L.append("")
    for pl in pls:
        if not pl.curves:
            continue
        L += ["### %s" % pl.title[0].upper() + pl.title[1:], ""]
        if pl.id == "hosts" and hosts.get("how"):
            L += ["Hosts: %s." % hosts["how"], ""]
        L += ["Peak: %s." % pl.peak_text, ""]
        for shape, what in (("bw", "Bandwidth, MB/s (% of peak)"), ("lat", "Latency, µs (% of peak as size / time)")):
            ms = [m for m in METHODS if m.shape == shape and m.id in pl.curves]
            if not ms:
                continue
            L += ["%s:" % what, "", "| size | " + " | ".join(m.label for m in ms) + " |",
                  "|---:|" + "---:|" * len(ms)]
            for x in pl.sizes:
                L.append("| %s | %s |" % (human(x), " | ".join(cell(pl, m.id, x) for m in ms)))
            L.append("")
        for name in plot_files:
            if name.startswith("vs_mpi_%s_" % pl.id):
                L += ["![%s](%s)" % (name, name), ""]
        fl = sorted(pl.faults, key=lambda f: (f[1], f[0]))
        if fl:
            L += ["Measurement faults (a figure beyond its limit: the probe did not bound it): " + ", ".join(
                "%s at %s" % (BY_ID[mid].label, human(x)) for mid, x in fl) + ".", ""]
    return L


def fault_lines(pls):
    return ["Shimmer vs MPI, %s: %s at %s is beyond its limit (%.0f%% of peak): a measurement fault" % (
        pl.id, BY_ID[mid].label, human(x), 100 * pl.pct(mid, x))
        for pl in pls for mid, x in sorted(pl.faults, key=lambda f: (f[1], f[0]))]


def summary(run, pls):
    """The section as data, for summary.json: per placement the peak, each
    method's medians and % of peak by size, and the targets' verdicts."""
    out = {}
    for pl in pls:
        if not pl.curves:
            continue
        out[pl.id] = {
            "peak": pl.peak_text,
            "methods": {mid: {str(x): {"median": s.median, "min": s.min, "max": s.max,
                                       "pct_of_peak": pl.pct(mid, x), "fault": (mid, x) in pl.faults}
                              for x, s in sorted(c.items())} for mid, c in pl.curves.items()},
            "targets": [{"target": t.text(), "verdict": v, "detail": d}
                        for p, t, v, d in target_rows(run, [pl])],
        }
    return out
