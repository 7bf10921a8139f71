#!/usr/bin/env python3
"""Differential tests of sdx's JSON reading and writing against Python's json
module (the standard library: no packages to install).

Both sides print canonical dumps, one line per value (see conf_util.h):
null, true, false, "int N" (fits int64), "uint N" (above INT64_MAX, fits
uint64), "double HEX" (the bit pattern: doubles compared to the bit), "str
HEX" / "key HEX" (UTF-8 bytes), array, map, end. An integer beyond uint64 is
a double here, as sdx converts it: the correctly rounded double of its text;
and "-0", which Python reads as the integer 0, is the double -0.0 (sdx keeps
its sign).

1. read, random: documents from a seeded generator (below) in varied
   spellings (whitespace, every escape form, numbers in many notations,
   exact long decimals, big integers) -> `json_canon dump` == Python's dump
   of json.loads.
2. read, corpus: twitter, citm_catalog and canada, the same way.
3. write, Python's values: the dumps of generated documents -> `json_canon
   write` (sdx's writer) -> json.loads -> the same dumps.
4. write, sdx's values: `json_canon gen` (the C generator of the round-trip
   test) prints the writer's JSON and the generated events -> json.loads of
   the JSON gives the same dump.

usage: differential.py --canon JSON_CANON --work DIR [--corpus DIR]
                       [--count N] [--seed S]
"""

import argparse
import json
import math
import os
import random
import struct
import subprocess
import sys

INT64_MIN, INT64_MAX, UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1
CORPUS = ["twitter.json", "citm_catalog.json", "canada.json"]
# The prefix that runs the target's programs (an emulator when
# cross-compiling; set by the build, see tests/conformance/CMakeLists.txt).
EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()


# ---- the canonical dump of Python values ------------------------------------


class JInt:
    """An integer as JSON text: classified like sdx's reader does it."""

    __slots__ = ("text",)

    def __init__(self, text):
        self.text = text


class Pairs(list):
    """A JSON object as its list of (key, value) pairs: order and duplicates
    kept."""


def dump_double(f, out):
    out.append("double " + struct.pack(">d", f).hex())


def dump_int(v, text, out):
    if v == 0 and text.startswith("-"):  # "-0": sdx keeps the sign, as the double -0.0
        dump_double(-0.0, out)
    elif INT64_MIN <= v <= INT64_MAX:
        out.append("int %d" % v)
    elif INT64_MAX < v <= UINT64_MAX:
        out.append("uint %d" % v)
    else:  # beyond 64 bits: the correctly rounded double of the text
        dump_double(float(text), out)


END = object()  # marks the end of a container on dump()'s stack


def dump(v, out):
    """Append the canonical dump lines of a value loaded by json.loads (with
    JInt integers and Pairs objects) or generated here (plain ints)."""
    stack = [v]
    while stack:
        v = stack.pop()
        if v is END:
            out.append("end")
        elif isinstance(v, tuple):  # a key of a map
            out.append("key " + v[0].encode("utf-8").hex())
        elif v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, JInt):
            dump_int(int(v.text), v.text, out)
        elif isinstance(v, int):
            dump_int(v, str(v), out)
        elif isinstance(v, float):
            dump_double(v, out)
        elif isinstance(v, str):
            out.append("str " + v.encode("utf-8").hex())
        elif isinstance(v, Pairs):
            out.append("map")
            stack.append(END)
            for k, x in reversed(v):
                stack.append(x)
                stack.append((k,))
        elif isinstance(v, list):
            out.append("array")
            stack.append(END)
            stack.extend(reversed(v))
        else:
            raise TypeError(type(v))
    return out


def reject_constant(name):
    raise ValueError("not JSON: " + name)


def loads(text):
    return json.loads(text, object_pairs_hook=Pairs, parse_int=JInt, parse_constant=reject_constant)


def python_dump(text):
    return "\n".join(dump(loads(text), [])) + "\n"


# ---- the random document generator ------------------------------------------

EDGE_INTS = [0, 1, -1, 9, 10, -10, 2**31 - 1, -2**31, 2**32, 2**53 - 1, 2**53, 2**53 + 1, -2**53 - 1,
             INT64_MAX, INT64_MAX - 1, INT64_MIN, INT64_MIN + 1, INT64_MAX + 1, UINT64_MAX,
             UINT64_MAX - 1, UINT64_MAX + 1, INT64_MIN - 1, 10**19, 10**19 - 1, 10**20, -10**19,
             10**30, -(10**40) - 7, 2**64 * 3 + 1, 10**308, 10**309, -(10**400)]
EDGE_FLOATS = [0.0, -0.0, 1.0, -1.0, 0.1, 0.5, 1.5, 1e21, 1e22, 1e23, 1e-6, 1e-7, 5e-324, -5e-324,
               2.2250738585072014e-308, 2.225073858507201e-308, 1.7976931348623157e308,
               -1.7976931348623157e308, 9007199254740993.0, 2.0**63, 2.0**64, 123456789012345680000.0,
               0.30000000000000004, 1 / 3, 2.718281828459045, 4503599627370496.5, 1e308, 1e-308]
SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "/": "\\/", "\b": "\\b", "\f": "\\f", "\n": "\\n",
                 "\r": "\\r", "\t": "\\t"}


class Gen:
    def __init__(self, seed, finite=False):
        self.r = random.Random(seed)
        # finite: only integers whose double is finite (what a writer can
        # write: sdx writes integers beyond 64 bits as doubles)
        self.finite = finite

    # -- values --

    def code_point(self):
        r = self.r
        x = r.random()
        if x < 0.55:
            return chr(r.randrange(0x20, 0x7F))
        if x < 0.70:
            return r.choice(['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", chr(r.randrange(0, 0x20)),
                             "\x7f"])
        if x < 0.80:
            return chr(r.randrange(0x80, 0x800))
        if x < 0.92:
            while True:
                c = r.randrange(0x800, 0x10000)
                if not 0xD800 <= c <= 0xDFFF:
                    return chr(c)
        if x < 0.97:
            return chr(r.randrange(0x10000, 0x110000))
        return chr(r.choice([0x80, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFEFF, 0xFFFD, 0xFFFF, 0x2028,
                             0x2029, 0x10000, 0x10FFFF, 0x1D11E]))

    def string(self, most=40):
        r = self.r
        n = r.choice([0, r.randrange(1, 9), r.randrange(1, most + 1)])
        return "".join(self.code_point() for _ in range(n))

    def integer(self):
        r = self.r
        x = r.random()
        if x < 0.3:
            v = r.choice(EDGE_INTS)
            return v if not self.finite or abs(v) < 10**300 else 0
        if x < 0.4:
            return r.randrange(-(10**r.randrange(1, 60)), 10**r.randrange(1, 60))
        bits = r.randrange(0, 65)
        return r.choice([1, -1]) * r.getrandbits(bits) if bits else 0

    def double(self):
        r = self.r
        x = r.random()
        if x < 0.2:
            return r.choice(EDGE_FLOATS)
        if x < 0.45:
            return round(r.uniform(-1e6, 1e6), r.randrange(0, 10))
        while True:
            f = struct.unpack("<d", struct.pack("<Q", r.getrandbits(64)))[0]
            if math.isfinite(f):
                return f

    def value(self, depth, budget):
        r = self.r
        p_container = 0.8 if depth == 0 else max(0.0, 0.4 - depth * 0.04)
        if budget[0] > 0 and r.random() < p_container:
            n = min(budget[0], r.choice([0, r.randrange(1, 5), r.randrange(1, 13)]))
            budget[0] -= n
            if r.random() < 0.5:
                return [self.value(depth + 1, budget) for _ in range(n)]
            keys = [r.choice(["", "a", "b", self.string(16)]) for _ in range(n)]
            return Pairs((k, self.value(depth + 1, budget)) for k in keys)
        x = r.random()
        if x < 0.06:
            return None
        if x < 0.12:
            return r.random() < 0.5
        if x < 0.40:
            return self.integer()
        if x < 0.70:
            return self.double()
        return self.string()

    def document(self):
        if self.r.random() < 1 / 50:  # a deep chain
            v = self.value(5, [3])
            for _ in range(self.r.randrange(30, 300)):
                v = [v] if self.r.random() < 0.5 else Pairs([(self.string(4), v)])
            return v
        return self.value(0, [self.r.randrange(1, 60)])

    # -- spelling a value as JSON text, every way the grammar allows --

    def ws(self):
        r = self.r
        if r.random() < 0.7:
            return ""
        return "".join(r.choice(" \t\n\r") for _ in range(r.randrange(1, 4)))

    def spell_string(self, s):
        r = self.r
        mode = r.random()
        out = ['"']
        for c in s:
            cp = ord(c)
            forced = c in '"\\' or cp < 0x20
            if forced or (mode > 0.6 and r.random() < 0.3):
                if c in SHORT_ESCAPES and r.random() < 0.6:
                    out.append(SHORT_ESCAPES[c])
                elif cp >= 0x10000:
                    cp -= 0x10000
                    hi, lo = 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF)
                    out.append(self.u_escape(hi) + self.u_escape(lo))
                else:
                    out.append(self.u_escape(cp))
            else:
                out.append(c)
        out.append('"')
        return "".join(out)

    def u_escape(self, cp):
        h = "%04x" % cp
        return "\\u" + "".join(c.upper() if self.r.random() < 0.5 else c for c in h)

    def spell_int(self, v):
        r = self.r
        x = r.random()
        if x < 0.85 or v == 0:
            return ("-0" if v == 0 and r.random() < 0.1 else str(v))
        # the same value in other notations: a double then, for both sides
        s = str(abs(v))
        sign = "-" if v < 0 else ""
        k = r.randrange(0, len(s))
        return sign + s[:len(s) - k] + (("." + s[len(s) - k:]) if k else "") + r.choice("eE") + \
            r.choice(["", "+"]) + str(k)

    def spell_double(self, f):
        r = self.r
        x = r.random()
        if x < 0.5:
            t = repr(f)
        elif x < 0.6:
            t = "%.17g" % f
        elif x < 0.7:  # the exact binary value in decimal: long digit strings
            import decimal

            t = str(decimal.Decimal(f))
        elif x < 0.8:
            t = "%.*e" % (r.randrange(0, 25), f)
        else:  # a random decimal near it, not necessarily a short one
            m = "%.*e" % (r.randrange(15, 40), f)
            mant, exp = m.split("e")
            t = mant + str(r.randrange(0, 10)) * r.randrange(0, 3) + r.choice("eE") + exp
        t = t.replace("inf", "1e999")
        if "." not in t and "e" not in t and "E" not in t:
            t += ".0"  # keep it a double (Python's %.17g may give "1")
        if t.startswith("-") and t[1:2] == ".":
            t = "-0" + t[1:]
        if t.startswith("."):
            t = "0" + t
        if r.random() < 0.2 and ("e" in t or "E" in t):
            t = t.replace("e", "E") if r.random() < 0.5 else t.replace("e+", "e")
        return t

    def spell(self, v, out):
        out.append(self.ws())
        if v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, int):
            out.append(self.spell_int(v))
        elif isinstance(v, float):
            out.append(self.spell_double(v))
        elif isinstance(v, str):
            out.append(self.spell_string(v))
        elif isinstance(v, Pairs):
            out.append("{")
            for i, (k, x) in enumerate(v):
                if i:
                    out.append(self.ws() + ",")
                out.append(self.ws() + self.spell_string(k) + self.ws() + ":")
                self.spell(x, out)
            out.append(self.ws() + "}")
        else:
            out.append("[")
            for i, x in enumerate(v):
                if i:
                    out.append(self.ws() + ",")
                self.spell(x, out)
            out.append(self.ws() + "]")
        out.append(self.ws())

    def text(self, v):
        out = []
        self.spell(v, out)
        return "".join(out)


# ---- running json_canon -----------------------------------------------------


def run_canon(canon, *args):
    r = subprocess.run(EMULATOR + [canon] + list(args), capture_output=True)
    return r.returncode, r.stdout.decode("utf-8", "replace"), r.stderr.decode("utf-8", "replace")


def split_dumps(out):
    """json_canon dump's output: one dump per document, each ended by ---."""
    parts = out.split("---\n")
    if parts and parts[-1] == "":
        parts.pop()
    return parts


class Report:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, ok, what, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL: " + what + ("\n" + detail if detail else ""))
        return ok


def first_difference(a, b):
    al, bl = a.split("\n"), b.split("\n")
    for i, (x, y) in enumerate(zip(al, bl)):
        if x != y:
            return "line %d: sdx %r, python %r" % (i + 1, x[:200], y[:200])
    return "lengths %d and %d lines" % (len(al), len(bl))


def test_read_random(args, report):
    gen = Gen(args.seed)
    texts = [gen.text(gen.document()) for _ in range(args.count)]
    path = os.path.join(args.work, "random.json")
    with open(path, "wb") as f:
        f.write("\x1e".join(texts).encode("utf-8"))
    rc, out, err = run_canon(args.canon, "dump", path)
    report.check(rc == 0, "json_canon dump of the random documents exited %d" % rc, err[-3000:])
    got = split_dumps(out)
    if not report.check(len(got) == len(texts), "json_canon dump gave %d dumps for %d documents"
                        % (len(got), len(texts))):
        return
    bad = 0
    for i, (t, d) in enumerate(zip(texts, got)):
        want = python_dump(t)
        if d != want:
            bad += 1
            if bad <= 5:
                print("FAIL: random document %d (seed %d) reads differently: %s\n  text: %r"
                      % (i, args.seed, first_difference(d, want), t[:500]))
    report.check(bad == 0, "%d of %d random documents read differently" % (bad, len(texts)))
    print("read, random: %d documents (%d bytes) compared with json.loads, %d differ"
          % (len(texts), sum(len(t) for t in texts), bad))


def test_read_corpus(args, report):
    for name in CORPUS:
        path = os.path.join(args.corpus, name)
        if not report.check(os.path.exists(path), "corpus document %s missing (--corpus)" % path):
            continue
        with open(path, "rb") as f:
            text = f.read().decode("utf-8")
        rc, out, err = run_canon(args.canon, "dump", path)
        report.check(rc == 0, "json_canon dump %s exited %d" % (name, rc), err[-3000:])
        got = split_dumps(out)
        want = python_dump(text)
        ok = report.check(len(got) == 1 and got[0] == want, "corpus %s reads differently" % name,
                          first_difference(got[0] if got else "", want))
        print("read, corpus %s: %d values, %s" % (name, want.count("\n"), "identical" if ok else "DIFFERENT"))


def test_write_python_values(args, report):
    gen = Gen(args.seed + 1, finite=True)
    dumps = ["\n".join(dump(gen.document(), [])) + "\n" for _ in range(args.count)]
    path = os.path.join(args.work, "values.dump")
    with open(path, "w") as f:
        f.write("".join(d + "---\n" for d in dumps))
    rc, out, err = run_canon(args.canon, "write", path)
    report.check(rc == 0, "json_canon write exited %d" % rc, err[-3000:])
    lines = out.split("\n")[:-1]
    if not report.check(len(lines) == len(dumps), "json_canon write gave %d documents for %d"
                        % (len(lines), len(dumps))):
        return
    bad = 0
    for i, (line, want) in enumerate(zip(lines, dumps)):
        try:
            got = python_dump(line)
        except ValueError as e:
            got = "json.loads failed: %s\n" % e
        if got != want:
            bad += 1
            if bad <= 5:
                print("FAIL: written document %d reads back differently in Python: %s\n  json: %r"
                      % (i, first_difference(got, want), line[:500]))
    report.check(bad == 0, "%d of %d documents written by sdx read back differently" % (bad, len(dumps)))
    print("write, Python's values: %d documents written by sdx, read by json.loads, %d differ"
          % (len(dumps), bad))


def test_write_sdx_values(args, report):
    rc, out, err = run_canon(args.canon, "gen", str(args.count), str(args.seed))
    report.check(rc == 0, "json_canon gen exited %d" % rc, err[-3000:])
    docs = split_dumps(out)
    if not report.check(len(docs) == args.count, "json_canon gen gave %d documents for %d"
                        % (len(docs), args.count)):
        return
    bad = 0
    for i, d in enumerate(docs):
        line, _, want = d.partition("\n")
        try:
            got = python_dump(line)
        except ValueError as e:
            got = "json.loads failed: %s\n" % e
        if got != want:
            bad += 1
            if bad <= 5:
                print("FAIL: generated document %d reads back differently in Python: %s\n  json: %r"
                      % (i, first_difference(got, want), line[:500]))
    report.check(bad == 0, "%d of %d generated documents read back differently" % (bad, len(docs)))
    print("write, sdx's values: %d documents from the C generator, read by json.loads, %d differ"
          % (len(docs), bad))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--canon", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--corpus", default=os.environ.get("SDX_CORPUS", ""))
    ap.add_argument("--count", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=20240611)
    args = ap.parse_args()
    if os.environ.get("SDX_CORPUS"):
        args.corpus = os.environ["SDX_CORPUS"]
    os.makedirs(args.work, exist_ok=True)
    sys.setrecursionlimit(10000)
    report = Report()
    test_read_random(args, report)
    test_read_corpus(args, report)
    test_write_python_values(args, report)
    test_write_sdx_values(args, report)
    print("differential: %d passed, %d failed" % (report.passed, report.failed))
    return 0 if report.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
