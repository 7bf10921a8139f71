#!/usr/bin/env python3
"""Differential test of sdx's UBJSON writer and readers against Python's
py-ubjson (--dialect ubjson), and of the BJData dialect against Python's
bjdata (NeuroJSON's pybj; --dialect bjdata), on random documents (null, bool, integers of every size class
including beyond 64 bits, doubles from random bits, Unicode strings of
every length class, bytes, nested arrays and objects).

For every document:
  1. py-ubjson encodes it (plain containers, or counted ones with
     container_count=True); sdx reads those bytes (memory reader, FILE*
     reader and parser, which ubj_tool checks agree) to JSON, which must be
     the document (bytes as base64, doubles to the bit, integers exact, H
     numbers as their integers);
  2. sdx writes the document's JSON text (without bytes) as UBJSON;
     py-ubjson decodes it to the document;
  3. those bytes equal py-ubjson's own encoding of the document (plain
     containers, float64, the smallest integer types): both writers make
     the same choices.
BJData also: numpy N-dimensional arrays of every element type, encoded by
bjdata as optimized N-dimensional arrays, read by sdx as nested arrays
equal to the array's tolist() (float32 elements compared as float32).

usage: differential.py --tool UBJ_TOOL --work DIR [--dialect ubjson|bjdata]
                       [--count N] [--seed S]
                       [--requirements FILE] [--venv DIR]
"""

import argparse
import json
import math
import os
import random
import struct
import sys
from decimal import Decimal


HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyvenv  # noqa: E402
import tally  # noqa: E402
import ubj_common  # noqa: E402
from ubj_common import run  # noqa: E402

check = tally.check


def die(msg):
    print("differential: " + msg, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)


# ---- random documents ---------------------------------------------------------


def rand_int(rng):
    k = rng.randrange(10)
    if k < 3:
        return rng.randrange(-300, 300)
    if k < 8:
        bits = rng.choice([7, 8, 15, 16, 31, 32, 62, 63])
        return rng.randrange(-(1 << bits), 1 << bits)
    if k < 9:
        return rng.randrange(1 << 63, 1 << 64)  # beyond int64: H in UBJSON
    return rng.choice([-1, 1]) * rng.randrange(1 << 64, 1 << 100)


def rand_double(rng):
    while True:
        d = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(d):
            return rng.choice([d, d, 0.5, -0.0, 1e300, float(rng.randrange(-1000, 1000)) / 8])


def rand_str(rng):
    n = rng.choice([0, 1, 1, 2, 5, 20, 200, 300])
    alphabet = "abcxyz 09\"\\/\n\t\u00e9\u00ff\u0100\u20ac\U0001F600\u4e2d"
    return "".join(rng.choice(alphabet) for _ in range(n))


def rand_value(rng, depth, with_bytes):
    k = rng.randrange(12 if depth < 4 else 8)
    if k == 0:
        return None
    if k == 1:
        return rng.choice([True, False])
    if k in (2, 3):
        return rand_int(rng)
    if k == 4:
        return rand_double(rng)
    if k in (5, 6):
        return rand_str(rng)
    if k == 7:
        if with_bytes:
            return bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 3, 300])))
        return rand_str(rng)
    n = rng.choice([0, 1, 2, 5, 20])
    if k in (8, 9):
        return [rand_value(rng, depth + 1, with_bytes) for _ in range(n)]
    return {rand_str(rng): rand_value(rng, depth + 1, with_bytes) for _ in range(n)}


# ---- comparison ---------------------------------------------------------------


def number(v):
    """Doubles by their bits, integers (and integral Decimals from H) as
    ints."""
    if isinstance(v, int):
        return ("i", v)
    if isinstance(v, Decimal):
        return ("i", int(v)) if v == v.to_integral_value() else ("dec", str(v))
    return ("f", struct.pack("<d", v))


def norm(v):
    """A form of a value in which equal documents compare equal (ubj_common.norm)."""
    return ubj_common.norm(v, number)


def has_zero_double(v):
    if isinstance(v, float):
        return v == 0
    if isinstance(v, list):
        return any(has_zero_double(x) for x in v)
    if isinstance(v, dict):
        return any(has_zero_double(x) for x in v.values())
    return False


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--requirements", default=os.path.join(HERE, "requirements.txt"))
    ap.add_argument("--venv", default="")
    ap.add_argument("--dialect", choices=["ubjson", "bjdata"], default="ubjson")
    args = ap.parse_args()
    pyvenv.reexec_in_venv(args.venv, args.requirements, __file__, die)
    bj = args.dialect == "bjdata"
    try:
        if bj:
            import bjdata as ubjson
            import numpy
        else:
            import ubjson
    except ImportError:
        die("%s is not installed (give --venv DIR to install it there)" % ("bjdata" if bj else "py-ubjson"))
    flag = ["--bjdata"] if bj else []

    os.makedirs(args.work, exist_ok=True)
    rng = random.Random(args.seed)
    ubj_in = os.path.join(args.work, "in.ubj")
    json_out = os.path.join(args.work, "out.json")
    json_in = os.path.join(args.work, "in.json")
    ubj_out = os.path.join(args.work, "out.ubj")
    same_bytes = 0
    for i in range(args.count):
        doc = rand_value(rng, 0, True)
        # 1. py-ubjson -> sdx
        counted = i % 2 == 1
        with open(ubj_in, "wb") as f:
            f.write(ubjson.dumpb(doc, container_count=counted))
        rc, err = run(args.tool, "to-json", *flag, ubj_in, json_out)
        if check(rc == 0, "doc %d: sdx rejects py-ubjson's bytes: %s" % (i, err.strip())):
            with open(json_out, "rb") as f:
                got = json.loads(f.read().decode(), parse_float=float)
            check(norm(got) == norm(doc), "doc %d: py-ubjson -> sdx: %r != %r" % (i, got, doc))
        # 2. sdx -> py-ubjson (JSON has no bytes: a document without them)
        doc = rand_value(rng, 0, False)
        with open(json_in, "w") as f:
            f.write(json.dumps(doc, ensure_ascii=rng.choice([True, False])))
        rc, err = run(args.tool, "from-json", *flag, json_in, ubj_out)
        if not check(rc == 0, "doc %d: sdx cannot write %r: %s" % (i, doc, err.strip())):
            continue
        with open(ubj_out, "rb") as f:
            mine = f.read()
        try:
            back = ubjson.loadb(mine)
        except Exception as e:  # noqa: BLE001 - any decoder error is a failure
            check(False, "doc %d: py-ubjson rejects sdx's bytes %r: %s" % (i, mine[:80], e))
            continue
        check(norm(back) == norm(doc), "doc %d: sdx -> py-ubjson: %r != %r" % (i, back, doc))
        # 3. the same bytes as py-ubjson's, except for a document with a
        # zero double, which py-ubjson writes as float32 and sdx as float64
        # (sdx writes float32 only when asked to)
        if has_zero_double(doc):
            continue
        theirs = ubjson.dumpb(doc)
        at = next((k for k in range(min(len(mine), len(theirs))) if mine[k] != theirs[k]),
                  min(len(mine), len(theirs)))
        if check(mine == theirs, "doc %d: bytes differ at %d:\n  sdx       %r\n  py-ubjson %r"
                 % (i, at, mine[max(0, at - 20):at + 40], theirs[max(0, at - 20):at + 40])):
            same_bytes += 1
    if bj:
        nd_arrays(args, rng, ubjson, numpy, ubj_in, json_out)
    print("documents: %d, byte-identical encodings: %d" % (args.count, same_bytes))
    return tally.finish("%s_differential" % args.dialect)


def nd_arrays(args, rng, bjdata, numpy, ubj_in, json_out):
    """numpy arrays of 1 to 3 dimensions (some of them 0), every element
    type, encoded by bjdata as N-dimensional arrays."""
    types = ["uint8", "int8", "uint16", "int16", "uint32", "int32", "uint64", "int64", "float32",
             "float64"]
    for i in range(max(20, args.count // 10)):
        dtype = rng.choice(types)
        shape = tuple(rng.choice([0, 1, 2, 3, 4]) for _ in range(rng.randrange(1, 4)))
        n = 1
        for d in shape:
            n *= d
        raw = bytes(rng.getrandbits(8) for _ in range(n * numpy.dtype(dtype).itemsize))
        arr = numpy.frombuffer(raw, dtype=dtype).reshape(shape)
        if dtype.startswith("float"):
            arr = numpy.where(numpy.isfinite(arr), arr, 0).astype(dtype)
        with open(ubj_in, "wb") as f:
            f.write(bjdata.dumpb(arr))
        rc, err = run(args.tool, "to-json", "--bjdata", ubj_in, json_out)
        if not check(rc == 0, "array %d (%s %r): sdx rejects it: %s" % (i, dtype, shape, err.strip())):
            continue
        with open(json_out, "rb") as f:
            got = json.loads(f.read().decode())
        want = arr.tolist()
        if dtype == "float32":
            got = numpy.array(got, dtype="float32").tolist() if n else got
        check(norm(got) == norm(want), "array %d (%s %r): %r != %r" % (i, dtype, shape, got, want))


if __name__ == "__main__":
    sys.exit(main())
