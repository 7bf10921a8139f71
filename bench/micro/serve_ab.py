#!/usr/bin/env python3
"""Any benchmark programs side by side, measured exactly as the suite
measures a cell (bench/rounds.py: servers, the suite's malloc tunables,
three processes per program, calibrated turns, interleaved rounds, pinned
to the last CPU): suite programs, measurement builds and
bench/micro/tree_walk.c alike, which bench/run.py cannot run because they
are not in its program lists and their outputs are not verified.

    python3 bench/micro/serve_ab.py [--rounds 31] [--round-ms 10]
                                    [--instances 3] [--input FILE] SPEC PROG...

SPEC is the tree (gen:4:1, tree:build/bench/data/canada.tree, ...; see
bench/harness/SPEC.md), --input the encoded input of a Tree or
Incremental program. Nothing is verified beyond each program giving the
same result in every turn. Prints each program's median µs per iteration
and of its hashing alone, and the median over rounds of its time over the
first program's, with a distribution-free 95 % interval (bench/stats.py).
"""
import argparse
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import rounds  # noqa: E402
import stats  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=31)
    ap.add_argument("--round-ms", type=float, default=10.0)
    ap.add_argument("--instances", type=int, default=3)
    ap.add_argument("--input")
    ap.add_argument("spec")
    ap.add_argument("programs", nargs="+")
    a = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    # each path once, named by its position (two builds may share a name)
    progs = [{"program": "%d:%s" % (i, os.path.basename(p)), "path": p} for i, p in enumerate(a.programs)]
    opts = rounds.Options(rounds=a.rounds, round_ms=a.round_ms, hash_share=0.2, clock="cpu",
                          cpu=cpus[-1] if len(cpus) >= 2 else None, seed=1, verify=lambda p, info, once: None,
                          timeout=300, instances=a.instances)

    def argv_of(p):
        return [p["path"], "--tree", a.spec] + (["--input", a.input] if a.input else [])

    with tempfile.TemporaryDirectory() as tmp:
        results, _ = rounds.measure_cell(progs, argv_of, opts, tmp)
    first = results[progs[0]["program"]]
    print("%-44s %10s %10s  %s" % ("program", "µs", "hash µs", "/ first [95 %]"))
    for i, p in enumerate(progs):
        r = results[p["program"]]
        if r["status"] != "ok":
            print("%-44s %s" % (p["program"], r.get("message", r["status"])))
            continue
        line = "%-44s %10.1f %10.1f" % (p["program"], r["median_ns"] / 1e3, r["hash_ns"] / 1e3)
        if i and first["status"] == "ok":
            s = stats.ratio_summary(r["rounds_ns"], first["rounds_ns"])
            line += "  %.3f [%.3f, %.3f]" % (s["ratio"], s["lo"], s["hi"])
        print(line)


if __name__ == "__main__":
    main()
