#!/usr/bin/env python3
"""sdx's Python package against the libraries Python users pick: orjson and
msgspec (JSON), ormsgpack, msgspec and msgpack (MessagePack), cbor2 (CBOR),
pymongo's bson (BSON) and py-ubjson (UBJSON), loads and dumps, on the
corpus documents, single records of them (msg:citm_event, 182 bytes of
JSON, and msg:tweet, 2.5 KB: one small document per call) and the
suite's generated data.

    python3 bench/python/bench.py [--quick] [--rounds N] [--round-ms MS]
                                  [--processes P] [--filter REGEX] [--out DIR]

Runs itself in a virtualenv (build/bench-python-venv, from
bench/python/requirements.txt, with ./python installed into it). For each
cell (data set, format, operation) every library's result is verified
first (what it reads equals the document; what it writes reads back as the
document), then the libraries take turns in rounds: each round gives every
library one turn of about --round-ms of the thread's CPU time, in a new
shuffled order (A B A B ..., so that the machine's slow phases fall on
all alike). The rounds are shared out over P fresh processes run one
after another (default 30 rounds over 10 processes, three each; --quick
5 rounds in 1), each with its own heap and address layout (and
PYTHONHASHSEED 1 to P, so that two runs hash str alike): the median of
one process's rounds can sit several hundredths away from another's on a
small message, with intervals that do not overlap, and the summary
should not inherit the luck of one (bench/README.md). A cell's
summary is the median over rounds of sdx's time over the other's in the
same round, with a distribution-free 95 % interval (bench/stats.py, the
suite's statistics). Writes DIR/REPORT.md and DIR/results.json (default
build/bench-python).
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(ROOT, "build", "bench-python-venv")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def ensure_venv():
    """Re-run this script inside the virtualenv, with ./python installed."""
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    sys.path.insert(0, os.path.join(ROOT, "tests"))
    import pyvenv
    py = pyvenv.ensure_venv(VENV, os.path.join(HERE, "requirements.txt"), sys.exit)
    log("installing ./python into %s" % VENV)
    r = subprocess.run([py, "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-build-isolation",
                        "--force-reinstall", "--no-deps", os.path.join(ROOT, "python")])
    if r.returncode != 0:
        sys.exit("pip install ./python failed (a C compiler and Python's headers are needed)")
    os.execv(py, [py, os.path.abspath(__file__)] + sys.argv[1:])


def sdx_command():
    """The sdx command (for the generated data): build/release/sdx, built if
    missing."""
    exe = os.path.join(ROOT, "build", "release", "sdx")
    if not os.path.exists(exe):
        b = os.path.join(ROOT, "build", "release")
        subprocess.run(["cmake", "-S", ROOT, "-B", b, "-DCMAKE_BUILD_TYPE=Release"], check=True,
                       stdout=subprocess.DEVNULL)
        subprocess.run(["cmake", "--build", b, "--target", "sdx"], check=True, stdout=subprocess.DEVNULL)
    return exe


def compact(value):
    """Minified JSON text in UTF-8."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def datasets(quick):
    """name -> the document's JSON bytes: the corpus and the generated data."""
    out = {}
    corpus = os.environ.get("SDX_CORPUS") or os.path.join(os.path.dirname(ROOT), "shared", "corpus")
    if os.path.isdir(corpus):
        for f in sorted(os.listdir(corpus)):
            if f.endswith(".json") and not (quick and f != "twitter.json"):
                out[f[:-5]] = open(os.path.join(corpus, f), "rb").read()
    else:
        log("no corpus at %s (set SDX_CORPUS)" % corpus)
    # single messages, as a service reads them one call at a time: a record
    # of a corpus document (its first event, its first status), where a
    # call's fixed costs and the end of the input weigh most
    if not quick and "citm_catalog" in out:
        events = json.loads(out["citm_catalog"])["events"]
        out["msg:citm_event"] = compact(events[min(events)])
    if not quick and "twitter" in out:
        out["msg:tweet"] = compact(json.loads(out["twitter"])["statuses"][0])
    exe = sdx_command()
    for size in ([2] if quick else [2, 4]):
        r = subprocess.run([exe, "gen", "--size", str(size)], check=True, capture_output=True)
        out["gen:%d" % size] = r.stdout
    return out


# ---------------------------------------------------------------------------
# The libraries
# ---------------------------------------------------------------------------

def libraries():
    """format -> [(library, loads, dumps)]; sdx first."""
    import bson
    import cbor2
    import msgpack
    import msgspec
    import orjson
    import ormsgpack
    import ubjson

    import sdx

    mj_dec, mj_enc = msgspec.json.Decoder(), msgspec.json.Encoder()
    mm_dec, mm_enc = msgspec.msgpack.Decoder(), msgspec.msgpack.Encoder()
    # Every library is called through a lambda of one argument, as sdx's
    # calls need one for the format: each call then has the same shape (one
    # Python frame more than calling the function itself, about 30 ns, which
    # weighs only in the rows of single messages).
    libs = {
        "json": [
            ("sdx", lambda b: sdx.loads(b, "json"), lambda o: sdx.dumps(o, "json")),
            ("orjson", lambda b: orjson.loads(b), lambda o: orjson.dumps(o)),
            ("msgspec", lambda b: mj_dec.decode(b), lambda o: mj_enc.encode(o)),
            ("json", lambda b: json.loads(b),
             lambda o: json.dumps(o, separators=(",", ":"), ensure_ascii=False).encode()),
        ],
        "msgpack": [
            ("sdx", lambda b: sdx.loads(b, "msgpack"), lambda o: sdx.dumps(o, "msgpack")),
            ("ormsgpack", lambda b: ormsgpack.unpackb(b), lambda o: ormsgpack.packb(o)),
            ("msgspec", lambda b: mm_dec.decode(b), lambda o: mm_enc.encode(o)),
            ("msgpack", lambda b: msgpack.unpackb(b, strict_map_key=False), lambda o: msgpack.packb(o)),
        ],
        "cbor": [
            ("sdx", lambda b: sdx.loads(b, "cbor"), lambda o: sdx.dumps(o, "cbor")),
            ("cbor2", lambda b: cbor2.loads(b), lambda o: cbor2.dumps(o)),
        ],
        "bson": [
            ("sdx", lambda b: sdx.loads(b, "bson"), lambda o: sdx.dumps(o, "bson")),
            ("bson", lambda b: bson.decode(b), lambda o: bson.encode(o)),
        ],
        "ubjson": [
            ("sdx", lambda b: sdx.loads(b, "ubjson"), lambda o: sdx.dumps(o, "ubjson")),
            ("py-ubjson", lambda b: ubjson.loadb(b), lambda o: ubjson.dumpb(o)),
        ],
    }
    return libs


def versions():
    import importlib.metadata as md
    out = {}
    for name in ("sdx", "orjson", "msgspec", "ormsgpack", "msgpack", "cbor2", "pymongo", "py-ubjson"):
        try:
            out[name] = md.version(name)
        except md.PackageNotFoundError:
            out[name] = "missing"
    return out


def plain(v):
    """A document as the formats read it back (BSON's Int64 as int)."""
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    if type(v) is not int and isinstance(v, int) and not isinstance(v, bool):
        return int(v)
    return v


def for_format(doc, fmt):
    """The document as the format holds it: BSON's root is a map."""
    if fmt == "bson" and not isinstance(doc, dict):
        return {str(i): x for i, x in enumerate(doc)}
    return doc


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------

def calibrate(fn, arg, round_ms):
    """Iterations of fn(arg) that take about round_ms of CPU time."""
    n = 1
    while True:
        t = time.thread_time_ns()
        for _ in range(n):
            fn(arg)
        dt = time.thread_time_ns() - t
        if dt >= round_ms * 1e6 / 4 or n >= 1 << 24:
            return max(1, int(n * round_ms * 1e6 / max(dt, 1)))
        n *= 2


def turn(fn, arg, n):
    """ns per call of fn(arg) over n calls (the thread's CPU time)."""
    t = time.thread_time_ns()
    for _ in range(n):
        fn(arg)
    return (time.thread_time_ns() - t) / n


def measure_cell(progs, rounds, round_ms, rng):
    """progs: [(name, fn, arg)]; returns name -> [ns per call per round]."""
    iters = {name: calibrate(fn, arg, round_ms) for name, fn, arg in progs}
    times = {name: [] for name, _, _ in progs}
    for _ in range(rounds):
        order = list(progs)
        rng.shuffle(order)
        for name, fn, arg in order:
            times[name].append(turn(fn, arg, iters[name]))
    return times


def measure(args, rounds, rng):
    """Every cell's verification and rounds in this process: (cells,
    failures), each cell {"dataset", "format", "op", "bytes", "times":
    {library: [ns per call, one per round]}}, sdx first."""
    libs = libraries()
    data = datasets(args.quick)
    import sdx
    cells = []
    failures = []
    for ds, text in data.items():
        doc = json.loads(text)
        for fmt, progs in libs.items():
            want = for_format(doc, fmt)
            encoded = sdx.dumps(want, fmt)
            for op in ("loads", "dumps"):
                cell = "%s %s %s" % (ds, fmt, op)
                if args.filter and not re.search(args.filter, cell):
                    continue
                runnable = []
                for name, loads, dumps in progs:
                    # verification before timing
                    try:
                        if op == "loads":
                            ok = plain(loads(encoded)) == want
                            fn, arg = loads, encoded
                        else:
                            out = dumps(want)
                            ok = plain(sdx.loads(out, fmt)) == want
                            fn, arg = dumps, want
                    except Exception as e:  # a library that cannot do the cell
                        ok = False
                        failures.append("%s: %s: %s" % (cell, name, repr(e)[:200]))
                    if ok:
                        runnable.append((name, fn, arg))
                    elif not any(f.startswith("%s: %s:" % (cell, name)) for f in failures):
                        failures.append("%s: %s: result differs from the document" % (cell, name))
                if not runnable or runnable[0][0] != "sdx":
                    continue
                log("%s: %s" % (cell, ", ".join(n for n, _, _ in runnable)))
                cells.append({"dataset": ds, "format": fmt, "op": op, "bytes": len(encoded),
                              "times": measure_cell(runnable, rounds, round_ms(args), rng)})
    return cells, failures


def round_ms(args):
    return args.round_ms or (20 if args.quick else 100)


def worker_args(args, seed, rounds, out):
    """The command line of one measuring process."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", out, "--seed", str(seed),
           "--rounds", str(rounds), "--round-ms", str(round_ms(args))]
    if args.quick:
        cmd.append("--quick")
    if args.filter:
        cmd += ["--filter", args.filter]
    return cmd


def join_rounds(parts):
    """The cells of several processes as one: parts is [(rounds, cells,
    failures)] in the order the processes ran, each as measure returns
    them; a library's rounds are the processes' rounds one after another,
    so round i of every library of a cell is the same turn of the same
    process. A library left out of one process (its verification failed
    there) has None for that process's rounds, which the ratios skip.
    Returns (cells, failures)."""
    cells, failures, index = [], [], {}
    for share, part_cells, part_failures in parts:
        failures += [x for x in part_failures if x not in failures]
        for c in part_cells:
            key = (c["dataset"], c["format"], c["op"])
            if key not in index:
                index[key] = dict(c, times={})
                cells.append(index[key])
            merged = index[key]["times"]
            done = len(merged["sdx"]) if merged else 0  # every library's list has this length
            for name in list(merged) + [x for x in c["times"] if x not in merged]:
                merged.setdefault(name, [None] * done)
                merged[name] += c["times"].get(name, [None] * share)
    return cells, failures


def measure_in_processes(args, rounds):
    """The rounds shared out over args.processes fresh processes, one after
    another, process k with PYTHONHASHSEED=k (a fixed set, so that two runs
    see the same str hashes) and its own heap and address layout: a
    cell's rounds then span that many layouts instead of inheriting the
    luck of one, as the suite's three processes per program do
    (bench/README.md, "Update, 2026-12-06, third"). Each process verifies
    and calibrates for itself. Returns what measure returns, the
    processes' rounds joined."""
    import tempfile
    parts = []
    n = args.processes
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(n):
            share = rounds // n + (k < rounds % n)
            out = os.path.join(tmp, "%d.json" % k)
            env = dict(os.environ, PYTHONHASHSEED=str(k + 1))
            log("process %d of %d (PYTHONHASHSEED=%d, %d rounds)" % (k + 1, n, k + 1, share))
            if subprocess.run(worker_args(args, k + 1, share, out), env=env).returncode != 0:
                sys.exit("bench.py: measuring process %d failed" % (k + 1))
            with open(out) as f:
                part = json.load(f)
            parts.append((share, part["cells"], part["failures"]))
    return join_rounds(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="twitter and gen:2 only, few short rounds")
    ap.add_argument("--rounds", type=int, default=None)
    ap.add_argument("--round-ms", type=float, default=None)
    ap.add_argument("--processes", type=int, default=None,
                    help="fresh processes the rounds are shared out over (default 10, --quick 1)")
    ap.add_argument("--filter", default=None, help="only cells whose 'dataset format op' matches")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench-python"))
    ap.add_argument("--worker", metavar="FILE", help=argparse.SUPPRESS)
    ap.add_argument("--seed", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    ensure_venv()
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import stats

    rounds = args.rounds or (5 if args.quick else 30)
    if args.processes is None:
        args.processes = 1 if args.quick else 10
    if args.processes < 1:
        sys.exit("bench.py: --processes must be at least 1")
    args.processes = min(args.processes, rounds)  # a process has at least one round
    if args.worker:
        cells, failures = measure(args, rounds, random.Random(args.seed))
        with open(args.worker, "w") as f:
            json.dump({"cells": cells, "failures": failures}, f)
        return
    if args.processes == 1:
        cells, failures = measure(args, rounds, random.Random(1))
    else:
        cells, failures = measure_in_processes(args, rounds)
    results = []
    for c in cells:
        times = c["times"]
        row = {"dataset": c["dataset"], "format": c["format"], "op": c["op"], "bytes": c["bytes"],
               "times": {n: stats.median([x for x in t if x is not None]) for n, t in times.items()}, "vs": {}}
        for name in times:
            if name != "sdx":
                row["vs"][name] = stats.ratio_summary(times["sdx"], times[name])
        results.append(row)
    os.makedirs(args.out, exist_ok=True)
    doc = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "python": sys.version.split()[0], "machine": platform.machine(), "cpu": cpu_name(),
           "commit": commit(), "versions": versions(), "rounds": rounds, "round_ms": round_ms(args),
           "processes": args.processes, "results": results, "failures": failures}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(doc, f, indent=1)
    md = report(doc)
    with open(os.path.join(args.out, "REPORT.md"), "w") as f:
        f.write(md)
    print(md)


def cpu_name():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def commit():
    r = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return r.stdout.strip()


def fmt_ns(ns):
    if ns >= 1e6:
        return "%.2f ms" % (ns / 1e6)
    if ns >= 1e3:
        return "%.1f µs" % (ns / 1e3)
    return "%.0f ns" % ns


def report(doc):
    lines = ["# sdx for Python against the Python libraries", "",
             "Interleaved rounds (%d rounds of about %g ms CPU time per library, shared out over %d fresh "
             "processes), the thread's CPU clock; "
             "each ratio is the median over rounds of sdx's time divided by the library's in the same round, "
             "with its 95 %% interval: below 1 means sdx is faster." % (doc["rounds"], doc["round_ms"],
                                                                       doc.get("processes", 1)), "",
             "Python %s on %s (%s), commit %s; %s." % (
                 doc["python"], doc["cpu"], doc["machine"], doc["commit"],
                 ", ".join("%s %s" % kv for kv in doc["versions"].items())), "",
             "| data | format | op | bytes | sdx | other: time, sdx/other [95 % interval] |",
             "| --- | --- | --- | ---: | ---: | --- |"]
    slower = []
    for r in doc["results"]:
        cells = []
        for name, s in r["vs"].items():
            if s is None:
                continue
            mark = "" if s["hi"] < 1 else " **(not faster)**"
            if s["hi"] >= 1:
                slower.append("%s %s %s vs %s: %.2f [%.2f, %.2f]" % (r["dataset"], r["format"], r["op"], name,
                                                                  s["ratio"], s["lo"], s["hi"]))
            cells.append("%s %s, %.2f [%.2f, %.2f]%s" % (name, fmt_ns(r["times"][name]), s["ratio"], s["lo"],
                                                         s["hi"], mark))
        lines.append("| %s | %s | %s | %d | %s | %s |" % (r["dataset"], r["format"], r["op"], r["bytes"],
                                                          fmt_ns(r["times"]["sdx"]), "; ".join(cells)))
    lines.append("")
    if slower:
        lines.append("Rows where sdx is not faster with 95 % confidence (interval reaching 1 or above):")
        lines.append("")
        lines += ["- " + s for s in slower]
    else:
        lines.append("sdx is faster than every other library on every row (every interval below 1).")
    if doc["failures"]:
        lines += ["", "Not measured (failed verification or unsupported):", ""]
        lines += ["- " + f for f in doc["failures"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
