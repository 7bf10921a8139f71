#!/usr/bin/env python3
"""The test of `bench/run.py --stability` on the quick data.

Runs the mode once (two passes over every cell where sdx has a program) and
checks what it did: every sdx cell of the quick data measured in both
passes with all its rounds, the changes and the verdict recomputed from the
two passes' own rounds, the exit status equal to the verdict, and the
verdict turning to "failed" below the largest change and to "ok" at it.

Whether this machine reproduces every ratio within ±10 % is printed, not
asserted: the project's rule is that speed is measured and recorded, never
asserted by a timed test, and on a shared machine the other tenants decide
part of it (bench/README.md, "Reproducibility"). The whole default suite's
two-run measurement is recorded there.

usage: stability_check.py [run.py options, e.g. --build DIR]
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import run  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
import tally  # noqa: E402

check = tally.check


def main():
    threshold = 0.10
    with tempfile.TemporaryDirectory() as out:
        cmd = [sys.executable, os.path.join(ROOT, "bench", "run.py"), "--quick", "--stability", "--no-build",
               "--threshold", str(threshold), "--out", out] + sys.argv[1:]
        proc = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(proc.stdout)
        path = os.path.join(out, "stability.json")
        check(os.path.exists(path), "run.py --stability wrote stability.json (exit status %d)" % proc.returncode)
        if not os.path.exists(path):
            return 1
        with open(path) as f:
            doc = json.load(f)

    passes, rows = doc["passes"], doc["rows"]
    check(len(passes) == 2, "two passes")
    # A cell has a ratio when sdx and another library (not a bound) were
    # built for its format and test; Binn's Incremental, say, has no peer.
    built = [p for p in doc["programs"] if p["status"] == "built"]
    peers = {(p["format"], p["test"]) for p in built if p["library"] not in ("sdx",) + run.BOUNDS}
    want = {(ds["id"], p["format"], p["test"]) for ds in doc["datasets"] for p in built
            if p["library"] == "sdx" and (p["format"], p["test"]) in peers}
    check({tuple(r["cell"].split("/")) for r in rows} == want,
          "a row for every sdx cell of the quick data with a peer (%d rows, %d cells)" % (len(rows), len(want)))
    check(all(r["first"] and r["second"] for r in rows), "every cell has a summary in both passes")
    n = doc["settings"]["rounds"]
    for i, res in enumerate(passes, 1):
        sdx = [r for r in res if r["library"] == "sdx"]
        check(sdx and all(r["status"] == "ok" and len(r["rounds_ns"]) == n for r in sdx),
              "pass %d: every sdx program measured in all %d rounds" % (i, n))
    rows2, worst2, failed2 = run.stability_report(passes[0], passes[1], threshold)
    def changes(rs):
        return [(r["cell"], None if r["change"] is None else round(r["change"], 9)) for r in rs]
    check(changes(rows2) == changes(rows) and abs(worst2 - doc["worst_change"]) < 1e-9, "changes recomputed from the passes' rounds")
    check(proc.returncode == (1 if failed2 else 0), "exit status %d for a %s verdict" % (
        proc.returncode, "failed" if failed2 else "passing"))
    if worst2 > 0:
        check(run.stability_report(passes[0], passes[1], worst2 * 0.99)[2], "a limit below the largest change fails")
    check(not run.stability_report(passes[0], passes[1], worst2 + 1e-9)[2], "a limit at the largest change passes")

    moved = [r["cell"] for r in rows if r["change"] is not None and r["change"] > threshold]
    print("reproduced within ±%.0f%% on this machine: %s (largest change %.1f%%)%s" % (
        100 * threshold, "no" if moved else "yes", 100 * worst2, "; moved: " + ", ".join(moved) if moved else ""))
    return tally.finish("stability_check")


if __name__ == "__main__":
    sys.exit(main())
