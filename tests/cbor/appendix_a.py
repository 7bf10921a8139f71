#!/usr/bin/env python3
"""RFC 8949 Appendix A through the sdx command: diagnostic notation and
preferred serialization.

usage: appendix_a.py SDX [--data FILE] [--emulator CMD]

For every line of appendix_a.txt (hex, preferred|not-preferred, the RFC's
diagnostic notation):

1. `SDX view -f cbor -` of the bytes prints exactly the RFC's notation and a
   newline. The six float32/float64 infinities and NaNs are not in preferred
   form, so sdx marks their width as RFC 8949 section 8.1 says (the RFC's
   table leaves the marks out): NOT_PREFERRED_FLOATS below lists the exact
   text expected for them.
2. A `preferred` line converts (`SDX convert -f cbor -t cbor - -`) to exactly
   its own bytes. A `not-preferred` line converts to other bytes, which sdx
   shows as the same value without the encoding marks (PREFERRED_FORM below
   for the two chunked strings; otherwise the notation with `_` marks
   dropped).
3. All lines at once as a CBOR sequence (`view --seq`) print all the
   notations, one a line; a file named x.cbor is recognised without -f.

EXTRA lists cases of the notation that Appendix A does not show (nested
tags, empty indefinite-length strings, bignums not in preferred form, float
widths, --indent). Python 3 standard library only. The last line is
`N passed, M failed`; the exit status is 0, or 1 on any failure.
"""

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
import tally  # noqa: E402

check = tally.check

# The not-preferred floats of Appendix A, with the width suffix of RFC 8949
# section 8.1 (_2 single, _3 double) that sdx adds.
NOT_PREFERRED_FLOATS = {
    "fa7f800000": "Infinity_2",
    "fa7fc00000": "NaN_2",
    "faff800000": "-Infinity_2",
    "fb7ff0000000000000": "Infinity_3",
    "fb7ff8000000000000": "NaN_3",
    "fbfff0000000000000": "-Infinity_3",
}

# What the preferred re-encoding of the chunked strings shows.
PREFERRED_FORM = {
    "5f42010243030405ff": "h'0102030405'",
    "7f657374726561646d696e67ff": '"streaming"',
}

# (hex, extra arguments, expected output) beyond Appendix A.
EXTRA = [
    ("d9d9f7d83d8101", [], "55799(61([1]))"),             # nested tags
    ("c1c2d82041ff", [], "1(2(32(h'ff')))"),
    ("5fff", [], "''_"),                                  # no chunks
    ("7fff", [], '""_'),
    ("5f40ff", [], "(_ h'')"),                            # one empty chunk
    ("7f606161ff", [], '(_ "", "a")'),
    ("c24100", [], "2(h'00')"),                           # fits 64 bits: not preferred
    ("c2480102030405060708", [], "2(h'0102030405060708')"),
    ("c249000100000000000000", [], "2(h'000100000000000000')"),  # leading zero
    ("c349ffffffffffffffffff", [], "-4722366482869645213696"),           # -1 - (2^72 - 1)
    ("c25f49010000000000000000ff", [], "2((_ h'010000000000000000'))"),
    ("d9d9f7c249010000000000000000", [], "55799(18446744073709551616)"),
    ("fb3ff8000000000000", [], "1.5_3"),                  # fits a half
    ("fa3fc00000", [], "1.5_2"),
    ("fa47c35000", [], "100000.0"),                       # preferred single
    ("fb40f86a0000000000", [], "100000.0_3"),
    ("fa3dcccccd", [], "0.10000000149011612"),
    ("fb3fb999999999999a", [], "0.1"),
    ("f90001", [], "5.960464477539063e-8"),               # 2^-24: not the rounded ...062
    ("fb3eb0c6f7a0b5ed8d", [], "0.000001"),
    ("fb3e7ad7f29abcaf48", [], "1.0e-7"),
    ("fb444b1ae4d6e2ef50", [], "1.0e+21"),
    ("fb4415af1d78b58c40", [], "100000000000000000000.0"),
    ("f97e01", [], "NaN"),                                # a half is always its shortest
    ("f7", [], "undefined"),
    ("f820", [], "simple(32)"),
    ("d82af7", [], "42(undefined)"),
    ("a2f5f6c10102", [], "{true: null, 1(1): 2}"),        # keys of any type
    ("62c328", [], '"\\ufffd(" /invalid UTF-8/'),
    ("626108", [], '"a\\b"'),
    ("bf61619fff6162a0ff", [], '{_ "a": [_ ], "b": {}}'),
    ("9f01820203ff", ["--indent", "2"], "[_\n  1,\n  [\n    2,\n    3\n  ]\n]"),
    ("9fff", ["--indent", "2"], "[_ ]"),
    ("a161615f4101ff", ["--indent", "2"], "{\n  \"a\": (_ h'01')\n}"),
]

EMULATOR = []
SDX = None


def run(args, data):
    r = subprocess.run(EMULATOR + [SDX] + args, input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return r.returncode, r.stdout, r.stderr.decode("utf-8", "replace")


def load(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            hexstr, pref, diag = line.split("\t")
            if pref not in ("preferred", "not-preferred"):
                raise SystemExit("%s: bad line: %r" % (path, line))
            rows.append((hexstr, pref == "preferred", diag))
    return rows


def plain(diag):
    """The notation of a value's preferred encoding: encoding marks dropped."""
    return re.sub(r"([\[{])_ ", r"\1", diag)


def main():
    global SDX, EMULATOR
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sdx")
    ap.add_argument("--data", default=os.path.join(HERE, "appendix_a.txt"))
    ap.add_argument("--emulator", default="")
    a = ap.parse_args()
    SDX = os.path.abspath(a.sdx)
    EMULATOR = shlex.split(a.emulator)
    rows = load(a.data)
    check(len(rows) == 81, "appendix_a.txt has the 81 rows of Table 6 (%d)" % len(rows))

    for hexstr, preferred, diag in rows:
        data = bytes.fromhex(hexstr)
        want = NOT_PREFERRED_FLOATS.get(hexstr, diag)
        if hexstr in NOT_PREFERRED_FLOATS:
            check(not preferred and NOT_PREFERRED_FLOATS[hexstr].split("_")[0] == diag,
                  "%s is a not-preferred float %s" % (hexstr, diag))
        rc, out, err = run(["view", "-f", "cbor", "-"], data)
        check(rc == 0 and out == (want + "\n").encode(),
              "view %s: want %r, got %r (exit %d) %s" % (hexstr, want, out, rc, err))
        rc, back, err = run(["convert", "-f", "cbor", "-t", "cbor", "-", "-"], data)
        if not check(rc == 0, "convert %s: exit %d %s" % (hexstr, rc, err)):
            continue
        if preferred:
            check(back == data, "convert %s gives back its bytes: got %s" % (hexstr, back.hex()))
            continue
        check(back != data, "convert %s gives the preferred form, not the same bytes" % hexstr)
        rc, out, err = run(["view", "-f", "cbor", "-"], back)
        want = PREFERRED_FORM.get(hexstr, plain(diag))
        check(rc == 0 and out == (want + "\n").encode(),
              "view of %s's preferred form %s: want %r, got %r %s" % (hexstr, back.hex(), want, out, err))

    # All of them as one CBOR sequence, and from a .cbor file.
    seq = b"".join(bytes.fromhex(h) for h, _, _ in rows)
    want = "".join(NOT_PREFERRED_FLOATS.get(h, d) + "\n" for h, _, d in rows).encode()
    rc, out, err = run(["view", "--seq", "-f", "cbor", "-"], seq)
    check(rc == 0 and out == want, "view --seq of all the rows: %s" % err)
    with tempfile.TemporaryDirectory() as tmp:
        p = os.path.join(tmp, "x.cbor")
        with open(p, "wb") as f:
            f.write(bytes.fromhex("bf6346756ef563416d7421ff"))
        rc, out, err = run(["view", p], None)
        check(rc == 0 and out == b'{_ "Fun": true, "Amt": -2}\n', "view x.cbor: %r %s" % (out, err))

    for hexstr, args, want in EXTRA:
        rc, out, err = run(["view", "-f", "cbor"] + args + ["-"], bytes.fromhex(hexstr))
        check(rc == 0 and out == (want + "\n").encode(),
              "view %s %s: want %r, got %r (exit %d) %s" % (" ".join(args), hexstr, want, out, rc, err))

    return tally.finish()


if __name__ == "__main__":
    sys.exit(main())
