"""casekit -- what the Python test drivers share: the case registry and the
runner and the command line.  A driver marks each case with @case and ends
with `sys.exit(main(paths, setup))`; CMake lists the cases with --list and
makes each one a ctest entry (shimmer_py_cases in tests/CMakeLists.txt).

Exit status of run: 0 pass, 1 a case failed, 77 every case skipped
(ctest's SKIP_RETURN_CODE)."""
import argparse
import os
import subprocess
import time

SKIP = 77
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


class Fail(Exception):
    pass


class Skip(Exception):
    pass


def names_of(requested):
    """The cases to run: all for [] / ["all"] / "all", else the ones named."""
    if isinstance(requested, str):
        requested = [requested]
    return list(CASES) if requested in ([], ["all"], [None]) else requested


def run(names, call):
    """Runs call(name) for each case name; prints PASS/FAIL/SKIP lines."""
    failed = passed = skipped = 0
    for name in names:
        if name not in CASES:
            print("unknown case %s" % name)
            return 2
        t0 = time.monotonic()
        try:
            call(name)
            print("PASS %s (%.2f s)" % (name, time.monotonic() - t0))
            passed += 1
        except Skip as e:
            print("SKIP %s: %s" % (name, e))
            skipped += 1
        except (Fail, subprocess.TimeoutExpired) as e:
            print("FAIL %s: %s" % (name, e))
            failed += 1
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    if failed:
        return 1
    return SKIP if skipped and not passed else 0


def main(paths, setup):
    """The drivers' command line: --list, one required --NAME FILE for each of
    `paths` (made absolute), then case names (none = all).  setup(args)
    returns call(name), which runs one case."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    for p in paths:
        ap.add_argument("--" + p)
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    if args.list:
        print("\n".join(CASES))
        return 0
    missing = [p for p in paths if getattr(args, p) is None]
    if missing:
        ap.error("missing " + ", ".join("--" + p for p in missing))
    for p in paths:
        setattr(args, p, os.path.abspath(getattr(args, p)))
    return run(names_of(args.cases), setup(args))
