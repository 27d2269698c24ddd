#!/usr/bin/env python3
"""test_shimmer_info.py SHIMMER_INFO -- shimmer-info's options and output:
--help exits 0, an unknown option 2; --parsable is all section:key:value
lines with the build, the run-time libraries and every variable; the
columns stay aligned when a value or an origin is long.  (The prefix of a
moved installation: tests/install/test_install.sh.)"""
import re
import subprocess
import sys

info = sys.argv[1]


def run(*args, env=None):
    base = {"PATH": "/usr/bin:/bin"}
    base.update(env or {})
    return subprocess.run([info, *args], capture_output=True, text=True, env=base, timeout=30)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


r = run("--help")
if r.returncode != 0 or "--parsable" not in r.stdout:
    fail("--help: status %d: %s%s" % (r.returncode, r.stdout, r.stderr))
r = run("--bogus")
if r.returncode != 2 or "unknown option --bogus" not in r.stderr:
    fail("--bogus: status %d: %s" % (r.returncode, r.stderr))

r = run("--parsable")
lines = r.stdout.splitlines()
bad = [l for l in lines if not re.match(r"^[a-z]+:[A-Za-z0-9_]+:", l)]
if r.returncode != 0 or bad:
    fail("--parsable: status %d, lines not section:key:value: %s" % (r.returncode, bad[:5]))
keys = {":".join(l.split(":")[:3 if l.startswith("env:") else 2]) for l in lines}
for want in ("version:shimmer", "version:openshmem", "build:prefix", "build:build_type",
             "build:options", "build:compiler", "build:ucx", "build:pmix",
             "env:SHMEM_SYMMETRIC_SIZE:value", "env:SHMEM_SYMMETRIC_SIZE:origin"):
    if want not in keys:
        fail("--parsable has no %s: %s" % (want, r.stdout))
for name in ("ucx", "pmix"):
    built = [l for l in lines if l.startswith("build:%s:" % name)][0]
    if not built.endswith("not used (built without it)"):
        now = [l for l in lines if l.startswith("runtime:%s:" % name)]
        if not now or not re.match(r"^runtime:%s:\d+\.\d+\S* \(/" % name, now[0]):
            fail("built with %s (%s) but no run-time version and file: %s" % (name, built, now))
envs = run("--env").stdout.splitlines()[1:]
if len([l for l in lines if l.startswith("env:") and l.endswith(":origin:default")]) != len(envs):
    fail("--parsable and --env list different variables")

# long values and an alias as origin keep every column in line
r = run(env={"SHIMMER_SHM_DIR": "/a/rather/long/directory/name/for/the/segment/files",
             "SMA_SYMMETRIC_SIZE": "1m"})
text = r.stdout
table = text[text.index("variable"):].splitlines()
origin = table[0].index("origin")
for row in table[1:]:
    if row[origin - 2:origin] != "  " or row[origin] == " ":
        fail("the origin column is out of line:\n%s\n%s" % (table[0], row))
if not re.search(r"(?m)^SHMEM_SYMMETRIC_SIZE +1 MiB +SMA_SYMMETRIC_SIZE ", text):
    fail("the alias is not named as origin:\n" + text)
facts = [l for l in text[:text.index("environment:")].splitlines() if l.startswith("  ")]
starts = {len(l) - len(l[2:].split("  ", 1)[1].lstrip()) for l in facts}
if len(starts) != 1:
    fail("the values of the build facts do not start in one column:\n" + "\n".join(facts))
print("PASS shimmer-info: --help, --parsable, --env, aligned columns, run-time libraries")
