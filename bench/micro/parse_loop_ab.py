#!/usr/bin/env python3
"""Before and after for a tree parser in a loop (bench/micro/parse_loop.c)
with the C library's allocator as it comes: the library of revision OLD
against the working tree's (or revision NEW's), in alternating fresh
processes.

    python3 bench/micro/parse_loop_ab.py OLD FILE:FMT... [--new REV]
                                         [--rounds 9] [--parses 20]
                                         [--cflags=-falign-functions=64]

Each library is built once (cmake, the library alone, Release) into a
temporary directory, parse_loop.c is compiled against each for every
format named, and every round runs each build once, in a new shuffled
order, pinned to the last CPU, without GLIBC_TUNABLES. Prints, per file,
both medians (us per parse, page faults per parse) and the median of new
/ old over the rounds with a distribution-free 95 % interval
(bench/stats.py, the suite's statistics). --cflags is given to both
libraries' compilations (CMAKE_C_FLAGS): -falign-functions=64 puts every
function on a 64-byte boundary, so that neither build's hot loop sits
where the other's does not (bench/README.md, "Reproducibility")."""
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


def build_lib(rev, tmp, name, cflags):
    """libsdx.a of rev (None: the working tree), built under tmp/name."""
    src = ROOT
    if rev is not None:
        src = os.path.join(tmp, name + "-src")
        tar = os.path.join(tmp, name + ".tar")
        subprocess.check_call(["git", "-C", ROOT, "archive", "-o", tar, rev])
        with tarfile.open(tar) as t:
            t.extractall(src)
    out = os.path.join(tmp, name)
    subprocess.run(["cmake", "-S", src, "-B", out, "-DCMAKE_BUILD_TYPE=Release", "-DSDX_BUILD_TESTS=OFF",
                    "-DSDX_BUILD_BENCH=OFF", "-DSDX_BUILD_CLI=OFF", "-DCMAKE_C_FLAGS=" + cflags],
                   check=True, capture_output=True)
    subprocess.run(["cmake", "--build", out, "-j", "2"], check=True, capture_output=True)
    return os.path.join(src, "include"), os.path.join(out, "libsdx.a")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("files", nargs="+", metavar="FILE:FMT")
    ap.add_argument("--new", default=None, help="a revision instead of the working tree")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--parses", type=int, default=20)
    ap.add_argument("--cflags", default="")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="sdx-parse-ab-")
    try:
        libs = {"old": build_lib(a.old, tmp, "old", a.cflags), "new": build_lib(a.new, tmp, "new", a.cflags)}
        env = dict(os.environ)
        env.pop("GLIBC_TUNABLES", None)
        cpu = str(os.cpu_count() - 1)
        for spec in a.files:
            path, fmt = spec.rsplit(":", 1)
            progs = {}
            for k, (inc, lib) in libs.items():
                progs[k] = os.path.join(tmp, "%s-%s" % (k, fmt))
                subprocess.check_call(["cc", "-O2", "-std=c11", "-I" + inc, "-I" + HERE, "-DFMT=" + fmt,
                                       os.path.join(HERE, "parse_loop.c"), lib, "-lm", "-o", progs[k]])
            t = {"old": [], "new": []}
            pf = {"old": [], "new": []}
            for _ in range(a.rounds):
                order = ["old", "new"]
                random.shuffle(order)
                for k in order:
                    out = subprocess.run(["taskset", "-c", cpu, progs[k], path, "--parses", str(a.parses)],
                                         env=env, capture_output=True, text=True, check=True).stdout
                    words = out.split(":", 1)[1].split()
                    t[k].append(float(words[0]))
                    pf[k].append(float(words[4]))
            r = [n / o for o, n in zip(t["old"], t["new"])]
            lo, hi = stats.median_interval(r)[:2]
            print("%s %s: old %.1f us (%.0f faults), new %.1f us (%.0f faults) per parse; new / old %.3f [%.3f-%.3f]"
                  % (os.path.basename(path), fmt, stats.median(t["old"]), stats.median(pf["old"]),
                     stats.median(t["new"]), stats.median(pf["new"]), stats.median(r), lo, hi))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
