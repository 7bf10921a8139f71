#!/usr/bin/env python3
"""The sdx benchmark suite: build every program, make the data, verify every
result, time what verified in interleaved rounds, report.

    python3 bench/run.py [--quick | --full] [--filter REGEX] [--out DIR]
                         [--rounds N] [--round-ms MS] [--clock cpu|wall]
                         [--record] [--stability [--threshold 0.10]] [--python]

Default: generated data of sizes 2 (small) and 4 (large), the extended data
set (gen:3, unsigned 64-bit integers and extreme values) and the corpus
documents, every format, every library; about ten minutes on two cores.
--quick: small data, few short rounds (a smoke test, seconds per cell).
--full: sizes 1 to 5, the extended set and the corpus, more and longer rounds.
--record: also write the report into bench/results/ and append the summary
to bench/results/history.json.
--python: also bench/python/bench.py (the Python package against orjson,
msgspec, ormsgpack, msgpack, cbor2, bson and py-ubjson), in the report.
--stability: measure the cells where sdx has a program twice, one complete
pass after the other, and fail if a summary ratio moves by more than
--threshold between the passes.

For one data set, format and test (a cell), every library's program is
started as a server, verified (a parse test's hash must equal the reference
hash of the data, a written output must decode with the harness's reference
decoder to that hash), pinned to one core and then timed in rounds: each
round gives every program one turn of about --round-ms, in a new shuffled
order, with the thread's CPU clock. See bench/README.md for the methodology.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import report  # noqa: E402
import rounds  # noqa: E402
import stats  # noqa: E402

FORMATS = report.FORMATS
TESTS = report.TESTS
# Rows that bound what a library can do, measured beside the libraries.
BOUNDS = tuple(report.BOUND_NAMES)


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, cwd=None, timeout=None, env=None):
    """Run a command; return (returncode, stdout, stderr)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return -1, "", "timed out after %s s" % timeout
    except OSError as e:
        return -1, "", str(e)


# --------------------------------------------------------------------------
# Building
# --------------------------------------------------------------------------

def read_tsv(path):
    rows = []
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(header, line.rstrip("\n").split("\t"))))
    return rows


def build_c(build_dir):
    """Configure and build the C/C++ programs; return the program records."""
    yyjson = ""
    rc, out, err = run([os.path.join(ROOT, "bench", "crate-source.sh"), "yyjson-sys"], timeout=600)
    if rc == 0:
        yyjson = out.strip()
    else:
        log("yyjson-sys crate not fetched: " + err.strip()[:200])
    gen = "Ninja" if shutil.which("ninja") else "Unix Makefiles"
    # peers unpacked from Debian packages by scripts/lib.sh (msgpack-c)
    prefix = os.path.join(ROOT, "build", "deps", "usr")
    rc, out, err = run(["cmake", "-S", ROOT, "-B", build_dir, "-G", gen, "-DCMAKE_BUILD_TYPE=Release",
                        "-DSDX_BUILD_BENCH=ON", "-DSDX_BUILD_TESTS=OFF", "-DYYJSON_SOURCE_DIR=" + yyjson,
                        "-DCMAKE_PREFIX_PATH=" + prefix])
    if rc != 0:
        sys.exit("cmake configure failed:\n" + out + err)
    keep_going = ["--", "-k", "0"] if gen == "Ninja" else ["--", "-k"]
    rc, out, err = run(["cmake", "--build", build_dir, "-j", str(os.cpu_count() or 2)] + keep_going)
    with open(os.path.join(build_dir, "bench-build.log"), "w") as f:
        f.write(out + err)
    programs = []
    prog_dir = os.path.join(build_dir, "bench", "programs")
    for row in read_tsv(os.path.join(build_dir, "bench", "programs.tsv")):
        row["path"] = os.path.join(prog_dir, row["program"])
        if row["status"] == "built" and not os.path.exists(row["path"]):
            row["status"] = "build failed (see %s)" % os.path.relpath(
                os.path.join(build_dir, "bench-build.log"), ROOT)
        programs.append(row)
    tool = os.path.join(prog_dir, "bench_tool")
    if not os.path.exists(tool):
        sys.exit("bench_tool did not build; see " + os.path.join(build_dir, "bench-build.log"))
    return programs, tool


def build_rust():
    """Build the Rust runner; return its program records."""
    rust_dir = os.path.join(ROOT, "bench", "rust")
    tsv = os.path.join(rust_dir, "programs.tsv")
    if not os.path.exists(tsv):
        return []
    rows = read_tsv(tsv)
    target = os.path.join(rust_dir, "target", "release")
    if not shutil.which("cargo"):
        status = "cargo not installed"
    else:
        rc, out, err = run(["cargo", "build", "--release", "--locked", "--bins"], cwd=rust_dir, timeout=3600)
        with open(os.path.join(rust_dir, "target", "bench-build.log") if os.path.isdir(
                os.path.join(rust_dir, "target")) else os.devnull, "w") as f:
            f.write(out + err)
        status = None if rc == 0 else "cargo build failed"
    for row in rows:
        row["path"] = os.path.join(target, row["program"])
        if row["status"] in ("built", "rust"):
            if status:
                row["status"] = status
            elif not os.path.exists(row["path"]):
                row["status"] = "build failed"
            else:
                row["status"] = "built"
    return rows


def stripped_size(path):
    with tempfile.NamedTemporaryFile(delete=False) as tmp:
        name = tmp.name
    try:
        shutil.copyfile(path, name)
        if shutil.which("strip"):
            run(["strip", name])
        return os.path.getsize(name)
    finally:
        os.unlink(name)


# --------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------

def default_corpus(build_dir):
    """../shared/corpus beside the checkout, else the bundled copy
    (tests/corpus/corpus.tar.xz) unpacked into BUILD/corpus."""
    shared = os.path.join(ROOT, "..", "shared", "corpus")
    if os.path.exists(os.path.join(shared, "twitter.json")):
        return shared
    dest = os.path.join(build_dir, "corpus")
    if not os.path.exists(os.path.join(dest, "canada.json")):
        import tarfile
        os.makedirs(dest, exist_ok=True)
        with tarfile.open(os.path.join(ROOT, "tests", "corpus", "corpus.tar.xz")) as t:
            for m in t.getmembers():
                if m.isfile() and "/" not in m.name:
                    with t.extractfile(m) as src, open(os.path.join(dest, m.name), "wb") as dst:
                        shutil.copyfileobj(src, dst)
    return dest


def datasets_for(args):
    corpus = os.path.abspath(args.corpus)
    if args.quick:
        sizes, ext = [2], 2
    elif args.full:
        sizes, ext = [1, 2, 3, 4, 5], 3
    else:
        sizes, ext = [2, 4], 3
    names = {1: "tiny", 2: "small", 3: "medium", 4: "large", 5: "huge"}
    sets = [{"name": "%s (gen:%d)" % (names[s], s), "id": "gen%d" % s, "spec": "gen:%d:%d" % (s, args.seed)}
            for s in sizes]
    sets.append({"name": "extended (gen:%d, extended)" % ext, "id": "ext%d" % ext,
                 "spec": "gen:%d:%d:extended" % (ext, args.seed), "extended": True})
    if not args.quick:
        for doc in ["twitter", "citm_catalog", "canada"]:
            path = os.path.join(corpus, doc + ".json")
            if os.path.exists(path):
                sets.append({"name": doc, "id": doc, "spec": "json:" + path})
            else:
                log("corpus document missing: " + path)
    if args.datasets:
        want = args.datasets.split(",")
        sets = [d for d in sets if d["id"] in want]
    return sets


def make_data(tool, data_dir, datasets, formats):
    """Encode every data set in every format with the reference encoder; the
    reference hashes (ordered and without map order); the text the UTF-8
    bound validates (the JSON itself, or a binary format's strings)."""
    os.makedirs(data_dir, exist_ok=True)
    for ds in datasets:
        ds["files"], ds["ref_hash"], ds["ref_hash_unordered"], ds["bytes"], ds["text"] = {}, {}, {}, {}, {}
        if ds["spec"].startswith("json:"):
            # programs read the document as a tree file: none carries a JSON
            # parser of its own (bench_tool parses it with jansson)
            tree = os.path.join(data_dir, ds["id"] + ".tree")
            rc, out, err = run([tool, "tree", ds["spec"], tree])
            if rc != 0:
                log("cannot convert %s: %s" % (ds["spec"], err.strip()))
                continue
            ds["source"] = ds["spec"]
            ds["spec"] = "tree:" + tree
        for fmt in formats:
            path = os.path.join(data_dir, "%s.%s" % (ds["id"], fmt))
            rc, out, err = run([tool, "encode", fmt, ds["spec"], path])
            if rc != 0:
                log("cannot encode %s as %s: %s" % (ds["id"], fmt, err.strip()))
                continue
            hashes = []
            for extra in ([], ["--unordered"]):
                rc, out, err = run([tool, "hash"] + extra + [fmt, ds["spec"]])
                hashes.append(out.strip() if rc == 0 else None)
            if None in hashes:
                log("cannot hash %s for %s" % (ds["id"], fmt))
                continue
            text = path
            if fmt != "json":
                text = os.path.join(data_dir, "%s.%s.strings" % (ds["id"], fmt))
                rc, out, err = run([tool, "strings", fmt, ds["spec"], text])
                if rc != 0:
                    text = None
            ds["files"][fmt] = path
            ds["ref_hash"][fmt], ds["ref_hash_unordered"][fmt] = hashes
            ds["bytes"][fmt] = os.path.getsize(path)
            ds["text"][fmt] = text
        rc, out, err = run([tool, "info", ds["spec"]])
        ds["info"] = out.strip() if rc == 0 else ""


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def load_limits():
    """Documented limits of peer libraries (bench/adapters/limits.tsv,
    bench/rust/limits.tsv): {(library, format, test or "*"): reason}."""
    limits = {}
    for path in (os.path.join(ROOT, "bench", "adapters", "limits.tsv"),
                 os.path.join(ROOT, "bench", "rust", "limits.tsv")):
        if os.path.exists(path):
            for row in read_tsv(path):
                limits[(row["library"], row["format"], row["test"])] = row["reason"]
    return limits


def limit_for(limits, prog):
    return limits.get((prog["library"], prog["format"], prog["test"])) or \
        limits.get((prog["library"], prog["format"], "*")) or limits.get((prog["library"], "*", "*"))


def make_verifier(tool, ds, timeout):
    """verify(prog, ready_info, once_path): None if the program's first
    result is right, else (status, message)."""
    def verify(prog, info, once):
        fmt, test = prog["format"], prog["test"]
        unordered = bool(info.get("unordered"))
        ref = (ds["ref_hash_unordered"] if unordered else ds["ref_hash"])[fmt]
        if prog["library"] == "utf8-validate":
            return None  # the bound: its program fails unless every byte is valid
        if info.get("tree_hash") != ref:
            return ("error", "the program's tree differs from the reference (%s, want %s)"
                    % (info.get("tree_hash"), ref))
        if test in ("write", "serialize"):
            rc, out, err = run([tool, "verify"] + (["--unordered"] if unordered else []) +
                               [fmt, ds["spec"], once], timeout=timeout)
            v = rounds.parse_json_line(out.strip().splitlines()[-1] if out.strip() else "") or {}
            if rc != 0 or not v.get("ok"):
                return ("verify failed", v.get("message") or err.strip()[-300:] or
                        "decoded hash %s, want %s" % (v.get("got"), v.get("expected")))
            return None
        with open(once) as f:
            got = f.read().strip()
        if got != ref:
            return ("verify failed", "hash %s, want %s" % (got, ref))
        return None
    return verify


def cells_of(runnable, ds):
    """The cells of one data set: (format, test, programs), every program of
    that format and test (libraries and bounds) that has its input."""
    cells = []
    for fmt in FORMATS:
        if fmt not in ds["files"]:
            continue
        for test in TESTS:
            progs = [p for p in runnable if p["format"] == fmt and p["test"] == test]
            if any(p["library"] not in BOUNDS for p in progs):
                cells.append((fmt, test, progs))
    return cells


# At most this many benchmark processes alive at once (a group of cells
# measured together; each holds its data set, in memory, while it waits).
MAX_PROCESSES = 360


def measure(runnable, datasets, tool, opts_for, limits, only_sdx_cells=False, label=""):
    """Measure every cell of every data set; returns (results, cells). The
    cells are measured in groups (consecutive cells up to MAX_PROCESSES
    processes) whose rounds are interleaved (rounds.measure_cells)."""
    results, cell_info = [], []
    work = [(ds, fmt, test, progs) for ds in datasets for fmt, test, progs in cells_of(runnable, ds)
            if not only_sdx_cells or any(p["library"] == "sdx" for p in progs)]
    sizes = [len(w[3]) * opts_for(w[0], None).instances for w in work]
    target = sum(sizes) / max(1, -(-sum(sizes) // MAX_PROCESSES))  # groups of about equal size
    groups, procs = [], 0
    for w, n in zip(work, sizes):
        if not groups or (procs + n > MAX_PROCESSES or procs >= target - n / 2):
            groups.append([])
            procs = 0
        groups[-1].append(w)
        procs += n
    done = 0
    for group in groups:
        t0 = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            specs = []
            for k, (ds, fmt, test, progs) in enumerate(group):
                def argv_of(p, ds=ds, fmt=fmt):
                    inp = ds["text"].get(fmt) if p["library"] == "utf8-validate" else ds["files"][fmt]
                    return [p["path"], "--tree", ds["spec"], "--input", inp or ds["files"][fmt],
                            "--dataset", ds["id"]]
                for p in progs:
                    p["hash"] = p["library"] != "utf8-validate"
                cell_tmp = os.path.join(tmp, str(k))
                os.makedirs(cell_tmp)
                specs.append((progs, argv_of, opts_for(ds, make_verifier(tool, ds, 300)), cell_tmp))
            opts0 = specs[0][2]
            measured = rounds.measure_cells(specs, opts0.rounds, opts0.seed)
        for (ds, fmt, test, progs), (got, cell) in zip(group, measured):
            done += 1
            cell.update(dataset=ds["id"], format=fmt, test=test)
            cell_info.append(cell)
            oks = 0
            for p in progs:
                r = {"program": p["program"], "library": p["library"], "language": p["language"], "format": fmt,
                     "test": test, "dataset": ds["id"], "bytes": ds["bytes"].get(fmt)}
                r.update(got.get(p["program"], {"status": "error", "message": "not run"}))
                r["bytes"] = ds["bytes"].get(fmt)
                if r["status"] != "ok":
                    reason = limit_for(limits, p)
                    if reason:
                        r["limit"] = reason
                else:
                    oks += 1
                results.append(r)
            log("%s[%d/%d] %-14s %-8s %-12s %2d programs, %d ok, %.1f s timed" % (
                label, done, len(work), ds["id"], fmt, test, len(progs), oks, cell["elapsed_s"]))
        log("%s%d cells measured together in %.0f s" % (label, len(group), time.monotonic() - t0))
    return results, cell_info


def measure_memory(results, datasets, runnable, lib):
    """Add "peak_bytes" to every verified Tree result: the most heap bytes
    live at once while the program parses, walks and frees the document,
    from one more untimed run with libbenchmem.so preloaded
    (harness/memcount.c; the timed runs never have it)."""
    counted = [r for r in results if r["test"] == "tree" and r["status"] == "ok" and r["library"] not in BOUNDS]
    if not counted:
        return
    if not os.path.exists(lib):
        log("memory: %s is missing; not measured" % lib)
        return
    paths = {p["program"]: p["path"] for p in runnable}
    by_id = {ds["id"]: ds for ds in datasets}
    env = dict(os.environ, LD_PRELOAD=lib)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        for r in counted:
            ds = by_id[r["dataset"]]
            rc, out, err = run([paths[r["program"]], "--tree", ds["spec"], "--input", ds["files"][r["format"]],
                                "--dataset", ds["id"], "--once", os.path.join(tmp, "out")], timeout=300, env=env)
            v = rounds.parse_json_line(out.strip().splitlines()[-1] if out.strip() else "") or {}
            if rc == 0 and isinstance(v.get("peak_bytes"), int):
                r["peak_bytes"] = v["peak_bytes"]
            else:
                log("memory: %s on %s: no count (%s)" % (r["program"], ds["id"], err.strip()[-200:] or rc))
    log("memory: %d Tree programs counted in %.0f s" % (len(counted), time.monotonic() - t0))


def tool_version(cmd):
    rc, out, err = run(cmd)
    text = (out or err).strip().splitlines()
    return text[0] if rc == 0 and text else None


def machine_info():
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = None
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    os_name = ""
    try:
        with open("/etc/os-release") as f:
            for line in f:
                if line.startswith("PRETTY_NAME="):
                    os_name = line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": mem, "os": os_name,
            "kernel": platform.release(), "machine": platform.machine()}


def commit_info():
    rc, out, _ = run(["git", "-C", ROOT, "rev-parse", "HEAD"])
    commit = out.strip() if rc == 0 else None
    rc, out, _ = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
    dirty = rc == 0 and bool(out.strip())
    return commit, dirty


def bench_cpu(args):
    """The core the programs are pinned to while timed (the last one this
    process may use), or None (--no-pin, or a single core)."""
    if args.no_pin or not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    return cpus[-1] if len(cpus) >= 2 else None


def load_programs(args):
    if args.no_build:
        programs = read_tsv(os.path.join(args.build, "bench", "programs.tsv"))
        for p in programs:
            p["path"] = os.path.join(args.build, "bench", "programs", p["program"])
            if p["status"] == "built" and not os.path.exists(p["path"]):
                p["status"] = "build failed"
        tool = os.path.join(args.build, "bench", "programs", "bench_tool")
        rust = []
        rtsv = os.path.join(ROOT, "bench", "rust", "programs.tsv")
        if os.path.exists(rtsv) and not args.no_rust:
            for p in read_tsv(rtsv):
                p["path"] = os.path.join(ROOT, "bench", "rust", "target", "release", p["program"])
                if p["status"] in ("built", "rust"):
                    p["status"] = "built" if os.path.exists(p["path"]) else "build failed"
                rust.append(p)
    else:
        log("building the C and C++ programs ...")
        programs, tool = build_c(args.build)
        rust = []
        if not args.no_rust:
            log("building the Rust programs ...")
            rust = build_rust()
    programs += rust
    if args.filter:
        rx = re.compile(args.filter)
        programs = [p for p in programs if rx.search(p["program"]) or p["library"] in ("empty",) + BOUNDS]
    return programs, tool


def measure_python(args, out):
    """bench/python/bench.py (in its own virtualenv): its results, or None
    when it failed (reported, not fatal: the Python libraries come from
    PyPI)."""
    cmd = [sys.executable, os.path.join(ROOT, "bench", "python", "bench.py"), "--out", out]
    if args.quick:
        cmd.append("--quick")
    env = dict(os.environ, SDX_CORPUS=args.corpus or "")
    log("the Python package: " + " ".join(cmd))
    if subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        log("bench/python/bench.py failed; the report has no Python table")
        return None
    with open(os.path.join(out, "results.json")) as f:
        return json.load(f)


def summary_cells(results):
    """{(dataset, format, test): summary} of the sdx cells (sdx against the
    fastest other library: report.versus_fastest_other)."""
    out = {}
    keys = sorted({(r["dataset"], r["format"], r["test"]) for r in results})
    for key in keys:
        s = report.versus_fastest_other([r for r in results if (r["dataset"], r["format"], r["test"]) == key], "sdx")
        if s:
            out[key] = s
    return out


def stability_report(first, second, threshold):
    """Compare the summary cells of two passes: (rows, worst change, failed)."""
    a, b = summary_cells(first), summary_cells(second)
    rows, worst, failed = [], 0.0, False
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if not x or not y:
            rows.append({"cell": "/".join(key), "first": x, "second": y, "change": None, "ok": False})
            failed = True
            continue
        change = stats.relative_change(x["ratio"], y["ratio"])
        ok = change <= threshold
        failed |= not ok
        worst = max(worst, change)
        rows.append({"cell": "/".join(key), "first": x, "second": y, "change": change, "ok": ok})
    return rows, worst, failed


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="smoke run: small data, few short rounds")
    mode.add_argument("--full", action="store_true", help="all sizes 1-5, the extended set and the corpus")
    ap.add_argument("--rounds", type=int, help="rounds per cell (default 31; quick 5; full 61)")
    ap.add_argument("--round-ms", type=float, help="milliseconds of one program's turn (default 10; quick 3; full 20)")
    ap.add_argument("--clock", choices=["cpu", "wall"], default="cpu",
                    help="the thread's CPU time (default) or the wall clock")
    ap.add_argument("--instances", type=int,
                    help="processes per program, used in turn from round to round (default 3; quick 1)")
    ap.add_argument("--no-pin", action="store_true", help="do not pin the programs to one core")
    ap.add_argument("--filter", help="only programs whose name matches this regular expression")
    ap.add_argument("--datasets", help="only these data set ids, comma-separated (gen2,gen4,ext3,twitter,...)")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    ap.add_argument("--corpus", default=os.environ.get("SDX_CORPUS"),
                    help="corpus directory (default ../shared/corpus, else the bundled tests/corpus)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "bench"), help="build directory")
    ap.add_argument("--out", help="results directory (default BUILD/results)")
    ap.add_argument("--record", action="store_true", help="also write the report to bench/results/ and history")
    ap.add_argument("--no-build", action="store_true", help="use the programs already built")
    ap.add_argument("--no-rust", action="store_true", help="leave out the Rust runner")
    ap.add_argument("--stability", action="store_true",
                    help="measure the sdx cells twice and fail if a ratio moves more than --threshold")
    ap.add_argument("--threshold", type=float, default=0.10, help="--stability's limit (default 0.10)")
    ap.add_argument("--python", action="store_true",
                    help="also measure the Python package against the Python libraries (bench/python/bench.py) "
                         "and add its table to the report")
    args = ap.parse_args()
    n_rounds = args.rounds or (5 if args.quick and not args.stability else 61 if args.full else 31)
    round_ms = args.round_ms or (3.0 if args.quick and not args.stability else 20.0 if args.full else 10.0)
    instances = args.instances or (1 if args.quick and not args.stability else 3)
    out_dir = args.out or os.path.join(args.build, "results")
    started = time.time()

    programs, tool = load_programs(args)
    for p in programs:
        if p["status"] == "built":
            p["size"] = stripped_size(p["path"])
    if not args.corpus:
        args.corpus = default_corpus(args.build)
    datasets = datasets_for(args)
    formats = [f for f in FORMATS if any(p["format"] == f and p["library"] not in BOUNDS for p in programs)]
    log("making the data: %d data sets x %d formats ..." % (len(datasets), len(formats)))
    make_data(tool, os.path.join(args.build, "data"), datasets, formats)

    runnable = [p for p in programs if p["status"] == "built" and p["format"] in formats]
    cpu = bench_cpu(args)
    limits = load_limits()

    def opts_for(ds, verify, seed_offset=0):
        return rounds.Options(rounds=n_rounds, round_ms=round_ms, hash_share=0.2, clock=args.clock, cpu=cpu,
                              seed=args.seed * 7919 + seed_offset + len(ds["id"]), verify=verify,
                              timeout=300, instances=instances)

    settings = {"mode": "quick" if args.quick else "full" if args.full else "default", "rounds": n_rounds,
                "round_ms": round_ms, "instances": instances, "clock": args.clock, "pinned_cpu": cpu, "seed": args.seed,
                "filter": args.filter, "datasets": args.datasets}
    commit, dirty = commit_info()
    doc_base = {
        "suite": "sdx schemaless benchmark",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit, "dirty": dirty, "machine": machine_info(),
        "compilers": {"cc": tool_version(["cc", "--version"]), "c++": tool_version(["c++", "--version"]),
                      "rustc": tool_version(["rustc", "--version"]), "cargo": tool_version(["cargo", "--version"])},
        "settings": settings,
        "datasets": [{k: ds.get(k) for k in ("id", "name", "spec", "source", "bytes", "ref_hash", "info",
                                               "extended")} for ds in datasets],
        "programs": [{k: p.get(k) for k in ("program", "library", "format", "test", "language", "status", "size",
                                            "version", "origin")} for p in programs],
    }

    if args.stability:
        passes = []
        for i in (1, 2):
            log("stability: pass %d of 2 ..." % i)
            res, _ = measure(runnable, datasets, tool, lambda ds, v, i=i: opts_for(ds, v, i), limits,
                             only_sdx_cells=True, label="pass %d " % i)
            passes.append(res)
        rows, worst, failed = stability_report(passes[0], passes[1], args.threshold)
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "stability.json"), "w") as f:
            json.dump(dict(doc_base, threshold=args.threshold, rows=rows, worst_change=worst,
                           passes=passes, elapsed_s=round(time.time() - started, 1)), f, indent=1)
        print(report.stability_text(rows, worst, args.threshold))
        log("stability: %s (%.0f s)" % ("FAILED" if failed else "ok", time.time() - started))
        return 1 if failed else 0

    results, cells = measure(runnable, datasets, tool, opts_for, limits)
    measure_memory(results, datasets, runnable, os.path.join(args.build, "bench", "programs", "libbenchmem.so"))
    doc = dict(doc_base, results=results, cells=cells, elapsed_s=round(time.time() - started, 1))
    doc["summary"] = [dict(dataset=k[0], format=k[1], test=k[2], **v) for k, v in summary_cells(results).items()]
    if args.python:
        doc["python"] = measure_python(args, os.path.join(out_dir, "python"))
    report.write_all(doc, out_dir)
    if args.record:
        rec = os.path.join(ROOT, "bench", "results")
        report.append_history(doc, os.path.join(rec, "history.json"))
        report.write_all(doc, rec)
    print(report.text_tables(doc))
    log("results: %s (%.0f s)" % (out_dir, time.time() - started))
    failures = [r for r in results if r["status"] != "ok" and r["library"] in ("sdx",) + BOUNDS]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
