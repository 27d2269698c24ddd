#!/usr/bin/env python3
"""Every algorithm of src/coll/coll_algos.def forced in turn, and proof from the
log that it ran.

The cases come from the registry itself (no second list): for each row
SHR_COLL_ALGO(COLL, algo, fn)
  <coll>.<algo>.<n>pe  flat algorithms on one node at 2, 5 and 8 PEs;
                       hierarchical ones (named hier*) where a hierarchy
                       exists: SHIMMER_REMOTE_PES makes the last PEs nodes of
                       their own (3 PEs: 2+1, 5: 4+1, 8: 6+1+1), so the
                       members span nodes and one node holds several
  <coll>.<algo>.2x2    hierarchical ones on 2 network-namespace hosts x 2 PEs
                       (registered by tests/multinode: root, mpirun)
Each runs test_coll <coll> (REDUCE and SCAN rows, in their smallest layout,
also test_coll_types) with SHIMMER_COLL_<COLL>_ALGO=<algo> and debug logging
of category coll, and fails unless the results are right and some PE logged
"algorithm <COLL>/<algo> runs (forced by ...)": an algorithm that hands
every call over to another one (a hier algorithm on one node) fails.
  test_coll_forced.py --list
  test_coll_forced.py --oshrun O --coll test_coll --types test_coll_types
                      --mnrun tests/multinode/mn_run.sh CASE|all
"""
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../.."))
from casekit import CASES, Fail, Skip, main  # noqa: E402

REGISTRY = os.path.join(HERE, "../../../src/coll/coll_algos.def")
FLAT_PES = (2, 5, 8)
# PEs -> SHIMMER_REMOTE_PES: the listed PEs are each a node of their own,
# the others share one; contiguous, so every hierarchical algorithm applies
HIER_LAYOUTS = {3: "2", 5: "4", 8: "6,7"}
TIMEOUT = 120


def registry_rows():
    rows = re.findall(r"^SHR_COLL_ALGO\((\w+),\s*(\w+),\s*(\w+)\)", open(REGISTRY).read(), re.M)
    if not rows:
        sys.exit("no SHR_COLL_ALGO rows in %s" % REGISTRY)
    return [(coll, algo) for coll, algo, _fn in rows]


def is_hier(algo):
    return algo.startswith("hier")


# case name -> (COLL, algo, layout): layout = PE count, or "2x2"
for _coll, _algo in registry_rows():
    _layouts = sorted(HIER_LAYOUTS) + ["2x2"] if is_hier(_algo) else list(FLAT_PES)
    for _lay in _layouts:
        _suffix = _lay if isinstance(_lay, str) else "%dpe" % _lay
        CASES["%s.%s.%s" % (_coll.lower(), _algo, _suffix)] = (_coll, _algo, _lay)


def clean_env(extra):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SHMEM_", "SMA_", "SHIMMER_"))}
    env.update(extra)
    return env


def setup(args):
    def command(layout, prog, what, forced):
        """The launch of `prog what` in `layout`, with its environment."""
        env = dict(forced, SHIMMER_LOG_LEVEL="debug", SHIMMER_LOG_CATEGORIES="coll")
        argv = [prog] + ([what] if what else [])
        if layout == "2x2":
            xs = sum((["-x", "%s=%s" % kv] for kv in sorted(env.items())), [])
            return [args.mnrun, "2x2", "4", "-t", str(TIMEOUT)] + xs + ["--"] + argv, {}
        return [args.oshrun, "-n", str(layout), "--timeout", str(TIMEOUT)] + argv, env

    def run_one(name):
        coll, algo, layout = CASES[name]
        forced = {"SHIMMER_COLL_%s_ALGO" % coll: algo}
        if is_hier(algo) and layout != "2x2":
            forced["SHIMMER_REMOTE_PES"] = HIER_LAYOUTS[layout]
        programs = [(args.coll, coll.lower())]
        smallest = min(FLAT_PES) if not is_hier(algo) else min(HIER_LAYOUTS)
        if coll in ("REDUCE", "SCAN") and layout == smallest:
            programs.append((args.types, None))
        ran = re.compile(r"algorithm %s/%s runs \(forced by" % (coll, algo))
        for prog, what in programs:
            cmd, env = command(layout, prog, what, forced)
            p = subprocess.run(cmd, env=clean_env(env), capture_output=True, text=True,
                               timeout=TIMEOUT + 60)
            out = p.stdout + p.stderr
            if p.returncode == 77:
                raise Skip(out.strip().splitlines()[-1] if out.strip() else "skipped")
            if "built without a remote transport" in out:
                raise Skip("this build has no remote transport: no hierarchy on one machine")
            if p.returncode != 0 or "PASS" not in out:
                raise Fail("%s: exit status %d\n%s" % (" ".join(cmd), p.returncode, out[-4000:]))
            if not ran.search(out):
                shown = sorted(set(re.findall(r"algorithm (\w+/\w+ runs \([^;]*)", out)))
                raise Fail("%s/%s forced but never ran in %s; what ran:\n  %s"
                           % (coll, algo, os.path.basename(prog), "\n  ".join(shown)))
    return run_one


if __name__ == "__main__":
    sys.exit(main(["oshrun", "coll", "types", "mnrun"], setup))
