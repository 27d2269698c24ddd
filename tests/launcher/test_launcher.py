#!/usr/bin/env python3
"""Tests of oshrun and the boot layer, driven through boot_probe.

Usage: test_launcher.py --oshrun PATH --probe PATH CASE...   (or --list, or all)
Each case is independent: its own temporary directory, removed afterwards.
Exit status: 0 pass, 1 fail, 77 skip (ctest's SKIP_RETURN_CODE).
"""
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from casekit import CASES, Fail, Skip, case, main  # noqa: E402


def check(cond, what, res=None):
    if not cond:
        detail = ""
        if res is not None:
            detail = "\n--- rc %s, %.2f s\n--- stdout:\n%s--- stderr:\n%s" % (
                res.rc, res.elapsed, res.out, res.err)
        raise Fail(what + detail)


class Result:
    def __init__(self, rc, out, err, elapsed):
        self.rc, self.out, self.err, self.elapsed = rc, out, err, elapsed


class Ctx:
    def __init__(self, oshrun, probe, tmp):
        self.oshrun, self.probe, self.tmp = oshrun, probe, tmp

    def run(self, args, timeout=20, stdin=subprocess.DEVNULL, env=None):
        t0 = time.monotonic()
        p = subprocess.run([self.oshrun] + args, stdin=stdin, capture_output=True,
                           text=True, timeout=timeout, env=env)
        return Result(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)

    def start(self, args):
        return subprocess.Popen([self.oshrun] + args, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                preexec_fn=default_signals)

    def finish(self, proc, t0, timeout=10):
        out, err = proc.communicate(timeout=timeout)
        return Result(proc.returncode, out, err, time.monotonic() - t0)

    def pid_dir(self):
        d = os.path.join(self.tmp, "pids")
        os.makedirs(d, exist_ok=True)
        return d

    def wait_pids(self, n, timeout=10):
        """PIDs the probes wrote, once all n wrote theirs."""
        d = self.pid_dir()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            names = [f for f in os.listdir(d) if f.endswith(".pid")]
            if len(names) == n:
                pids = []
                for f in names:
                    with open(os.path.join(d, f)) as fh:
                        text = fh.read().strip()
                    if text:
                        pids.append(int(text))
                if len(pids) == n:
                    return pids
            time.sleep(0.01)
        raise Fail("the PEs did not all start within %s s" % timeout)


def default_signals():
    """oshrun leaves signals alone that it inherits as ignored (nohup, `cmd &` in a
    script); the signal tests need them delivered."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)


def is_alive(pid):
    """True if pid is a live (not zombie) boot_probe."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            state = fh.read().rsplit(")", 1)[1].split()[0]
        with open("/proc/%d/cmdline" % pid, "rb") as fh:
            cmd = fh.read()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state != "Z" and b"boot_probe" in cmd


def wait_gone(pids, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not any(is_alive(p) for p in pids):
            return True
        time.sleep(0.02)
    return False


def kill_all(pids):
    for p in pids:
        if is_alive(p):
            try:
                os.kill(p, signal.SIGKILL)
            except ProcessLookupError:
                pass


# ---- normal runs -------------------------------------------------------------

@case
def ranks(c):
    """N PEs get ranks 0..N-1, size N, correct allgathers; every PE's stdout arrives."""
    for n in (1, 2, 3, 4, 8, 16):
        r = c.run(["-n", str(n), c.probe, "--blob", "24", "--rounds", "3"])
        check(r.rc == 0, "-n %d failed" % n, r)
        for rank in range(n):
            check(r.out.count("probe: rank %d size %d kind launcher\n" % (rank, n)) == 1,
                  "-n %d: rank %d missing or wrong" % (n, rank), r)
            check(r.out.count("probe: rank %d allgather ok\n" % rank) == 1,
                  "-n %d: rank %d allgather" % (n, rank), r)
        check(r.err == "", "-n %d: unexpected stderr" % n, r)


@case
def bind_to_core(c):
    """With enough cores each PE gets its own; oversubscribed, consecutive PEs
    share a core; --bind-to none leaves them all; a bad value is a usage
    error."""
    allowed = sorted(os.sched_getaffinity(0))
    show = ["sh", "-c", "grep Cpus_allowed_list /proc/self/status"]

    def cpus_of(r):
        return sorted(line.split(":")[1].strip() for line in r.out.splitlines())

    if len(allowed) >= 2:
        r = c.run(["-n", "2"] + show)
        check(r.rc == 0 and len(set(cpus_of(r))) == 2 and all("-" not in x and "," not in x
                                                              for x in cpus_of(r)),
              "-n 2 on %d CPUs: each PE on its own core" % len(allowed), r)
    r = c.run(["-n", str(len(allowed) + 1), "--report-bindings"] + show)
    where = dict(re.findall(r"PE (\d+) \(pid \d+\) bound to CPUs? (\S+)", r.err))
    # the PEs' own masks, not only the report: as many cores as it names
    check(r.rc == 0 and len(where) == len(allowed) + 1 and where["0"] == where["1"] and
          (len(allowed) == 1 or len(set(where.values())) > 1) and
          len(cpus_of(r)) == len(allowed) + 1 and
          len(set(cpus_of(r))) == len(set(where.values())),
          "oversubscribed: PEs 0 and 1 share a core, the others go on", r)
    r = c.run(["--bind-to", "none", "-n", "1"] + show)
    check(r.rc == 0 and (len(allowed) == 1 or "-" in r.out or "," in r.out),
          "--bind-to none leaves the PE unbound", r)
    r = c.run(["--bind-to", "hwthread", "-n", "1", "true"])
    check(r.rc == 2 and "--bind-to 'hwthread': expected core, socket or none" in r.err,
          "bad --bind-to", r)


@case
def large_allgather(c):
    """Results over the memfd threshold and multi-MiB results are delivered intact."""
    for n, blob in ((8, 16384), (4, 1 << 20), (16, 1)):
        r = c.run(["-n", str(n), c.probe, "--blob", str(blob), "--rounds", "2"])
        check(r.rc == 0 and r.out.count("allgather ok") == n,
              "-n %d --blob %d" % (n, blob), r)


@case
def barrier_only(c):
    r = c.run(["-n", "5", c.probe, "--blob", "0", "--rounds", "4"])
    check(r.rc == 0 and r.out.count("allgather ok") == 5, "0-byte collectives", r)


@case
def singleton(c):
    """A program started without oshrun is one PE."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SHIMMER_BOOT_")}
    t0 = time.monotonic()
    p = subprocess.run([c.probe, "--blob", "8"], capture_output=True, text=True,
                       timeout=10, env=env)
    r = Result(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    check(r.rc == 0 and "probe: rank 0 size 1 kind single\n" in r.out, "singleton", r)


@case
def reinit(c):
    """init, fini, init again works under oshrun."""
    r = c.run(["-n", "3", c.probe, "--mode", "reinit"])
    check(r.rc == 0 and r.out.count("reinit ok") == 3, "re-init", r)


@case
def no_finalize(c):
    """PEs that exit 0 without saying finalized are fine."""
    r = c.run(["-n", "4", c.probe, "--mode", "nofini"])
    check(r.rc == 0 and r.err == "", "exit without finalize", r)


@case
def env_option(c):
    """-x VAR=VALUE reaches every PE; -x VAR passes through."""
    env = dict(os.environ, SHR_TEST_PASS="passed")
    r = c.run(["-x", "SHR_TEST_VAR=hello world", "-x", "SHR_TEST_PASS", "-n", "3",
               c.probe, "--env", "SHR_TEST_VAR"], env=env)
    check(r.rc == 0, "run with -x", r)
    for rank in range(3):
        check("probe: rank %d env SHR_TEST_VAR=hello world\n" % rank in r.out,
              "rank %d did not get -x" % rank, r)
    r = c.run(["-n", "2", "-x", "SHR_TEST_PASS", c.probe, "--env", "SHR_TEST_PASS"], env=env)
    check(r.rc == 0 and r.out.count("SHR_TEST_PASS=passed") == 2, "-x VAR", r)


@case
def stdin_pe0(c):
    """stdin goes to PE 0 only."""
    t0 = time.monotonic()
    p = subprocess.run([c.oshrun, "-n", "3", c.probe, "--mode", "stdin"],
                       input="line for pe0\n", capture_output=True, text=True, timeout=20)
    r = Result(p.returncode, p.stdout, p.stderr, time.monotonic() - t0)
    check(r.rc == 0 and "probe: rank 0 stdin line for pe0\n" in r.out, "PE 0 stdin", r)
    check("probe: rank 1 stdin eof" in r.out and "probe: rank 2 stdin eof" in r.out,
          "other PEs must see /dev/null", r)


@case
def option_spellings(c):
    for opts in (["-np", "2"], ["--np", "2"], ["-n=2"], ["--np=2"], ["-np=2"], ["-n2"],
                 ["--allow-run-as-root", "--oversubscribe", "-n", "2"],
                 ["-n", "2", "--timeout", "20"], ["-n", "2", "--"]):
        r = c.run(opts + [c.probe])
        check(r.rc == 0 and r.out.count("size 2 kind launcher") == 2,
              "options %s" % opts, r)
    r = c.run(["--help"])
    check(r.rc == 0 and "usage: oshrun" in r.out and "--hostfile" in r.out
          and "-x VAR" in r.out, "--help", r)
    r = c.run(["-h"])
    check(r.rc == 0 and "usage: oshrun" in r.out, "-h", r)
    r = c.run(["--version"])
    check(r.rc == 0 and r.out.startswith("oshrun (Shimmer) "), "--version", r)


@case
def program_args(c):
    """Arguments after the program are the program's, even ones oshrun knows."""
    script = os.path.join(c.tmp, "args.sh")
    with open(script, "w") as fh:
        fh.write('#!/bin/sh\necho "args:$SHIMMER_BOOT_RANK:$*"\n')
    os.chmod(script, 0o755)
    r = c.run(["-n", "2", script, "-n", "7", "--help"])
    check(r.rc == 0 and r.out.count("-n 7 --help") == 2, "program arguments", r)
    check("args:0:" in r.out and "args:1:" in r.out, "per-PE environment", r)


# ---- failures of PEs ---------------------------------------------------------

@case
def exit_status(c):
    """A PE's non-zero exit ends the job with its status; the message names it."""
    r = c.run(["-n", "4", c.probe, "--mode", "exit", "--victim", "2", "--status", "3"])
    check(r.rc == 3, "status 3 expected", r)
    check("oshrun: PE 2 (pid " in r.err and "exited with status 3; ending the job" in r.err,
          "message", r)
    check(r.elapsed < 5, "the job took too long to end", r)
    r = c.run(["-n", "1", c.probe, "--mode", "exit", "--victim", "0", "--status", "42"])
    check(r.rc == 42 and "PE 0" in r.err, "one PE, status 42", r)


@case
def signal_status(c):
    """A PE killed by a signal ends the job with 128+signal."""
    r = c.run(["-n", "3", c.probe, "--mode", "signal", "--victim", "1", "--status", "11"])
    check(r.rc == 139, "status 139 expected", r)
    check("oshrun: PE 1 (pid " in r.err and "killed by signal 11 (Segmentation fault)" in r.err,
          "message", r)


@case
def abort_status(c):
    """shr_boot_abort: the launcher names the PE and the reason, exits with the status."""
    r = c.run(["-n", "4", c.probe, "--mode", "abort", "--victim", "2", "--status", "5"])
    check(r.rc == 5, "status 5 expected", r)
    check("oshrun: PE 2 aborted (status 5): probe abort from rank 2\n" in r.err, "message", r)
    check("exited with status" not in r.err, "the abort must be reported, not the exit", r)
    check(r.err.count("oshrun:") == 1, "one line only", r)


@case
def abort_from_thread(c):
    r = c.run(["-n", "2", c.probe, "--mode", "abort-thread", "--victim", "1",
               "--status", "9"])
    check(r.rc == 9 and "PE 1 aborted (status 9): probe abort from a thread" in r.err,
          "abort from a thread", r)


@case
def global_exit(c):
    r = c.run(["-n", "3", c.probe, "--mode", "global-exit", "--victim", "1",
               "--status", "3"])
    check(r.rc == 3, "status 3 expected", r)
    check("oshrun: PE 1 called shmem_global_exit(3); ending the job\n" in r.err, "message", r)
    r = c.run(["-n", "2", c.probe, "--mode", "global-exit", "--victim", "0",
               "--status", "0"])
    check(r.rc == 0, "global_exit(0) is a success", r)


@case
def hang_and_fail(c):
    """Another PE ignores SIGTERM: it is killed after the grace period."""
    r = c.run(["-n", "3", c.probe, "--mode", "exit", "--victim", "0", "--status", "7",
               "--ignore-term"])
    check(r.rc == 7 and "PE 0" in r.err, "status 7 expected", r)
    check(1.5 < r.elapsed < 6, "expected SIGKILL after the ~2 s grace period", r)


@case
def kill9_pe(c):
    """kill -9 of one PE ends the job with 137."""
    proc = c.start(["-n", "4", c.probe, "--mode", "hang",
                    "--pid-dir", c.pid_dir()])
    t0 = time.monotonic()
    try:
        pids = c.wait_pids(4)
        victim = int(open(os.path.join(c.pid_dir(), "pe.2.pid")).read())
        os.kill(victim, signal.SIGKILL)
        r = c.finish(proc, t0)
    finally:
        proc.kill()
    check(r.rc == 137, "status 137 expected", r)
    check("oshrun: PE 2 (pid %d) killed by signal 9" % victim in r.err, "message", r)
    check(wait_gone(pids, 2), "PEs survived")


@case
def mismatch(c):
    """PEs contributing different lengths: reported, job ends with 1."""
    r = c.run(["-n", "3", c.probe, "--mode", "mismatch", "--victim", "1"])
    check(r.rc == 1 and "oshrun: error: PE " in r.err and "not in the same collective" in r.err,
          "mismatch", r)


@case
def left_collective(c):
    """A PE that exits 0 while others wait for it in a collective ends the job."""
    r = c.run(["-n", "3", c.probe, "--mode", "leave", "--victim", "2"])
    check(r.rc == 1 and "PE 2 (pid" in r.err and "wait for it" in r.err, "stuck job", r)
    check(r.elapsed < 5, "took too long", r)


@case
def protocol_garbage(c):
    """A program that writes garbage on the boot socket is stopped."""
    code = ("import os, time; os.write(int(os.environ['SHIMMER_BOOT_FD']), b'garbage' * 4);"
            " time.sleep(20)")
    r = c.run(["-n", "2", sys.executable, "-c", code])
    check(r.rc == 1 and "protocol error" in r.err, "garbage on the socket", r)
    check(r.elapsed < 5, "took too long", r)


@case
def plain_programs(c):
    """Programs that never use the boot layer run too; status 0 only if all are 0."""
    r = c.run(["-n", "4", "true"])
    check(r.rc == 0 and r.err == "", "true", r)
    r = c.run(["-n", "4", "/bin/sh", "-c", 'test "$SHIMMER_BOOT_RANK" != 3'])
    check(r.rc == 1 and "PE 3" in r.err, "one PE exits 1", r)


@case
def strays_end_with_the_job(c):
    """Processes a PE started (in the background, even in a new session)
    do not outlive the job, whether it ends well or badly."""
    for status in (0, 3):
        pids = os.path.join(c.tmp, "strays-%d" % status)
        # PE 1 ends last (with the status), once PE 0 has written its pids
        script = ('sleep 300 & echo $! >> %s; setsid sleep 301 & echo $! >> %s; '
                  'if [ "$SHIMMER_BOOT_RANK" = 1 ]; then sleep 0.5; exit %d; fi'
                  % (pids, pids, status))
        r = c.run(["-n", "2", "/bin/sh", "-c", script])
        check(r.rc == status, "status %d" % status, r)
        check("oshrun: 4 processes the PEs started" in r.err and "outlived the job" in r.err,
              "strays named", r)
        with open(pids) as fh:
            left = [int(p) for p in fh.read().split()]
        check(len(left) == 4, "4 background processes started", r)
        alive = []
        for pid in left:
            try:
                with open("/proc/%d/stat" % pid) as fh:
                    if fh.read().split()[2] != "Z":
                        alive.append(pid)
            except OSError:
                pass
        check(not alive, "still running after the job: %s" % alive, r)


# ---- ending the job from outside ---------------------------------------------

def stop_by_signal(c, sig):
    proc = c.start(["-n", "3", c.probe, "--mode", "hang",
                    "--pid-dir", c.pid_dir()])
    t0 = time.monotonic()
    try:
        pids = c.wait_pids(3)
        proc.send_signal(sig)
        r = c.finish(proc, t0)
    finally:
        proc.kill()
    check(r.rc == 128 + sig, "status %d expected" % (128 + sig), r)
    check("oshrun: received" in r.err, "message", r)
    check(wait_gone(pids, 1), "PEs survived %s" % signal.Signals(sig).name)


@case
def sigint(c):
    stop_by_signal(c, signal.SIGINT)


@case
def sigterm(c):
    stop_by_signal(c, signal.SIGTERM)


@case
def sighup(c):
    stop_by_signal(c, signal.SIGHUP)


@case
def sigint_twice(c):
    """PEs that ignore SIGINT: a second ^C kills them without the grace period."""
    proc = c.start(["-n", "2", c.probe, "--mode", "hang", "--ignore-term",
                    "--pid-dir", c.pid_dir()])
    t0 = time.monotonic()
    pids = []
    try:
        pids = c.wait_pids(2)
        proc.send_signal(signal.SIGINT)
        time.sleep(0.2)
        check(proc.poll() is None, "oshrun ended although the PEs ignore SIGINT")
        proc.send_signal(signal.SIGINT)
        r = c.finish(proc, t0)
    finally:
        proc.kill()
        kill_all(pids)
    check(r.rc == 130, "status 130 expected", r)
    check(r.elapsed < 1.5, "the second SIGINT should kill at once", r)
    check(wait_gone(pids, 1), "PEs survived")


@case
def kill9_launcher(c):
    """kill -9 of oshrun leaves no PE behind."""
    proc = c.start(["-n", "4", c.probe, "--mode", "hang",
                    "--pid-dir", c.pid_dir()])
    pids = []
    try:
        pids = c.wait_pids(4)
        proc.kill()
        proc.wait(timeout=5)
        gone = wait_gone(pids, 2)
    finally:
        kill_all(pids)
    check(gone, "PEs survived kill -9 of oshrun")


@case
def timeout(c):
    r = c.run(["--timeout", "0.5", "-n", "3", c.probe, "--mode", "hang"])
    check(r.rc == 124 and "oshrun: timeout" in r.err, "timeout", r)
    check(r.elapsed < 3, "timeout took too long", r)


@case
def launcher_lost(c):
    """A PE blocked in a collective exits when oshrun disappears (not by PDEATHSIG:
    the PE here is a grandchild that holds the socket)."""
    script = os.path.join(c.tmp, "wrap.sh")
    with open(script, "w") as fh:
        # sh forks the probe and waits; the probe's parent is sh, not oshrun.
        fh.write('#!/bin/sh\n"$@"\necho wrapper-done\n')
    os.chmod(script, 0o755)
    proc = c.start(["-n", "2", script, c.probe, "--mode", "block", "--victim", "1",
                    "--pid-dir", c.pid_dir()])
    pids = []
    try:
        pids = c.wait_pids(2)
        pe0 = int(open(os.path.join(c.pid_dir(), "pe.0.pid")).read())
        time.sleep(0.1)  # let PE 0 block in its collective
        proc.kill()
        proc.wait(timeout=5)
        gone = wait_gone([pe0], 3)
    finally:
        kill_all(pids)  # the victim sleeps outside boot: only a direct child would die
    check(gone, "a PE kept waiting in a collective after oshrun died")


# ---- bad input -----------------------------------------------------------------

def check_usage_error(r, rc, words, what):
    check(r.rc == rc, what + ": status %d expected" % rc, r)
    lines = r.err.strip().splitlines()
    check(len(lines) == 1 and lines[0].startswith("oshrun: error: "), what + ": one line", r)
    for w in words:
        check(w in lines[0], what + ": message should mention %r" % w, r)
    check(r.out == "", what + ": no PE should run", r)


@case
def bad_npes(c):
    for value, word in (("0", "positive"), ("-1", "positive"), ("abc", "positive"),
                        ("2x", "positive"), ("", "positive"), ("5000", "at most 4096")):
        r = c.run(["-n", value, c.probe])
        check_usage_error(r, 2, [word], "-n %r" % value)
    r = c.run([c.probe])
    check_usage_error(r, 2, ["-n N"], "missing -n")
    r = c.run(["-n"])
    check_usage_error(r, 2, ["needs a value"], "-n without value")
    r = c.run(["-n", "2", "-np", "3", c.probe])
    check_usage_error(r, 2, ["already 2", "once"], "-n given twice")
    r = c.run(["--timeout", "soon", "-n", "2", c.probe])
    check_usage_error(r, 2, ["--timeout"], "bad --timeout")
    r = c.run(["-x", "=oops", "-n", "2", c.probe])
    check_usage_error(r, 2, ["-x"], "bad -x")


@case
def missing_program(c):
    r = c.run(["-n", "2"])
    check_usage_error(r, 2, ["no program"], "no program")
    r = c.run(["-n", "2", os.path.join(c.tmp, "nope")])
    check_usage_error(r, 127, ["nope", "No such file"], "missing file")
    r = c.run(["-n", "2", "shimmer-no-such-program-xyz"])
    check_usage_error(r, 127, ["not found in PATH"], "missing command")


@case
def not_executable(c):
    path = os.path.join(c.tmp, "data.txt")
    with open(path, "w") as fh:
        fh.write("not a program\n")
    os.chmod(path, 0o644)
    r = c.run(["-n", "2", path])
    check_usage_error(r, 126, ["not executable", "chmod"], "non-executable file")
    r = c.run(["-n", "2", c.tmp])
    check_usage_error(r, 126, ["directory"], "directory")


@case
def missing_interpreter(c):
    """A script whose #! interpreter is missing is refused before any PE starts."""
    script = os.path.join(c.tmp, "job.sh")
    with open(script, "w") as fh:
        fh.write("#!/no/such/interpreter -x\necho started\n")
    os.chmod(script, 0o755)
    r = c.run(["-n", "2", script])
    check_usage_error(r, 126, ["/no/such/interpreter", "does not exist"], "by path")
    env = dict(os.environ, PATH=c.tmp + ":" + os.environ.get("PATH", ""))
    r = c.run(["-n", "2", "job.sh"], env=env)
    check_usage_error(r, 126, ["/no/such/interpreter", "does not exist"], "through PATH")


@case
def unknown_option(c):
    r = c.run(["--bogus", "-n", "2", c.probe])
    check_usage_error(r, 2, ["'--bogus'", "--help"], "unknown option")


def fake_launcher(c, name):
    """A stand-in for srun or mpirun in a PATH of its own: prints its
    arguments and FOO from its environment, then exits 0."""
    d = os.path.join(c.tmp, "fake-" + name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name)
    with open(path, "w") as fh:
        fh.write('#!/bin/sh\necho "%s $* FOO=$FOO"\n' % name)
    os.chmod(path, 0o755)
    return dict(os.environ, PATH=d + ":" + os.environ.get("PATH", ""))


@case
def slurm_allocation_hands_to_srun(c):
    """oshrun -n N inside a Slurm allocation of several nodes runs srun
    --mpi=pmix with the options in Slurm's spelling, and -v says so."""
    env = fake_launcher(c, "srun")
    env.update(SLURM_JOB_ID="42", SLURM_JOB_NUM_NODES="2")
    r = c.run(["-v", "-n", "4", "--map-by", "socket", "--bind-to", "core", "--report-bindings",
               "-x", "FOO=bar", "--timeout", "90", "prog", "a", "b"], env=env)
    want = ("srun --mpi=pmix --ntasks=4 --distribution=block:cyclic --cpu-bind=verbose,cores "
            "--time=2 prog a b FOO=bar")
    check(r.rc == 0 and r.out.strip() == want, "srun command", r)
    check("oshrun: inside Slurm allocation 42 of 2 nodes; handing the job to: srun" in r.err,
          "-v names the hand-over", r)
    r = c.run(["--npernode", "2", "prog"], env=env)
    check(r.rc == 0 and r.out.strip() == "srun --mpi=pmix --ntasks-per-node=2 prog FOO=",
          "srun -N", r)
    env.update(SLURM_JOB_NUM_NODES="1")
    r = c.run(["-n", "2", "/bin/sh", "-c", "echo local"], env=env)
    check(r.rc == 0 and r.out.split() == ["local", "local"], "one-node allocation runs here", r)


@case
def placement_options_reach_mpirun(c):
    """--map-by, --bind-to and --report-bindings go on to mpirun as given."""
    env = fake_launcher(c, "mpirun")
    r = c.run(["-H", "a,b", "-n", "4", "--map-by", "socket", "--bind-to", "socket",
               "--report-bindings", "prog"], env=env)
    check(r.rc == 0 and "--map-by socket --bind-to socket --report-bindings" in r.out,
          "mpirun options", r)
    r = c.run(["-H", "a,b", "--map-by", "ppr:2:node", "prog"], env=env)
    check(r.rc == 0 and "--map-by ppr:2:node" in r.out, "ppr", r)


@case
def placement_on_this_host(c):
    """--report-bindings names each PE's CPUs (bind_to_core checks the
    CPU sets themselves); a bad --map-by is a usage error."""
    show = ["/bin/sh", "-c", "grep Cpus_allowed_list /proc/self/status"]
    r = c.run(["-n", "1", "--bind-to", "core", "--report-bindings"] + show)
    check(r.rc == 0 and "oshrun: PE 0 (pid" in r.err and "bound to CPU" in r.err, "core", r)
    r = c.run(["-n", "1", "--bind-to", "socket", "--report-bindings"] + show)
    check(r.rc == 0 and "(socket " in r.err, "socket", r)
    r = c.run(["-n", "1", "--bind-to", "none", "--report-bindings"] + show)
    check(r.rc == 0 and "not bound" in r.err, "none", r)
    r = c.run(["-n", "2", "--map-by", "diagonal", "prog"])
    check_usage_error(r, 2, ["--map-by", "ppr:N:node"], "bad --map-by")


@case
def multihost_no_mpirun(c):
    """Multi-host options are recognised; without mpirun the error says what to do."""
    hostfile = os.path.join(c.tmp, "hosts")
    with open(hostfile, "w") as fh:
        fh.write("localhost slots=2\n")
    env = dict(os.environ, PATH=c.tmp)
    for opts in (["--hostfile", hostfile], ["-H", "localhost:2"], ["-N", "2"]):
        r = c.run(opts + ["-n", "2", "/bin/true"], env=env)
        check_usage_error(r, 127, ["mpirun", "-n N"], "multi-host without mpirun %s" % opts)


@case
def multihost_delegation(c):
    """With Open MPI's mpirun installed, -H/--hostfile/-N/-x are handed to it."""
    if shutil.which("mpirun") is None:
        raise Skip("mpirun not installed")
    hostfile = os.path.join(c.tmp, "hosts")
    with open(hostfile, "w") as fh:
        fh.write("localhost slots=4\n")
    script = 'echo "rank=$PMIX_RANK var=$SHR_TEST_VAR"'
    for opts in (["-H", "localhost:2"], ["--hostfile", hostfile, "-N", "2"]):
        r = c.run(opts + ["-n", "2", "-x", "SHR_TEST_VAR=v1", "/bin/sh", "-c", script])
        check(r.rc == 0, "mpirun delegation %s" % opts, r)
        for rank in (0, 1):
            check("rank=%d var=v1\n" % rank in r.out, "rank %d via mpirun" % rank, r)


# ---- speed -------------------------------------------------------------------

@case
def fast_start(c):
    """No sleeps on the normal path: 16 PEs start, rendezvous and end quickly."""
    best = 1e9
    for _ in range(5):
        r = c.run(["-n", "16", c.probe, "--rounds", "1"])
        check(r.rc == 0, "run", r)
        best = min(best, r.elapsed)
    # Generous: a loaded 2-core CI machine running tests in parallel.
    check(best < 1.0, "oshrun -n 16 took %.3f s at best" % best)


def setup(args):
    def call(name):
        tmp = tempfile.mkdtemp(prefix="shr-launcher-%s-" % name)
        try:
            CASES[name](Ctx(args.oshrun, args.probe, tmp))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    return call


if __name__ == "__main__":
    sys.exit(main(["oshrun", "probe"], setup))
