#!/usr/bin/env python3
"""Differential test of sdx's decimal128 text conversions
(src/bson/decimal128.c, driven through decimal128_tool) against Python's
decimal module, which implements the same General Decimal Arithmetic
specification the BSON Decimal128 specification takes its string forms
from (speleotrove.com/decimal):

  text -> bytes  random texts of the specification's grammar (signs,
                 leading and trailing zeros, points anywhere, 0 to 70
                 digits, exponents near every boundary, specials in any
                 case) and mutations of them (a character inserted,
                 deleted or replaced). Expected: a strict regular
                 expression of the grammar decides syntax (Python's own
                 parser accepts more: spaces, underscores, sNaN, NaN
                 payloads); a Context of prec 34, Emax 6144, Emin -6143,
                 clamp 1 with Inexact and Overflow trapped gives the value
                 (exact rounding and clamping allowed, anything inexact an
                 error), encoded as BID bits.
  bytes -> text  random 16 bytes: canonical values of every coefficient
                 size and exponent, non-canonical coefficients, the
                 long-exponent form, infinities and NaNs with junk bits.
                 Expected: the value decoded from the bits, str() of it
                 (Python's to-scientific-string), every NaN as "NaN".

Only the Python standard library is needed. Prints "N passed, M failed".

usage: decimal128_differential.py TOOL [--count N] [--seed S]
"""

import argparse
import decimal
import os
import random
import re
import subprocess
import sys

# The prefix that runs the target's programs (an emulator when
# cross-compiling; set by the build, see the top-level CMakeLists.txt).
EMULATOR = os.environ.get("SDX_TEST_EMULATOR", "").split()

COEFF_MAX = 10**34 - 1
GRAMMAR = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf|infinity|nan)",
                     re.IGNORECASE)
CONTEXT = decimal.Context(prec=34, Emax=6144, Emin=-6143, clamp=1,
                          rounding=decimal.ROUND_HALF_EVEN,
                          traps=[decimal.Inexact, decimal.Overflow, decimal.InvalidOperation])


def encode(d):
    """The 16 bytes (hex, as BSON stores them) of Decimal d, which the
    context made fit."""
    sign, digits, exp = d.as_tuple()
    if exp == "F":
        hi, lo = 0x7800000000000000, 0
    elif exp in ("n", "N"):
        hi, lo = 0x7C00000000000000, 0
    else:
        coeff = int("".join(map(str, digits)) or "0")
        assert coeff <= COEFF_MAX and -6176 <= exp <= 6111, d
        hi, lo = (exp + 6176) << 49 | coeff >> 64, coeff & (2**64 - 1)
    hi |= sign << 63
    return (lo.to_bytes(8, "little") + hi.to_bytes(8, "little")).hex().upper()


def expect_parse(text):
    """What sdx must answer for "p TEXT"."""
    if not GRAMMAR.fullmatch(text):
        return "E SYNTAX"
    try:
        return encode(CONTEXT.create_decimal(text))
    except (decimal.Inexact, decimal.Overflow):
        return "E RANGE"


def expect_text(raw):
    """What sdx must answer for "t HEX" of the 16 bytes raw."""
    lo, hi = int.from_bytes(raw[:8], "little"), int.from_bytes(raw[8:], "little")
    sign = hi >> 63
    if hi >> 61 & 3 == 3:
        top = hi >> 58 & 0x1F
        if top == 0x1F:
            return "NaN"
        if top == 0x1E:
            return "-Infinity" if sign else "Infinity"
        exp, coeff = (hi >> 47 & 0x3FFF) - 6176, 0  # coefficient >= 2^113
    else:
        exp, coeff = (hi >> 49 & 0x3FFF) - 6176, (hi & (2**49 - 1)) << 64 | lo
        if coeff > COEFF_MAX:
            coeff = 0
    return str(decimal.Decimal((sign, tuple(int(c) for c in str(coeff)), exp)))


def random_digits(rng, n):
    if rng.random() < 0.3:  # runs of zeros: exact rounding, trailing zeros
        return "".join(rng.choice("0000000001") for _ in range(n))
    return "".join(rng.choice("0123456789") for _ in range(n))


def random_text(rng):
    r = rng.random()
    sign = rng.choice(["", "", "+", "-"])
    if r < 0.04:
        word = rng.choice(["inf", "infinity", "nan"])
        return sign + "".join(c.upper() if rng.random() < 0.5 else c for c in word)
    whole = random_digits(rng, rng.choice([0, 1, 1, 2, 5, 17, 33, 34, 35, 36, 40, 70]))
    if rng.random() < 0.2:
        whole = "0" * rng.randint(1, 5) + whole
    frac = None
    if rng.random() < 0.6 or not whole:
        frac = random_digits(rng, rng.choice([0, 1, 3, 10, 34, 35, 50]) if whole else rng.randint(1, 40))
    text = sign + whole + ("." + frac if frac is not None else "")
    if rng.random() < 0.7:
        # near the edges the number of digits shifts, so pick around them
        edge = rng.choice([0, 6, 7, 6111, 6144, 6145, 6176, 6177, 6210, 100000])
        e = edge + rng.randint(-40, 40)
        if rng.random() < 0.5:
            e = -e
        indicator = rng.choice("eE")
        esign = "-" if e < 0 else rng.choice(["", "+"])
        text += indicator + esign + "0" * rng.choice([0, 0, 0, 3]) + str(abs(e))
    return text


def mutate(rng, text):
    pos = rng.randint(0, len(text))
    c = rng.choice("0123456789.eE+- xnNaIf\t")
    how = rng.random()
    if how < 0.4 or not text:
        return text[:pos] + c + text[pos:]
    pos = min(pos, len(text) - 1)
    if how < 0.7:
        return text[:pos] + text[pos + 1:]
    return text[:pos] + c + text[pos + 1:]


def random_bytes(rng):
    r = rng.random()
    sign = rng.getrandbits(1) << 63
    if r < 0.6:  # canonical: a coefficient of any size, any exponent
        coeff = rng.getrandbits(rng.randint(0, 113)) % (COEFF_MAX + 1)
        hi = sign | rng.randrange(12288) << 49 | coeff >> 64
        lo = coeff & (2**64 - 1)
    elif r < 0.7:  # non-canonical: above 10^34 - 1 in the 113 bits
        coeff = rng.randrange(COEFF_MAX + 1, 2**113)
        hi = sign | rng.randrange(12288) << 49 | coeff >> 64
        lo = coeff & (2**64 - 1)
    elif r < 0.8:  # the long-exponent form (bits 126..125 = 11), not special
        hi = sign | 3 << 61 | rng.randrange(4096) << 47 | rng.getrandbits(47)
        lo = rng.getrandbits(64)
    elif r < 0.9:  # infinities and NaNs with junk below
        hi = sign | rng.choice([0x1E, 0x1F]) << 58 | rng.getrandbits(58)
        lo = rng.getrandbits(64)
    else:
        hi, lo = rng.getrandbits(64), rng.getrandbits(64)
    return lo.to_bytes(8, "little") + hi.to_bytes(8, "little")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tool")
    ap.add_argument("--count", type=int, default=40000)
    ap.add_argument("--seed", type=int, default=128)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    commands, expected = [], []
    for i in range(args.count):
        kind = i % 3
        if kind == 0:
            raw = random_bytes(rng)
            commands.append("t " + raw.hex().upper())
            expected.append(expect_text(raw))
        else:
            text = random_text(rng)
            if kind == 2:
                for _ in range(rng.randint(1, 2)):
                    text = mutate(rng, text)
            commands.append("p " + text)
            expected.append(expect_parse(text))
    proc = subprocess.run(EMULATOR + [args.tool], input="\n".join(commands) + "\n",
                          capture_output=True, text=True)
    answers = proc.stdout.split("\n")[:-1]
    if proc.returncode != 0 or len(answers) != len(commands):
        print("decimal128_differential: the tool failed (exit %d, %d answers for %d commands)\n%s"
              % (proc.returncode, len(answers), len(commands), proc.stderr), file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    failed = 0
    kinds = {"t": 0, "p": 0}
    results = {"ok": 0, "E SYNTAX": 0, "E RANGE": 0}
    for cmd, want, got in zip(commands, expected, answers):
        kinds[cmd[0]] += 1
        if cmd[0] == "p":
            results[want if want.startswith("E ") else "ok"] += 1
        if want != got:
            failed += 1
            if failed <= 20:
                print("  %r: sdx %r, Python %r" % (cmd, got, want), file=sys.stderr)
    print("decimal128_differential: %d bytes -> text, %d text -> bytes (%d values, %d syntax "
          "errors, %d range errors)" % (kinds["t"], kinds["p"], results["ok"], results["E SYNTAX"],
                                        results["E RANGE"]))
    print("%d passed, %d failed" % (len(commands) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
