#!/usr/bin/env python3
"""The benchmark suite's main job: Shimmer beside its peer and the machine's limits.

    bench/run               headline set (about 5 minutes on 2 cores)
    bench/run --full        everything: full sweeps, int atomics, team API, more repetitions

Steps: install what is missing (Debian packages, as root), build Shimmer
(build/), build the benchmarks once per implementation with that
implementation's oshcc, run every figure for every implementation with the
runs interleaved, repeat, then hand the results directory to bench/report.py,
which prints the table and writes report.md, plots and summary.json into
bench/results/<timestamp>/.

Implementations are data (IMPLS below, or --impl NAME=OSHCC::RUN-TEMPLATE),
so the same run compares any two OpenSHMEMs.  A crash costs only the figure
in flight: the benchmark is relaunched after the crashed point.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")

PACKAGES = ["cmake", "ninja-build", "gcc", "make", "pkg-config", "libucx-dev", "libpmix-dev",
            "openmpi-bin", "libopenmpi-dev", "python3-matplotlib"]

# name, role, compiler wrapper, launch template ({n}: PEs).  The peer runs as
# Debian's Open MPI needs here: as root it wants --allow-run-as-root; more PEs
# than cores need --oversubscribe; `--mca osc ^rdma` avoids its crash in
# shmem_finalize.
IMPLS = [
    {"name": "shimmer", "role": "shimmer",
     "oshcc": "{build}/bin/oshcc",
     "run": "{build}/bin/oshrun -n {n}"},
    {"name": "oshmem", "role": "peer", "label": "Open MPI OSHMEM",
     "oshcc": "/usr/bin/oshcc",
     "run": "/usr/bin/oshrun {asroot} --oversubscribe --mca osc ^rdma -np {n}"},
]


def job(jid, prog, args=(), n=2, sets=("headline", "full"), kind="shmem", full_args=None):
    return {"id": jid, "prog": prog, "args": list(args), "n": n, "sets": sets, "kind": kind,
            "full_args": list(full_args) if full_args is not None else None}


HEADLINE_COLL_SIZES = "8,4k,1M"
JOBS = [
    # machine limits: plain C, one process pair, run once per repetition
    job("memcpy_bw", "memcpy_bw", kind="limit"),
    job("cacheline_pingpong", "cacheline_pingpong", kind="limit"),
    job("atomic_pingpong", "atomic_pingpong", kind="limit"),
    # point to point, 2 PEs
    job("put_lat", "put_lat"),
    job("put_lat_global", "put_lat", ["--global"]),
    job("get_lat", "get_lat"),
    job("get_lat_global", "get_lat", ["--global"]),
    job("put_bw", "put_bw"),
    job("get_bw", "get_bw"),
    job("msg_rate", "msg_rate", ["-W", "1,8,64,512"]),
    job("msg_rate_threads", "msg_rate", ["-t", "1,2,4", "-W", "64"]),
    job("amo", "amo"),
    job("amo_global", "amo", ["--global", "-x", "fetch_add,add,compare_swap"]),
    job("amo_int", "amo", ["-T", "int"], sets=("full",)),
    job("signal_lat", "signal_lat"),
    job("signal_lat_global", "signal_lat", ["--global"], sets=("full",)),
    # collectives
    job("coll_2", "coll", ["-m", HEADLINE_COLL_SIZES], n=2, full_args=["-m", "4:1M"]),
    job("coll_4", "coll", ["-m", HEADLINE_COLL_SIZES], n=4, full_args=["-m", "4:1M"]),
    job("coll_8", "coll", ["-m", HEADLINE_COLL_SIZES], n=8, full_args=["-m", "4:1M"]),
    job("barrier_16", "coll", ["-x", "barrier"], n=16),
    job("coll_team_2", "coll", ["-T", "team", "-m", "4:1M"], n=2, sets=("full",)),
    # start-up and memory: the runner times the whole launch
    job("hello_2", "hello", n=2, kind="startup"),
    job("hello_8", "hello", n=8, kind="startup"),
    job("hello_16", "hello", n=16, kind="startup"),
    job("hello_32", "hello", n=32, kind="startup"),
]
SHMEM_PROGS = sorted({j["prog"] for j in JOBS if j["kind"] != "limit"})
LIMIT_PROGS = sorted({j["prog"] for j in JOBS if j["kind"] == "limit"})


def log(msg):
    print("[bench] " + msg, flush=True)


def is_root():
    return hasattr(os, "geteuid") and os.geteuid() == 0


# ---------------------------------------------------------------- packages

def missing_packages(pkgs):
    if not shutil.which("dpkg-query"):
        return []
    miss = []
    for p in pkgs:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", p], capture_output=True, text=True)
        if "install ok installed" not in r.stdout:
            miss.append(p)
    return miss


def ensure_packages(no_install):
    miss = missing_packages(PACKAGES)
    if not miss:
        return True
    cmd = "apt-get update && apt-get install -y --no-install-recommends " + " ".join(miss)
    if no_install:
        log("missing packages (not installing, --no-install): " + " ".join(miss))
        return False
    if not is_root():
        log("missing packages; run as root:  " + cmd)
        return False
    log("installing: " + " ".join(miss))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = subprocess.run(["sh", "-c", cmd], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        log("apt-get failed (%d): %s" % (r.returncode, r.stderr.strip()[-400:]))
        return False
    return True


# ---------------------------------------------------------------- builds

def tail(text, n=12):
    lines = [l for l in (text or "").splitlines() if l.strip()]
    return "\n".join(lines[-n:])


def build_shimmer(logdir, build_dir):
    """Configures and builds Shimmer in build_dir (Release). Returns (ok, reason)."""
    if not os.path.exists(os.path.join(ROOT, "CMakeLists.txt")):
        return False, "no CMakeLists.txt at the repository root"
    steps = [["cmake", "-S", ROOT, "-B", build_dir, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release"],
             ["cmake", "--build", build_dir]]
    with open(os.path.join(logdir, "shimmer-build.log"), "w") as f:
        for cmd in steps:
            f.write("$ %s\n" % " ".join(cmd))
            f.flush()
            r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            f.write(r.stdout)
            if r.returncode != 0:
                return False, "`%s` failed: %s" % (" ".join(cmd[:2]), tail(r.stdout, 3).replace("\n", " | "))
    return True, ""


def clear_programs(outdir, progs):
    """Removes earlier builds: make would keep a driver linked against another
    build of the library (its run path), and a failed build would leave one."""
    os.makedirs(outdir, exist_ok=True)
    for p in progs:
        if os.path.exists(os.path.join(outdir, p)):
            os.remove(os.path.join(outdir, p))


def build_benchmarks(impl, outdir, logdir):
    """Builds every driver with the implementation's oshcc. Returns the set of programs built."""
    clear_programs(outdir, SHMEM_PROGS)
    cmd = ["make", "-k", "-j2", "-C", BENCH, "OSHCC=" + impl["oshcc"], "OUT=" + outdir, "shmem"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(logdir, "build-%s.log" % impl["name"]), "w") as f:
        f.write("$ %s\n%s" % (" ".join(cmd), r.stdout))
    return {p for p in SHMEM_PROGS if os.access(os.path.join(outdir, p), os.X_OK)}, tail(r.stdout, 4)


def build_limits(outdir, logdir):
    clear_programs(outdir, LIMIT_PROGS)
    cmd = ["make", "-k", "-j2", "-C", BENCH, "CC=" + (os.environ.get("CC") or "cc"), "OUT=" + outdir, "limits"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    with open(os.path.join(logdir, "build-limits.log"), "w") as f:
        f.write("$ %s\n%s" % (" ".join(cmd), r.stdout))
    return {p for p in LIMIT_PROGS if os.access(os.path.join(outdir, p), os.X_OK)}


# ---------------------------------------------------------------- running

CRASH_PATTERNS = [
    (r"stack smashing detected", "aborted: stack smashing detected"),
    (r"Segmentation fault|SIGSEGV|Signal: Segmentation", "segmentation fault"),
    (r"Bus error|SIGBUS", "bus error"),
    (r"Aborted|SIGABRT|Signal: Aborted", "aborted"),
    (r"Killed|SIGKILL", "killed"),
]


def crash_reason(stderr, rc, timed_out):
    if timed_out:
        return "timed out"
    for pat, what in CRASH_PATTERNS:
        if re.search(pat, stderr or ""):
            return what
    if rc is not None and rc < 0:
        try:
            return "killed by " + signal.Signals(-rc).name
        except ValueError:
            return "killed by signal %d" % -rc
    last = tail(stderr, 1)
    return "exit status %s%s" % (rc, (": " + last[:160]) if last else "")


def read_records(path):
    recs = []
    if not os.path.exists(path):
        return recs
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                recs.append(json.loads(line))
            except json.JSONDecodeError:
                pass           # torn line from a crash: ignore
    return recs


def launch(cmd, timeout, env=None):
    """Runs one launch in its own process group; returns (rc, stdout, stderr, wall_s, timed_out)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env=env, errors="replace")
    try:
        out, err = p.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = p.communicate()
        timed_out = True
    return p.returncode, out, err, time.monotonic() - t0, timed_out


def run_job(impl, j, binary, rep, rawdir, timeout, set_name, max_resumes=8):
    """Runs one job (with resumes after crashes) and writes raw/<impl>/<job>.r<rep>.jsonl.

    Returns "ok", "n/a" (unsupported), "partial" (a point crashed, the rest
    was measured by relaunching after it) or "crash" (nothing more to save)."""
    os.makedirs(rawdir, exist_ok=True)
    final = os.path.join(rawdir, "%s.r%d.jsonl" % (j["id"], rep))
    args = j["full_args"] if (set_name == "full" and j["full_args"] is not None) else j["args"]
    skip, part, crashed = 0, 0, False
    with open(final, "w", encoding="utf-8") as out:
        while True:
            tmp = final + ".part%d" % part
            prog = [binary] + args + ["-o", tmp, "-l", impl["name"]]
            if skip:
                prog += ["--skip-points", str(skip)]
            if j["kind"] == "limit":
                cmd = prog
            else:
                cmd = shlex.split(impl["run"].format(n=j["n"], root=ROOT, asroot=impl.get("asroot", ""))) + prog
            rc, sout, serr, wall, timed_out = launch(cmd, timeout)
            recs = read_records(tmp)
            for r in recs:
                out.write(json.dumps(r) + "\n")
            ended = next((r for r in recs if r.get("type") == "end"), None)
            complete = rc == 0 and ended is not None and not timed_out
            out.write(json.dumps({"type": "launch", "impl": impl["name"], "job": j["id"], "rep": rep,
                                  "n": j["n"], "cmd": cmd, "exit": rc, "wall_s": wall,
                                  "complete": complete and skip == 0,
                                  "stderr_tail": tail(serr, 6)}) + "\n")
            if os.path.exists(tmp):
                os.unlink(tmp)
            if ended is not None and ended.get("status") == "unsupported":
                out.write(json.dumps({"type": "unsupported", "reason": ended.get("reason", "")}) + "\n")
                return "n/a"
            if complete:
                return "partial" if crashed else "ok"
            reason = crash_reason(serr, rc, timed_out)
            if ended is not None:
                # every figure was written; the fault came later (e.g. in shmem_finalize)
                out.write(json.dumps({"type": "fault", "reason": "after the last figure: " + reason}) + "\n")
                return "ok"
            points = [r for r in recs if r.get("type") == "point"]
            rows = {r.get("point") for r in recs if r.get("type") == "row"}
            if not points or points[-1]["index"] in rows:
                out.write(json.dumps({"type": "timeout" if timed_out else "crash", "label": "start-up" if not points
                                      else "after " + points[-1]["label"], "reason": reason}) + "\n")
                return "crash"
            bad = points[-1]
            out.write(json.dumps({"type": "timeout" if timed_out else "crash", "point": bad["index"],
                                  "label": bad["label"], "reason": reason}) + "\n")
            part += 1
            crashed = True
            if timed_out or part > max_resumes:
                return "crash"
            skip = bad["index"] + 1


def impl_version(impl):
    """A line or two saying which build of the implementation ran (shimmer-info, oshrun --version)."""
    run_bin = shlex.split(impl["run"].format(n=2, root=ROOT, asroot=""))[0]
    cmds = []
    info = os.path.join(os.path.dirname(run_bin), "shimmer-info")
    if os.access(info, os.X_OK):
        cmds.append([info])
    cmds.append([run_bin, "--version"])
    for cmd in cmds:
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = [l.strip() for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        if r.returncode == 0 and lines:
            return "; ".join(lines[:3])
    return ""


def relevant_env():
    """Environment variables that change how an implementation behaves."""
    return {k: v for k, v in os.environ.items()
            if k.startswith(("SHMEM_", "SMA_", "SHIMMER_", "OMPI_", "UCX_", "PMIX_"))}


# ---------------------------------------------------------------- interpreter for the report

def python_with_matplotlib():
    cands = [sys.executable, "/usr/bin/python3", shutil.which("python3") or ""]
    for py in cands:
        if py and os.path.exists(py):
            r = subprocess.run([py, "-c", "import matplotlib"], capture_output=True)
            if r.returncode == 0:
                return py
    return None


def machine_info():
    info = {"hostname": platform.node(), "os": " ".join(platform.uname()[:3]), "online_cpus": os.cpu_count()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return info


# ---------------------------------------------------------------- main

def parse_impl(spec):
    """NAME=OSHCC::RUN-TEMPLATE, role from the name ("shimmer" or anything else: peer)."""
    name, _, rest = spec.partition("=")
    oshcc, _, run = rest.partition("::")
    if not name or not oshcc or not run:
        raise argparse.ArgumentTypeError("--impl wants NAME=OSHCC::RUN-TEMPLATE, e.g. "
                                         "'oshmem=/usr/bin/oshcc::/usr/bin/oshrun -np {n}'")
    return {"name": name, "role": "shimmer" if name == "shimmer" else "peer", "oshcc": oshcc, "run": run}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="run everything (full sweeps, more repetitions)")
    ap.add_argument("--reps", type=int, help="repetitions of every figure (default 3, --full 5)")
    ap.add_argument("--only", help="comma-separated job ids to run (see JOBS in this file)")
    ap.add_argument("--impl", action="append", type=parse_impl, default=[],
                    help="add or replace an implementation: NAME=OSHCC::RUN-TEMPLATE ({n} = PEs)")
    ap.add_argument("--stand-in", action="store_true",
                    help="if Shimmer cannot be built, run the peer in its place (tests the suite; labelled)")
    ap.add_argument("--no-install", action="store_true", help="do not apt-get missing packages")
    ap.add_argument("--no-build", action="store_true", help="use the build directory as it is")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                    help="Shimmer's build directory (default build/; configured Release by this run)")
    ap.add_argument("--out", help="results directory (default bench/results/<timestamp>)")
    ap.add_argument("--timeout", type=float, help="seconds per launch (default 180, --full 600)")
    ap.add_argument("--quick", action="store_true", help="smoke run: --quick passed to every benchmark, 1 rep")
    a = ap.parse_args(argv)

    set_name = "full" if a.full else "headline"
    reps = a.reps or (1 if a.quick else 5 if a.full else 3)
    timeout = a.timeout or (600 if a.full else 180)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = os.path.abspath(a.out or os.path.join(BENCH, "results", stamp))
    logdir = os.path.join(outdir, "logs")
    os.makedirs(logdir, exist_ok=True)
    t_start = time.monotonic()

    ensure_packages(a.no_install)

    impls = [dict(i) for i in IMPLS]
    for extra in a.impl:
        impls = [i for i in impls if i["name"] != extra["name"]] + [extra]
    build_dir = os.path.abspath(a.build_dir)
    for i in impls:
        i["oshcc"] = i["oshcc"].format(root=ROOT, build=build_dir)
        i["run"] = i["run"].replace("{build}", build_dir).replace("{root}", ROOT)
        i["asroot"] = "--allow-run-as-root" if is_root() else ""
        i["available"], i["reason"] = True, ""

    # Shimmer: build it unless told not to (an --impl override is taken as given)
    shim = next((i for i in impls if i["role"] == "shimmer"), None)
    if shim and not any(x["name"] == "shimmer" for x in a.impl):
        if not a.no_build:
            log("building Shimmer (cmake -G Ninja -DCMAKE_BUILD_TYPE=Release, %s)" % build_dir)
            ok, why = build_shimmer(logdir, build_dir)
            if not ok:
                shim["available"], shim["reason"] = False, "build failed: " + why
        run_bin = shlex.split(shim["run"].format(n=2, root=ROOT, asroot=""))[0]
        if shim["available"] and not (os.access(shim["oshcc"], os.X_OK) and os.access(run_bin, os.X_OK)):
            shim["available"], shim["reason"] = False, "no %s or %s" % (shim["oshcc"], run_bin)
    for i in impls:
        if i["role"] == "peer":
            run_bin = shlex.split(i["run"].format(n=2, root=ROOT, asroot=""))[0]
            if not (shutil.which(i["oshcc"]) and shutil.which(run_bin)):
                i["available"], i["reason"] = False, "not installed (%s, %s); apt-get install openmpi-bin libopenmpi-dev" % (
                    i["oshcc"], run_bin)
    if shim and not shim["available"] and a.stand_in:
        peer = next((i for i in impls if i["role"] == "peer" and i["available"]), None)
        if peer:
            log("Shimmer unavailable (%s): the peer stands in for it (--stand-in)" % shim["reason"])
            shim.update(oshcc=peer["oshcc"], run=peer["run"], available=True, stand_in=True,
                        detail="STAND-IN: %s run in Shimmer's place (%s)" % (peer.get("label", peer["name"]), shim["reason"]))

    # Benchmarks, once per implementation
    built = {}
    for i in impls:
        if not i["available"]:
            log("%s: not available: %s" % (i["name"], i["reason"]))
            continue
        progs, msg = build_benchmarks(i, os.path.join(ROOT, "build-bench", i["name"]), logdir)
        built[i["name"]] = progs
        if not progs:
            i["available"], i["reason"] = False, "benchmarks did not build with %s: %s" % (i["oshcc"], msg)
        elif i.get("stand_in") is None:
            i.setdefault("detail", "%s, run as `%s`" % (i["oshcc"], i["run"].format(n="N", root=ROOT, asroot=i["asroot"]).replace("  ", " ")))
        missing = sorted(set(SHMEM_PROGS) - progs)
        if missing and progs:
            i["detail"] = i.get("detail", "") + "; did not build: " + ", ".join(missing)
    limits = build_limits(os.path.join(ROOT, "build-bench", "limits"), logdir)

    active = [i for i in impls if i["available"]]
    for i in active:
        i["version"] = impl_version(i)
    jobs = [j for j in JOBS if set_name in j["sets"]]
    if a.only:
        want = set(a.only.split(","))
        jobs = [j for j in jobs if j["id"] in want]
    meta = {"started": stamp, "set": set_name, "reps": reps, "quick": a.quick, "machine": machine_info(),
            "impls": [{k: v for k, v in i.items() if k != "asroot"} for i in impls],
            "env": relevant_env(),
            "jobs": jobs, "root": ROOT}
    log("%s set: %d jobs x %d implementation(s) x %d repetition(s) -> %s" % (
        set_name, len(jobs), len(active), reps, outdir))

    status = {}
    for rep in range(reps):
        order = active if rep % 2 == 0 else list(reversed(active))   # alternate who goes first
        for j in jobs:
            if j["kind"] == "limit":
                runners = [{"name": "limit", "run": ""}] if j["prog"] in limits else []
            else:
                runners = [i for i in order if j["prog"] in built.get(i["name"], ())]
            for i in runners:
                base = os.path.join(ROOT, "build-bench", "limits" if i["name"] == "limit" else i["name"])
                binary = os.path.join(base, j["prog"])
                jj = dict(j, args=j["args"] + (["--quick"] if a.quick else []),
                          full_args=(j["full_args"] + (["--quick"] if a.quick else [])) if j["full_args"] else None)
                st = run_job(i, jj, binary, rep, os.path.join(outdir, "raw", i["name"]), timeout, set_name)
                status[(i["name"], j["id"])] = st
                if st not in ("ok", "n/a"):
                    log("%s %s rep %d: %s (kept what it measured)" % (i["name"], j["id"], rep, st))
        log("repetition %d of %d done (%.0f s)" % (rep + 1, reps, time.monotonic() - t_start))

    meta["wall_s"] = time.monotonic() - t_start
    with open(os.path.join(outdir, "run.json"), "w") as f:
        json.dump(meta, f, indent=1)

    py = python_with_matplotlib()
    if py is None and is_root() and not a.no_install:
        ensure_packages(False)
        py = python_with_matplotlib()
    cmd = [py or sys.executable, os.path.join(BENCH, "report.py"), outdir] + ([] if py else ["--no-plots"])
    if py is None:
        log("no Python with matplotlib: plots skipped; install with: apt-get install -y python3-matplotlib")
    r = subprocess.run(cmd)
    log("total %.0f s; results in %s" % (time.monotonic() - t_start, outdir))
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
