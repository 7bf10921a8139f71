#!/usr/bin/env python3
"""Differential test of the benchmark's reference codecs (bench_tool) against
independent implementations: Python's json, msgpack, cbor2, bson (pymongo)
and py-ubjson. Binn has no Python library; its codec is tested against the
spec's examples in test_vectors.c.

For every tree (gen:1..3, the extended data gen:2:1:extended and
gen:3:1:extended, and the corpus documents) and format:
  1. bench_tool encodes; the Python library decodes; the value hash of what
     it decoded (sbh.py, ported from SPEC.md) must equal `bench_tool hash`.
  2. the Python library encodes the tree (loaded from bench_tool's JSON
     encoding, adapted to the format as bt_adapt does: sbh.adapt);
     `bench_tool decode-hash` of those bytes must equal `bench_tool hash`
     for lossless encoder settings, and the hash of what the Python library
     itself decodes from the same bytes for settings that reorder or round
     (canonical CBOR sorts keys, float32 rounds).

usage: differential.py --tool BENCH_TOOL --work DIR [--corpus DIR]
                       [--requirements FILE] [--venv DIR]

Without --venv the script runs with the current interpreter (which must
have the packages). With --venv it creates that virtualenv if needed
(python3 -m venv: Debian's python3-venv), installs requirements.txt into
it with pip from PyPI, and runs itself there.
"""

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import pyvenv  # noqa: E402
import sbh  # noqa: E402

TREES = ["gen:1", "gen:2", "gen:3", "gen:2:1:extended", "gen:3:1:extended"]
CORPUS = ["twitter.json", "citm_catalog.json", "canada.json"]


def die(msg):
    print("differential: " + msg, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)


# ---- bench_tool ------------------------------------------------------------


class Tool:
    def __init__(self, path, work):
        self.path = path
        self.work = work
        self.hashes = {}

    def run(self, *args):
        r = subprocess.run([self.path] + list(args), capture_output=True)
        return r.returncode, r.stdout.decode("utf-8", "replace").strip(), r.stderr.decode("utf-8", "replace").strip()

    def hash(self, fmt, spec):
        key = (fmt, spec)
        if key not in self.hashes:
            rc, out, err = self.run("hash", fmt, spec)
            if rc != 0:
                raise RuntimeError("bench_tool hash %s %s: %s" % (fmt, spec, err))
            self.hashes[key] = int(out, 16)
        return self.hashes[key]

    def encode(self, fmt, spec):
        out = os.path.join(self.work, "ref." + fmt)
        rc, _, err = self.run("encode", fmt, spec, out)
        if rc != 0:
            raise RuntimeError("bench_tool encode %s %s: %s" % (fmt, spec, err))
        with open(out, "rb") as f:
            return f.read()

    def decode_hash(self, fmt, data):
        path = os.path.join(self.work, "py." + fmt)
        with open(path, "wb") as f:
            f.write(data)
        rc, out, err = self.run("decode-hash", fmt, path)
        if rc != 0:
            return None, err
        return int(out, 16), ""


# ---- Python's side ---------------------------------------------------------

INT_MIN, UINT_MAX = -(1 << 63), (1 << 64) - 1


def json_int(text):
    """An integer of the JSON text as the reference decoder reads it: exact
    within int64/uint64, else the correctly rounded double."""
    v = int(text)
    return v if INT_MIN <= v <= UINT_MAX else float(text)


def high_precision(v):
    """A value py-ubjson decoded with its high-precision numbers (H, which
    it writes for doubles below 2.23e-308: subnormals and the smallest normal
    ones) as decimal.Decimal, turned into what the reference decoder makes of
    H: the number of its text by the JSON rules."""
    from decimal import Decimal

    if isinstance(v, Decimal):
        text = str(v)
        return float(text) if any(c in text for c in ".eE") else json_int(text)
    if isinstance(v, sbh.Pairs):
        return sbh.Pairs((k, high_precision(x)) for k, x in v)
    if isinstance(v, dict):
        return {k: high_precision(x) for k, x in v.items()}
    if isinstance(v, list):
        return [high_precision(x) for x in v]
    return v


def json_constant(name):
    raise ValueError("not JSON: " + name)


def load_json(data):
    import json

    return json.loads(data.decode("utf-8"), object_pairs_hook=sbh.Pairs, parse_int=json_int,
                      parse_constant=json_constant)


def plain(v):
    """Pairs -> dict (in order) for the encoders; keys must be unique."""
    if isinstance(v, sbh.Pairs):
        d = {k: plain(x) for k, x in v}
        if len(d) != len(v):
            raise ValueError("duplicate keys")
        return d
    if isinstance(v, list):
        return [plain(x) for x in v]
    return v


def decoders():
    import bson
    import cbor2
    import msgpack
    import ubjson

    return {
        "json": load_json,
        "msgpack": lambda b: msgpack.unpackb(b, raw=False, strict_map_key=False, object_pairs_hook=sbh.Pairs),
        "cbor": lambda b: cbor2.loads(b),
        "bson": lambda b: bson.decode(b),
        "ubjson": lambda b: high_precision(ubjson.loadb(b, object_pairs_hook=sbh.Pairs)),
    }


def encoders():
    """(format, variant name, encode(value) -> bytes, lossless)."""
    import json

    import bson
    import cbor2
    import msgpack
    import ubjson

    return [
        ("json", "json.dumps", lambda v: json.dumps(v, allow_nan=False).encode(), True),
        ("json", "json.dumps(indent=1, ensure_ascii=False)",
         lambda v: json.dumps(v, indent=1, ensure_ascii=False, allow_nan=False).encode("utf-8"), True),
        ("msgpack", "msgpack.packb", lambda v: msgpack.packb(v, use_bin_type=True), True),
        ("msgpack", "msgpack.packb(use_single_float)",
         lambda v: msgpack.packb(v, use_bin_type=True, use_single_float=True), False),
        ("cbor", "cbor2.dumps", lambda v: cbor2.dumps(v), True),
        ("cbor", "cbor2.dumps(indefinite_containers)", lambda v: cbor2.dumps(v, indefinite_containers=True), True),
        ("cbor", "cbor2.dumps(canonical)", lambda v: cbor2.dumps(v, canonical=True), False),
        ("bson", "bson.encode", lambda v: bson.encode(v), True),
        ("ubjson", "ubjson.dumpb", lambda v: ubjson.dumpb(v), True),
        ("ubjson", "ubjson.dumpb(container_count)", lambda v: ubjson.dumpb(v, container_count=True), True),
        ("ubjson", "ubjson.dumpb(no_float32=False)", lambda v: ubjson.dumpb(v, no_float32=False), False),
    ]


FORMATS = ["json", "msgpack", "cbor", "bson", "ubjson"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus")
    ap.add_argument("--requirements", default=os.path.join(HERE, "requirements.txt"))
    ap.add_argument("--venv")
    args = ap.parse_args()

    pyvenv.reexec_in_venv(args.venv, args.requirements, __file__, die)

    try:
        dec = decoders()
        encs = encoders()
    except ImportError as e:
        die("missing Python package (%s); run with --venv DIR to install %s" % (e, args.requirements))

    os.makedirs(args.work, exist_ok=True)
    tool = Tool(os.path.abspath(args.tool), args.work)
    specs = list(TREES)
    if args.corpus and os.path.isdir(args.corpus):
        specs += ["json:" + os.path.join(args.corpus, name) for name in CORPUS]
    else:
        print("SKIP corpus documents: directory %r not found" % args.corpus)

    passed = failed = 0

    def result(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL %s %s" % (what, detail))

    for spec in specs:
        name = spec if spec.startswith("gen:") else os.path.basename(spec)
        tree = load_json(tool.encode("json", spec))  # the unadapted tree, ints and doubles kept apart
        for fmt in FORMATS:
            want = tool.hash(fmt, spec)
            # our encoder, their decoder
            data = tool.encode(fmt, spec)
            try:
                got = sbh.value_hash(dec[fmt](data))
                result(got == want, "%s %s: ref encode -> python decode" % (name, fmt),
                       "hash %016x, want %016x" % (got, want))
            except Exception as e:  # a library rejecting our bytes is a failure too
                result(False, "%s %s: python cannot decode the reference encoding:" % (name, fmt), repr(e)[:300])
            # the Python tree itself, as a check of this script
            adapted = sbh.adapt(fmt, tree)
            result(sbh.value_hash(adapted) == want, "%s %s: python tree" % (name, fmt), "differs from the C tree")
            # their encoder, our decoder
            for efmt, variant, encode, lossless in encs:
                if efmt != fmt:
                    continue
                try:
                    theirs = encode(plain(adapted))
                except Exception as e:
                    # a rounding setting may refuse what it cannot round:
                    # float32 has no DBL_MAX (the extended data)
                    if not lossless and isinstance(e, OverflowError):
                        print("SKIP %s %s: %s: %r" % (name, fmt, variant, e))
                    else:
                        result(False, "%s %s: %s failed:" % (name, fmt, variant), repr(e)[:300])
                    continue
                expect = want if lossless else sbh.value_hash(dec[fmt](theirs))
                got, err = tool.decode_hash(fmt, theirs)
                result(got == expect, "%s %s: %s -> ref decode" % (name, fmt, variant),
                       err or "hash %016x, want %016x" % (got, expect))
        print("%-18s done" % name)
        sys.stdout.flush()

    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
