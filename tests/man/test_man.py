#!/usr/bin/env python3
"""test_man -- the manual pages the build writes (tools/gen_man.py) into
BUILD/share/man: every exported symbol has one, every page renders without
a groff warning, `man` finds them by any routine's name, the tools' pages
name every option the tools accept, and the environment tables list the
variables the library reads.

  test_man.py --build BUILD --source SOURCE [case...]
"""
import glob
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from casekit import CASES, Fail, case, main  # noqa: E402

B = S = MAN = None


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, **kw)


def page_text(name, section):
    """The page as `man` shows it, as plain text (warnings on: any is a failure)."""
    r = run(["man", "--warnings", "-M", MAN, section, name],
            env=dict(os.environ, MANWIDTH="80", MAN_KEEP_FORMATTING="", MANPAGER="cat",
                     PAGER="cat", LC_ALL="C.UTF-8"))
    if r.returncode != 0 or r.stderr.strip():
        raise Fail("man %s %s: status %d: %s" % (section, name, r.returncode, r.stderr.strip()))
    return re.sub(r".\x08", "", r.stdout)


def exported(lib):
    r = run(["nm", "-D", "--defined-only", lib])
    if r.returncode != 0:
        raise Fail("nm %s: %s" % (lib, r.stderr))
    return {l.split()[-1] for l in r.stdout.splitlines() if l.split()}


@case
def every_symbol_has_a_page():
    """Each exported routine or object has a page of its own name; each
    profiling twin (pshmem_put, pstart_pes) that of its twin and pshmem(3)."""
    names = exported(os.path.join(B, "lib", "libshimmer.so"))
    pages = {os.path.basename(p)[:-2] for p in glob.glob(os.path.join(MAN, "man3", "*.3"))}
    missing = []
    for sym in sorted(names):
        if sym.startswith("shr_plugin_"):  # for the transport plugin only, not API
            continue
        twin = sym[1:] if sym.startswith("p") and sym[1:] in names else None
        want = twin or sym
        if want not in pages or (twin and "pshmem" not in pages):
            missing.append(sym)
    if missing:
        raise Fail("%d exported symbols have no page: %s" % (len(missing), " ".join(missing[:20])))
    if len(names) < 3000:
        raise Fail("only %d exported symbols: is %s the library?" % (len(names), B))


@case
def pages_render_without_warnings():
    """groff with every warning on says nothing about any page, and every
    alias leads to a page."""
    bad = []
    files = sorted(glob.glob(os.path.join(MAN, "man*", "*.[0-9]")))
    real = []
    for f in files:
        text = open(f).read()
        m = re.match(r"^\.so (man\d/\S+)\n$", text)
        if m:
            if not os.path.exists(os.path.join(MAN, m.group(1))):
                bad.append("%s: .so to the missing %s" % (f, m.group(1)))
        else:
            real.append(f)
    if len(real) < 80:
        raise Fail("only %d pages in %s" % (len(real), MAN))
    for f in real:
        r = run(["groff", "-man", "-Tutf8", "-ww", "-z", f])
        if r.returncode != 0 or r.stderr.strip():
            bad.append("%s: %s" % (os.path.relpath(f, MAN), r.stderr.strip()))
    if bad:
        raise Fail("; ".join(bad[:10]))


@case
def man_finds_the_pages_by_any_name():
    """The names a user types (issue 16's list) through `man -M`."""
    for name, section, title in [("shmem_put", "3", "SHMEM_PUT(3)"),
                                 ("shmem_long_atomic_fetch_add", "3",
                                  "SHMEM_ATOMIC_FETCH_ADD(3)"),
                                 ("shmem_ctx_uint64_atomic_fetch_xor_nbi", "3",
                                  "SHMEM_ATOMIC_FETCH_XOR(3)"),
                                 ("shmem_team_split_strided", "3", "SHMEM_TEAM_SPLIT_STRIDED(3)"),
                                 ("shmem_broadcast64", "3", "SHMEM_BROADCAST(3)"),
                                 ("shmem_sum_reduce", "3", "SHMEM_REDUCTIONS(3)"),
                                 ("oshrun", "1", "OSHRUN(1)"), ("oshcc", "1", "OSHCC(1)"),
                                 ("oshc++", "1", "OSHCC(1)"), ("shimmer-info", "1",
                                                               "SHIMMER-INFO(1)"),
                                 ("shimmer", "7", "SHIMMER(7)")]:
        text = page_text(name, section)
        if not text.startswith(title):
            raise Fail("man %s %s shows %r, not %s" % (section, name, text[:40], title))
    # the synopsis holds the exact prototype of a typed routine
    if "uint64_t shmem_ctx_uint64_atomic_fetch_xor(" not in \
            page_text("shmem_atomic_fetch_xor", "3").replace("\n", " "):
        raise Fail("shmem_atomic_fetch_xor(3) lacks the prototype of a ctx/typed form")


def options_of(text):
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*(?::\w+)?)", text))


@case
def tool_pages_name_every_option():
    """Every option a tool's help prints is on its page."""
    for tool, cmd in [("oshrun", [os.path.join(B, "bin", "oshrun"), "--help"]),
                      ("oshcc", [os.path.join(B, "bin", "oshcc"), "-showme:help"]),
                      ("shimmer-info", [os.path.join(B, "bin", "shimmer-info"), "--help"])]:
        r = run(cmd)
        helptext = r.stdout + r.stderr
        opts = options_of(helptext)
        page = page_text(tool, "1")
        missing = sorted(o for o in opts if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o),
                                                          page))
        if not opts or missing:
            raise Fail("%s(1) does not describe %s (from %s)"
                       % (tool, ", ".join(missing) or "anything", " ".join(cmd[1:])))


@case
def environment_tables_match_the_library():
    """docs/env.md and shimmer(7) list exactly the variables that
    `shimmer-info --env` prints (the library's own table)."""
    r = run([os.path.join(B, "bin", "shimmer-info"), "--env"])
    lib = set(re.findall(r"^((?:SHMEM|SHIMMER)_[A-Z0-9_]+)\s", r.stdout, re.M))
    doc = set(re.findall(r"^\| `([A-Z0-9_]+)`", open(os.path.join(S, "docs", "env.md")).read(),
                         re.M))
    man = set(re.findall(r"^\s{7}((?:SHMEM|SHIMMER)_[A-Z0-9_]+) \(", page_text("shimmer", "7"),
                         re.M))
    if len(lib) < 10:
        raise Fail("shimmer-info --env printed %d variables: %s" % (len(lib), r.stdout[:200]))
    for what, got in (("docs/env.md", doc), ("shimmer(7)", man)):
        if got != lib:
            raise Fail("%s: extra %s, missing %s" % (what, sorted(got - lib), sorted(lib - got)))


def setup(args):
    global B, S, MAN
    B, S = args.build, args.source
    MAN = os.path.join(B, "share", "man")
    for tool in ("man", "groff", "nm"):
        if run(["sh", "-c", "command -v " + tool]).returncode != 0:
            raise SystemExit("test_man: %s is missing (tools/ensure-packages installs it)" % tool)

    def call(name):
        CASES[name]()
    return call


if __name__ == "__main__":
    sys.exit(main(["build", "source"], setup))
