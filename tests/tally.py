"""The pass/fail tally of sdx's Python test scripts.

    import tally
    check = tally.check            # check(ok, what) -> ok; prints "FAIL what"
    ...
    return tally.finish("name")    # prints "name: N passed, M failed"; 0 or 1

One count per process (each script is one ctest test).
"""

passed = 0
failed = 0


def check(ok, what):
    """Count one check; print FAIL and what it was when `ok` is false."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL " + what, flush=True)
    return ok


def finish(name=None, noun="passed"):
    """Print the totals and return the exit status: 1 on any failure."""
    prefix = name + ": " if name else ""
    print("%s%d %s, %d failed" % (prefix, passed, noun, failed), flush=True)
    return 1 if failed else 0
