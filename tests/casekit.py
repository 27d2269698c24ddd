"""casekit -- what the Python test drivers share: the case registry and the
runner.  A driver marks each case with @case, parses its own options, and
ends with `return run(names, call)`; CMake lists the cases with --list and
makes each one a ctest entry (shimmer_py_cases in tests/CMakeLists.txt).

Exit status of run: 0 pass, 1 a case failed, 77 every case skipped
(ctest's SKIP_RETURN_CODE)."""
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
