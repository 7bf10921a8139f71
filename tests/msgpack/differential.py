#!/usr/bin/env python3
"""Differential test of sdx's MessagePack writer and readers against Python's
msgpack package, on random documents from the test generator
(msgpack_tool gen: every type and size class, str and int keys, ext types
0-127 and timestamps, float 32 and float 64, deep and wide containers).

For every document:
  1. sdx's bytes decode in Python to the same value as the generator's
     (types exact, doubles to the bit, map order kept);
  2. Python encodes that value; sdx decodes Python's bytes (reader, stream
     reader and, when built, the tree parser, which must agree) to the same
     value, float 32 values widened as Python does;
  3. where the document has no float 32 (Python writes every float as
     float 64), Python's bytes equal sdx's byte for byte: both use the
     smallest encodings.

usage: differential.py --tool MSGPACK_TOOL --work DIR [--count N] [--seed S]
                       [--requirements FILE] [--venv DIR]

With --venv the script creates that virtualenv if needed (python3 -m venv),
installs requirements.txt into it with pip (PyPI, or a local wheel cache
through pip's own PIP_FIND_LINKS) and runs itself there.
"""

import argparse
import os
import struct
import subprocess
import sys

# The prefix that runs the target's programs (an emulator when
# cross-compiling; set by the build, see tests/msgpack/CMakeLists.txt).
EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyvenv  # noqa: E402


def die(msg):
    print("differential: " + msg, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)


# ---- tokens (mp_tool.c) <-> Python values ------------------------------------


def parse_tokens(text, msgpack):
    toks = text.split()
    pos = 0

    def value():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t == "n":
            return None
        if t == "t":
            return True
        if t == "f":
            return False
        kind, _, rest = t.partition(":")
        if kind == "i":
            return int(rest)
        if kind == "d":
            return struct.unpack(">d", bytes.fromhex(rest))[0]
        if kind == "f":
            return struct.unpack(">f", bytes.fromhex(rest))[0]
        if kind == "s":
            return bytes.fromhex(rest).decode("utf-8")
        if kind == "b":
            return bytes.fromhex(rest)
        if kind == "x":
            code, _, data = rest.partition(":")
            return msgpack.ExtType(int(code), bytes.fromhex(data))
        if kind == "T":
            sec, _, nsec = rest.partition(":")
            return msgpack.Timestamp(int(sec), int(nsec))
        if t[0] == "[":
            return [value() for _ in range(int(t[1:]))]
        if t[0] == "{":
            d = {}
            for _ in range(int(t[1:])):
                k = value()
                if k in d:
                    raise ValueError("duplicate key %r" % (k,))
                d[k] = value()
            return d
        raise ValueError("bad token " + t)

    v = value()
    if pos != len(toks):
        raise ValueError("tokens left over")
    return v


def to_tokens(v, msgpack, out):
    """Tokens for a Python value as sdx decodes Python's encoding of it
    (floats are float 64)."""
    if v is None:
        out.append("n")
    elif v is True:
        out.append("t")
    elif v is False:
        out.append("f")
    elif type(v) is int:
        out.append("i:%d" % v)
    elif type(v) is float:
        out.append("d:" + struct.pack(">d", v).hex())
    elif type(v) is str:
        out.append("s:" + v.encode("utf-8").hex())
    elif type(v) is bytes:
        out.append("b:" + v.hex())
    elif isinstance(v, msgpack.Timestamp):
        out.append("T:%d:%d" % (v.seconds, v.nanoseconds))
    elif isinstance(v, msgpack.ExtType):
        out.append("x:%d:%s" % (v.code, v.data.hex()))
    elif type(v) is list:
        out.append("[%d" % len(v))
        for e in v:
            to_tokens(e, msgpack, out)
    elif type(v) is dict:
        out.append("{%d" % len(v))
        for k, e in v.items():
            to_tokens(k, msgpack, out)
            to_tokens(e, msgpack, out)
    else:
        raise TypeError("unexpected %r" % type(v))
    return out


def same(a, b, msgpack):
    """Equal with exact types, doubles by bits, maps in order."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return struct.pack(">d", a) == struct.pack(">d", b)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y, msgpack) for x, y in zip(a, b))
    if type(a) is dict:
        return len(a) == len(b) and all(
            same(ka, kb, msgpack) and same(va, vb, msgpack) for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    return a == b


# ---- the test ----------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--count", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--requirements", default=os.path.join(HERE, "requirements.txt"))
    ap.add_argument("--venv")
    args = ap.parse_args()

    pyvenv.reexec_in_venv(args.venv, args.requirements, __file__, die)

    try:
        import msgpack
    except ImportError:
        die("Python's msgpack package is missing (run with --venv DIR to install it)")

    os.makedirs(args.work, exist_ok=True)
    gen = os.path.join(args.work, "docs.txt")
    r = subprocess.run(EMULATOR + [args.tool, "gen", str(args.seed), str(args.count), gen])
    if r.returncode != 0:
        die("msgpack_tool gen failed")

    docs = []
    with open(gen) as f:
        for line in f:
            hexdata, _, tokens = line.rstrip("\n").partition("\t")
            docs.append((bytes.fromhex(hexdata), tokens))

    passed = failed = byte_equal = 0
    python_bytes = []
    expected_back = []
    problems = []
    for i, (data, tokens) in enumerate(docs):
        expected = parse_tokens(tokens, msgpack)
        # 1. sdx's bytes in Python
        try:
            got = msgpack.unpackb(data, raw=False, strict_map_key=False, timestamp=0)
            ok = same(got, expected, msgpack)
            if not ok:
                problems.append("doc %d: Python decodes sdx's bytes to another value" % i)
        except Exception as e:  # noqa: BLE001
            ok = False
            problems.append("doc %d: Python cannot decode sdx's bytes: %s" % (i, e))
        # 2. Python's bytes, to be decoded by sdx below
        packed = msgpack.packb(expected, use_bin_type=True, datetime=False)
        python_bytes.append(packed)
        expected_back.append(" ".join(to_tokens(expected, msgpack, [])) + " ")
        # 3. the same bytes where no float 32 is involved
        if " f:" not in " " + tokens:
            if packed == data:
                byte_equal += 1
            else:
                ok = False
                problems.append("doc %d: Python's encoding differs from sdx's" % i)
        docs[i] = ok

    hexfile = os.path.join(args.work, "python.hex")
    with open(hexfile, "w") as f:
        for b in python_bytes:
            f.write(b.hex() + "\n")
    outfile = os.path.join(args.work, "python.tokens")
    r = subprocess.run(EMULATOR + [args.tool, "decode", hexfile, outfile])
    if r.returncode != 0:
        die("msgpack_tool decode failed")
    with open(outfile) as f:
        decoded = [line.rstrip("\n") for line in f]
    if len(decoded) != len(docs):
        die("msgpack_tool decode gave %d lines for %d documents" % (len(decoded), len(docs)))
    for i, ok in enumerate(docs):
        if decoded[i] != expected_back[i]:
            ok = False
            problems.append("doc %d: sdx decodes Python's bytes to another value: %s" % (i, decoded[i][:200]))
        if ok:
            passed += 1
        else:
            failed += 1

    for p in problems[:30]:
        print(p, file=sys.stderr)
    print("differential: %d documents (%d bytes), msgpack %s; %d byte-identical to Python's"
          % (len(docs), sum(len(b) for b in python_bytes), ".".join(map(str, msgpack.version)), byte_equal))
    print("%d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed or passed == 0 else 0)


if __name__ == "__main__":
    main()
