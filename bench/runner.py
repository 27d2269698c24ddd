#!/usr/bin/env python3
"""The benchmark suite's main job: Shimmer beside its peer and the machine's limits.

    bench/run               headline set (about 5 minutes on 2 cores)
    bench/run --mpi         Shimmer vs MPI: one node and two namespace hosts (root)
    bench/run --req         merged request handles beside the default path (issue 12)
    bench/run --wait        the wait modes: wake-up latency, CPU per us waited (issue 15)
    bench/run --apps        the application kernels (apps/) and the memory footprint
    bench/run --full        everything: full sweeps, int atomics, team API, MPI, apps, more repetitions

Steps: install what is missing (Debian packages, as root), build Shimmer
(build/), build the benchmarks once per implementation with that
implementation's oshcc, run every figure for every implementation with the
runs interleaved, repeat, then hand the results directory to bench/report.py,
which prints the table and writes report.md, plots and summary.json into
bench/results/<timestamp>/.

Implementations are data (IMPLS below, or --impl NAME=OSHCC::RUN-TEMPLATE),
so the same run compares any two OpenSHMEMs, and MPI beside them.  A crash
costs only the figure in flight: the benchmark is relaunched after the
crashed point.
"""
import argparse
import atexit
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

import app_kernels
import footprint

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")

PACKAGES = ["cmake", "ninja-build", "gcc", "make", "pkg-config", "libucx-dev", "libpmix-dev",
            "openmpi-bin", "libopenmpi-dev", "python3-matplotlib", "iproute2"]

# Across hosts: two network-namespace hosts on this machine (root; made by
# tests/multinode/mn_run.sh with netns-cluster under a prefix and subnet of
# the suite's own), {layout} = hosts x PEs per host, UCX over TCP between
# them.  {timeout}: mpirun's, a little under the runner's.
HOSTS_ENV = {"MN_PREFIX": "benchhost", "MN_NET": "10.217.0", "MN_HOSTS": "2"}
HOSTS_RUN = "env " + " ".join("%s=%s" % kv for kv in HOSTS_ENV.items()) + \
    " {root}/tests/multinode/mn_run.sh {layout} {n} -t {timeout}"

# name, role, compiler wrapper, launch template ({n}: PEs), and for the jobs
# across hosts run_hosts.  The peer runs as Debian's Open MPI needs here: as
# root it wants --allow-run-as-root; more PEs than cores need --oversubscribe;
# `--mca osc ^rdma` avoids its crash in shmem_finalize.  MPI (role "mpi")
# builds bench/mpi/ with mpicc; on one node it runs with its best one-sided
# component (osc sm: the window mapped, as Shimmer's heap; Debian's default
# osc rdma puts above 4 KiB through the kernel at a tenth of the speed,
# bench/README.md), across hosts with its UCX components, which Debian turns
# off by default (/etc/openmpi/openmpi-mca-params.conf) and which need leave
# to use TCP (pml_ucx_tls, pml_ucx_devices).
MPI_UCX = " ".join("-x OMPI_MCA_%s=%s" % kv for kv in (
    ("pml", "ucx"), ("osc", "ucx"), ("pml_ucx_tls", "any"), ("pml_ucx_devices", "any")))
IMPLS = [
    {"name": "shimmer", "role": "shimmer",
     "oshcc": "{build}/bin/oshcc",
     "run": "{build}/bin/oshrun -n {n}",
     "run_hosts": HOSTS_RUN + " --"},
    {"name": "oshmem", "role": "peer", "label": "Open MPI OSHMEM",
     "oshcc": "/usr/bin/oshcc",
     "run": "/usr/bin/oshrun {asroot} --oversubscribe --mca osc ^rdma -np {n}",
     "run_hosts": HOSTS_RUN + " --"},
    {"name": "mpi", "role": "mpi", "label": "Open MPI (MPI)",
     "mpicc": "/usr/bin/mpicc",
     "run": "/usr/bin/mpirun {asroot} --mca osc sm -np {n}",
     "run_hosts": HOSTS_RUN + " " + MPI_UCX + " --"},
]

HEADLINE, MPI = ("headline", "full"), ("full", "mpi")
VS_MPI = HEADLINE + ("mpi",)          # the headline's jobs that "Shimmer vs MPI" needs on one node


def job(jid, prog, args=(), n=2, sets=HEADLINE, kind="shmem", full_args=None,
        roles=("shimmer", "peer"), hosts=1, quick_args=None, env=None, timeout=None, profile=False):
    """kind: shmem (built with each oshcc), app (apps/, with each oshcc), mpi
    (mpicc), limit (cc), startup; roles: which implementations run it; hosts:
    1, or 2 namespace hosts (n PEs spread evenly); quick_args: --quick's
    arguments instead of args + --quick (smaller sweeps, the same -x: a
    quick run smokes every row of the job); env: added to the launch's
    environment; timeout: seconds a launch may take at least; profile: an
    untimed run under Shimmer's SHIMMER_PROFILE=1 in every repetition, the
    table of the quietest run (the least time recorded) kept as
    raw/<impl>/<job>.prof (one node only)."""
    if kind == "mpi":
        roles = ("mpi",)
    return {"id": jid, "prog": prog, "args": list(args), "n": n, "sets": sets, "kind": kind,
            "full_args": list(full_args) if full_args is not None else None,
            "roles": roles, "hosts": hosts, "quick_args": quick_args, "env": env or {},
            "timeout": timeout, "profile": profile}


def across_hosts(jid, prog, kind="shmem"):
    """The same program between two namespace hosts: Shimmer or MPI, 8 B to 4 MiB
    (--quick: 8 B to 4 KiB, as a quick run on one node; the full sweep took
    about 2 minutes of a 4-minute smoke run)."""
    return job("hosts_" + jid, prog, ["-m", "8:4M"], sets=MPI, kind=kind, roles=("shimmer",), hosts=2,
               quick_args=["-m", "8:4k", "--quick"])


HEADLINE_COLL_SIZES = "8,4k,1M"
REQ = ("req", "full")
# -i: a rate point's puts per mode, in 32 paired blocks (bench/req.c): on one
# node 100 000 a block, ~0.4 ms at 1 thread, long enough for 4 threads to share 2 CPUs
REQ_ARGS = ["-t", "1,2,4", "-W", "1,2,4,8,16,32,64,128,256,512", "-m", "8:64k", "-i", "3200000"]
REQ_QUICK = ["--quick", "-t", "1,2", "-W", "1,8"]
WAIT = ("wait", "full")
WAIT_MODES = ("auto", "spin", "yield", "nap", "monitor")   # SHIMMER_WAIT_MODE; auto is the default
# Across hosts a window of 1 costs a TCP round trip (~0.2 ms between two
# namespace hosts on a busy 2-core machine): 100000 of them per point made
# one launch outlive the runner's 180 s at the 2-thread points, and a
# timed-out launch loses every later figure (bandwidth, overlap, latency).
REQ_HOSTS_ARGS = REQ_ARGS[:-1] + ["20000"]
# The paper's baseline (issue 12: merged 10 vs default 4.5 M msg/s): its
# default path sent each put as its own message, as Shimmer's does with
# SHIMMER_RMA_COALESCE=0; the 1-thread rate only (window 512: ~8 us a put)
REQ_PERCALL_ARGS = ["-x", "rate", "-t", "1"] + REQ_HOSTS_ARGS[2:]
REQ_OFFLOAD_X = ["-x", "rate,overlap,overlap_idle,lat"]
REQ_OFFLOAD_ARGS = REQ_OFFLOAD_X + ["-t", "1", "-W", "64,512", "-m", "8:64k", "-i", "20000"]
JOBS = [
    # machine limits: plain C, one process pair, run once per repetition
    job("memcpy_bw", "memcpy_bw", kind="limit", sets=VS_MPI),
    job("cacheline_pingpong", "cacheline_pingpong", kind="limit", sets=VS_MPI),
    job("atomic_pingpong", "atomic_pingpong", kind="limit"),
    # point to point, 2 PEs; MPI's counterparts right after Shimmer's
    job("put_lat", "put_lat", sets=VS_MPI),
    job("put_lat_global", "put_lat", ["--global"]),
    job("get_lat", "get_lat", sets=VS_MPI),
    job("get_lat_global", "get_lat", ["--global"]),
    job("put_bw", "put_bw", sets=VS_MPI),
    job("get_bw", "get_bw", sets=VS_MPI),
    job("mpi_rma", "mpi_rma", kind="mpi", sets=VS_MPI),
    job("mpi_msg", "mpi_msg", kind="mpi", sets=VS_MPI),
    job("lastbyte_lat", "lastbyte_lat", sets=VS_MPI, roles=("shimmer",)),
    job("msg_rate", "msg_rate", ["-W", "1,8,64,512"]),
    job("msg_rate_threads", "msg_rate", ["-t", "1,2,4", "-W", "64"]),
    job("amo", "amo"),
    job("amo_global", "amo", ["--global", "-x", "fetch_add,add,compare_swap"]),
    job("amo_int", "amo", ["-T", "int"], sets=("full",)),
    job("signal_lat", "signal_lat", sets=VS_MPI),
    job("signal_lat_global", "signal_lat", ["--global"], sets=("full",)),
    # Shimmer vs MPI across two hosts
    across_hosts("put_bw", "put_bw"),
    across_hosts("get_bw", "get_bw"),
    across_hosts("mpi_rma", "mpi_rma", kind="mpi"),
    across_hosts("mpi_msg", "mpi_msg", kind="mpi"),
    across_hosts("put_lat", "put_lat"),
    across_hosts("get_lat", "get_lat"),
    across_hosts("signal_lat", "signal_lat"),
    across_hosts("lastbyte_lat", "lastbyte_lat"),
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
    # merged request handles (issue 12 part 3, bench/req.c): Shimmer only,
    # one node and two namespace hosts
    job("req", "req", REQ_ARGS, sets=REQ, roles=("shimmer",), quick_args=REQ_QUICK),
    job("hosts_req", "req", REQ_HOSTS_ARGS, sets=REQ, roles=("shimmer",), hosts=2, quick_args=REQ_QUICK,
        timeout=900),
    # again with the default path one UCX put per put (REQ_PERCALL_ARGS)
    job("hosts_req_percall", "req", REQ_PERCALL_ARGS, sets=REQ, roles=("shimmer",), hosts=2,
        quick_args=["--quick", "-x", "rate", "-t", "1", "-W", "1,8"], env={"SHIMMER_RMA_COALESCE": "0"}),
    # the same across hosts with the opt-in offload (docs/requests.md
    # "Offload"): overlap, and what it costs in rate and latency
    job("hosts_req_offload", "req", REQ_OFFLOAD_ARGS, sets=REQ, roles=("shimmer",), hosts=2,
        quick_args=REQ_QUICK + REQ_OFFLOAD_X, env={"SHIMMER_PROGRESS_OFFLOAD": "1"}),
] + [
    # the wait modes (issue 15 part 3, bench/wait.c): 2 PEs with a core each,
    # and 4 PEs on 2 cores (does the setter get its store done?)
    job("wait_%s%s" % (over, mode), "wait", n=n, sets=WAIT, roles=("shimmer",),
        env={"SHIMMER_WAIT_MODE": mode}, quick_args=["--quick"])
    for over, n in (("", 2), ("over_", 4)) for mode in WAIT_MODES
] + app_kernels.jobs(job) + footprint.jobs(job)
SHMEM_PROGS = sorted({j["prog"] for j in JOBS if j["kind"] in ("shmem", "startup")})
APP_PROGS = sorted({j["prog"] for j in JOBS if j["kind"] == "app"})
LIMIT_PROGS = sorted({j["prog"] for j in JOBS if j["kind"] == "limit"})
MPI_PROGS = sorted({j["prog"] for j in JOBS if j["kind"] == "mpi"})


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


def impl_programs(impl):
    """(programs, make target, compiler variable, compiler) of an implementation."""
    if impl["role"] == "mpi":
        return MPI_PROGS, "mpi", "MPICC", impl["mpicc"]
    return SHMEM_PROGS + APP_PROGS, "shmem", "OSHCC", impl["oshcc"]


def program_path(base, j):
    """Where a job's program is built: apps/ kernels in their own folder."""
    return os.path.join(base, "apps", j["prog"]) if j["kind"] == "app" else os.path.join(base, j["prog"])


def build_benchmarks(impl, outdir, logdir):
    """Builds every driver (and the apps/ kernels, into outdir/apps) with the
    implementation's compiler wrapper. Returns the set of programs built."""
    progs, target, var, cc = impl_programs(impl)
    apps_out = os.path.join(outdir, "apps")
    clear_programs(outdir, [p for p in progs if p not in APP_PROGS])
    steps = [["make", "-k", "-j2", "-C", BENCH, var + "=" + cc, "OUT=" + outdir, target]]
    if impl["role"] != "mpi":
        clear_programs(apps_out, APP_PROGS)
        steps.append(["make", "-k", "-j2", "-C", os.path.join(ROOT, "apps"), var + "=" + cc, "OUT=" + apps_out])
    text = ""
    for cmd in steps:
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        text += "$ %s\n%s" % (" ".join(cmd), r.stdout)
    with open(os.path.join(logdir, "build-%s.log" % impl["name"]), "w") as f:
        f.write(text)
    return {p for p in progs if os.access(os.path.join(apps_out if p in APP_PROGS else outdir, p), os.X_OK)}, \
        tail(text, 4)


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


# A launcher that ended the job at its own time limit (the runner passes
# one across hosts: mn_run.sh -t): Open MPI's mpirun, Shimmer's oshrun.
LAUNCHER_TIMEOUT = r"time limit for job execution has been reached|oshrun: timeout: "


def launcher_timed_out(stderr):
    return re.search(LAUNCHER_TIMEOUT, stderr or "") is not None


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


def autogroup_nice():
    """This process's scheduling autogroup's nice value (Linux), or None."""
    try:
        with open("/proc/self/autogroup", encoding="utf-8") as f:
            return int(f.read().rsplit("nice", 1)[1])
    except (OSError, ValueError, IndexError):
        return None


AUTOGROUP_NICE = autogroup_nice()


def keep_autogroup_nice():
    """In a launch, after setsid: a new session is a new autogroup at nice 0,
    which would drop the share of the CPUs a run was given (bench/README.md)."""
    try:
        with open("/proc/self/autogroup", "w", encoding="utf-8") as f:
            f.write(str(AUTOGROUP_NICE))
    except OSError:
        pass


def launch(cmd, timeout, env=None):
    """Runs one launch in its own session (a timeout ends all of it) with the
    runner's scheduling weight; returns (rc, stdout, stderr, wall_s, timed_out)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, env=env, errors="replace",
                         preexec_fn=keep_autogroup_nice if AUTOGROUP_NICE else None)
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


def launch_prefix(impl, j, timeout):
    """The launcher command of one job: the implementation's own, or across hosts its run_hosts."""
    if j["kind"] == "limit":
        return []
    hosts = j.get("hosts", 1)
    tmpl = impl["run_hosts"] if hosts > 1 else impl["run"]
    return shlex.split(tmpl.format(n=j["n"], root=ROOT, asroot=impl.get("asroot", ""),
                                   layout="%dx%d" % (hosts, j["n"] // hosts),
                                   timeout=max(10, int(timeout) - 15)))


def keep_quietest_profile(rawdir, jid, rep):
    """Keeps as <job>.prof the profile of the least recorded time so far:
    a run that other work on the machine slowed spends its extra time
    waiting in the library, which would misstate the kernel's split."""
    kept, new = os.path.join(rawdir, jid + ".prof"), os.path.join(rawdir, "%s.r%d.prof" % (jid, rep))

    def recorded(path):
        prof = app_kernels.read_profile(path)
        return (prof["recorded_s"] or prof["wall_s"]) if prof else None

    t_new, t_kept = recorded(new), recorded(kept)
    if t_new is not None and (t_kept is None or t_new < t_kept):
        shutil.copyfile(new, kept)


def run_job(impl, j, binary, rep, rawdir, timeout, set_name, max_resumes=8):
    """Runs one job (with resumes after crashes) and writes raw/<impl>/<job>.r<rep>.jsonl.

    Returns "ok", "n/a" (unsupported), "partial" (a point crashed, the rest
    was measured by relaunching after it) or "crash" (nothing more to save)."""
    os.makedirs(rawdir, exist_ok=True)
    final = os.path.join(rawdir, "%s.r%d.jsonl" % (j["id"], rep))
    timeout = max(timeout, j.get("timeout") or 0)
    env = dict(os.environ, **j["env"]) if j.get("env") else None
    if j.get("profile"):
        env = dict(env or os.environ, SHIMMER_PROFILE="1",
                   SHIMMER_PROFILE_FILE=os.path.join(rawdir, "%s.r%d.prof" % (j["id"], rep)))
    if j["kind"] == "app":
        max_resumes = 0        # one figure per launch: nothing to resume after
    if j.get("profile") and j.get("hosts", 1) > 1:
        raise ValueError("job %s: a profile across hosts needs -x in the launch" % j["id"])
    if j.get("env") and j.get("hosts", 1) > 1:
        # mn_run.sh hands MN_X's VAR=VALUE words to every PE (its -x)
        words = " ".join("%s=%s" % kv for kv in sorted(j["env"].items()))
        env = dict(os.environ, MN_X=(os.environ.get("MN_X", "") + " " + words).strip())
    args = j["full_args"] if (set_name == "full" and j["full_args"] is not None) else j["args"]
    skip, part, crashed = 0, 0, False
    with open(final, "w", encoding="utf-8") as out:
        while True:
            tmp = final + ".part%d" % part
            prog = [binary] + args + ["-o", tmp, "-l", impl["name"]]
            if skip:
                prog += ["--skip-points", str(skip)]
            cmd = launch_prefix(impl, j, timeout) + prog
            load = os.getloadavg()[0]          # what else the machine ran: beside every figure
            rc, sout, serr, wall, timed_out = launch(cmd, timeout, env)
            timed_out = timed_out or (rc != 0 and launcher_timed_out(serr))
            recs = read_records(tmp)
            for r in recs:
                out.write(json.dumps(r) + "\n")
            ended = next((r for r in recs if r.get("type") == "end"), None)
            complete = rc == 0 and ended is not None and not timed_out
            out.write(json.dumps({"type": "launch", "impl": impl["name"], "job": j["id"], "rep": rep,
                                  "n": j["n"], "cmd": cmd, "exit": rc, "wall_s": wall,
                                  "load": [load, os.getloadavg()[0]],
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
        cmds.append([info, "--parsable"])
    cmds.append([run_bin, "--version"])
    for cmd in cmds:
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.TimeoutExpired):
            continue
        lines = [l.strip() for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        if r.returncode == 0 and lines and cmd[-1] == "--parsable":
            # section:key:value; the version, build type, compiler, transports
            facts = dict(l.split(":", 2)[1:] for l in lines if l.count(":") >= 2
                         and l.split(":", 1)[0] in ("version", "build"))
            return "Shimmer %s (OpenSHMEM %s); %s build, %s; transports: %s" % (
                facts.get("shimmer", "?"), facts.get("openshmem", "?"),
                facts.get("build_type", "?"), facts.get("compiler", "?"),
                facts.get("transports", "?"))
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
    """NAME=CC::RUN-TEMPLATE, role from the name: "shimmer", "mpi" (CC is an mpicc)
    or anything else: the peer."""
    name, _, rest = spec.partition("=")
    cc, _, run = rest.partition("::")
    if not name or not cc or not run:
        raise argparse.ArgumentTypeError("--impl wants NAME=OSHCC::RUN-TEMPLATE, e.g. "
                                         "'oshmem=/usr/bin/oshcc::/usr/bin/oshrun -np {n}'")
    role = name if name in ("shimmer", "mpi") else "peer"
    return {"name": name, "role": role, "mpicc" if role == "mpi" else "oshcc": cc, "run": run}


def hosts_up(jobs):
    """Makes the namespace hosts if a job runs across hosts: {available, reason, how}."""
    info = {"how": "2 network-namespace hosts on this machine (tests/multinode/mn_run.sh, netns-cluster), "
                   "one PE or rank per host, UCX over TCP (UCX_TLS=self,tcp)"}
    if not any(j.get("hosts", 1) > 1 for j in jobs):
        return dict(info, available=False, reason="no job across hosts in this set")
    env = dict(os.environ, **HOSTS_ENV)
    r = subprocess.run([os.path.join(ROOT, "tests", "multinode", "mn_run.sh"), "setup"], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if r.returncode != 0:
        return dict(info, available=False, reason=tail(r.stdout, 1).replace("SKIP: ", "") or
                    "mn_run.sh setup failed (%d)" % r.returncode)
    return dict(info, available=True, reason="")


def hosts_down():
    env = dict(os.environ, **HOSTS_ENV)
    subprocess.run([os.path.join(ROOT, "tests", "multinode", "mn_run.sh"), "teardown"], env=env,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--full", action="store_true", help="run everything (full sweeps, more repetitions)")
    ap.add_argument("--mpi", action="store_true",
                    help="Shimmer vs MPI only: one node, and two namespace hosts when run as root")
    ap.add_argument("--apps", action="store_true",
                    help="the application kernels (apps/) and the memory footprint, beside the peer")
    ap.add_argument("--req", action="store_true",
                    help="merged request handles (bench/req.c): one node, and two namespace hosts (root)")
    ap.add_argument("--wait", action="store_true",
                    help="the wait modes (bench/wait.c): 2 PEs, and 4 PEs on 2 cores")
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

    set_name = "full" if a.full else "mpi" if a.mpi else "apps" if a.apps else \
        "req" if a.req else "wait" if a.wait else "headline"
    reps = a.reps or (1 if a.quick else 5 if a.full else 3)
    timeout = a.timeout or (600 if a.full else 180)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    outdir = os.path.abspath(a.out or os.path.join(BENCH, "results", stamp))
    logdir = os.path.join(outdir, "logs")
    os.makedirs(logdir, exist_ok=True)
    t_start = time.monotonic()

    ensure_packages(a.no_install)

    impls = [dict(i) for i in IMPLS]
    if set_name == "mpi":      # "Shimmer vs MPI" shows no OpenSHMEM peer
        impls = [i for i in impls if i["role"] != "peer"]
    if set_name in ("req", "wait"):  # Shimmer's own: nobody to compare with
        impls = [i for i in impls if i["role"] == "shimmer"]
    if set_name == "apps":     # nor do the applications show MPI
        impls = [i for i in impls if i["role"] != "mpi"]
    for extra in a.impl:
        impls = [i for i in impls if i["name"] != extra["name"]] + [extra]
    build_dir = os.path.abspath(a.build_dir)
    for i in impls:
        for k in ("oshcc", "mpicc"):
            if k in i:
                i[k] = i[k].format(root=ROOT, build=build_dir)
        for k in ("run", "run_hosts"):
            if k in i:
                i[k] = i[k].replace("{build}", build_dir).replace("{root}", ROOT)
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
        if i["role"] in ("peer", "mpi"):
            cc = impl_programs(i)[3]
            run_bin = shlex.split(i["run"].format(n=2, root=ROOT, asroot=""))[0]
            if not (shutil.which(cc) and shutil.which(run_bin)):
                i["available"], i["reason"] = False, "not installed (%s, %s); apt-get install openmpi-bin libopenmpi-dev" % (
                    cc, run_bin)
    if shim and not shim["available"] and a.stand_in:
        peer = next((i for i in impls if i["role"] == "peer" and i["available"]), None)
        if peer:
            log("Shimmer unavailable (%s): the peer stands in for it (--stand-in)" % shim["reason"])
            shim.pop("run_hosts", None)
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
        all_progs, _, _, cc = impl_programs(i)
        if not progs:
            i["available"], i["reason"] = False, "benchmarks did not build with %s: %s" % (cc, msg)
        elif i.get("stand_in") is None:
            i.setdefault("detail", "%s, run as `%s`" % (cc, i["run"].format(n="N", root=ROOT, asroot=i["asroot"]).replace("  ", " ")))
            if i.get("run_hosts"):
                i["detail"] += "; across hosts `%s`" % i["run_hosts"].format(
                    n="N", root=ROOT, asroot=i["asroot"], timeout="T", layout="HxP").replace(ROOT + "/", "")
        missing = sorted(set(all_progs) - progs)
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
    hosts = hosts_up(jobs)
    if hosts["available"]:
        atexit.register(hosts_down)          # also when the run is interrupted
    elif any(j["hosts"] > 1 for j in jobs):
        log("jobs across hosts skipped: " + hosts["reason"])
    meta = {"started": stamp, "set": set_name, "reps": reps, "quick": a.quick, "machine": machine_info(),
            "impls": [{k: v for k, v in i.items() if k != "asroot"} for i in impls],
            "env": relevant_env(), "hosts": hosts,
            "jobs": jobs, "root": ROOT}
    log("%s set: %d jobs x %d implementation(s) x %d repetition(s) -> %s" % (
        set_name, len(jobs), len(active), reps, outdir))

    status = {}
    for rep in range(reps):
        order = active if rep % 2 == 0 else list(reversed(active))   # alternate who goes first
        for j in jobs:
            if j["kind"] == "limit":
                runners = [{"name": "limit", "run": ""}] if j["prog"] in limits else []
            elif j["hosts"] > 1 and not hosts["available"]:
                runners = []
            else:
                runners = [i for i in order if i["role"] in j["roles"] and j["prog"] in built.get(i["name"], ())
                           and (j["hosts"] == 1 or i.get("run_hosts"))]
            for i in runners:
                base = os.path.join(ROOT, "build-bench", "limits" if i["name"] == "limit" else i["name"])
                binary = program_path(base, j)
                if a.quick and j["quick_args"] is not None:
                    jj = dict(j, args=j["quick_args"], full_args=None)
                else:
                    jj = dict(j, args=j["args"] + (["--quick"] if a.quick else []),
                              full_args=(j["full_args"] + (["--quick"] if a.quick else [])) if j["full_args"] else None)
                rawdir = os.path.join(outdir, "raw", i["name"])
                st = run_job(i, jj, binary, rep, rawdir, timeout, set_name)
                if j.get("profile"):
                    keep_quietest_profile(rawdir, j["id"], rep)
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
