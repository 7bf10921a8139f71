#!/usr/bin/env python3
"""The sdx benchmark suite: build every program, make the data, verify every
result, time what verified, report.

    python3 bench/run.py [--quick | --full] [--filter REGEX] [--out DIR]
                         [--budget SECONDS] [--runs N] [--record]

Default: generated data of sizes 2 (small) and 4 (large) plus the corpus
documents, every format, every library; about ten minutes on two cores.
--quick: the small data set with short budgets (seconds, a smoke test).
--full: sizes 1 to 5 and the corpus with longer budgets.
--record: also write the report into bench/results/ (to commit it).

Every program is first run once (--once) and its result verified: a parse
test's hash must equal the reference hash of the data, a write test's output
must decode with the harness's reference decoder to that hash. Only then is
it timed. See bench/README.md for the methodology.
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

FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson", "binn"]
TESTS = ["write", "tree", "incremental", "serialize"]


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
        sizes = [2]
    elif args.full:
        sizes = [1, 2, 3, 4, 5]
    else:
        sizes = [2, 4]
    names = {1: "tiny", 2: "small", 3: "medium", 4: "large", 5: "huge"}
    sets = [{"name": "%s (gen:%d)" % (names[s], s), "id": "gen%d" % s, "spec": "gen:%d:%d" % (s, args.seed)}
            for s in sizes]
    if not args.quick:
        for doc in ["twitter", "citm_catalog", "canada"]:
            path = os.path.join(corpus, doc + ".json")
            if os.path.exists(path):
                sets.append({"name": doc, "id": doc, "spec": "json:" + path})
            else:
                log("corpus document missing: " + path)
    return sets


def make_data(tool, data_dir, datasets, formats):
    os.makedirs(data_dir, exist_ok=True)
    for ds in datasets:
        ds["files"], ds["ref_hash"], ds["bytes"] = {}, {}, {}
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
            rc, out, err = run([tool, "hash", fmt, ds["spec"]])
            if rc != 0:
                log("cannot hash %s for %s: %s" % (ds["id"], fmt, err.strip()))
                continue
            ds["files"][fmt] = path
            ds["ref_hash"][fmt] = out.strip()
            ds["bytes"][fmt] = os.path.getsize(path)
        rc, out, err = run([tool, "info", ds["spec"]])
        ds["info"] = out.strip() if rc == 0 else ""


# --------------------------------------------------------------------------
# Running
# --------------------------------------------------------------------------

def parse_json_line(text):
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                return json.loads(line)
            except ValueError:
                pass
    return None


def run_one(prog, ds, tool, budget, runs, tmp_dir):
    """Verify, then time one program on one data set. Returns a result dict."""
    fmt, test = prog["format"], prog["test"]
    res = {"program": prog["program"], "library": prog["library"], "language": prog["language"],
           "format": fmt, "test": test, "dataset": ds["id"], "bytes": ds["bytes"].get(fmt)}
    if fmt not in ds["files"]:
        res.update(status="no data", message="the data set has no %s encoding" % fmt)
        return res
    base = [prog["path"], "--tree", ds["spec"], "--dataset", ds["id"]]
    if test != "write":
        base += ["--input", ds["files"][fmt]]
    once = os.path.join(tmp_dir, "once.out")
    timeout = 120 + budget * 4
    rc, out, err = run(base + ["--once", once], timeout=timeout)
    info = parse_json_line(out)
    if rc != 0 or not info or info.get("status") != "ok":
        msg = (info or {}).get("message") or err.strip()[-300:] or "exit status %d" % rc
        res.update(status="error", message=msg)
        return res
    ref = ds["ref_hash"][fmt]
    if info.get("tree_hash") != ref:
        res.update(status="error", message="the program's tree differs from the reference (%s, want %s)"
                   % (info.get("tree_hash"), ref))
        return res
    if test in ("write", "serialize"):
        rc, out, err = run([tool, "verify", fmt, ds["spec"], once], timeout=timeout)
        v = parse_json_line(out) or {}
        if rc != 0 or not v.get("ok"):
            res.update(status="verify failed", message=v.get("message") or err.strip()[-300:]
                       or "decoded hash %s, want %s" % (v.get("got"), v.get("expected")))
            return res
        res["output_bytes"] = os.path.getsize(once)
        verified_hash = info.get("result_hash")
    else:
        with open(once) as f:
            got = f.read().strip()
        if got != ref:
            res.update(status="verify failed", message="hash %s, want %s" % (got, ref))
            return res
        verified_hash = got
    rc, out, err = run(base + ["--rounds", str(runs), "--round-ms", str(1000.0 * budget / runs)], timeout=timeout)
    t = parse_json_line(out)
    if rc != 0 or not t or t.get("status") != "ok":
        res.update(status="error", message=(t or {}).get("message") or err.strip()[-300:])
        return res
    if t.get("result_hash") != verified_hash:
        res.update(status="error", message="timed runs gave another result than the verified run")
        return res
    rounds = t["rounds_ns"]
    res.update(status="ok", time_ns=t["median_ns"], min_ns=t["min_ns"], max_ns=max(rounds),
               hash_ns=t["hash_ns"], iterations=t["iterations"], runs=len(rounds))
    return res


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true", help="smoke run: small data, short budgets")
    mode.add_argument("--full", action="store_true", help="all sizes 1-5 and the corpus, long budgets")
    ap.add_argument("--budget", type=float, help="seconds per test (default 0.6; quick 0.03; full 2)")
    ap.add_argument("--runs", type=int, help="runs per test (default 5; quick 3; full 9)")
    ap.add_argument("--filter", help="only programs whose name matches this regular expression")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    ap.add_argument("--corpus", default=os.environ.get("SDX_CORPUS"),
                    help="corpus directory (default ../shared/corpus, else the bundled tests/corpus)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build", "bench"), help="build directory")
    ap.add_argument("--out", help="results directory (default BUILD/results)")
    ap.add_argument("--record", action="store_true", help="also write the report to bench/results/")
    ap.add_argument("--no-build", action="store_true", help="use the programs already built")
    ap.add_argument("--no-rust", action="store_true", help="leave out the Rust runner")
    args = ap.parse_args()
    budget = args.budget or (0.03 if args.quick else 2.0 if args.full else 0.6)
    runs = args.runs or (3 if args.quick else 9 if args.full else 5)
    out_dir = args.out or os.path.join(args.build, "results")
    started = time.time()

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
        programs = [p for p in programs if rx.search(p["program"]) or p["library"] in ("empty",)]

    for p in programs:
        if p["status"] == "built":
            p["size"] = stripped_size(p["path"])

    if not args.corpus:
        args.corpus = default_corpus(args.build)
    datasets = datasets_for(args)
    formats = [f for f in FORMATS if any(p["format"] == f for p in programs)]
    log("making the data: %d data sets x %d formats ..." % (len(datasets), len(formats)))
    make_data(tool, os.path.join(args.build, "data"), datasets, formats)

    runnable = [p for p in programs if p["status"] == "built" and p["format"] in FORMATS]
    results = []
    total = len(runnable) * len(datasets)
    n = 0
    with tempfile.TemporaryDirectory() as tmp_dir:
        for ds in datasets:
            for p in runnable:
                n += 1
                r = run_one(p, ds, tool, budget, runs, tmp_dir)
                results.append(r)
                if r["status"] == "ok":
                    note = "%.1f us" % (r["time_ns"] / 1000)
                else:
                    note = "%s: %s" % (r["status"], r.get("message", ""))
                log("[%d/%d] %-32s %-14s %s" % (n, total, p["program"], ds["id"], note))

    commit, dirty = commit_info()
    doc = {
        "suite": "sdx schemaless benchmark",
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "commit": commit,
        "dirty": dirty,
        "machine": machine_info(),
        "compilers": {"cc": tool_version(["cc", "--version"]), "c++": tool_version(["c++", "--version"]),
                      "rustc": tool_version(["rustc", "--version"]), "cargo": tool_version(["cargo", "--version"])},
        "settings": {"mode": "quick" if args.quick else "full" if args.full else "default",
                     "budget_s": budget, "runs": runs, "seed": args.seed, "filter": args.filter},
        "datasets": [{k: ds.get(k) for k in ("id", "name", "spec", "source", "bytes", "ref_hash", "info")}
                     for ds in datasets],
        "programs": [{k: p.get(k) for k in ("program", "library", "format", "test", "language", "status", "size")}
                     for p in programs],
        "results": results,
        "elapsed_s": round(time.time() - started, 1),
    }
    report.write_all(doc, out_dir)
    if args.record:
        report.write_all(doc, os.path.join(ROOT, "bench", "results"))
    print(report.text_tables(doc))
    log("results: %s (%.0f s)" % (out_dir, time.time() - started))
    failures = [r for r in results if r["status"] != "ok" and r["library"] == "sdx"]
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
