#!/usr/bin/env python3
"""Before and after for the Python package: two revisions' builds of the
sdx extension, timed in alternating fresh processes.

    python3 bench/python/ab.py OLD NEW DATA... [--fmt json] [--op loads]
                               [--detect] [--rounds 15] [--round-ms 100]

OLD and NEW are git revisions ("WORKTREE" for the working tree as it is).
Each is built once into build/python-ab/<commit>/ (the sources taken with
`git archive`, the extension built by python/setup.py with that tree as
SDX_SOURCE_DIR) with bench/python/bench.py's virtualenv's Python. DATA are
JSON files (build/bench/data/*.json, ../shared/corpus/*.json); each is
loaded and, for another --fmt, written in that format by the build under
test; --detect times sdx.loads(data) without the format, as callers may
write it (the format then detected from the bytes). Every round runs each
build once, in a new shuffled order, as a new process that times
sdx.loads or sdx.dumps (the thread's CPU clock; the middle of three turns
of --round-ms). Prints, per file, the median of
NEW / OLD over the rounds with a distribution-free 95 % interval
(bench/stats.py, the suite's statistics). A fresh process per turn is
the point: the allocator's state of a long-running process (which
bench.py's cells share) is not carried from one build's turn to the
other's. It is also the catch: a fresh process that makes and drops one
large document per call can spend a third of its time mapping memory
(CPython's small-object allocator returns its emptied 1 MiB arenas to
the system but one, glibc's malloc maps blocks above its threshold), and
whether it does can hang on what else stays alive; check the page faults
(`perf stat -e page-faults`) before reading a ratio as the code's
(bench/README.md, "Update, 2026-11-29").
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import stats  # noqa: E402

VENV_PY = os.path.join(ROOT, "build", "bench-python-venv", "bin", "python")

# The timed child: argv = build_dir data_file fmt op round_ms detect
CHILD = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
import sdx
data = open(sys.argv[2], 'rb').read()
fmt, op, ms, detect = sys.argv[3], sys.argv[4], float(sys.argv[5]), sys.argv[6] == '1'
obj = sdx.loads(data, 'json')
if op == 'loads':
    if fmt != 'json':
        data = sdx.dumps(obj, fmt)
    f = (lambda: sdx.loads(data)) if detect else (lambda: sdx.loads(data, fmt))
else:
    f = lambda: sdx.dumps(obj, fmt)
f()
res = []
for _ in range(3):
    t0 = time.thread_time(); n = 0
    while True:
        for _ in range(10):
            f()
        n += 10
        t = time.thread_time() - t0
        if t * 1000 >= ms:
            break
    res.append(t / n * 1e9)
res.sort()
print(res[1])
"""


def build(rev):
    """The build directory of rev's extension, built if missing."""
    if rev == "WORKTREE":
        src, commit = ROOT, "worktree"
    else:
        commit = subprocess.check_output(["git", "-C", ROOT, "rev-parse", "--short=12", rev], text=True).strip()
        src = None
    out = os.path.join(ROOT, "build", "python-ab", commit)
    if commit != "worktree" and os.path.exists(os.path.join(out, "sdx", "__init__.py")):
        return out, commit
    shutil.rmtree(out, ignore_errors=True)
    tmp = tempfile.mkdtemp(prefix="sdx-ab-")
    try:
        if src is None:
            tar = os.path.join(tmp, "src.tar")
            subprocess.check_call(["git", "-C", ROOT, "archive", "-o", tar, commit])
            src = os.path.join(tmp, "src")
            with tarfile.open(tar) as t:
                t.extractall(src)
        env = dict(os.environ, SDX_SOURCE_DIR=src)
        r = subprocess.run([VENV_PY, "setup.py", "-q", "build_ext", "--build-lib", out,
                            "--build-temp", os.path.join(tmp, "obj")],
                           cwd=os.path.join(src, "python"), env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("building %s failed:\n%s" % (rev, r.stderr[-3000:]))
        shutil.copy(os.path.join(src, "python", "sdx", "__init__.py"), os.path.join(out, "sdx"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return out, commit


def settle(dirs):
    """Puts each build's extension file into the page cache the same way.
    Two byte-identical builds of the extension timed 5-7 % apart on the
    project's machine until the page cache was dropped, whereupon they
    agreed: how a shared object's pages came into the cache (written by
    the linker, copied, read back) changes how its code is mapped. So the
    cache is dropped when that is allowed (root), else each extension is
    written again in one sequential write."""
    try:
        os.sync()
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
        return "page cache dropped"
    except OSError:
        pass
    for d in dirs:
        for name in os.listdir(os.path.join(d, "sdx")):
            if name.endswith(".so"):
                path = os.path.join(d, "sdx", name)
                data = open(path, "rb").read()
                with open(path + ".new", "wb") as f:
                    f.write(data)
                os.chmod(path + ".new", 0o755)
                os.replace(path + ".new", path)
    return "extensions written again"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("data", nargs="+")
    ap.add_argument("--fmt", default="json")
    ap.add_argument("--op", choices=("loads", "dumps"), default="loads")
    ap.add_argument("--detect", action="store_true", help="loads without a format (detected)")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--round-ms", type=float, default=100)
    a = ap.parse_args()
    if not os.path.exists(VENV_PY):
        sys.exit("no %s: run bench/python/bench.py once first (it makes the virtualenv)" % VENV_PY)
    (old, oc), (new, nc) = build(a.old), build(a.new)
    print(settle([old, new]))
    for path in a.data:
        t = {old: [], new: []}
        for _ in range(a.rounds):
            order = [old, new]
            random.shuffle(order)
            for d in order:
                out = subprocess.run([VENV_PY, "-c", CHILD, d, path, a.fmt, a.op, str(a.round_ms),
                                      "1" if a.detect else "0"],
                                     capture_output=True, text=True, check=True).stdout
                t[d].append(float(out))
        r = [y / x for x, y in zip(t[old], t[new])]
        lo, hi = stats.median_interval(r)[:2]
        print("%s %s %s%s: %s %.0f ns, %s %.0f ns, new / old %.3f [%.3f-%.3f] (%d rounds)"
              % (os.path.basename(path), a.fmt, a.op, " (detected)" if a.detect else "", oc, stats.median(t[old]), nc, stats.median(t[new]),
                 stats.median(r), lo, hi, a.rounds))


if __name__ == "__main__":
    main()
