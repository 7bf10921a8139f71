#!/usr/bin/env python3
"""sdx's MongoDB Extended JSON (the mapping layer, through ejson_tool)
against pymongo's bson package, on random documents with every type pymongo
writes (double, string, document, array, binary of every subtype, ObjectId,
boolean, datetime of any range, null, regex, code, code with scope, int32,
timestamp, int64, decimal128, min and max key, DBRef documents).

For each document D (pymongo's bytes B = bson.encode(D)):
  1. sdx: B -> canonical Extended JSON  == pymongo's canonical dumps
  2. sdx: B -> relaxed Extended JSON    == pymongo's relaxed dumps
  3. sdx: pymongo's canonical JSON -> BSON == B
  4. pymongo: sdx's canonical JSON -> BSON == B
  5. sdx: pymongo's relaxed JSON -> BSON == pymongo's own loads+encode
JSON is compared parsed (key order kept; doubles by value, the strings of
"$numberDouble" too), as the corpus README asks.

Usage: ejson_differential.py EJSON_TOOL [--count N] [--seed S] [--venv DIR]
Exit status: 0 all passed, 1 a failure, 77 skipped (pymongo cannot be had:
no venv, pip or network, or missing without --venv).
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyvenv  # noqa: E402

EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()
EXIT_SKIP = 77


def skip(msg):
    print("ejson_differential: skipped: " + msg, file=sys.stderr)
    sys.exit(EXIT_SKIP)


# ---- random documents ------------------------------------------------------


def rand_str(rng, n=8):
    pool = "abcxyz \"\\/\n\t\0\u00e9\u20ac\U0001f600."
    return "".join(rng.choice(pool) for _ in range(rng.randint(0, n)))


def rand_key(rng, used):
    while True:
        k = "".join(rng.choice("abcdefgh_.\u00e9") for _ in range(rng.randint(1, 6)))
        if k not in used:
            used.add(k)
            return k


def rand_double(rng):
    r = rng.random()
    if r < 0.1:
        return rng.choice([0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1.0, -1.5, 5e-324,
                           1.7976931348623157e308, 1e21, 1e-7, 123456789012345680000.0])
    if r < 0.5:
        return rng.uniform(-1e6, 1e6)
    import struct
    while True:
        d = struct.unpack("<d", rng.getrandbits(64).to_bytes(8, "little"))[0]
        if not math.isnan(d):  # NaN payloads are lossy in Extended JSON
            return d


def rand_decimal(rng, bson):
    r = rng.random()
    if r < 0.15:
        return bson.Decimal128(rng.choice(["NaN", "Infinity", "-Infinity", "0", "-0", "0E+10", "-15E-6176",
                                            "9.999999999999999999999999999999999E+6144"]))
    digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 34)))
    exp = rng.randint(-6176, 6111)
    sign = rng.choice(["", "-"])
    return bson.Decimal128("%s%sE%d" % (sign, digits, exp))


def rand_value(rng, bson, depth):
    kinds = ["double", "string", "int32", "int64", "bool", "null", "oid", "binary", "date", "regex", "code",
             "timestamp", "decimal", "minkey", "maxkey"]
    if depth < 3:
        kinds += ["doc", "array", "codews", "dbref"]
    k = rng.choice(kinds)
    if k == "double":
        return rand_double(rng)
    if k == "string":
        return rand_str(rng)
    if k == "int32":
        return rng.choice([0, -1, 1, 2**31 - 1, -2**31, rng.randint(-2**31, 2**31 - 1)])
    if k == "int64":
        v = rng.choice([0, 1, -1, 2**63 - 1, -2**63, rng.randint(-2**63, 2**63 - 1)])
        return bson.Int64(v)
    if k == "bool":
        return rng.random() < 0.5
    if k == "null":
        return None
    if k == "oid":
        return bson.ObjectId(bytes(rng.getrandbits(8) for _ in range(12)))
    if k == "binary":
        st = rng.choice([0, 1, 2, 3, 4, 5, 6, 7, 8, 0x80, 0x9a, 0xff])
        n = 16 if st in (3, 4) else rng.randint(0, 20)
        return bson.Binary(bytes(rng.getrandbits(8) for _ in range(n)), st)
    if k == "date":
        ms = rng.choice([0, -1, 253402300799999, 253402300800000, -62135596800000,
                         rng.randint(0, 253402300799999), rng.randint(-2**62, 2**62)])
        return bson.DatetimeMS(ms)
    if k == "regex":
        flags = "".join(f for f in "ilmsux" if rng.random() < 0.3)
        return bson.Regex(rand_str(rng).replace("\0", ""), flags)
    if k == "code":
        return bson.Code(rand_str(rng))
    if k == "codews":
        return bson.Code(rand_str(rng), rand_doc(rng, bson, depth + 1))
    if k == "timestamp":
        return bson.Timestamp(rng.getrandbits(32), rng.getrandbits(32))
    if k == "decimal":
        return rand_decimal(rng, bson)
    if k == "minkey":
        return bson.MinKey()
    if k == "maxkey":
        return bson.MaxKey()
    if k == "doc":
        return rand_doc(rng, bson, depth + 1)
    if k == "array":
        return [rand_value(rng, bson, depth + 1) for _ in range(rng.randint(0, 4))]
    # dbref: a document {"$ref", "$id"[, "$db"]}, no wrapper
    from bson.dbref import DBRef
    return DBRef(rand_str(rng).replace("\0", "") or "c", bson.ObjectId(bytes(12)),
                 *(["db"] if rng.random() < 0.5 else []))


def rand_doc(rng, bson, depth=0):
    used = set()
    return {rand_key(rng, used): rand_value(rng, bson, depth) for _ in range(rng.randint(0, 5))}


# ---- comparing JSON --------------------------------------------------------


class Pairs(list):
    """A JSON map as its (key, value) pairs, in order."""


def norm(v):
    """A parsed JSON value with doubles made comparable: floats (and the
    text of "$numberDouble") by value, NaN equal to NaN."""
    if isinstance(v, Pairs):
        out = []
        for k, x in v:
            if k == "$numberDouble" and isinstance(x, str):
                out.append((k, ("double", repr(float(x)))))
            else:
                out.append((k, norm(x)))
        return ("map", out)
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, float):
        return ("double", repr(v))
    return v


def parse(text):
    return norm(json.loads(text, object_pairs_hook=Pairs))


# ---- the test --------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261124)
    ap.add_argument("--venv")
    ap.add_argument("--requirements", default=os.path.join(HERE, "requirements.txt"))
    args = ap.parse_args()
    pyvenv.reexec_in_venv(args.venv, args.requirements, __file__, skip)
    try:
        import bson
        from bson import json_util
        from bson.codec_options import CodecOptions, DatetimeConversion
    except ImportError:
        skip("pymongo's bson package is not installed (give --venv DIR to install it there)")
    rng = random.Random(args.seed)
    decode_opts = CodecOptions(datetime_conversion=DatetimeConversion.DATETIME_MS)
    canonical = json_util.JSONOptions(json_mode=json_util.JSONMode.CANONICAL,
                                      datetime_conversion=DatetimeConversion.DATETIME_MS)
    relaxed = json_util.JSONOptions(json_mode=json_util.JSONMode.RELAXED,
                                    datetime_conversion=DatetimeConversion.DATETIME_MS)
    cases = []
    for _ in range(args.count):
        raw = bson.encode(rand_doc(rng, bson))
        doc = bson.decode(raw, codec_options=decode_opts)
        cj = json_util.dumps(doc, json_options=canonical)
        rj = json_util.dumps(doc, json_options=relaxed)
        rbytes = bson.encode(json_util.loads(rj, json_options=relaxed))
        cases.append((raw, cj, rj, rbytes))
    commands = []
    for raw, cj, rj, _ in cases:
        commands += ["c " + raw.hex(), "r " + raw.hex(), "b " + cj, "b " + rj]
    r = subprocess.run(EMULATOR + [args.tool], input="\n".join(commands).encode() + b"\n", capture_output=True)
    if r.returncode != 0:
        print("ejson_tool failed (exit %d): %s" % (r.returncode, r.stderr.decode(errors="replace")))
        return 1
    answers = r.stdout.decode().split("\n")
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            if failed <= 10:
                print("FAIL " + what)

    for i, (raw, cj, rj, rbytes) in enumerate(cases):
        sc, sr, sb_c, sb_r = answers[4 * i:4 * i + 4]
        check(not sc.startswith("E ") and parse(sc) == parse(cj),
              "BSON -> canonical: %s\n  sdx:     %s\n  pymongo: %s" % (raw.hex(), sc, cj))
        check(not sr.startswith("E ") and parse(sr) == parse(rj),
              "BSON -> relaxed: %s\n  sdx:     %s\n  pymongo: %s" % (raw.hex(), sr, rj))
        check(sb_c == raw.hex().upper(), "canonical JSON -> BSON: %s\n  sdx:     %s\n  pymongo: %s"
              % (cj, sb_c, raw.hex().upper()))
        ok = False
        if not sc.startswith("E "):
            try:
                ok = bson.encode(json_util.loads(sc, json_options=canonical)) == raw
            except Exception as e:  # pymongo rejecting sdx's text is a failure
                print("pymongo cannot read sdx's canonical JSON: %s: %s" % (e, sc))
        check(ok, "pymongo reads sdx's canonical JSON back to the bytes: %s" % sc)
        check(sb_r == rbytes.hex().upper(), "relaxed JSON -> BSON: %s\n  sdx:     %s\n  pymongo: %s"
              % (rj, sb_r, rbytes.hex().upper()))
    print("ejson_differential: %d documents (seed %d), pymongo %s: %d checks passed, %d failed"
          % (args.count, args.seed, _pymongo_version(), passed, failed))
    return 1 if failed else 0


def _pymongo_version():
    try:
        import pymongo
        return pymongo.version
    except Exception:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
