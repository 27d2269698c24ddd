#!/usr/bin/env python3
"""Error classes and cleanup of the single-node foundation.

Each case runs err_cases (a program misusing the API in one way) under
oshrun and checks: the exit status, one error line that names the routine,
the PE, the problem and the fix, no new files in /dev/shm, no process of the
job left, and that segments are private to the user.
  test_errors.py --list
  test_errors.py --oshrun build/bin/oshrun --prog build/tests/bin/err_cases CASE|all
"""
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../.."))
from casekit import CASES, Fail, Skip, case, main  # noqa: E402


def shm_entries():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


def run(args, env=None, n=2, timeout=30, oshrun_args=()):
    full_env = dict(os.environ)
    for k in list(full_env):
        if k.startswith(("SHMEM_", "SMA_", "SHIMMER_")):
            del full_env[k]
    full_env.update(env or {})
    cmd = [OSHRUN, "-n", str(n), *oshrun_args, PROG, *args]
    p = subprocess.run(cmd, env=full_env, capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def expect(rc, out, err, status, patterns, where="stderr"):
    text = err if where == "stderr" else out
    if rc != status:
        raise Fail("exit status %d, want %d\nstdout: %s\nstderr: %s" % (rc, status, out, err))
    for pat in patterns:
        if not re.search(pat, text):
            raise Fail("no line matching %r in %s:\n%s" % (pat, where, text))


def error_line(routine, *what):
    """One line 'shimmer: error: [pe N host] routine: ...what...'."""
    return r"(?m)^shimmer: error: (\[pe \d+ \S+\] )?%s: .*%s" % (
        re.escape(routine), ".*".join(what))


# ---------------------------------------------------------------- error classes
# The negative-test table: one row per class of bad input, each run without
# and with SHMEM_DEBUG (cases neg_<class>_release, neg_<class>_debug).  A row:
#   (class, err_cases mode or oshrun argv, PEs, environment,
#    release outcome, debug outcome)
# an outcome: (exit status, stderr patterns, stdout patterns).  docs/errors.md
# lists the same classes with these outcomes.
def err(routine, *what):
    return (1, [error_line(routine, *what)], [])


SURVIVES = (0, [], [r"survived"])
NEGATIVE = [
    ("nonsymmetric", "nonsym", 2, {},
     err("shmem_long_p", r"dest 0x[0-9a-f]+ is not a symmetric address", "shmem_malloc"), None),
    ("nonsymmetric_get", "nonsym_get", 2, {},
     err("shmem_getmem", r"source 0x[0-9a-f]+ is not a symmetric address"), None),
    ("pe_npes", "pe_range", 3, {}, err("shmem_long_p", r"pe is 3, valid range 0\.\.2 of SHMEM_TEAM_WORLD",
                                         r"pass a PE number below shmem_n_pes\(\)"), None),
    ("pe_negative", "pe_negative", 2, {}, err("shmem_long_atomic_add", "pe is -1"), None),
    ("null_buffer", "null_source", 2, {},
     err("shmem_putmem", "source is NULL for a transfer of 8 bytes"), None),
    ("past_heap_end", "past_heap_end", 2, {"SHMEM_SYMMETRIC_SIZE": "1m"},
     err("shmem_putmem", r"dest 0x[0-9a-f]+ is not symmetric \(its 4194304 bytes run past "
         r"the end of the symmetric heap, which lies \d+ bytes from it\)", "one symmetric object"),
     None),
    ("past_global_end", "past_data_end", 2, {},
     err("shmem_getmem", r"source 0x[0-9a-f]+ is not symmetric \(its 1073741824 bytes run past "
         r"the end of the program's globals, which lies \d+ bytes from it\)"), None),
    ("misaligned_amo", "misaligned_amo", 1, {},
     err("shmem_long_atomic_add", "not aligned to 8 bytes"), None),
    # a handle that never was one is read before anything can check it
    # without debug: the launcher reports the PE's SIGSEGV (which ASan
    # builds must leave to the kernel)
    ("ctx_garbage", "ctx_garbage", 2, {"ASAN_OPTIONS": "handle_segv=0"},
     (139, [r"killed by signal 11 \(Segmentation fault\)"], []),
     err("shmem_ctx_long_p", "ctx 0x1000 is not a context handle", "shmem_ctx_create")),
    # a destroyed context's struct is kept for reuse: the put still lands
    ("ctx_destroyed", "ctx_destroyed", 2, {}, SURVIVES,
     err("shmem_ctx_long_p", "is not a live context")),
    ("team_destroyed", "team_destroyed", 2, {}, SURVIVES,
     err("shmem_team_my_pe", "is not a live team")),
    ("double_free", "double_free", 2, {},
     err("shmem_free", "was not returned by shmem_malloc", "or was freed already"), None),
    ("free_foreign", "free_foreign", 2, {},
     err("shmem_free", "was not returned by shmem_malloc"), None),
    ("malloc_beyond_heap", "heap_exhausted", 2, {"SHMEM_SYMMETRIC_SIZE": "1m"},
     (0, [r"(?m)^shimmer: warning: \[pe \d+ \S+\] shmem_malloc\(64 MiB\): symmetric heap "
          r"exhausted \(1 MiB per PE.*set SHMEM_SYMMETRIC_SIZE=128m or more"],
      [r"malloc returned NULL"]), None),
    ("malloc_size_mismatch", "malloc_mismatch", 2, {}, SURVIVES,
     err("shmem_malloc", "asked for (100|200) bytes", "but PE \\d+ for (100|200)",
         "same on every PE")),
    # without debug the collective cannot finish; the final barrier's watch
    # (core/stall.c) ends the job instead of letting it hang
    ("coll_size_mismatch", "coll_size_mismatch", 2, {},
     (1, [r"wait inside the library .* that no PE will complete"], []),
     err("shmem_long_broadcast", "nelems \\(in bytes\\) is (64|128) on PE \\d but (64|128)")),
    ("before_init", "before_init", 2, {},
     err("shmem_long_p", "before shmem_init", "call shmem_init"), None),
    ("after_finalize", "after_finalize", 2, {}, err("shmem_long_p", "after shmem_finalize"), None),
    ("symmetric_size_suffix", "ok", 2, {"SHMEM_SYMMETRIC_SIZE": "12x"},
     err("shmem_init", "SHMEM_SYMMETRIC_SIZE=12x is not valid", "k/m/g/t suffix"), None),
    ("symmetric_size_negative", "ok", 2, {"SHMEM_SYMMETRIC_SIZE": "-1"},
     err("shmem_init", "SHMEM_SYMMETRIC_SIZE=-1 is not valid"), None),
    ("symmetric_size_unmappable", "ok", 2, {"SHMEM_SYMMETRIC_SIZE": "99999t"},
     err("shmem_init", r"cannot map the symmetric heap \(97\.7 PiB\)", "lower SHMEM_SYMMETRIC_SIZE"),
     None),
    ("oshrun_missing_program", ["-n", "2", "/nonexistent/prog"], 0, {},
     (127, [r"oshrun: error: .*/nonexistent/prog"], []), None),
    ("oshrun_n_zero", ["-n", "0", "PROG", "ok"], 0, {},
     (2, [r"oshrun: error: -n '0': the number of PEs must be a positive integer"], []), None),
    ("oshrun_n_word", ["-n", "two", "PROG", "ok"], 0, {},
     (2, [r"oshrun: error: -n 'two'"], []), None),
    ("oshrun_n_twice", ["-n", "2", "-n", "3", "PROG", "ok"], 0, {},
     (2, [r"oshrun: error: -n 3: the number of PEs is already 2; give it once"], []), None),
    ("oshrun_unknown_option", ["--bogus", "PROG", "ok"], 0, {},
     (2, [r"oshrun: error: unknown option '--bogus'; see 'oshrun --help'"], []), None),
]


def run_negative(mode, n, env, outcome):
    status, err_patterns, out_patterns = outcome
    if isinstance(mode, list):  # oshrun's own arguments
        full_env = dict(os.environ, **env)
        argv = [PROG if a == "PROG" else a for a in mode]
        p = subprocess.run([OSHRUN, *argv], env=full_env, capture_output=True, text=True,
                           timeout=30)
        rc, out, err_text = p.returncode, p.stdout, p.stderr
    else:
        rc, out, err_text = run([mode], env=env, n=n)
    expect(rc, out, err_text, status, err_patterns)
    expect(rc, out, err_text, status, out_patterns, where="stdout")


def negative_case(row, debug):
    name, mode, n, env, release, with_debug = row
    outcome = (with_debug or release) if debug else release
    full_env = dict(env, SHMEM_DEBUG="1") if debug else dict(env)

    def check():
        run_negative(mode, n, full_env, outcome)
    check.__name__ = "neg_%s_%s" % (name, "debug" if debug else "release")
    return case(check)


for row in NEGATIVE:
    negative_case(row, False)
    negative_case(row, True)


@case
def finalize_twice():
    rc, out, err = run(["finalize_twice"], n=2)
    expect(rc, out, err, 0, [r"(?m)^shimmer: warning: \[pe \d+ \S+\] shmem_finalize: called again "
                             r"after the last shmem_finalize; ignored \(call it once per shmem_init\)"])
    expect(rc, out, err, 0, [r"(?s)after the second finalize.*after the second finalize"], where="stdout")


@case
def finalize_twice_debug():
    rc, out, err = run(["finalize_twice"], env={"SHMEM_DEBUG": "1"}, n=2)
    expect(rc, out, err, 1, [error_line("shmem_finalize", "after shmem_finalize")])


@case
def bad_comparison():
    """Checked with and without debug: otherwise the wait returns at once."""
    for env in ({"SHMEM_DEBUG": "1"}, {}):
        rc, out, err = run(["bad_cmp"], env=env, n=1)
        expect(rc, out, err, 1, [error_line("shmem_long_wait_until", "cmp is 42", "SHMEM_CMP_EQ")])


@case
def env_unparsable_init_thread_returns():
    rc, out, err = run(["init_thread_bad_env"], env={"SHIMMER_SHM_BACKING": "tape"}, n=1)
    expect(rc, out, err, 3, [r"init_thread returned nonzero"], where="stdout")
    expect(rc, out, err, 3, [error_line("shmem_init_thread", "SHIMMER_SHM_BACKING=tape", "memfd,file")])


def init_retry(var, value, env=None, n=2):
    """shmem_init_thread fails part-way (var=value), returns nonzero, and
    unwinds: the retry without var gives a working job (puts and AMOs on a
    global and on the heap)."""
    full = {var: value}
    full.update(env or {})
    rc, out, err = run(["init_retry", var], env=full, n=n)
    expect(rc, out, err, 0, [r"PE 0: init_retry survived", r"PE %d: init_retry survived" % (n - 1)],
           where="stdout")
    return err


@case
def init_unwinds_scratch_alloc():
    """An internal heap of 0 bytes: the check scratch cannot be allocated
    (init used to take the unset offset as its address)."""
    err = init_retry("SHIMMER_INTERNAL_HEAP_SIZE", "0")
    expect(0, "", err, 0, [error_line("shmem_init_thread", "bytes of scratch for the argument checks",
                                      "raise SHIMMER_INTERNAL_HEAP_SIZE")])


@case
def init_unwinds_team_pool():
    err = init_retry("SHIMMER_INTERNAL_HEAP_SIZE", "4k")
    expect(0, "", err, 0, [error_line("shmem_init_thread", "cannot hold 64 team slots")])


@case
def init_unwinds_teams_remote():
    """A failure after the remote transport is up (team init) undoes it
    once, and the retry brings it up again."""
    require_ucx_plugin()
    err = init_retry("SHIMMER_TEAMS_MAX", "1", env={"SHIMMER_REMOTE_PES": "all"})
    expect(0, "", err, 0, [error_line("shmem_init_thread", "SHIMMER_TEAMS_MAX is 1")])


@case
def env_unknown_name_warns():
    rc, out, err = run(["ok"], env={"SHIMMER_WAIT_SPN": "3"}, n=1)
    expect(rc, out, err, 0, [r"unknown variable SHIMMER_WAIT_SPN is ignored; did you mean SHIMMER_WAIT_SPIN\?"])


@case
def dev_shm_too_small():
    """A tmpfs too small for the heap: init refuses with bytes and remedy,
    never a SIGBUS later."""
    if os.geteuid() != 0:
        raise Skip("mounting a small tmpfs needs root")
    d = tempfile.mkdtemp(prefix="shimmer-tiny-")
    if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=4m,mode=1777", "tmpfs", d]) != 0:
        os.rmdir(d)
        raise Skip("cannot mount tmpfs")
    try:
        rc, out, err = run(["ok"], env={"SHIMMER_SHM_BACKING": "file", "SHIMMER_SHM_DIR": d,
                                        "SHMEM_SYMMETRIC_SIZE": "64m"}, n=2)
        if rc == 0:
            raise Fail("init succeeded on a 4 MiB tmpfs")
        expect(rc, out, err, rc, [error_line("shmem_init", re.escape(d) + " has", "free but the symmetric heap",
                                             "needs", "SHMEM_SYMMETRIC_SIZE", "memfd")])
        if os.listdir(d):
            raise Fail("files left in %s: %s" % (d, os.listdir(d)))
        # room for 2 heaps of 2 MiB, not for 4: every PE of the node counts,
        # not one per core
        rc, out, err = run(["ok"], env={"SHIMMER_SHM_BACKING": "file", "SHIMMER_SHM_DIR": d,
                                        "SHMEM_SYMMETRIC_SIZE": "1m", "SHIMMER_INTERNAL_HEAP_SIZE": "1m"},
                           n=4)
        expect(rc, out, err, 1, [r"symmetric heap of 4 PE\(s\) needs"])
    finally:
        subprocess.call(["umount", d])
        os.rmdir(d)


@case
def fork_child_keeps_its_writes():
    """A child of fork() gets private copies of the globals and the heap,
    and its exit does not finalize the PE's job."""
    rc, out, err = run(["fork_child"], n=2)
    expect(rc, out, err, 0, [r"(?s)survived.*survived"], where="stdout")


@case
def heap_beyond_memory_warns():
    """A heap the node can never back starts (it is only reserved) but is
    named once per node, with the figures."""
    kib = 0
    with open("/proc/meminfo") as fh:
        for line in fh:
            if line.startswith(("MemTotal:", "SwapTotal:")):
                kib += int(line.split()[1])
    rc, out, err = run(["ok"], env={"SHMEM_SYMMETRIC_SIZE": "%dk" % kib}, n=2)
    expect(rc, out, err, 0, [r"warning: .*the symmetric heaps of this node's 2 PE\(s\) total .* of memory "
                             r"and swap: .*lower SHMEM_SYMMETRIC_SIZE"])
    if err.count("the symmetric heaps of this node") != 1:
        raise Fail("expected the warning once per node:\n" + err)


@case
def dev_shm_fills_after_init():
    """The segment directory fills up after init: the PE touching a page
    tmpfs cannot back says why before the SIGBUS ends it."""
    if os.geteuid() != 0:
        raise Skip("mounting a small tmpfs needs root")
    d = tempfile.mkdtemp(prefix="shimmer-fill-")
    if subprocess.call(["mount", "-t", "tmpfs", "-o", "size=192m,mode=1777", "tmpfs", d]) != 0:
        os.rmdir(d)
        raise Skip("cannot mount tmpfs")
    try:
        rc, out, err = run(["fill_shm_dir"], env={"SHIMMER_SHM_BACKING": "file", "SHIMMER_SHM_DIR": d,
                                                  "SHMEM_SYMMETRIC_SIZE": "16m"}, n=2)
        # the SIGBUS then takes its old action: death by signal 7, or under
        # ASan its report and status 1
        expect(rc, out, err, 128 + signal.SIGBUS if rc != 1 else 1,
               [r"shimmer: error: \[pid \d+\] the symmetric heap's files in " + re.escape(d) +
                r" ran out of space \(SIGBUS on first touch\); enlarge",
                r"killed by signal 7|AddressSanitizer: BUS"])
    finally:
        subprocess.call(["umount", d])
        os.rmdir(d)


@case
def log_file_is_never_redirected():
    """SHIMMER_LOG_FILE: lines go to the file; a symlink or another user's
    file under that name is refused (stderr instead), never written."""
    d = tempfile.mkdtemp(prefix="shimmer-log-")
    try:
        log = os.path.join(d, "run-%p.log")
        rc, out, err = run(["finalize_twice"], env={"SHIMMER_LOG_FILE": log}, n=1)
        with open(os.path.join(d, "run-0.log")) as fh:
            if "called again after the last shmem_finalize" not in fh.read():
                raise Fail("the warning did not reach the log file; stderr: %s" % err)
        victim = os.path.join(d, "victim")
        with open(victim, "w") as fh:
            fh.write("precious\n")
        os.symlink(victim, os.path.join(d, "link.log"))
        rc, out, err = run(["finalize_twice"], env={"SHIMMER_LOG_FILE": os.path.join(d, "link.log")}, n=1)
        expect(rc, out, err, 0, [r"cannot open log file .*link.log: it is a symbolic link \(not followed\)",
                                 r"called again after the last shmem_finalize"])
        if open(victim).read() != "precious\n":
            raise Fail("the symlink's target was written")
        if os.geteuid() == 0:
            foreign = os.path.join(d, "foreign.log")
            with open(foreign, "w"):
                pass
            os.chown(foreign, 65534, 65534)
            rc, out, err = run(["finalize_twice"], env={"SHIMMER_LOG_FILE": foreign}, n=1)
            expect(rc, out, err, 0, [r"log file .*foreign.log is not a plain file of this user"])
            if os.path.getsize(foreign) != 0:
                raise Fail("another user's file was written")
    finally:
        shutil.rmtree(d, ignore_errors=True)



@case
def log_categories():
    """Each category logs its paths, and only the categories asked for do:
    heap and boot at debug level; rma and amo at trace, where the build has
    trace compiled in (shimmer-info says; release builds compile it out)."""
    info = subprocess.run([os.path.join(os.path.dirname(OSHRUN), "shimmer-info"), "--parsable"],
                          capture_output=True, text=True).stdout
    traced = "build:log_levels:up to trace" in info
    if not traced and "build:log_levels:up to debug" not in info:
        raise Fail("shimmer-info does not say which log levels are compiled in:\n" + info)
    rc, out, err = run(["every_path"], n=2, env={"SHIMMER_LOG_LEVEL": "trace",
                                                 "SHIMMER_LOG_CATEGORIES": "heap,boot,rma,amo"})
    want = [r"(?m)^shimmer: debug: \[pe 1 \S+\] shmem_malloc: 8 bytes at heap offset 0x",
            r"(?m)^shimmer: debug: \[pe 0 \S+\] shmem_free: block of \d+ bytes at heap offset 0x",
            r"(?m)^shimmer: debug: \[pe 0 \S+\] boot \(launcher\): allgather of \d+ bytes per PE",
            r"(?m)^shimmer: debug: \[pe 1 \S+\] boot \(launcher\): barrier"]
    trace = r"(?m)^shimmer: trace: \[pe %d \S+\] %s: 8 bytes %s 0x\w+ on PE %d$"
    rma_amo = [trace % (0, "shmem_long_p", "to", 1), trace % (1, "shmem_long_get", "from", 0),
               trace % (0, "shmem_long_atomic_add", "at", 1)]
    expect(rc, out, err, 0, want + (rma_amo if traced else []))
    if not traced and re.search(r"(?m)^shimmer: trace:", err):
        raise Fail("trace lines from a build that compiles them out:\n" + err)
    rc, out, err = run(["every_path"], n=2, env={"SHIMMER_LOG_LEVEL": "trace",
                                                 "SHIMMER_LOG_CATEGORIES": "coll"})
    expect(rc, out, err, 0, [r"algorithm BARRIER/\w+ runs"])
    for other in ("heap offset", "boot (", "shmem_long_p:", "shmem_long_atomic_add:"):
        if other in err:
            raise Fail("SHIMMER_LOG_CATEGORIES=coll let a line with %r through:\n%s" % (other, err))


# ---------------------------------------------------------------- cleanup
def job_pids(pid_dir):
    pids = []
    for f in glob.glob(os.path.join(pid_dir, "pe*.pid")):
        with open(f) as fh:
            text = fh.read()
        if text.endswith("\n"):  # complete: the PE may be writing it now
            pids.append(int(text))
    return pids


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split()[2] != "Z"
    except OSError:
        return False


def start_hanging_job(n, env=None):
    pid_dir = tempfile.mkdtemp(prefix="shimmer-pids-")
    full_env = dict(os.environ, ERR_PID_DIR=pid_dir, **(env or {}))
    job = subprocess.Popen([OSHRUN, "-n", str(n), PROG, "hang"], env=full_env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 20
    while len(job_pids(pid_dir)) < n and time.time() < deadline:
        time.sleep(0.05)
    pids = job_pids(pid_dir)
    shutil.rmtree(pid_dir, ignore_errors=True)  # the PEs wrote them at start
    if len(pids) < n:
        job.kill()
        raise Fail("job did not start")
    return job, pids


def expect_all_gone(pids, within=5.0):
    deadline = time.time() + within
    while time.time() < deadline and any(alive(p) for p in pids):
        time.sleep(0.05)
    left = [p for p in pids if alive(p)]
    if left:
        for p in left:
            os.kill(p, signal.SIGKILL)
        raise Fail("PEs still running: %s" % left)


def leftovers(before):
    """New shimmer files in /dev/shm whose creator is gone.  Files of live
    processes belong to jobs still starting (tests run in parallel): a
    file-backed segment is unlinked once every peer mapped it."""
    left = set()
    for e in shm_entries() - before:
        m = re.match(r"shimmer-(\d+)-", e)
        if m and alive(int(m.group(1))):
            continue
        if "shimmer" in e:
            left.add(e)
    return left


def expect_no_new_shm(before):
    deadline = time.time() + 2  # a dying job's last PE may still be exiting
    while leftovers(before) and time.time() < deadline:
        time.sleep(0.05)
    left = leftovers(before)
    if left:
        raise Fail("left in /dev/shm: %s" % sorted(left))


@case
def cleanup_normal_exit():
    for backing in ("memfd", "file"):
        before = shm_entries()
        rc, out, err = run(["ok"], env={"SHIMMER_SHM_BACKING": backing}, n=4)
        expect(rc, out, err, 0, [r"survived"], where="stdout")
        expect_no_new_shm(before)


@case
def cleanup_pe_dies_during_init():
    """PE 3 dies while PEs 0-2 wait for it in shmem_init with their segment
    files created: oshrun's SIGTERM to them must not leave the files."""
    d = tempfile.mkdtemp(prefix="shimmer-initdeath-")
    pid_file = os.path.join(d, "pe3.pid")
    script = ('if [ "$SHIMMER_BOOT_RANK" = 3 ]; then echo $$ > %s; exec sleep 30; fi; exec %s ok'
              % (pid_file, PROG))
    env = dict(os.environ, SHIMMER_SHM_BACKING="file", SHIMMER_SHM_DIR=d)
    job = subprocess.Popen([OSHRUN, "-n", "4", "/bin/sh", "-c", script], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 20
        while time.time() < deadline and (len(glob.glob(os.path.join(d, "shimmer-*"))) < 3 or
                                          not os.path.exists(pid_file)):
            time.sleep(0.02)
        if len(glob.glob(os.path.join(d, "shimmer-*"))) < 3:
            raise Fail("PEs 0-2 did not create their segment files: %s" % os.listdir(d))
        time.sleep(0.1)  # the pid file may still be being written
        with open(pid_file) as fh:
            os.kill(int(fh.read()), signal.SIGKILL)
        out, err = job.communicate(timeout=10)
        if job.returncode != 137:
            raise Fail("status %d after kill -9 of PE 3\n%s" % (job.returncode, err))
        left = glob.glob(os.path.join(d, "shimmer-*"))
        if left:
            raise Fail("segment files left behind: %s" % left)
    finally:
        if job.poll() is None:
            job.kill()
            job.wait()
        shutil.rmtree(d, ignore_errors=True)


@case
def cleanup_global_exit():
    before = shm_entries()
    rc, out, err = run(["global_exit"], n=4)
    expect(rc, out, err, 7, [r"oshrun: PE 1 called shmem_global_exit\(7\)"])
    expect_no_new_shm(before)


@case
def global_exit_status_beyond_8_bits():
    """256 would read as success in 8 bits: the job fails with 255 instead."""
    rc, out, err = run(["global_exit", "256"], n=2)
    expect(rc, out, err, 255, [r"oshrun: PE 1 called shmem_global_exit\(256\)"])


@case
def cleanup_kill9_pe():
    for backing in ("memfd", "file"):
        before = shm_entries()
        job, pids = start_hanging_job(4, {"SHIMMER_SHM_BACKING": backing})
        time.sleep(0.2)
        os.kill(pids[2], signal.SIGKILL)
        try:
            out, err = job.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            job.kill()
            raise Fail("job did not end after kill -9 of a PE")
        if job.returncode != 137 or not re.search(r"PE \d+ \(pid %d\) killed by signal 9" % pids[2], err):
            raise Fail("status %d, stderr: %s" % (job.returncode, err))
        expect_all_gone(pids)
        expect_no_new_shm(before)


@case
def cleanup_kill9_oshrun():
    before = shm_entries()
    job, pids = start_hanging_job(4)
    time.sleep(0.2)
    job.kill()  # SIGKILL to oshrun itself
    job.wait()
    expect_all_gone(pids, within=3.0)
    expect_no_new_shm(before)


@case
def cleanup_sigterm_oshrun():
    before = shm_entries()
    job, pids = start_hanging_job(3)
    job.send_signal(signal.SIGTERM)
    job.communicate(timeout=10)
    if job.returncode != 128 + signal.SIGTERM:
        raise Fail("oshrun exit %d after SIGTERM" % job.returncode)
    expect_all_gone(pids)
    expect_no_new_shm(before)


@case
def cleanup_crash_takes_job_down():
    before = shm_entries()
    # a sanitizer build must let the signal kill the PE, as a normal one does
    rc, out, err = run(["crash"], n=3, timeout=20, env={"ASAN_OPTIONS": "handle_segv=0"})
    expect(rc, out, err, 128 + signal.SIGSEGV, [r"PE 2 \(pid \d+\) killed by signal 11"])
    expect_no_new_shm(before)


def require_ucx_plugin():
    plugin = os.path.join(os.path.dirname(OSHRUN), "..", "lib", "shimmer", "libshimmer-ucx.so")
    if not os.path.exists(plugin):
        raise Skip("built without UCX (no %s)" % plugin)


@case
def one_node_loads_no_ucx():
    """A job on one node never loads libucs; one with remote PEs does."""
    require_ucx_plugin()
    rc, out, err = run(["ucs_mapped"], n=2)
    expect(rc, out, err, 0, [r"PE 0: no libucs", r"PE 1: no libucs"], where="stdout")
    rc, out, err = run(["ucs_mapped"], n=2, env={"SHIMMER_REMOTE_PES": "all"})
    expect(rc, out, err, 0, [r"PE 0: libucs loaded", r"PE 1: libucs loaded"], where="stdout")


@case
def remote_pes_listen_on_loopback_only():
    """SHIMMER_REMOTE_PES on one host: UCX listens on loopback, not on the
    host's addresses (/proc/net/tcp: 127/8 ends in 7F, ::1 in 01000000)."""
    require_ucx_plugin()
    rc, out, err = run(["listen_addrs"], n=2, env={"SHIMMER_REMOTE_PES": "all"})
    expect(rc, out, err, 0, [r"PE 0: \d+ listening sockets", r"PE 1: \d+ listening sockets"],
           where="stdout")
    for addr in re.findall(r"listens on ([0-9A-F]+):", out):
        if not (len(addr) == 8 and addr.endswith("7F")) and addr != "0" * 24 + "01000000":
            raise Fail("a PE listens on a non-loopback address %s:\n%s" % (addr, out))


@case
def crash_with_ucx_is_the_programs():
    """UCX's error-signal handler stays off: a PE's SIGSEGV kills it as
    the program's own would, without a UCX backtrace."""
    require_ucx_plugin()
    rc, out, err = run(["crash"], n=3, timeout=20,
                       env={"ASAN_OPTIONS": "handle_segv=0", "SHIMMER_REMOTE_PES": "all"})
    expect(rc, out, err, 128 + signal.SIGSEGV, [r"PE 2 \(pid \d+\) killed by signal 11"])
    if re.search(r"Caught signal|backtrace", err):
        raise Fail("UCX handled the PE's SIGSEGV:\n" + err)


@case
def sighup_with_ucx_is_not_swallowed():
    """UCX's debug signal (SIGHUP) stays off: SIGHUP ends the PE."""
    require_ucx_plugin()
    rc, out, err = run(["hangup"], n=2, timeout=20, env={"SHIMMER_REMOTE_PES": "all"})
    expect(rc, out, err, 128 + signal.SIGHUP, [r"PE 1 \(pid \d+\) killed by signal 1\b"])


@case
def segments_private_to_user():
    """Every segment a running job holds is mode 0600; no socket files."""
    job, pids = start_hanging_job(2, {"SHIMMER_SHM_BACKING": "memfd"})
    try:
        seen = 0
        for pid in pids:
            for fd in glob.glob("/proc/%d/fd/*" % pid):
                try:
                    target = os.readlink(fd)
                except OSError:
                    continue
                if target.startswith("/memfd:shimmer"):
                    mode = os.stat(fd).st_mode & 0o777
                    if mode != 0o600:
                        raise Fail("segment %s of pid %d has mode %o" % (target, pid, mode))
                    seen += 1
                elif target.startswith("/") and "shimmer" in target:
                    raise Fail("a named file is held open: %s" % target)
        if seen == 0:
            raise Fail("no shimmer memfd found in the PEs")
    finally:
        job.kill()
        job.wait()
        expect_all_gone(pids)


# ---------------------------------------------------------------- endings
# A PE that leaves main without shmem_finalize while the others wait in the
# library: the job ends by itself (the liveness bound is generous: a loaded
# machine; docs/errors.md gives the measured times), with a message naming the
# PE, and with the PE's status when it failed.
def run_ending(mode, n=4):
    t0 = time.time()
    rc, out, err = run([mode], n=n, timeout=60)
    return rc, out, err, time.time() - t0


def expect_prompt(elapsed, err):
    if elapsed > 10:
        raise Fail("the job took %.1f s to end\n%s" % (elapsed, err))


def ending_left_waiting(mode):
    rc, out, err, elapsed = run_ending(mode)
    expect(rc, out, err, 1, [r"(?m)^shimmer: error: \[pe 3 (\S+)\] exit: PE 3 \(on \1\) left main "
                             r"without calling shmem_finalize while PEs 0-2 wait inside the "
                             r"library.*call shmem_finalize"])
    expect_prompt(elapsed, err)


@case
def ending_return0_while_others_in_barrier():
    ending_left_waiting("leave_return0_barrier")


@case
def ending_exit0_while_others_wait():
    ending_left_waiting("leave_exit0_wait")


@case
def ending_exit3_while_others_wait():
    rc, out, err, elapsed = run_ending("leave_exit3_wait")
    expect(rc, out, err, 3, [r"PE 3 aborted \(status 3\): left main with exit status 3 without "
                             r"calling shmem_finalize"])
    expect_prompt(elapsed, err)


@case
def ending_return3_while_others_wait():
    rc, out, err, elapsed = run_ending("leave_return3_wait")
    expect(rc, out, err, 3, [r"PE 3 aborted \(status 3\)"])
    expect_prompt(elapsed, err)


@case
def ending_underscore_exit0_while_others_wait():
    """_exit skips the library's exit hook: oshrun notices the missing finalize."""
    rc, out, err, elapsed = run_ending("leave__exit0_wait")
    expect(rc, out, err, 1, [r"oshrun: error: PE 3 \(pid \d+\): exited with status 0 without "
                             r"calling shmem_finalize"])
    expect_prompt(elapsed, err)


@case
def ending_no_finalize_anywhere():
    """Programs older than shmem_finalize: the exit hook finalizes for them."""
    rc, out, err, elapsed = run_ending("no_finalize")
    expect(rc, out, err, 0, [r"(?s)survived.*survived.*survived.*survived"], where="stdout")


@case
def ending_no_finalize_while_others_compute():
    """PE 0 leaves early while the others still compute: its exit hook waits."""
    rc, out, err, elapsed = run_ending("no_finalize_late")
    expect(rc, out, err, 0, [r"(?s)survived.*survived.*survived.*survived"], where="stdout")


def start_job(mode, n):
    pid_dir = tempfile.mkdtemp(prefix="shimmer-pids-")
    job = subprocess.Popen([OSHRUN, "-n", str(n), PROG, mode], env=dict(os.environ, ERR_PID_DIR=pid_dir),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           preexec_fn=lambda: [signal.signal(s, signal.SIG_DFL) for s in
                                               (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)])
    deadline = time.time() + 20
    while len(job_pids(pid_dir)) < n and time.time() < deadline:
        time.sleep(0.05)
    pids = job_pids(pid_dir)
    shutil.rmtree(pid_dir, ignore_errors=True)
    if len(pids) < n:
        job.kill()
        raise Fail("job did not start")
    return job, pids


@case
def ending_signals_to_oshrun_leave_nothing():
    """Any stop signal to oshrun while a PE waits in its exit hook and the
    others compute: every PE is gone afterwards."""
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGKILL):
        job, pids = start_job("compute_forever", 4)
        time.sleep(0.3)
        job.send_signal(sig)
        try:
            job.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            job.kill()
            raise Fail("oshrun did not end after signal %d" % sig)
        if sig != signal.SIGKILL and job.returncode != 128 + sig:
            raise Fail("oshrun exit %d after signal %d" % (job.returncode, sig))
        expect_all_gone(pids)


def setup(args):
    global OSHRUN, PROG
    OSHRUN, PROG = args.oshrun, args.prog
    return lambda name: CASES[name]()


if __name__ == "__main__":
    sys.exit(main(["oshrun", "prog"], setup))
