#!/usr/bin/env python3
"""Any benchmark programs side by side, in interleaved rounds, through their
serve mode (bench/harness/main.c): suite programs, measurement builds and
bench/micro/tree_walk.c alike, which bench/run.py cannot run because they
are not in its program lists.

    python3 bench/micro/serve_ab.py [--rounds 31] [--iters 16] [--hash 20]
                                    [--input FILE] SPEC PROG...

SPEC is the tree (gen:4:1, tree:build/bench/data/canada.tree, ...; see
bench/harness/SPEC.md), --input the encoded input of a Tree or
Incremental program. Every program is started once, pinned to the last
CPU; every round runs each of them for --iters iterations (and --hash
iterations of its hashing alone) in a new shuffled order. Prints each
program's median µs per iteration and of its hashing alone, and the
median over rounds of its time over the first program's, with a
distribution-free 95 % interval (bench/stats.py, the suite's statistics).
"""
import argparse
import os
import random
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import stats  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--iters", type=int, default=16, help="timed iterations per turn")
    ap.add_argument("--hash", type=int, default=20, help="iterations of the hashing alone per turn (0: none)")
    ap.add_argument("--input")
    ap.add_argument("spec")
    ap.add_argument("programs", nargs="+")
    a = ap.parse_args()
    cpu = str(os.cpu_count() - 1)
    procs = []
    for p in a.programs:
        argv = ["taskset", "-c", cpu, p, "--tree", a.spec] + (["--input", a.input] if a.input else [])
        pr = subprocess.Popen(argv + ["--once", os.devnull, "--serve"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
        first = pr.stdout.readline()
        if '"ready"' not in first and '"ok"' not in first:
            sys.exit("%s: %s" % (p, first.strip() or "no answer"))
        procs.append(pr)
    times = [[] for _ in procs]
    hashes = [[] for _ in procs]
    for _ in range(a.rounds):
        order = list(range(len(procs)))
        random.shuffle(order)
        for i in order:
            procs[i].stdin.write("time %d %d 1\n" % (a.iters, a.hash))
            procs[i].stdin.flush()
            ans = procs[i].stdout.readline().split()
            if not ans or ans[0] != "ok":
                sys.exit("%s: %s" % (a.programs[i], " ".join(ans) or "no answer"))
            times[i].append(int(ans[1]) / a.iters)
            if a.hash:
                hashes[i].append(int(ans[2]) / a.hash)
    for pr in procs:
        pr.stdin.write("quit\n")
        pr.stdin.flush()
        pr.wait()
    print("%-44s %10s %10s  %s" % ("program", "µs", "hash µs", "/ first [95 %]"))
    for i, p in enumerate(a.programs):
        line = "%-44s %10.1f %10s" % (os.path.basename(p), stats.median(times[i]) / 1e3,
                                      "%.1f" % (stats.median(hashes[i]) / 1e3) if a.hash else "-")
        if i:
            r = stats.ratio_summary(times[i], times[0])
            line += "  %.3f [%.3f, %.3f]" % (r["ratio"], r["lo"], r["hi"])
        print(line)


if __name__ == "__main__":
    main()
