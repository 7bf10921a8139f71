#!/usr/bin/env python3
"""Before and after for the Python package, in one process: two builds of
the sdx extension loaded side by side and timed in alternating runs.

    python3 bench/python/inproc.py OLD_DIR NEW_DIR DATA [--fmt json]
                                   [--op loads] [--rounds 31] [--calls 20000]

OLD_DIR and NEW_DIR are build directories that hold sdx/_sdx*.so, such as
bench/python/ab.py's build/python-ab/<commit>/ and build/python-ab/worktree/
(run ab.py once with --rounds 1 to build them; a build compared with
itself must be copied to another directory first, since one file is
loaded once). DATA is a JSON file; for another --fmt it is written in that
format by OLD's build. Each round times --calls calls of sdx.loads(data,
FMT) (or sdx.dumps(value, FMT)) with each build, the thread's CPU clock,
in a random order, with the format a literal as callers write it. Prints
the median time of each and the median of NEW / OLD over the rounds with
a distribution-free 95 % interval (bench/stats.py).

Where ab.py runs each build in a fresh process, here both run in the
same interpreter with the same allocator state, so a round's two runs
differ only by the build: on a single small message this resolves
differences of 1 to 2 %, which the fresh processes' spread hides (A/A
runs, one build against a copy of itself, on citm_catalog's first event:
JSON 1.000 [0.991-1.008], MessagePack 1.005 [0.997-1.022]). Run it pinned
(taskset -c 1). Both builds keep their own module state (kept readers,
key cache). What it cannot show is an effect that needs a fresh process,
such as memory mapped per call (see ab.py).
"""
import argparse
import glob
import importlib.util
import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import stats  # noqa: E402  (bench/stats.py)


def load_build(path):
    so = glob.glob(os.path.join(path, "sdx", "_sdx*.so"))
    if not so:
        sys.exit(f"inproc: no sdx/_sdx*.so under {path}")
    spec = importlib.util.spec_from_file_location("sdx._sdx", so[0])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("data")
    ap.add_argument("--fmt", default="json")
    ap.add_argument("--op", choices=("loads", "dumps"), default="loads")
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--calls", type=int, default=20000)
    a = ap.parse_args()
    old, new = load_build(a.old), load_build(a.new)
    if old.loads is new.loads:
        sys.exit("inproc: both directories hold the same loaded file; copy one build elsewhere")
    text = open(a.data, "rb").read()
    value = old.loads(text, "json")
    data = text if a.fmt == "json" else old.dumps(value, a.fmt)
    if a.op == "loads":
        make = 'lambda: f(data, "%s")' % a.fmt
        fns = [eval(make, {"f": m.loads, "data": data}) for m in (old, new)]
    else:
        make = 'lambda: f(value, "%s")' % a.fmt
        fns = [eval(make, {"f": m.dumps, "value": value}) for m in (old, new)]
    if fns[0]() != fns[1]():
        sys.exit("inproc: the two builds give different results")

    def run(fn):
        t0 = time.thread_time_ns()
        for _ in range(a.calls):
            fn()
        return (time.thread_time_ns() - t0) / a.calls

    for fn in fns:  # warm up
        run(fn)
    times = ([], [])
    ratios = []
    for _ in range(a.rounds):
        order = [0, 1]
        random.shuffle(order)
        t = [0.0, 0.0]
        for i in order:
            t[i] = run(fns[i])
        times[0].append(t[0])
        times[1].append(t[1])
        ratios.append(t[1] / t[0])
    lo, hi = stats.median_interval(ratios)[:2]
    print("%s %s %s: old %.0f ns, new %.0f ns, new / old %.3f [%.3f-%.3f] (%d rounds)" % (
        os.path.basename(a.data), a.fmt, a.op, statistics.median(times[0]), statistics.median(times[1]),
        statistics.median(ratios), lo, hi, a.rounds))


if __name__ == "__main__":
    main()
