#!/usr/bin/env python3
"""Generate src/num/pow10_table.h: 128-bit powers of ten and exponent helpers.

For every decimal exponent e in [SDX_POW10_MIN, SDX_POW10_MAX] the table holds

    T(e) = floor(10^e * 2^-E),   E = floor(log2(10^e)) - 127,

so that 2^127 <= T(e) < 2^128: the top 128 bits of 10^e, truncated. It is
stored as {hi, lo} 64-bit halves. The truncated value is what an Eisel-Lemire
parser wants; Dragonbox (src/num/dtoa.c) uses the ceiling ceil(10^e * 2^-E),
which is T(e) + 1 except where T(e) is exact (0 <= e <= 55): the generator
checks that range and that the low half of an inexact T(e) is never all ones
(so the ceiling's high half is T(e)'s).

The header also defines the integer approximations of floor(log10(2^q)),
floor(log10(3/4 * 2^q)) and floor(log2(10^e)) used with the table; this script
checks them exactly (Python integers and fractions) over a range wider than
any use before writing anything.

Before writing, the script checks everything that the Dragonbox code in
src/num/dtoa.c takes on trust (the header comment of dtoa.c has the
derivation), for every binary exponent q of a double:
  - the shift beta = q + floor(log2(10^k)), k = 2 - floor(log10(2^q)), keeps
    x << beta below 2^64 for x < 2^54;
  - delta = phi_hi >> (63 - beta) is floor(2^q * 10^k) exactly;
  - for every x < 2^54, x * 2^(q-1) * 10^k is an integer or has a fraction
    below 1 - 2^-65 (so the product with the ceiling, which is too large by
    less than 2^-65, has the exact floor); and it can be an integer only for
    q in [INT_QMIN, INT_QMAX], where its denominator is below 2^54, so that
    the 64 fraction bits of the product are zero exactly for the integers;
  - for a power of two (the shorter interval), the shift-only formulas for
    the endpoints and the rounded value give the exact results, and the
    ranges of q where the left endpoint is an integer or the value is a tie.
The emitted constants (SDX_DBOX_*) are the ranges found here.

It also still checks the round-to-odd property of Schubfach, which the
reference implementation in tests/unit/test_dtoa.c relies on: for every q and
each decimal exponent k that Schubfach pairs with it, every x < 2^55 gives
x * 2^q * 10^-k that is an integer or has a fraction in [2^-68, 1 - 2^-69].
The minimal and maximal fractions over x are found with a lattice-reduction
walk akin to the Euclidean algorithm.

Usage:  python3 tools/gen_pow10.py [output]   (default: src/num/pow10_table.h
relative to the repository root). Python 3 only, no dependencies.
"""
import math
import os
import sys
from fractions import Fraction

POW10_MIN = -342
POW10_MAX = 326

# Approximations: f(x) = floor((x * MUL - SUB) / 2^SHIFT), computed as
# ((x * MUL - SUB + OFFSET * 2^SHIFT) >> SHIFT) - OFFSET so that the shifted
# value is never negative (right shifts of negative values are
# implementation-defined in C).
SHIFT = 20
OFFSET = 1 << 12
LOG10_2_MUL = round(math.log10(2) * 2**SHIFT)            # 315653
LOG10_3Q4_SUB = math.floor(-math.log10(0.75) * 2**SHIFT)  # 131008
LOG2_10_MUL = round(math.log2(10) * 2**SHIFT)            # 3483294
# Ranges over which the approximations are guaranteed (and checked here and
# in tests/unit/test_dtoa.c). A double's binary exponent q = E - 1075 lies in
# [-1074, 971].
LOG_Q_MIN, LOG_Q_MAX = -1200, 1100
LOG_E_MIN, LOG_E_MAX = -400, 400
# T(e) is exact (10^e * 2^-E an integer) for these e only.
POW10_EXACT_MIN, POW10_EXACT_MAX = 0, 55

# The decimal exponents of the form d.ddde[-]x: 5e-324 (the smallest
# subnormal) to 1.7976931348623157e308 (DBL_MAX).
EXP_TEXT_MIN, EXP_TEXT_MAX = -324, 308
# Dragonbox's kappa: the main case works with 10^(kappa+1) = 1000 and
# 10^kappa = 100 (the paper's choice for binary64).
KAPPA = 2


def approx(x, mul, sub):
    return ((x * mul - sub + OFFSET * 2**SHIFT) >> SHIFT) - OFFSET


def floor_log10(r):
    """floor(log10(r)) for a positive Fraction r, exactly."""
    k = math.floor(math.log10(r.numerator) - math.log10(r.denominator))
    while Fraction(10) ** k > r:
        k -= 1
    while Fraction(10) ** (k + 1) <= r:
        k += 1
    return k


def floor_log2_pow10(e):
    """floor(log2(10^e)), exactly (10^e is a power of two only for e = 0)."""
    if e >= 0:
        return (10**e).bit_length() - 1
    return -((10**-e).bit_length())


def check_logs():
    for q in range(LOG_Q_MIN, LOG_Q_MAX + 1):
        p = Fraction(2) ** q
        assert approx(q, LOG10_2_MUL, 0) == floor_log10(p), q
        assert approx(q, LOG10_2_MUL, LOG10_3Q4_SUB) == floor_log10(p * 3 / 4), q
    for e in range(LOG_E_MIN, LOG_E_MAX + 1):
        assert approx(e, LOG2_10_MUL, 0) == floor_log2_pow10(e), e


def table_entry(e):
    E = floor_log2_pow10(e) - 127
    if e >= 0:
        num, den = 10**e, 1
    else:
        num, den = 1, 10**-e
    if E >= 0:
        den <<= E
    else:
        num <<= -E
    t = num // den
    exact = num % den == 0
    assert 2**127 <= t < 2**128 - 1, e  # T + 1 must fit in 128 bits
    assert exact == (POW10_EXACT_MIN <= e <= POW10_EXACT_MAX), e
    # the ceiling T + 1 of an inexact entry has T's high half
    assert exact or (t & (2**64 - 1)) != 2**64 - 1, e
    return t


def ceil_entry(e):
    """Dragonbox's phi(e) = ceil(10^e * 2^-E)."""
    t = table_entry(e)
    return t if POW10_EXACT_MIN <= e <= POW10_EXACT_MAX else t + 1


def residue_extremes(a, m, xmax):
    """For gcd(a, m) = 1 and 0 < a < m: (min, max) of a*x mod m over
    1 <= x <= xmax.

    Keeps two lattice points of {(x, a*x mod m)}: (x1, r1) with a*x1 = r1 and
    (x2, s2) with a*x2 = -s2 (mod m), r1, s2 > 0, x1*s2 + x2*r1 = m, so the
    two form a basis of the lattice. Writing any point (z, w) with 0 < w < r1
    and z > 0 in that basis shows z >= x1 + x2 (likewise for -s2 < w < 0).
    Each step replaces one point by itself plus a multiple of the other while
    its x stays <= xmax; when no step fits, x1 + x2 > xmax and r1, m - s2 are
    the extremes.
    """
    x1, r1, x2, s2 = 1, a, 1, m - a
    while True:
        if r1 < s2:
            j = min((s2 - 1) // r1, (xmax - x2) // x1)
            if j == 0:
                break
            x2, s2 = x2 + j * x1, s2 - j * r1
        else:
            j = min((r1 - 1) // s2, (xmax - x1) // x2)
            if j == 0:
                break
            x1, r1 = x1 + j * x2, r1 - j * s2
    assert x1 + x2 > xmax and x1 * s2 + x2 * r1 == m
    return r1, m - s2


def check_schubfach_bounds():
    """The round-to-odd property dtoa.c relies on, for every q and k."""
    xmax = 2**55 - 1  # x = 4c - 2, 4c - 1, 4c or 4c + 2 with c < 2^53
    worst_lo = worst_hi = 1.0
    for q in range(-1074, 972):
        ks = {approx(q, LOG10_2_MUL, 0)}
        if q > -1074:
            ks.add(approx(q, LOG10_2_MUL, LOG10_3Q4_SUB))
        for k in ks:
            h = q + floor_log2_pow10(-k) + 1
            assert 1 <= h <= 4, (q, k, h)  # so cp = x << h < 2^59
            assert POW10_MIN <= -k <= POW10_MAX
            alpha = Fraction(2) ** q / Fraction(10) ** k
            n, d = alpha.numerator, alpha.denominator
            if d <= 2**64:
                continue  # fractions are multiples of 1/d >= 2^-64
            lo, hi = residue_extremes(n % d, d, xmax)
            assert lo * 2**68 >= d, (q, k)
            assert (d - hi) * 2**69 >= d, (q, k)
            worst_lo = min(worst_lo, lo / d)
            worst_hi = min(worst_hi, (d - hi) / d)
    return worst_lo, worst_hi


def fraction_extremes(alpha, xmax):
    """(min, max) of frac(x * alpha) over 1 <= x <= xmax, for a rational
    alpha whose denominator exceeds xmax (so that no product is an
    integer), as Fractions."""
    n, d = alpha.numerator, alpha.denominator
    assert d > xmax
    lo, hi = residue_extremes(n % d, d, xmax)
    return Fraction(lo, d), Fraction(hi, d)


def check_dragonbox():
    """The Dragonbox properties listed in the docstring; returns the
    emitted constants and the tightest margin (for the report)."""
    xmax = 2**54 - 1  # x = 2c - 1, 2c or 2c + 1 with c < 2^53
    int_qs = []
    worst_hi = Fraction(1)
    for q in range(-1074, 972):
        k = KAPPA - approx(q, LOG10_2_MUL, 0)
        beta = q + approx(k, LOG2_10_MUL, 0)
        assert POW10_MIN <= k <= POW10_MAX, q
        assert 0 <= beta and xmax << beta < 2**64, (q, beta)
        phi = ceil_entry(k)
        assert (phi >> 64) == table_entry(k) >> 64
        # delta
        assert (phi >> 64) >> (63 - beta) == math.floor(Fraction(2) ** q * Fraction(10) ** k), q
        # the product (x << beta) * phi / 2^128 exceeds the exact value by
        # less than (x << beta) / 2^128 <= err
        err = Fraction(xmax << beta, 2**128)
        alpha = Fraction(2) ** (q - 1) * Fraction(10) ** k
        d = alpha.denominator
        if d <= xmax:
            int_qs.append(q)  # integers possible; fractions are multiples of 1/d
            assert Fraction(1, d) > err and d <= 2**64, q
            continue
        lo, hi = fraction_extremes(alpha, xmax)
        assert 1 - hi > err, q
        worst_hi = min(worst_hi, 1 - hi)
    int_qmin, int_qmax = min(int_qs), max(int_qs)
    assert int_qs == list(range(int_qmin, int_qmax + 1))

    # The shorter interval: v = 2^52 * 2^q, q in [-1073, 971], endpoints
    # (2^54 - 1) * 2^(q-2) and (2^54 + 2) * 2^(q-2), scaled by 10^K with
    # K = -floor(log10(3/4 * 2^q)); only the high half of phi is used.
    left_int, ties = [], []
    for q in range(-1073, 972):
        K = -approx(q, LOG10_2_MUL, LOG10_3Q4_SUB)
        beta = q + approx(K, LOG2_10_MUL, 0)
        sh = 11 - beta
        assert 1 <= sh - 1 and sh <= 63, q
        ph = ceil_entry(K) >> 64
        base = Fraction(2) ** (q - 2) * Fraction(10) ** K
        xl, xr, y = (2**54 - 1) * base, (2**54 + 2) * base, 2**54 * base
        assert (ph - (ph >> 54)) >> sh == math.floor(xl), q
        assert (ph + (ph >> 53)) >> sh == math.floor(xr), q
        assert ((ph >> (sh - 1)) + 1) >> 1 == math.floor(y + Fraction(1, 2)), q
        if xl.denominator == 1:
            left_int.append(q)
        if (y + Fraction(1, 2)).denominator == 1:
            ties.append(q)
    assert left_int == list(range(left_int[0], left_int[-1] + 1))
    assert len(ties) == 1
    consts = {
        "INT_QMIN": int_qmin, "INT_QMAX": int_qmax,
        "SHORTER_LEFT_INT_QMIN": left_int[0], "SHORTER_LEFT_INT_QMAX": left_int[-1],
        "SHORTER_TIE_Q": ties[0],
    }
    return consts, worst_hi


def dbox_exponent_entry(bexp):
    """The entry of sdx_dbox_exp for a biased exponent: the table index
    k - POW10_MIN of k = KAPPA - floor(log10(2^q)) in the low 10 bits and
    beta = q + floor(log2(10^k)) above them (q = -1074 for subnormals)."""
    q = max(bexp, 1) - 1075
    k = KAPPA - approx(q, LOG10_2_MUL, 0)
    beta = q + approx(k, LOG2_10_MUL, 0)
    idx = k - POW10_MIN
    assert 0 <= idx < 1024 and 6 <= beta <= 9
    # delta = floor(Delta) = floor(2^q * 10^k), phi's high word shifted as
    # dtoa.c once computed it (a shift by a variable count on the hot path)
    delta = (ceil_entry(k) >> 64) >> (63 - beta)
    assert delta == math.floor(Fraction(2)**q * Fraction(10)**k), bexp
    assert 100 <= delta < 1000  # Delta = 2^q * 10^k is in [100, 1000)
    inexact = not (POW10_EXACT_MIN <= k <= POW10_EXACT_MAX)
    return idx | delta << 10 | (1 << beta) << 20 | inexact << 30


def dbox_exponent_rows():
    entries = [dbox_exponent_entry(b) if b < 2047 else 0 for b in range(2048)]
    return ["    " + ", ".join("0x%06x" % x for x in entries[i:i + 10]) + ","
            for i in range(0, 2048, 10)]


def exp_text_rows():
    """sdx_dtoa_exp_text: "e", the sign and the digits of every decimal
    exponent a double's shortest form can have, little-endian in the low
    bytes, the length in the top byte."""
    vals = []
    for x in range(EXP_TEXT_MIN, EXP_TEXT_MAX + 1):
        t = "e" + ("-" if x < 0 else "") + str(abs(x))
        assert len(t) <= 7
        v = sum(ord(ch) << (8 * i) for i, ch in enumerate(t)) | len(t) << 56
        # the entry decodes back to the text
        assert bytes((v >> (8 * i)) & 0xFF for i in range(v >> 56)).decode() == t
        vals.append(v)
    return ["    " + ", ".join("0x%016xu" % v for v in vals[i:i + 4]) + ","
            for i in range(0, len(vals), 4)]


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "src", "num", "pow10_table.h")
    check_logs()
    lo, hi = check_schubfach_bounds()
    consts, dbox_hi = check_dragonbox()
    n = consts
    exp_rows = dbox_exponent_rows()
    text_rows = exp_text_rows()
    rows = []
    for e in range(POW10_MIN, POW10_MAX + 1):
        t = table_entry(e)
        rows.append("    {0x%016xu, 0x%016xu}, /* 1e%d */" % (t >> 64, t & (2**64 - 1), e))
    text = f"""/*
 * Generated by tools/gen_pow10.py; do not edit.
 *
 * sdx_pow10_128[e - SDX_POW10_MIN] = {{hi, lo}} of T(e) = floor(10^e * 2^-E),
 * E = floor(log2(10^e)) - 127, so 2^127 <= T(e) < 2^128: the top 128 bits of
 * 10^e, truncated (exact for SDX_POW10_EXACT_MIN <= e <= SDX_POW10_EXACT_MAX).
 * 10^e = T(e) * 2^E, rounded down. The ceiling that Dragonbox wants is T(e)
 * outside that range plus one in the low half (never a carry into the high
 * half: checked).
 *
 * The exponent helpers below are exact over the stated ranges (checked by the
 * generator and by tests/unit/test_dtoa.c).
 */
#ifndef SDX_POW10_TABLE_H
#define SDX_POW10_TABLE_H

#include <stdint.h>

#define SDX_POW10_MIN ({POW10_MIN})
#define SDX_POW10_MAX {POW10_MAX}
#define SDX_POW10_EXACT_MIN {POW10_EXACT_MIN}
#define SDX_POW10_EXACT_MAX {POW10_EXACT_MAX}

/* Ranges of the binary exponent q of a double v = c * 2^q found by the
 * generator's exhaustive checks for the Dragonbox code in src/num/dtoa.c:
 * x * 2^(q-1) * 10^(2 - floor(log10(2^q))) can be an integer for an x < 2^54
 * only for INT_QMIN <= q <= INT_QMAX; for a power of two, the left endpoint
 * of the shorter interval scaled by 10^-floor(log10(3/4 * 2^q)) is an integer
 * only for SHORTER_LEFT_INT_QMIN <= q <= SHORTER_LEFT_INT_QMAX, and the
 * scaled value is halfway between two integers only for q = SHORTER_TIE_Q. */
#define SDX_DBOX_INT_QMIN ({n["INT_QMIN"]})
#define SDX_DBOX_INT_QMAX {n["INT_QMAX"]}
#define SDX_DBOX_SHORTER_LEFT_INT_QMIN {n["SHORTER_LEFT_INT_QMIN"]}
#define SDX_DBOX_SHORTER_LEFT_INT_QMAX {n["SHORTER_LEFT_INT_QMAX"]}
#define SDX_DBOX_SHORTER_TIE_Q ({n["SHORTER_TIE_Q"]})

/* floor(log10(2^q)) for {LOG_Q_MIN} <= q <= {LOG_Q_MAX}. */
static inline int sdx_floor_log10_pow2(int q) {{
    return (int)(((int64_t)q * {LOG10_2_MUL} + ({OFFSET}ll << {SHIFT})) >> {SHIFT}) - {OFFSET};
}}

/* floor(log10(3/4 * 2^q)) for {LOG_Q_MIN} <= q <= {LOG_Q_MAX}. */
static inline int sdx_floor_log10_3q4_pow2(int q) {{
    return (int)(((int64_t)q * {LOG10_2_MUL} - {LOG10_3Q4_SUB} + ({OFFSET}ll << {SHIFT})) >> {SHIFT}) - {OFFSET};
}}

/* floor(log2(10^e)) for {LOG_E_MIN} <= e <= {LOG_E_MAX}. */
static inline int sdx_floor_log2_pow10(int e) {{
    return (int)(((int64_t)e * {LOG2_10_MUL} + ({OFFSET}ll << {SHIFT})) >> {SHIFT}) - {OFFSET};
}}

static const uint64_t sdx_pow10_128[SDX_POW10_MAX - SDX_POW10_MIN + 1][2] = {{
{chr(10).join(rows)}
}};

/* For Dragonbox (src/num/dtoa.c), by the biased exponent b of a double
 * (q = b - 1075, or -1074 for b = 0): the index into sdx_pow10_128 of
 * 10^k, k = 2 - floor(log10(2^q)), in the low 10 bits,
 * delta = floor(2^q * 10^k) (100 to 999) in the 10 bits above, and
 * 2^beta, beta = q + floor(log2(10^k)) (6 to 9), in the 10 bits above
 * them, and at bit 30 whether the entry of 10^k is truncated (phi is the
 * entry plus one) or exact: Dragonbox's shifts by beta and 63 - beta and
 * its range test, tabulated (a shift by a count in a register is 2 or 3
 * micro-operations on x86-64 without BMI2; these are an AND, a shift by a
 * constant and a multiplication). */
#define SDX_DBOX_EXP_IDX(x) ((unsigned)(x) & 1023u)
#define SDX_DBOX_EXP_DELTA(x) ((uint32_t)(x) >> 10 & 1023u)
#define SDX_DBOX_EXP_POW2_BETA(x) ((uint32_t)(x) >> 20 & 1023u)
#define SDX_DBOX_EXP_INEXACT(x) ((uint32_t)(x) >> 30)
static const uint32_t sdx_dbox_exp[2048] = {{
{chr(10).join(exp_rows)}
}};

/* For the JSON layout of src/num/dtoa.c: "e" and the exponent x (the
 * exponent of the form d.ddde-x, from the smallest subnormal's to
 * DBL_MAX's), as sdx_dtoa_exp_text[x - SDX_DTOA_EXP_MIN]: the text in the
 * low bytes (first character lowest), its length (2 to 5) in the top byte. */
#define SDX_DTOA_EXP_MIN ({EXP_TEXT_MIN})
#define SDX_DTOA_EXP_MAX {EXP_TEXT_MAX}
static const uint64_t sdx_dtoa_exp_text[SDX_DTOA_EXP_MAX - SDX_DTOA_EXP_MIN + 1] = {{
{chr(10).join(text_rows)}
}};

#endif /* SDX_POW10_TABLE_H */
"""
    with open(out, "w", newline="\n") as f:
        f.write(text)
    print(f"wrote {out}: {len(rows)} entries; Dragonbox: {consts}, min distance "
          f"below 1: 2^{math.log2(dbox_hi):.1f}; Schubfach (test reference) margins: "
          f"min fraction 2^{math.log2(lo):.1f}, min distance below 1: 2^{math.log2(hi):.1f}")


if __name__ == "__main__":
    main()
