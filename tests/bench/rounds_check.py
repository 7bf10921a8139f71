#!/usr/bin/env python3
"""Tests of the suite's measurement and report code: bench/stats.py (medians,
intervals, paired ratios), bench/rounds.py (programs as servers in
interleaved rounds) on the release build's own benchmark programs, and
bench/report.py (tables, summary, charts, history) on the result.
Standard library only.

usage: rounds_check.py PROGRAMS_DIR WORK_DIR
"""
import json
import math
import os
import random
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import report  # noqa: E402
import rounds  # noqa: E402
import stats  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "tests"))
import tally  # noqa: E402

check = tally.check


def coverage(n, k):
    """P(x(k) <= median <= x(n+1-k)) = 1 - 2 P(B <= k-1), B ~ Bin(n, 1/2)."""
    return 1 - 2 * sum(math.comb(n, i) for i in range(k)) / 2 ** n


def test_stats():
    check(stats.median([3, 1, 2]) == 2 and stats.median([4, 1, 3, 2]) == 2.5, "median")
    check(stats.median([]) is None, "median of nothing")
    # the interval's ranks: the largest k with coverage >= 95 %, for every n
    for n in range(1, 60):
        xs = list(range(1, n + 1))
        random.Random(n).shuffle(xs)
        lo, hi, cov = stats.median_interval(xs)
        if n < 6:
            check((lo, hi) == (1, n), "n=%d: no 95%% interval, the whole range" % n)
            continue
        k = max(k for k in range(1, n // 2 + 1) if coverage(n, k) >= 0.95)
        check((lo, hi) == (k, n + 1 - k) and abs(cov - coverage(n, k)) < 1e-12,
              "n=%d: interval x(%d)..x(%d), got %s..%s" % (n, k, n + 1 - k, lo, hi))
    lo, hi, cov = stats.median_interval([10] * 7 + [11] * 8)
    check(lo <= stats.median([10] * 7 + [11] * 8) <= hi, "the median lies in its interval")
    check(stats.median_interval(list(range(1, 16)))[:2] == (4, 12), "n=15: x(4)..x(12)")
    # the summary: per-round ratios, paired round by round, over all rounds
    s = stats.ratio_summary([1.0] * 15, [2.0] * 15)
    check(s["ratio"] == 0.5 and s["lo"] == 0.5 and s["hi"] == 0.5 and s["rounds"] == 15, "ratio summary")
    check(stats.ratio_summary([], [1.0]) is None, "no common rounds")
    s = stats.ratio_summary([2, 4, 6], [1, 2, 3, 9])
    check(s["ratio"] == 2 and s["rounds"] == 3, "rounds a program missed are skipped")
    check(stats.ratio_summary([1.0] * 7 + [1.8] * 9, [2.0] * 7 + [2.2] * 9)["ratio"] == 1.8 / 2.2,
          "the median over every round, slowed-down ones included")
    # the share of slowed-down turns (> 15 % above the program's fastest)
    check(stats.slowed_share([[1.0, 1.1, 1.2, 2.0], [5.0, 5.0]]) == 2 / 6 and stats.slowed_share([]) is None,
          "slowed share")
    check(abs(stats.relative_change(1.0, 1.1) - 0.1) < 1e-12 and stats.relative_change(0, 1) is None,
          "relative change")


def test_rounds(programs, work):
    """Real programs of the release build, in rounds."""
    tool = os.path.join(programs, "bench_tool")
    data = os.path.join(work, "gen2.json")
    os.system("%s encode json gen:2 %s" % (tool, data))
    mp = os.path.join(work, "gen2.msgpack")
    os.system("%s encode msgpack gen:2 %s" % (tool, mp))
    ref = os.popen("%s hash json gen:2" % tool).read().strip()
    progs = [{"program": name, "library": name.split("-")[0], "format": "json", "test": "tree",
              "path": os.path.join(programs, name)}
             for name in ("sdx-json-tree", "sdx-msgpack-tree")]
    verified = []

    def verify(prog, info, once):
        verified.append(prog["program"])
        with open(once) as f:
            got = f.read().strip()
        return None if got == ref == info["tree_hash"] else ("verify failed", "hash %s, want %s" % (got, ref))

    def argv_of(p):
        return [p["path"], "--tree", "gen:2", "--input", data, "--dataset", "gen2"]

    # the protocol itself: ready line, `time N H [W]`, errors, quit
    srv = rounds.Server(progs[0], argv_of(progs[0]) + ["--once", os.path.join(work, "p.out"), "--serve"],
                        os.path.join(work, "p.err"))
    ready = rounds.parse_json_line(srv.readline(30)) or {}
    check(ready.get("status") == "ready" and ready.get("result_hash") == ref, "ready line: %s" % ready)
    for cmd in ("time 3 2", "time 3 2 0", "time 0 2 1", "time 3 0 1"):
        f = (srv.command(cmd, 30) or "").split()
        check(len(f) == 4 and f[0] == "ok" and (int(f[1]) > 0) == (cmd[5] != "0") and (int(f[2]) > 0) ==
              (cmd[7] != "0") and f[3] == ref, "%s -> %s" % (cmd, f))
    check((srv.command("time x", 30) or "").startswith("error"), "a bad command is an error")
    srv.close()
    check(srv.proc.returncode == 1, "the server exits after a bad command")

    opts = rounds.Options(rounds=7, round_ms=2, hash_share=0.2, clock="cpu", cpu=None, seed=1, verify=verify,
                          timeout=60, instances=2)
    got, cell = rounds.measure_cell(progs, argv_of, opts, work)
    r = got.get("sdx-json-tree", {})
    check(r.get("status") == "ok", "sdx-json-tree measured: %s" % r)
    check(len(r.get("rounds_ns", [])) == 7 and len(r.get("hash_rounds_ns", [])) == 7, "seven rounds kept")
    check(r.get("instances") == 2 and len(r.get("iterations", [])) == 2, "two processes used in turn")
    check(r.get("lo_ns", 0) <= r.get("median_ns", -1) <= r.get("hi_ns", 0) and r.get("min_ns", 1) <= r.get(
        "median_ns", 0), "min <= lo <= median <= hi")
    check(0 < r.get("hash_ns", 0) < r.get("median_ns", 0), "the hashing alone costs less than the test")
    check(verified.count("sdx-json-tree") == 1, "only the first process of a program is verified")
    check("peak_bytes" not in ready, "no memory count without libbenchmem.so")
    # memory: one more run with the counting allocator preloaded
    lib = os.path.join(programs, "libbenchmem.so")
    if os.path.exists(lib):
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import run as runner  # noqa: E402
        mres = [{"program": "sdx-json-tree", "library": "sdx", "format": "json", "test": "tree", "status": "ok",
                 "dataset": "gen2"},
                {"program": "sdx-msgpack-tree", "library": "sdx", "format": "json", "test": "tree",
                 "status": "error", "dataset": "gen2"}]
        runner.measure_memory(mres, [{"id": "gen2", "spec": "gen:2", "files": {"json": data}}], progs, lib)
        size = os.path.getsize(data)
        peak = mres[0].get("peak_bytes")
        check(isinstance(peak, int) and size <= peak <= 64 * size,
              "sdx-json-tree's peak heap bytes, between 1 and 64 per input byte: %s for %d" % (peak, size))
        check("peak_bytes" not in mres[1], "a program that did not verify is not counted")
    else:
        print("memory count: no libbenchmem.so in %s (sanitizer build); not tested" % programs)
    # the MessagePack reader fed JSON: the library's own message, no rounds
    m = got.get("sdx-msgpack-tree", {})
    check(m.get("status") == "error" and " at byte " in m.get("message", "") and "rounds_ns" not in m,
          "a failing program reports the library's message: %s" % m)
    check(cell.get("elapsed_s", -1) >= 0 and 0 <= cell.get("slowed_share", -1) <= 1, "cell time and slowed share")

    # Write with the memcpy bound in the same rounds; --clock wall works too
    wprogs = [{"program": n, "library": n.split("-json")[0], "format": "json", "test": "write",
               "path": os.path.join(programs, n)} for n in ("sdx-json-write", "memcpy-json-write")]

    def verify_write(prog, info, once):
        rc = os.system("%s verify json gen:2 %s > /dev/null" % (tool, once))
        return None if rc == 0 else ("verify failed", "bench_tool verify")
    opts = rounds.Options(rounds=5, round_ms=2, hash_share=0.2, clock="wall", cpu=None, seed=2,
                          verify=verify_write, timeout=60)
    wgot, _ = rounds.measure_cell(wprogs, argv_of, opts, work)
    check(all(wgot.get(p["program"], {}).get("status") == "ok" for p in wprogs), "write cell: %s" % wgot)

    # two cells with their rounds interleaved: each keeps its own rounds
    tprogs = [p for p in progs if p["program"] == "sdx-json-tree"]
    dirs = [os.path.join(work, "cell-%d" % i) for i in (1, 2)]
    for d in dirs:
        os.makedirs(d, exist_ok=True)
    topts = rounds.Options(rounds=4, round_ms=2, hash_share=0.2, clock="cpu", cpu=None, seed=3, verify=verify,
                           timeout=60)
    both = rounds.measure_cells([(tprogs, argv_of, topts, dirs[0]), (wprogs, argv_of, opts, dirs[1])], 4, 3)
    check(len(both) == 2 and all(len(r.get("rounds_ns", [])) == 4 for got_, _ in both for r in got_.values())
          and set(both[0][0]) == {"sdx-json-tree"} and set(both[1][0]) == {p["program"] for p in wprogs},
          "interleaved cells: four rounds each, every program in its own cell")
    return got, wgot, data


def test_report(got, wgot, work):
    """The report of a small synthetic run built from the measured results."""
    results = []
    for name, r in list(got.items()) + list(wgot.items()):
        test = "tree" if name.endswith("tree") else "write"
        lib = "memcpy" if name.startswith("memcpy") else "sdx" if name.startswith("sdx") else name
        results.append(dict(r, program=name, library=lib, language="C", format="json", test=test, dataset="gen2",
                            bytes=1000))
    # a peer measured in the same rounds as sdx's write: twice as slow
    sdx_w = next(r for r in results if r["program"] == "sdx-json-write")
    peer = dict(sdx_w, program="peer-json-write", library="peer", language="C",
                rounds_ns=[2 * x for x in sdx_w["rounds_ns"]], median_ns=2 * sdx_w["median_ns"],
                min_ns=2 * sdx_w["min_ns"], lo_ns=2 * sdx_w["lo_ns"], hi_ns=2 * sdx_w["hi_ns"])
    results.append(peer)
    # the writer without checks in the same rounds: 1.5 times sdx's time
    results.append(dict(sdx_w, program="unchecked-json-write", library="unchecked", language="C",
                        rounds_ns=[1.5 * x for x in sdx_w["rounds_ns"]], median_ns=1.5 * sdx_w["median_ns"]))
    # memory of the Tree rows: sdx 3 bytes per input byte, a peer 2
    sdx_t = next(r for r in results if r["program"] == "sdx-json-tree")
    sdx_t["peak_bytes"] = 3000
    results.append(dict(sdx_t, program="small-json-tree", library="small", peak_bytes=2000))
    # a Tree peer twice as fast as sdx, whose hashing alone is 0.9 of its time
    results.append(dict(sdx_t, program="quick-json-tree", library="quick", peak_bytes=5000,
                        rounds_ns=[0.5 * x for x in sdx_t["rounds_ns"]], median_ns=0.5 * sdx_t["median_ns"],
                        hash_rounds_ns=[0.45 * x for x in sdx_t["rounds_ns"]]))
    results.append({"program": "bad-json-write", "library": "bad", "language": "C", "format": "json",
                    "test": "write", "dataset": "gen2", "status": "verify failed", "message": "decoded differs",
                    "limit": "stores every number as a double"})
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import run as runner  # noqa: E402
    summ = runner.summary_cells(results)
    cell = summ.get(("gen2", "json", "write"))
    check(cell is not None and abs(cell["ratio"] - 0.5) < 1e-9 and cell["vs"] == "peer",
          "summary: sdx / fastest other per round: %s" % cell)
    doc = {"date": "2026-01-01T00:00:00+00:00", "commit": "0123456789abcdef", "dirty": False,
           "machine": {"cpu": "test", "cores": 2, "memory_bytes": 2 ** 30, "os": "test", "kernel": "test"},
           "compilers": {}, "settings": {"mode": "quick", "rounds": 7, "round_ms": 2, "instances": 2,
                                         "clock": "cpu", "pinned_cpu": 1},
           "datasets": [{"id": "gen2", "name": "small (gen:2)", "spec": "gen:2:1", "bytes": {"json": 1000}}],
           "programs": [{"program": r["program"], "library": r["library"], "format": "json", "test": r["test"],
                         "language": "C", "status": "built", "version": "1.0", "origin": "test"} for r in results],
           "results": results, "elapsed_s": 1.0,
           "summary": [dict(dataset=k[0], format=k[1], test=k[2], **v) for k, v in summ.items()]}
    out = os.path.join(work, "report")
    history = [report.history_entry(dict(doc, commit="aaaaaaa", date="2025-12-01"))]
    report.write_all(doc, out, history=history)
    with open(os.path.join(out, "REPORT.md")) as f:
        md = f.read()
    check("0.50 [0.50–0.50]" in md and "vs peer" in md, "the summary shows ratio, interval and peer")
    check("*memcpy of the output*" in md and "× bound" in md, "the bound row and the × bound column")
    check("## Write: the writer without checks" in md and "0.75 [0.75–0.75] vs peer; sdx 0.67" in md
          and "0.75 [0.75–0.75] vs peer; sdx 0.67" in report.text_tables(doc),
          "the floor table: the writer without checks / the fastest other, sdx / the floor")
    check("## Tree and Incremental: the hashing alone" in md and "**0.90 [0.90–0.90]** vs quick; sdx 2.00" in md
          and "0.90 [0.90–0.90] vs quick; sdx 2.00" in report.text_tables(doc),
          "the hashing-alone table: a Tree peer's hashing / its time, bold above 0.80, sdx / that peer")
    check("stores every number as a double" in md, "a failing row states the library's documented limit")
    check("| 1.0 | test |" in md, "the libraries' versions and origins")
    check("## Memory" in md and "1.50 (3.00 vs 2.00 B/B, small)" in md and "| 3.00 |" in md,
          "the memory column and summary: sdx's peak / the smallest other's")
    check("1.50 (3.00 vs 2.00 B/B, small)" in report.text_tables(doc), "the memory summary in the text report")
    # a library that allocates nothing (its tree borrows the input): no ratio
    zero = dict(doc, results=results + [dict(sdx_t, program="none-json-tree", library="none", peak_bytes=0)])
    check("– (3.00 vs 0.00 B/B, none)" in report.text_tables(zero) and "– (3.00 vs 0.00 B/B, none)" in
          report.markdown(zero, {}, []), "the memory summary against a library that allocates nothing")
    with open(os.path.join(out, "charts", "gen2-write.svg")) as f:
        svg = f.read()
    check(svg.count('stroke="black" stroke-width="1"/>') == 2 and "bound: memcpy of the output" in svg,
          "error bars for both libraries, the bound as text")
    with open(os.path.join(out, "charts", "history-json-write.svg")) as f:
        hist = f.read()
    check("gen2" in hist and "json/write" in hist and "aaaaaaa" in hist and "0123456" in hist, "history chart: cells over runs")
    with open(os.path.join(out, "results.json")) as f:
        back = json.load(f)
    check([r.get("rounds_ns") for r in back["results"]] == [r.get("rounds_ns") for r in results],
          "results.json keeps every round")
    path = os.path.join(work, "history.json")
    if os.path.exists(path):
        os.unlink(path)
    report.append_history(doc, path)
    report.append_history(doc, path)
    check(len(report.read_history(path)) == 2 and "json/write/gen2" in report.read_history(path)[0]["cells"],
          "history.json grows by one entry per recorded run")
    rows, worst, bad = runner.stability_report(results, [dict(r, rounds_ns=[x * (1.2 if r["library"] == "sdx"
                                                                                   else 1) for x in r["rounds_ns"]])
                                                         if r.get("rounds_ns") else r for r in results], 0.10)
    check(bad and abs(worst - 0.2) < 1e-9, "stability: a cell that moved 20%% fails (%s)" % worst)
    rows, worst, bad = runner.stability_report(results, results, 0.10)
    check(not bad and worst == 0, "stability: the same results pass")
    check("MOVED" not in report.stability_text(rows, worst, 0.1), "stability text")


def test_python_rounds():
    """bench/python/bench.py's join of its processes' rounds."""
    sys.path.insert(0, os.path.join(ROOT, "bench", "python"))
    import bench as pybench

    def cell(ds, times):
        return {"dataset": ds, "format": "json", "op": "loads", "bytes": 1, "times": times}

    parts = [
        (2, [cell("a", {"sdx": [1, 2], "x": [2, 4]}), cell("b", {"sdx": [5, 5], "x": [10, 10]})], ["f1"]),
        # b's library x failed its verification in this process
        (1, [cell("a", {"sdx": [3], "x": [6]}), cell("b", {"sdx": [7]})], ["f1", "f2"]),
        # a library only this process could run, and a cell only it has
        (2, [cell("a", {"sdx": [4, 4], "x": [8, 8], "y": [1, 2]}), cell("c", {"sdx": [1, 1], "x": [1, 1]})], []),
    ]
    cells, failures = pybench.join_rounds(parts)
    check([c["dataset"] for c in cells] == ["a", "b", "c"], "python rounds: cells in their first order")
    check(failures == ["f1", "f2"], "python rounds: failures once each")
    a = cells[0]["times"]
    check(list(a) == ["sdx", "x", "y"], "python rounds: libraries in order")
    check(a["sdx"] == [1, 2, 3, 4, 4] and a["x"] == [2, 4, 6, 8, 8], "python rounds: rounds joined in order")
    check(a["y"] == [None, None, None, 1, 2], "python rounds: a library's missing rounds are None")
    b = cells[1]["times"]
    check(b["sdx"] == [5, 5, 7] and b["x"] == [10, 10, None], "python rounds: a library left out of a process")
    s = stats.ratio_summary(b["sdx"], b["x"])
    check(s["rounds"] == 2 and s["ratio"] == 0.5, "python rounds: ratios skip rounds without both libraries")
    check(cells[2]["times"]["sdx"] == [1, 1], "python rounds: a cell of one process")
    check(all(v is not parts[0][1][0]["times"]["sdx"] for v in a.values()), "python rounds: inputs not aliased")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    programs, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    os.makedirs(work, exist_ok=True)
    test_stats()
    test_python_rounds()
    got, wgot, _ = test_rounds(programs, work)
    test_report(got, wgot, work)
    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
