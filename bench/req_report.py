"""req_report.py -- the "Merged requests" section of the report (issue 12,
part 3): bench/req.c's figures on one node (job `req`) and across two
namespace hosts (`hosts_req`; `hosts_req_percall`: its 1-thread rate with
the default path one UCX put per put, the paper's baseline), the default
path beside merged handles, with the issue's targets.  Used by report.py
like app_kernels and footprint."""
import statistics

JOBS = (("req", "one node, 2 PEs"), ("hosts_req", "two namespace hosts, 1 PE each (UCX over TCP)"),
        ("hosts_req_percall", "two namespace hosts, SHIMMER_RMA_COALESCE=0: the default path one "
         "UCX put per put (the paper's baseline), rate at 1 thread"),
        ("hosts_req_offload", "two namespace hosts, SHIMMER_PROGRESS_OFFLOAD=1 (opt-in)"))
PERCALL = "hosts_req_percall"
# an overlap window's phases (bench/req.c): wall time, this thread's CPU time
PHASES_WALL = ("issue_us", "test_us", "compute_us", "wait_us")
PHASES_CPU = ("issue_cpu_us", "test_cpu_us", "compute_cpu_us", "wait_cpu_us")


def _series(run, job, **key):
    """[(row key, median of each metric)] of the shimmer rows of `job` matching key."""
    out = []
    for (impl, j, _), s in run.series.items():
        if impl != run.shimmer or j != job:
            continue
        if all(s["key"].get(k) == v for k, v in key.items()):
            out.append((s["key"], {m: statistics.median(v) for m, v in s["metrics"].items() if v}))
    return out


def _one(run, job, metric, **key):
    hits = _series(run, job, **key)
    return hits[0][1].get(metric) if len(hits) == 1 else None


def _fmt(v, unit=""):
    if v is None:
        return "—"
    if unit == "msg/s":
        return "%.2f M" % (v / 1e6)
    if unit == "%":
        return "%.0f %%" % v
    if unit == "x":
        return "%.2fx" % v if v < 10 else "%.0fx" % v
    return "%.3g%s" % (v, (" " + unit) if unit else "")


def _verdict(ok):
    return "—" if ok is None else "met" if ok else "MISSED"


def _reps(run, job, metric, **key):
    """Every repetition's value of one figure ([] if none)."""
    for (impl, j, _), s in run.series.items():
        if impl == run.shimmer and j == job and all(s["key"].get(k) == v for k, v in key.items()):
            return [v for v in s["metrics"].get(metric, []) if v is not None]
    return []


def _spread(vals):
    """(max - min) / median of the repetitions, 0 with fewer than two."""
    if len(vals) < 2 or not statistics.median(vals):
        return 0.0
    return (max(vals) - min(vals)) / statistics.median(vals)


def _paired(run, job):
    """One node's paired rate points (bench/req.c: one launch alternates
    blocks of the two modes): [(threads, window, ratio, q1, q3, lo, hi,
    [each repetition's ratio])]: the medians over the repetitions of the
    merged row's median merged/default ratio over its pairs and of its
    quartiles; lo, hi: the lowest and highest bound of the repetitions' 95 %
    intervals of that median.  Pairs cancel what changes within a launch,
    not what differs between launches (on this VM the host's placement of
    its vCPUs moved a point's ratio by up to 25 % from one launch to the
    next), so a point is above or below only when every launch says so.
    [] for results without pairs."""
    out = []
    for k, v in _series(run, job, op="rate", mode="merged"):
        if v.get("ratio"):
            rep = lambda m: _reps(run, job, m, op="rate", mode="merged", threads=k["threads"],
                                  window=k["window"])
            out.append((k["threads"], k["window"], v["ratio"], v.get("ratio_q1"), v.get("ratio_q3"),
                        min(rep("ratio_lo")), max(rep("ratio_hi")), rep("ratio")))
    return sorted(out)


def _side(p):
    """Where one paired point stands: 'above' or 'below' 1.0 beyond its
    intervals, else 'equal' (1.0 inside them: the medians cannot tell the
    two apart)."""
    return "above" if p[5] >= 1 else "below" if p[6] < 1 else "equal"


def _resolution(p):
    """Half the width of a point's 95 % interval, as a fraction."""
    return (p[6] - p[5]) / 2


def _fit(run, job, mode, threads):
    """Least squares of a window's time (us) over its puts at `threads`:
    (us per put, us per window = the completion), or None."""
    pts = []
    for k, v in _series(run, job, op="rate", mode=mode, threads=threads):
        if v.get("messages_per_s"):
            pts.append((k["window"], k["window"] / v["messages_per_s"] * 1e6))
    if len(pts) < 2:
        return None
    n = len(pts)
    mx, my = sum(p[0] for p in pts) / n, sum(p[1] for p in pts) / n
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if not sxx:
        return None
    slope = sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx
    return slope, my - slope * mx


def _rate_ratio(run, job):
    """The 1-thread rate at the widest window (512): (window, default,
    merged, merged / default), None where not measured."""
    windows = sorted({k["window"] for k, _ in _series(run, job, op="rate", threads=1)})
    w = 512 if 512 in windows else (windows[-1] if windows else None)
    d, m = (_one(run, job, "messages_per_s", op="rate", mode=x, threads=1, window=w)
            for x in ("default", "merged"))
    return w, d, m, (m / d if d and m else None)


def _rate_row(run, job, what, missed_why=""):
    """The target row "merged >= 2.2x the default at 1 thread" (the paper's
    10 vs 4.5 M msg/s) of `job`'s rate; missed_why follows a MISSED."""
    w, d, m, ratio = _rate_ratio(run, job)
    verdict = _verdict(ratio >= 2.2 if ratio else None)
    return ("rate 8 B, 1 thread, window %s: merged / %s" % (w, what),
            "%s (%s vs %s msg/s)" % (_fmt(ratio, "x"), _fmt(m, "msg/s"), _fmt(d, "msg/s")) if ratio else "—",
            ">= 2.2x", verdict + (": " + missed_why if verdict == "MISSED" and missed_why else ""))


def _percall_row(run):
    return _rate_row(run, PERCALL, "default without coalescing (SHIMMER_RMA_COALESCE=0, "
                     "the paper's baseline; job %s)" % PERCALL)


def _percall_why(run):
    """The sentence on the per-call default path (job hosts_req_percall), or None."""
    fd, fm = _fit(run, PERCALL, "default", 1), _fit(run, PERCALL, "merged", 1)
    w, d, m, ratio = _rate_ratio(run, PERCALL)
    if not (fd and fm and ratio):
        return None
    return ("Without coalescing on the default path (SHIMMER_RMA_COALESCE=0, job %s, same run: "
            "the paper's baseline) a default put costs %.2f us (+ %.1f us a window, the quiet), "
            "each its own UCX put, over TCP a send system call, against %.2f us (+ %.1f us) "
            "merged: at window %d merged / default = %.0fx (%.2f vs %.3f M msg/s)." % (
                PERCALL, fd[0], fd[1], fm[0], fm[1], w, ratio, m / 1e6, d / 1e6))


def why(run, job):
    """Measurements of the same run that explain each figure (the issue asks,
    for a missed target, to show why with a measurement): for a target
    the bound this machine sets, from the same run, beside what was
    measured."""
    L = []
    if job == "hosts_req_offload":
        return why_offload(run)
    if job == PERCALL:        # its sentence is hosts_req's, when that ran
        pc = _percall_why(run)
        return [pc] if pc and not _series(run, "hosts_req") else []
    lat = {m: _one(run, job, "time_us", op="lat", mode=m) for m in ("put+quiet", "merged", "get", "inject")}
    fits = {m: _fit(run, job, m, 1) for m in ("default", "merged")}
    if job == "hosts_req":
        inj = lat["inject"]
        if all(fits.values()):
            (sd, cd), (sm, cm) = fits["default"], fits["merged"]
            pc = _percall_why(run)
            L.append("Rate, 1 thread: least squares over the windows, a window of w puts costs "
                     "%.2f us/put + %.1f us (default) and %.2f us/put + %.1f us (merged); the ratio "
                     "tends to %.2fx. A merged put is coalesced (docs/requests.md): a copy into a "
                     "buffer per (context, PE), which leaves as one message at the wait, and "
                     "whose reply completes the window. A default put is coalesced the same way, "
                     "quiet sending the buffer, unless SHIMMER_RMA_COALESCE=0 (then it is the "
                     "UCX put itself, over TCP a send per put); with both coalescing the ratio "
                     "stays near 1. %s" % (sd, cd, sm, cm, sd / sm if sm else 0,
                                           pc or "Without coalescing: not measured in this run."))
        if lat["merged"] and lat["put+quiet"] and lat["get"]:
            pq, rt = lat["put+quiet"], lat["get"]
            goal = 0.4 * pq
            L.append("Latency (medians over the iterations): target handle <= 0.4x put + quiet = "
                     "%.1f us; bound one network round "
                     "trip, a blocking 8 B get, %.1f us (%.2fx put + quiet): remote completion "
                     "needs the target's answer, %s; measured handle %.1f us (%.2fx put + quiet, "
                     "%.2fx the round trip), put + quiet %.1f us (%.2fx the round trip). Put + "
                     "quiet is issuing the put (inject, %s: local completion, the only kind "
                     "cheaper than a round trip) and completing it (coalesced: the buffer's one "
                     "message and its reply; with SHIMMER_RMA_COALESCE=0 an endpoint flush); the "
                     "handle's put leaves in one message at its wait and the target's reply "
                     "completes it." % (
                         goal, rt, rt / pq,
                         "so the target is below the bound" if goal < rt else "the target is above it",
                         lat["merged"], lat["merged"] / pq, lat["merged"] / rt, pq, pq / rt,
                         "%.2f us" % inj if inj else "not measured"))
        best = {m: _best_overlap(run, job, m) for m in ("default", "merged", "merged+test")}
        fmt = lambda b: "%.0f %% (%d B)" % b if b else "not measured"
        t = best["merged+test"]
        g = (lambda m: _one(run, job, m, op="overlap", mode="merged+test", size=t[1])) if t else None
        ph = {m: g(m) for m in ("time_us", "comm_us") + PHASES_WALL + PHASES_CPU} if t else {}
        if t and None not in ph.values() and ph["comm_us"]:
            wall, cpu = [ph[m] for m in PHASES_WALL], [ph[m] for m in PHASES_CPU]
            own = cpu[0] + cpu[1] + cpu[3]
            L.append("Overlap: target 95 %%; bound %.0f %%: this CPU's own work in a window of 64 "
                     "puts of %d B (merged + one test, its best size), the thread's CPU time "
                     "against the wall time of each phase (medians over the windows, bench/req.c): "
                     "issuing %.1f of %.1f us, the test (sending the buffer, over TCP a system "
                     "call) %.1f of %.1f us, the wait after the computation (taking the reply) "
                     "%.1f of %.1f us: %.1f us of CPU, %.0f %% of the window's communication alone "
                     "(t_comm %.1f us), which no completion scheme overlaps with a computation on "
                     "this CPU; %s; measured merged %s, default %s, merged + one test %s. A merged "
                     "window's puts are copies into the handle's buffer; without the test its "
                     "message and the reply start when shmemx_req_wait sends it, after the "
                     "computation%s." % (
                         max(0, 100 * (1 - own / ph["comm_us"])), t[1], cpu[0], wall[0], cpu[1],
                         wall[1], cpu[3], wall[3], own, 100 * own / ph["comm_us"], ph["comm_us"],
                         _off_cpu(wall, cpu, lat["get"]),
                         fmt(best["merged"]), fmt(best["default"]), fmt(t) + _overlap_reps(run, job, t[1]),
                         _phases(run, job, "merged", best["merged"])))
        elif best["merged"]:
            L.append("Overlap: target 95 %%; measured merged %s, merged + one test %s, default %s "
                     "(no bound: this run has no CPU times of a merged + test window's phases)." % (
                         fmt(best["merged"]), fmt(t), fmt(best["default"])))
    else:
        windows = sorted({k["window"] for k, _ in _series(run, job, op="rate")})
        pts = _paired(run, job)
        if pts:
            side = {x: [p for p in pts if _side(p) == x] for x in ("above", "equal", "below")}
            iqr = [p[4] - p[3] for p in pts]
            L.append("Rate, paired (each point's default and merged blocks alternate in one "
                     "launch, so both see the same machine): merged / default, median of the pairs "
                     "per point, %d points: %d above 1.0 beyond the 95 %% interval of the median "
                     "in every repetition, %d equal within them (the repetitions' intervals "
                     "together: half-widths %.1f-%.1f %%), %d below%s. One "
                     "pair's ratio spreads more (interquartile ranges %.1f-%.1f %%); the "
                     "repetitions' medians of a point differ by up to %.1f %%." % (
                         len(pts), len(side["above"]), len(side["equal"]),
                         100 * min(map(_resolution, side["equal"] or pts)),
                         100 * max(map(_resolution, side["equal"] or pts)),
                         len(side["below"]),
                         ": " + ", ".join("%d thr w%d %.3f (%.3f-%.3f)" % (p[0], p[1], p[2], p[5], p[6])
                                          for p in side["below"][:8]) if side["below"] else "",
                         100 * min(iqr), 100 * max(iqr),
                         100 * max((max(p[7]) - min(p[7])) / p[2] for p in pts)))
        best = {t: max([_one(run, job, "messages_per_s", op="rate", mode="merged", threads=t, window=w)
                        or 0 for w in windows] or [0]) for t in (1, 2)}
        if best[1] and best[2]:
            L.append("Aggregate: merged, best window, %.0f M msg/s with 1 thread (%.1f ns per put), "
                     "%.0f M msg/s with 2 threads (%.1f ns per put per thread, %.2fx the one "
                     "thread). PE 1 and the 2 threads of PE 0 share the machine's %s CPUs; a put "
                     "is a call, a range compare and an 8 B store." % (
                         best[1] / 1e6, 1e3 / (best[1] / 1e6), best[2] / 1e6,
                         2e3 / (best[2] / 1e6), best[2] / best[1],
                         run.meta.get("machine", {}).get("online_cpus", "?")))
    return L


def _off_cpu(wall, cpu, rtt):
    """What the wall times hold beyond this thread's CPU, as a clause:
    wall, cpu: the four phases (issue, test, compute, wait); rtt: a round
    trip (the blocking get), or None."""
    idle = [w - c for w, c in zip(wall, cpu)]
    own, off = wall[0] + wall[1] + wall[3], idle[0] + idle[1] + idle[3]
    if off <= 0.05 * own + 0.2:   # two passes' medians: as close as they get
        text = ("the three phases' wall times sum to %.1f us, the CPU times within %.1f us of "
                "them: the thread ran throughout, none of it was waiting off the CPU" % (
                    own, max(abs(x) for x in (idle[0], idle[1], idle[3]))))
    else:
        text = ("the three phases' wall times sum to %.1f us, %.1f us of it with the thread not "
                "running (blocked or preempted: the test %.1f, the wait %.1f)" % (
                    own, off, idle[1], idle[3]))
    text += ("; the computation ran %.1f us of CPU in %.1f us%s" % (
        cpu[2], wall[2], " (%.1f us preempted: another task, or the VM's host, had the CPU)" %
        idle[2] if idle[2] > 0.1 * wall[2] else ""))
    if rtt and wall[2] > rtt:
        text += ", longer than a round trip (%.1f us): the reply has arrived by the wait" % rtt
    elif rtt:
        text += (", shorter than a round trip (%.1f us): the wait's CPU time may be polling for "
                 "the reply, which the bound then counts as work" % rtt)
    return text


def _overlap_reps(run, job, size):
    """Each repetition's measured overlap beside its bound (from its CPU
    times) at one merged + test size, as a clause: on a shared machine a
    stall inflates one repetition's t_comm (both move) or its compute loop
    timed alone (t_compute: the measured overlap alone rises, above its
    bound)."""
    names = ("overlap_pct", "time_us", "compute_us", "issue_cpu_us", "test_cpu_us", "wait_cpu_us",
             "comm_us")
    reps = [_reps(run, job, m, op="overlap", mode="merged+test", size=size) for m in names]
    if len({len(r) for r in reps}) != 1 or len(reps[0]) < 2 or not all(reps[6]):
        return ""
    per = [(o, 100 * (1 - (i + te + w) / c), tot - (1 - o / 100) * c, comp, c)
           for o, tot, comp, i, te, w, c in zip(*reps)]
    text = "; its repetitions, measured / bound: %s %%" % ", ".join("%.0f / %.0f" % p[:2] for p in per)
    comm = [p[4] for p in per]
    if max(comm) > 2 * min(comm):
        text += (", t_comm %.0f-%.0f us (most windows of a repetition that slow, the median "
                 "too: both rise)" % (min(comm), max(comm)))
    above = [p for p in per if p[0] > p[1] + 5]
    if above:
        p = max(above, key=lambda p: p[0] - p[1])
        text += (" (above its bound where the compute loop timed alone, t_compute, took at least "
                 "%.1f us against %.1f us in the window: a stall, not overlap)" % (p[2], p[3]))
    return text


def _best_overlap(run, job, mode, op="overlap"):
    """(overlap %, size) of the best size, or None."""
    pts = [(v.get("overlap_pct"), k["size"]) for k, v in _series(run, job, op=op, mode=mode)]
    return max((p for p in pts if p[0] is not None), default=None)


def _phases(run, job, mode, best, op="overlap"):
    """Where the window of the best overlap point went (bench/req.c's
    medians of each phase's wall time, and this thread's CPU time in it
    where the run has them), as a clause, or ""."""
    if not best:
        return ""
    g = lambda m: _one(run, job, m, op=op, mode=mode, size=best[1])
    total, wall, cpu = g("time_us"), [g(m) for m in PHASES_WALL], [g(m) for m in PHASES_CPU]
    if None in (total, wall[0], wall[1], wall[3]):
        return ""
    if wall[2] is None:       # results from before compute_us
        wall[2] = total - wall[0] - wall[1] - wall[3]
    f = lambda p: "%.1f" % wall[p] + (" (CPU %.1f)" % cpu[p] if None not in cpu else "")
    return (" (a window of %.1f us: issuing %s, %scomputing %s, the wait after it %s)" % (
        total, f(0), "the test %s, " % f(1) if mode == "merged+test" else "", f(2), f(3)))


def why_offload(run):
    """The offload beside the same run's hosts_req: what it overlaps, what it costs."""
    L = []
    on, off = "hosts_req_offload", "hosts_req"
    fmt = lambda b: "%.0f %% (%d B)" % b if b else "not measured"
    bm, bt = _best_overlap(run, on, "merged"), _best_overlap(run, on, "merged+test")
    L.append("Overlap with the offload (the progress thread sends the window once the program "
             "stops filling it and takes the reply, docs/requests.md \"Offload\"): merged %s%s, "
             "merged + test %s%s; without it, same run: %s and %s. The computation is as long as "
             "the window's communication, shorter than the thread's part of it (settle, send, "
             "the peer's answer, the reply), and on this machine the thread, the computing PE "
             "and the answering peer share its CPUs." % (
                 fmt(bm), _phases(run, on, "merged", bm), fmt(bt), _phases(run, on, "merged+test", bt),
                 fmt(_best_overlap(run, off, "merged")), fmt(_best_overlap(run, off, "merged+test"))))
    im, it = (_best_overlap(run, on, m, "overlap_idle") for m in ("merged", "merged+test"))
    if im or it:
        L.append("With the target asleep instead of waiting in a barrier (overlap_idle: its "
                 "progress thread serves the windows, its main thread leaves the second CPU to "
                 "this PE's progress thread): merged %s%s, merged + test %s%s. The target's "
                 "wake-ups make its answer slower, so each window's communication is longer "
                 "too; what stays in sight is this PE's issue and the end of the wait." % (
                     fmt(im), _phases(run, on, "merged", im, "overlap_idle"),
                     fmt(it), _phases(run, on, "merged+test", it, "overlap_idle")))
    cost = []
    for w in (64, 512):
        a = _one(run, on, "messages_per_s", op="rate", mode="merged", threads=1, window=w)
        b = _one(run, off, "messages_per_s", op="rate", mode="merged", threads=1, window=w)
        if a and b:
            cost.append("window %d %.1f vs %.1f M msg/s" % (w, a / 1e6, b / 1e6))
    lat = [(m, _one(run, on, "time_us", op="lat", mode=m), _one(run, off, "time_us", op="lat", mode=m))
           for m in ("merged", "put+quiet")]
    cost += ["%s %.1f vs %.1f us" % x for x in lat if x[1] and x[2]]
    if cost:
        L.append("Cost, merged at 1 thread with vs without: %s (a window waited for at once: "
                 "the thread backs off after 4 turns with nothing to send)." % "; ".join(cost))
    return L


def targets(run, job):
    """[(figure, value, target, verdict)] of one placement (no verdicts in a smoke run)."""
    rows = _targets(run, job)
    return [r[:3] + ("—",) for r in rows] if run.quick else rows


def _targets(run, job):
    rows = []
    across = job.startswith("hosts_req")
    rate = lambda mode, t, w: _one(run, job, "messages_per_s", op="rate", mode=mode, threads=t, window=w)
    windows = sorted({k["window"] for k, _ in _series(run, job, op="rate")})
    if job == PERCALL:        # its row is in hosts_req's table, when that ran
        return [] if _series(run, "hosts_req") else [_percall_row(run)]
    if across:
        rows.append(_rate_row(run, job, "default (coalescing, as shipped)",
                              "the default path coalesces into the same buffers as a handle "
                              "(docs/requests.md, \"Coalescing\")"))
        if job == "hosts_req":
            rows.append(_percall_row(run))
        lat_m = _one(run, job, "time_us", op="lat", mode="merged")
        lat_d = _one(run, job, "time_us", op="lat", mode="put+quiet")
        ratio = lat_m / lat_d if lat_m and lat_d else None
        rows.append(("latency 8 B: handle / put+quiet", "%s (%s vs %s us)" % (_fmt(ratio, "x"),
                     _fmt(lat_m), _fmt(lat_d)), "<= 0.4x", _verdict(ratio <= 0.4 if ratio else None)))
        ov = [v.get("overlap_pct") for k, v in _series(run, job, op="overlap", mode="merged")]
        ov = [x for x in ov if x is not None]
        best = max(ov) if ov else None
        rows.append(("overlap, merged (best size)", _fmt(best, "%"), ">= 95 %",
                     _verdict(best >= 95 if best is not None else None)))
        # the same handle with one shmemx_req_test after the issue (sends its buffer early)
        ov = [v.get("overlap_pct") for k, v in _series(run, job, op="overlap", mode="merged+test")]
        ov = [x for x in ov if x is not None]
        best = max(ov) if ov else None
        rows.append(("overlap, merged + one test (best size)", _fmt(best, "%"), ">= 95 %",
                     _verdict(best >= 95 if best is not None else None)))
    else:
        pts = _paired(run, job)
        below = [p for p in pts if _side(p) == "below"]
        equal = [p for p in pts if _side(p) == "equal"]
        res = max(map(_resolution, equal), default=0)
        value = "%d above, %d equal%s, %d below%s" % (
            len(pts) - len(equal) - len(below), len(equal),
            " (within %.1f-%.1f %%)" % (100 * min(map(_resolution, equal)), 100 * res) if equal else "",
            len(below),
            ": " + ", ".join("%d thr w%d: %.3f" % p[:3] for p in below[:6]) if below else "")
        verdict = ("—" if not pts else "MISSED" if below else
                   "equal within resolution %.1f %%" % (100 * res) if equal else "met")
        rows.append(("rate: merged >= default at every point (%d points, paired ratio)" % len(pts),
                     value, "every point", verdict))
        agg = max([rate("merged", 2, w) or 0 for w in windows] or [0]) or None
        rows.append(("aggregate rate, 2 threads merged (best window)", _fmt(agg, "msg/s"),
                     ">= 100 M msg/s", _verdict(agg >= 100e6 if agg else None)))
    return rows


def markdown(run, plot_files):
    if not any(run.ran(j) and _series(run, j) for j, _ in JOBS):
        return []
    L = ["## Merged requests (issue 12)", "",
         "bench/req.c: 8 B puts from PE 0 to PE 1 in windows, T threads with private contexts; "
         "*default* = `ctx_putmem_nbi` + `ctx_quiet` per window, *merged* = `ctx_putmem_req` into "
         "one handle per window + `shmemx_req_wait`. Bandwidth: window 64, both directions. "
         "Overlap: a compute loop as long as the window's communication between issue and "
         "completion, 100 x (1 - (t_total - t_compute) / t_comm), each of the three the median over "
         "a launch's windows. Latency: one 8 B put and its completion, the median over a launch's "
         "timed groups of iterations (one iteration across hosts), the four modes taking turns. "
         "Collectives: 1 MiB, T threads of each PE on split handles vs the standard "
         "call. Medians over the repetitions.", ""]
    for job, where in JOBS:
        if not _series(run, job):
            continue
        rows = targets(run, job)
        L += ["### %s" % where, ""]
        L += ["| figure | value | target | verdict |", "|---|---|---|---|"] + [
            "| %s | %s | %s | %s |" % r for r in rows] if rows else [
            "Its target row and the sentence on it are in the section above (hosts_req)."]
        L += [""] + ["- " + x for x in why(run, job)] if why(run, job) else []
        L += ["", "| op | mode | threads | window/size | msg/s | MB/s | time us | overlap | merged / default, paired: median [quartiles] (95 % interval) |",
              "|---|---|---|---|---|---|---|---|---|"]
        for k, v in sorted(_series(run, job), key=lambda kv: (kv[0].get("op", ""), kv[0].get("threads", 0),
                                                               kv[0].get("window", 0), kv[0].get("size", 0),
                                                               kv[0].get("mode", ""))):
            op = k.get("op", "")
            ws = k.get("window") if op == "rate" else k.get("size")
            L.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                op, k.get("mode", ""), k.get("threads", ""), ws,
                _fmt(v.get("messages_per_s"), "msg/s") if v.get("messages_per_s") else "",
                _fmt(v.get("MBps")) if v.get("MBps") else "", _fmt(v.get("time_us")) if v.get("time_us") else "",
                _fmt(v.get("overlap_pct"), "%") if op.startswith("overlap") else "",
                "%.3f [%.3f-%.3f] (%.3f-%.3f)" % tuple(v[m] for m in (
                    "ratio", "ratio_q1", "ratio_q3", "ratio_lo", "ratio_hi"))
                if v.get("ratio") else ""))
        L.append("")
        for p in plot_files:
            if p.startswith("req_%s" % job):
                L += ["![%s](%s)" % (p, p), ""]
    return L


def text_summary(run):
    out = []
    for job, where in JOBS:
        if _series(run, job):
            out.append("merged requests, %s:" % where)
            out += ["  %-58s %-28s %-16s %s" % r for r in targets(run, job)]
            out += ["  why: " + x for x in why(run, job)]
    return out


def plots(run, outdir, plt):
    import os
    made = []
    for job, where in JOBS:
        rows = _series(run, job, op="rate")
        if not rows or job in ("hosts_req_offload", PERCALL):  # their figures are in the tables
            continue
        fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
        ax = axes[0]
        for t, color in ((1, "C0"), (2, "C1"), (4, "C2")):
            for mode, ls in (("default", "--"), ("merged", "-")):
                pts = sorted((k["window"], v.get("messages_per_s", 0) / 1e6) for k, v in rows
                             if k.get("threads") == t and k.get("mode") == mode)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, color=color, marker="o",
                            label="%d thr %s" % (t, mode))
        ax.set_xscale("log", base=2)
        ax.set_xlabel("window (puts of 8 B)")
        ax.set_ylabel("M messages/s")
        ax.set_title("message rate")
        ax.legend(fontsize=7)
        ax = axes[1]
        for op, color in (("bw_put", "C0"), ("bw_get", "C3")):
            for mode, ls in (("default", "--"), ("merged", "-")):
                pts = sorted((k["size"], v.get("MBps", 0)) for k, v in _series(run, job, op=op, mode=mode))
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], ls, color=color, marker=".",
                            label="%s %s" % (op[3:], mode))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("bytes")
        ax.set_ylabel("MB/s")
        ax.set_title("bandwidth, window 64")
        ax.legend(fontsize=7)
        ax = axes[2]
        for op, color in (("bcast", "C0"), ("fcollect", "C1"), ("reduce", "C2")):
            pts = sorted((k["threads"], v.get("time_us", 0)) for k, v in _series(run, job, op=op, mode="split"))
            single = _one(run, job, "time_us", op=op, mode="single")
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "-", color=color, marker="o",
                        label="%s split" % op)
            if single:
                ax.axhline(single, color=color, ls=":", label="%s single" % op)
        ax.set_xlabel("threads per PE")
        ax.set_ylabel("us per 1 MiB collective")
        ax.set_title("multithreaded collectives")
        ax.legend(fontsize=7)
        fig.suptitle("merged requests: %s" % where)
        fig.tight_layout()
        name = "req_%s.png" % job
        fig.savefig(os.path.join(outdir, name), dpi=90)
        plt.close(fig)
        made.append(name)
    return made


def summary(run):
    return {job: {"targets": [{"figure": r[0], "value": r[1], "target": r[2], "verdict": r[3]}
                              for r in targets(run, job)],
                  "why": why(run, job)}
            for job, _ in JOBS if _series(run, job)}
