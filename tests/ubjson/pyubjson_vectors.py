#!/usr/bin/env python3
"""py-ubjson's own test vectors against sdx's UBJSON reader and writer.

The byte strings of py-ubjson's test file (test/test.py of its PyPI source
distribution, fetched with `pip download`) are taken as data: the file is
parsed with Python's ast module, never run. Every argument of a decoding
call (ubjloadb / loadb) that is an expression of constants, py-ubjson's
marker names and its encoder applied to constants is evaluated to bytes,
and:
  1. sdx (ubj_tool to-json: memory reader, FILE* reader and parser, which
     must agree) accepts exactly the vectors py-ubjson's decoder accepts,
     with the same value; the exceptions are listed in KNOWN with the
     reason (sdx is stricter where the specification is);
  2. where the file asserts that py-ubjson's encoder turns a JSON value
     into given bytes, sdx's writer gives the same bytes.

usage: pyubjson_vectors.py --tool UBJ_TOOL --work DIR [--venv DIR]
"""

import argparse
import ast
import json
import os
import struct
import subprocess
import sys
import tarfile
from decimal import Decimal

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import pyvenv  # noqa: E402
import tally  # noqa: E402
import ubj_common  # noqa: E402
from ubj_common import run  # noqa: E402

check = tally.check
VERSION = "0.16.1"

# Vectors where sdx and py-ubjson differ on purpose.
KNOWN = {
    b"T" * 10: "bytes after the value: py-ubjson decodes the first value and ignores the rest; "
               "sdx reads exactly one value unless asked for a sequence",
}


def die(msg):
    print("pyubjson_vectors: " + msg, file=sys.stderr)
    print("0 passed, 1 failed")
    sys.exit(1)


def norm(v):
    """A form of a value in which equal documents compare equal, every
    number as its exact Decimal (ubj_common.norm)."""
    return ubj_common.norm(v, lambda x: ("n", Decimal(x)))


class Evaluator:
    """Evaluates an expression node of the test file when it is made only of
    constants, marker names, + and *, str.encode, struct.pack, the file's
    u() on a string and calls of the encoder on constants; None otherwise."""

    def __init__(self, markers, dumpb):
        self.names = dict(markers)
        self.dumpb = dumpb

    def value(self, node):
        try:
            return self._eval(node)
        except _NotData:
            return None

    def _eval(self, n):
        if isinstance(n, ast.Constant):
            return n.value
        if isinstance(n, ast.Name) and n.id in self.names:
            return self.names[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            return -self._eval(n.operand)
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Mult)):
            a, b = self._eval(n.left), self._eval(n.right)
            return a + b if isinstance(n.op, ast.Add) else a * b
        if isinstance(n, (ast.List, ast.Tuple)):
            return [self._eval(x) for x in n.elts]
        if isinstance(n, ast.Dict):
            return {self._eval(k): self._eval(v) for k, v in zip(n.keys, n.values)}
        if isinstance(n, ast.Call) and not n.keywords:
            f = n.func
            args = [self._eval(a) for a in n.args]
            if isinstance(f, ast.Attribute) and f.attr == "encode" and isinstance(f.value, ast.Constant):
                return f.value.value.encode(*args)
            if isinstance(f, ast.Attribute) and f.attr == "ubjdumpb":
                return self.dumpb(*args)
            if isinstance(f, ast.Name) and f.id == "pack":
                return struct.pack(*args)
            if isinstance(f, ast.Name) and f.id == "u" and len(args) == 1 and isinstance(args[0], str):
                return args[0]  # the file's Python 2 helper: the text itself
        raise _NotData()


class _NotData(Exception):
    pass


def vectors(tree, ev):
    """(bytes, expectation) for every decoding call; expectation is
    'reject' inside `with self.assertRaises(DecoderException)`, else None.
    Names assigned constant data in a function (raw_start = ...) and the
    variables of loops over tuples of constant data (for suffix in (...))
    are followed, so the vectors built from them are found too."""
    out = []

    def visit(node, rejecting):
        if isinstance(node, ast.FunctionDef):
            saved = dict(ev.names)
            for child in node.body:
                visit(child, rejecting)
            ev.names = saved
            return
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            v = ev.value(node.value)
            if v is not None:
                ev.names[node.targets[0].id] = v
            else:
                ev.names.pop(node.targets[0].id, None)
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name):
            items = ev.value(node.iter)
            if isinstance(items, list):
                for item in items:
                    ev.names[node.target.id] = item
                    for child in node.body:
                        visit(child, rejecting)
                ev.names.pop(node.target.id, None)
                return
        if isinstance(node, ast.With):
            r = rejecting
            for item in node.items:
                c = item.context_expr
                if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute) and
                        c.func.attr == "assertRaises" and c.args and
                        isinstance(c.args[0], ast.Name) and c.args[0].id == "DecoderException"):
                    r = True
            for child in node.body:
                visit(child, r)
            return
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            kw = [k.arg for k in node.keywords]
            if name in ("ubjloadb", "loadb") and node.args and all(k == "object_pairs_hook" for k in kw):
                b = ev.value(node.args[0])
                if isinstance(b, bytes):
                    out.append((b, "reject" if rejecting else None))
        for child in ast.iter_child_nodes(node):
            visit(child, rejecting)

    visit(tree, False)
    return out


def encodings(tree, ev):
    """(value, bytes) for every `assertEqual(self.ubjdumpb(X), E)` with X a
    JSON value and no encoder options."""
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and
                node.func.attr == "assertEqual" and len(node.args) >= 2):
            a = node.args[0]
            if (isinstance(a, ast.Call) and isinstance(a.func, ast.Attribute) and a.func.attr == "ubjdumpb" and
                    not a.keywords and len(a.args) == 1):
                x = ev.value(a.args[0])
                e = ev.value(node.args[1])
                if isinstance(e, bytes) and x is not None or (isinstance(e, bytes) and isinstance(a.args[0], ast.Constant)):
                    try:
                        json.dumps(x)
                    except TypeError:
                        continue
                    out.append((x, e))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--requirements", default=os.path.join(HERE, "requirements.txt"))
    ap.add_argument("--venv", default="")
    args = ap.parse_args()
    pyvenv.reexec_in_venv(args.venv, args.requirements, __file__, die)
    try:
        import ubjson
        import ubjson.markers
    except ImportError:
        die("py-ubjson is not installed (give --venv DIR to install it there)")
    os.makedirs(args.work, exist_ok=True)
    sdist = os.path.join(args.work, "py-ubjson-%s.tar.gz" % VERSION)
    if not os.path.exists(sdist):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "--quiet",
                            "--no-binary", ":all:", "--no-deps", "py-ubjson==" + VERSION, "-d", args.work])
        if r.returncode != 0 or not os.path.exists(sdist):
            die("pip could not download the source distribution of py-ubjson %s" % VERSION)
    with tarfile.open(sdist) as t:
        text = t.extractfile("py-ubjson-%s/test/test.py" % VERSION).read().decode()
    tree = ast.parse(text)
    markers = {k: v for k, v in vars(ubjson.markers).items() if k.isupper() and isinstance(v, bytes)}
    ev = Evaluator(markers, ubjson.dumpb)

    vin = os.path.join(args.work, "v.ubj")
    vout = os.path.join(args.work, "v.json")
    seen = set()
    decoded = 0
    for data, expect in vectors(tree, ev):
        if data in seen:
            continue
        seen.add(data)
        try:
            ref = ("ok", ubjson.loadb(data))
        except ubjson.DecoderException as e:
            ref = ("reject", str(e))
        if expect == "reject":
            check(ref[0] == "reject", "py-ubjson accepts %r, which its test rejects" % data)
        with open(vin, "wb") as f:
            f.write(data)
        rc, err = run(args.tool, "to-json", vin, vout)
        if data in KNOWN:
            check(rc == 1 and ref[0] == "ok", "known difference no longer there for %r (%s)" % (data, KNOWN[data]))
            continue
        if ref[0] == "reject":
            check(rc == 1, "sdx accepts %r, which py-ubjson rejects (%s)" % (data, ref[1]))
            continue
        if not check(rc == 0, "sdx rejects %r, which py-ubjson decodes to %r: %s" % (data, ref[1], err.strip())):
            continue
        with open(vout, "rb") as f:
            got = json.loads(f.read().decode(), parse_float=Decimal, parse_int=Decimal)
        check(norm(got) == norm(ref[1]), "%r: sdx %r, py-ubjson %r" % (data, got, ref[1]))
        decoded += 1
    encoded = 0
    jin = os.path.join(args.work, "e.json")
    jout = os.path.join(args.work, "e.ubj")
    for x, want in encodings(tree, ev):
        with open(jin, "w") as f:
            f.write(json.dumps(x))
        rc, err = run(args.tool, "from-json", jin, jout)
        if check(rc == 0, "sdx cannot write %r: %s" % (x, err.strip())):
            with open(jout, "rb") as f:
                mine = f.read()
            check(mine == want, "%r: sdx writes %r, py-ubjson's test expects %r" % (x, mine, want))
            encoded += 1
    print("vectors: %d decoded alike, %d rejected alike or known; encodings compared: %d"
          % (decoded, len(seen) - decoded, encoded))
    check(len(seen) >= 30, "too few vectors found in test.py (%d): has its form changed?" % len(seen))
    return tally.finish("pyubjson_vectors")


if __name__ == "__main__":
    sys.exit(main())
