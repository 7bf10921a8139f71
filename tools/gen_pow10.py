#!/usr/bin/env python3
"""Generate src/num/pow10_table.h: 128-bit powers of ten and exponent helpers.

For every decimal exponent e in [SDX_POW10_MIN, SDX_POW10_MAX] the table holds

    T(e) = floor(10^e * 2^-E),   E = floor(log2(10^e)) - 127,

so that 2^127 <= T(e) < 2^128: the top 128 bits of 10^e, truncated. It is
stored as {hi, lo} 64-bit halves. The truncated value is what an Eisel-Lemire
parser wants; Schubfach (src/num/dtoa.c) uses T(e) + 1.

The header also defines the integer approximations of floor(log10(2^q)),
floor(log10(3/4 * 2^q)) and floor(log2(10^e)) used with the table; this script
checks them exactly (Python integers and fractions) over a range wider than
any use before writing anything.

Before writing, the script also checks the property that lets dtoa.c round the
products to odd with one 64-bit fraction word (see dtoa.c): for every binary
exponent q of a double and each decimal exponent k that Schubfach pairs with
it, every x < 2^55 gives x * 2^q * 10^-k that is an integer or has a fraction
in [2^-68, 1 - 2^-69]. The minimal and maximal fractions over x are found with
a lattice-reduction walk akin to the Euclidean algorithm.

Usage:  python3 tools/gen_pow10.py [output]   (default: src/num/pow10_table.h
relative to the repository root). Python 3 only, no dependencies.
"""
import math
import os
import sys
from fractions import Fraction

POW10_MIN = -342
POW10_MAX = 324

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
    assert 2**127 <= t < 2**128 - 1, e  # T + 1 must fit in 128 bits
    return t


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


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "src", "num", "pow10_table.h")
    check_logs()
    lo, hi = check_schubfach_bounds()
    rows = []
    for e in range(POW10_MIN, POW10_MAX + 1):
        t = table_entry(e)
        rows.append("    {0x%016xu, 0x%016xu}, /* 1e%d */" % (t >> 64, t & (2**64 - 1), e))
    text = f"""/*
 * Generated by tools/gen_pow10.py; do not edit.
 *
 * sdx_pow10_128[e - SDX_POW10_MIN] = {{hi, lo}} of T(e) = floor(10^e * 2^-E),
 * E = floor(log2(10^e)) - 127, so 2^127 <= T(e) < 2^128: the top 128 bits of
 * 10^e, truncated (exact for 0 <= e <= 55). 10^e = T(e) * 2^E, rounded down.
 *
 * The exponent helpers below are exact over the stated ranges (checked by the
 * generator and by tests/unit/test_dtoa.c).
 */
#ifndef SDX_POW10_TABLE_H
#define SDX_POW10_TABLE_H

#include <stdint.h>

#define SDX_POW10_MIN (-342)
#define SDX_POW10_MAX 324

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

#endif /* SDX_POW10_TABLE_H */
"""
    with open(out, "w", newline="\n") as f:
        f.write(text)
    print(f"wrote {out}: {len(rows)} entries; Schubfach margins: min fraction "
          f"2^{math.log2(lo):.1f}, min distance below 1: 2^{math.log2(hi):.1f}")


if __name__ == "__main__":
    main()
