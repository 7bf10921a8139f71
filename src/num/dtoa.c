/*
 * Double to shortest decimal, and that decimal in JSON text.
 *
 * The digits come from the Schubfach algorithm: Raffaello Giulietti, "The
 * Schubfach way to render doubles" (2020, revised 2021). This is an
 * implementation of the paper's mathematics with its own constants and
 * error analysis (128-bit powers of ten instead of the paper's 126-bit ones).
 *
 * Outline. A positive double is v = c * 2^q with an integer c < 2^53. Every
 * real in its rounding interval R = [vl, vr] reads back as v, where
 *   vl = (4c - 2) * 2^(q-2),  vr = (4c + 2) * 2^(q-2),
 * except at a power of two (c = 2^52, q above the subnormal exponent), where
 * the binade below is twice as dense and vl = (4c - 1) * 2^(q-2). R is closed
 * when c is even (ties go to the even c) and open when c is odd.
 * Let D(i) be the decimals d * 10^i. The paper picks k = floor(log10(vr - vl))
 * (floor(log10(2^q)), or floor(log10(3/4 * 2^q)) at a power of two), so that
 * R holds at least one member of D(k) and at most one of D(k+1):
 *   - if R holds a member of D(k+1), it has the fewest digits; take it
 *     (for a few tiny subnormals a member of D(k) has as few digits, and
 *     then it is the farther one: the tests check all c <= 100000);
 *   - otherwise the candidates are s * 10^k and (s+1) * 10^k with
 *     s = floor(v / 10^k); take the one in R, or if both are, the closer (the
 *     even one on a tie).
 * All comparisons involve x * 2^(q-2) * 10^-k for x in {4c-2 or 4c-1, 4c,
 * 4c+2}, compared with multiples of 1/4 (the candidates and their midpoint).
 * The paper's insight is that these tests need only the scaled values rounded
 * to odd, r_o(y) = y if y is an integer, floor(y) | 1 otherwise: rounding to
 * odd preserves every comparison of 4y with an even integer.
 *
 * Scaling. Write 10^-k = T * 2^E with E = floor(log2(10^-k)) - 127 and the
 * real T in [2^127, 2^128); floor(T) is the 128-bit entry of
 * src/num/pow10_table.h. Then
 *   4 * x * 2^(q-2) * 10^-k = (x << h) * T / 2^128,
 *   h = q + floor(log2(10^-k)) + 1, which lies in [1, 4],
 * so cp = x << h < 2^59 and one 64 x 128-bit product gives the value. We use
 * g = floor(T) + 1 > T (the table is truncated; the paper's g likewise), so
 * the computed product exceeds the exact one by less than cp / 2^128 < 2^-69.
 * tools/gen_pow10.py checks, for every q and k that occur and every x < 2^55,
 * that the exact value is an integer or has a fraction in [2^-68, 1 - 2^-69]
 * (the closest is 2^-65.4). Hence the integer part of the computed product is
 * the exact floor, and the exact value is an integer if and only if the
 * computed fraction is below 2^-68: its top 64 bits are zero and the next 4
 * bits too. That is round_to_odd() below.
 *
 * JSON layout (sdx_dtoa_json). Integers below 2^53 skip Schubfach: their
 * digits are the integer's. Otherwise the digits are written once with
 * sdx_u64_to_dec, one byte to the right of where the layout wants them when a
 * point goes in among them; then a fixed-size copy moves the leading digit(s)
 * down one byte, and the point fills the gap. Zeros are padded in 8-byte
 * words. No division by a variable, no per-digit loop.
 */
#include "num/num.h"

#include <stdbool.h>
#include <string.h>

#include "core/platform.h"
#include "num/pow10_table.h"

/* Without unsigned __int128 (or with SDX_DTOA_PORTABLE defined, for testing)
 * 64 x 64-bit products are assembled from 32-bit halves. */
#if defined(SDX_HAVE_U128) && !defined(SDX_DTOA_PORTABLE)
#define DTOA_U128 1
#endif

/* The high half of a * b; the low half in *lo. */
static inline uint64_t mul_64x64(uint64_t a, uint64_t b, uint64_t *lo) {
#ifdef DTOA_U128
    sdx_u128 p = (sdx_u128)a * b;
    *lo = (uint64_t)p;
    return (uint64_t)(p >> 64);
#else
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10; /* < 3 * 2^32 */
    *lo = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* r_o(cp * T / 2^128) from g = T + 1 = {g_hi, g_lo}; see the header comment.
 * The 192-bit product cp * g is a_hi:a_lo:0 + 0:b_hi:b_lo. */
static inline uint64_t round_to_odd(uint64_t g_hi, uint64_t g_lo, uint64_t cp) {
    uint64_t a_lo, a_hi = mul_64x64(g_hi, cp, &a_lo);
    uint64_t b_lo, b_hi = mul_64x64(g_lo, cp, &b_lo);
    uint64_t frac = a_lo + b_hi;          /* fraction bits 2^-1 .. 2^-64 */
    uint64_t whole = a_hi + (frac < a_lo); /* with the carry */
    return whole | ((frac | (b_lo >> 60)) != 0);
}

/* d without its trailing decimal zeros (at most 15, as 0 < d < 10^16),
 * *exp10 raised by their count. n is a multiple of 10^j exactly when
 * n * 5^-j (mod 2^64), rotated right by j bits, is at most (2^64 - 1) / 10^j:
 * the rotation brings any low bits that are not zero to the top (Granlund and
 * Montgomery's test for divisibility by multiplying by the inverse). */
static inline uint64_t rotr64(uint64_t x, unsigned r) {
    return (x >> r) | (x << (64 - r));
}

static inline uint64_t strip_zeros(uint64_t d, int *exp10) {
    /* conditional moves, not branches: the count of zeros is data */
    int e = *exp10;
    uint64_t r = rotr64(d * 0xc767074b22e90e21ull, 8); /* 5^-8 */
    bool z = r <= 184467440737ull;
    d = z ? r : d;
    e += z ? 8 : 0;
    r = rotr64(d * 0xd288ce703afb7e91ull, 4); /* 5^-4 */
    z = r <= 1844674407370955ull;
    d = z ? r : d;
    e += z ? 4 : 0;
    r = rotr64(d * 0x8f5c28f5c28f5c29ull, 2); /* 5^-2 */
    z = r <= 184467440737095516ull;
    d = z ? r : d;
    e += z ? 2 : 0;
    r = rotr64(d * 0xcccccccccccccccdull, 1); /* 5^-1 */
    z = r <= 1844674407370955161ull;
    d = z ? r : d;
    e += z;
    *exp10 = e;
    return d;
}

/* Shortest digits of the positive finite v = c * 2^q; asym marks a power of
 * two above the subnormal range. Returns the digits, exponent in *exp10. */
static SDX_ALWAYS_INLINE uint64_t schubfach(uint64_t c, int q, bool asym, int *exp10) {
    uint64_t cb = c << 2, cbr = cb + 2, cbl;
    int k;
    if (SDX_LIKELY(!asym)) {
        cbl = cb - 2;
        k = sdx_floor_log10_pow2(q);
    } else {
        cbl = cb - 1;
        k = sdx_floor_log10_3q4_pow2(q);
    }
    int h = q + sdx_floor_log2_pow10(-k) + 1;
    const uint64_t *t = sdx_pow10_128[-k - SDX_POW10_MIN];
    uint64_t g_lo = t[1] + 1, g_hi = t[0] + (g_lo == 0);

    /* 4 * (vl, v, vr) / 10^k, rounded to odd */
    uint64_t vbl = round_to_odd(g_hi, g_lo, cbl << h);
    uint64_t vb = round_to_odd(g_hi, g_lo, cb << h);
    uint64_t vbr = round_to_odd(g_hi, g_lo, cbr << h);
    /* R's endpoints belong to it only when c is even: a candidate u is below
     * the top when 4u + open <= vbr, above the bottom when vbl + open <= 4u. */
    uint64_t open = c & 1;
    uint64_t s = vb >> 2; /* floor(v / 10^k) */

    /* The members of D(k+1) around v: 10 * s10 and 10 * (s10 + 1). At most
     * one is in R. (s10 = 0 is never in R, as vbl > 0. As v / 10^k < 10 * c,
     * s10 + 1 <= 2^53 < 10^16.) */
    uint64_t s10 = s / 10;
    uint64_t u4 = s10 * 40, w4 = u4 + 40;
    bool uin = vbl + open <= u4, win = w4 + open <= vbr;
    if (uin != win) {
        *exp10 = k + 1;
        return strip_zeros(s10 + win, exp10);
    }

    /* D(k): s and s + 1, neither a multiple of 10 if it is in R. */
    *exp10 = k;
    uin = vbl + open <= 4 * s;
    win = 4 * s + 4 + open <= vbr;
    if (uin != win) return s + win;
    /* Both in R (the paper shows that R cannot miss both): the closer one,
     * comparing 4v / 10^k with the midpoint 4s + 2; on a tie the even one. */
    uint64_t mid = 4 * s + 2;
    return s + (vb > mid || (vb == mid && (s & 1)));
}

/* The fields of a positive finite nonzero double, into schubfach(). */
static SDX_ALWAYS_INLINE uint64_t shortest_of_bits(uint64_t bits, int *exp10) {
    uint64_t frac = bits & ((1ull << 52) - 1);
    int bexp = (int)((bits >> 52) & 0x7ff);
    if (SDX_LIKELY(bexp != 0))
        return schubfach(frac | (1ull << 52), bexp - 1075, frac == 0 && bexp > 1, exp10);
    return schubfach(frac, -1074, false, exp10);
}

void sdx_dtoa_shortest(double v, uint64_t *digits, int *exp10) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    *digits = shortest_of_bits(bits & ~(1ull << 63), exp10);
}

/* ------------------------------------------------------------------------ */
/* JSON layout                                                              */

static const uint64_t pow10_u64[18] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull,
    100000000ull, 1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull,
    10000000000000ull, 100000000000000ull, 1000000000000000ull, 10000000000000000ull,
    100000000000000000ull};

/* Number of decimal digits of 0 < d < 10^17: floor(log10(d)) is t or
 * t - 1 for t = floor(bits * log10(2)), bits = bit length of d. */
static inline int decimal_length(uint64_t d) {
    int t = ((64 - (int)sdx_clz64(d)) * 1233) >> 12;
    return t + (d >= pow10_u64[t]);
}

/* "e" and the exponent x, -324 <= x <= 308. */
static inline char *put_exponent(char *p, int x) {
    *p++ = 'e';
    if (x < 0) {
        *p++ = '-';
        x = -x;
    }
    unsigned u = (unsigned)x;
    if (u < 10) {
        *p = (char)('0' + u);
        return p + 1;
    }
    if (u >= 100) {
        unsigned hundreds = u / 100;
        *p++ = (char)('0' + hundreds);
        u -= hundreds * 100;
    }
    unsigned tens = (u * 103) >> 10; /* u / 10 for u < 100 */
    p[0] = (char)('0' + tens);
    p[1] = (char)('0' + (u - tens * 10));
    return p + 2;
}

/* Move the n bytes at p + 1 to p (1 <= n <= 16) with fixed-size copies that
 * touch nothing outside [p, p + n]. */
static inline void shift_down_one(char *p, int n) {
    const char *s = p + 1;
    if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(p, &a, 8);
        memcpy(p + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(p, &a, 4);
        memcpy(p + n - 4, &b, 4);
    } else {
        char a = s[0], b = s[n >> 1], c = s[n - 1];
        p[0] = a;
        p[n >> 1] = b;
        p[n - 1] = c;
    }
}

#define ZEROS8 0x3030303030303030ull /* "00000000" */

/* The decimal d * 10^e (d without trailing zeros) at p. Byte budget: the
 * digit writer may store 24 bytes from where it starts; the comments give
 * the furthest byte stored, relative to p (sign excluded, so one less than
 * SDX_DTOA_RESERVE is available). */
static inline char *put_decimal(char *p, uint64_t d, int e) {
    int nd = decimal_length(d);
    int n = nd + e; /* v = 0.d1d2...dnd * 10^n */
    if (SDX_LIKELY(n > 0 && n <= 21)) {
        if (n < nd) {
            /* ddd.ddd: digits at p + 1, the integer part moved down one, then
             * the point (furthest: 1 + 24 = 25) */
            char *end = sdx_u64_to_dec(p + 1, d);
            shift_down_one(p, n);
            p[n] = '.';
            return end;
        }
        /* integral: digits, e zeros (e <= 20) in 8-byte words, ".0"
         * (furthest: 24 for the digits, nd + 8 * ceil(e / 8) <= n + 7 = 28
         * for the zeros) */
        char *z = sdx_u64_to_dec(p, d);
        for (int i = 0; i < e; i += 8) sdx_store64le(z + i, ZEROS8);
        z += e;
        z[0] = '.';
        z[1] = '0';
        return z + 2;
    }
    if (n <= 0 && n > -6) {
        /* 0.000ddd: "0.000000" then the digits over its tail (furthest:
         * 2 + 5 + 24 = 31) */
        memcpy(p, "0.000000", 8);
        return sdx_u64_to_dec(p + 2 - n, d);
    }
    /* d.ddde[-]x: digits at p + 1, the first moved before the point
     * (furthest: 1 + 24 = 25; the exponent ends by 1 + 17 + 5) */
    char *end = sdx_u64_to_dec(p + 1, d);
    p[0] = p[1];
    if (nd > 1) p[1] = '.';
    else end = p + 1;
    return put_exponent(end, n - 1);
}

char *sdx_dtoa_json(char *dst, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    *dst = '-';
    dst += bits >> 63;
    bits &= ~(1ull << 63);

    /* Integers below 2^53 are their own shortest digits, in fixed notation:
     * print them directly. v = m * 2^-shift with the 53-bit m is such an
     * integer when 0 <= shift <= 52 and the low shift bits of m are zero. */
    int bexp = (int)(bits >> 52);
    unsigned shift = (unsigned)(1075 - bexp);
    if (shift <= 52) {
        uint64_t m = (bits & ((1ull << 52) - 1)) | (1ull << 52);
        if ((m & ((1ull << shift) - 1)) == 0) {
            char *z = sdx_u64_to_dec(dst, m >> shift);
            z[0] = '.';
            z[1] = '0';
            return z + 2;
        }
    } else if (bits == 0) {
        memcpy(dst, "0.0", 3);
        return dst + 3;
    }

    int e;
    uint64_t d = shortest_of_bits(bits, &e);
    return put_decimal(dst, d, e);
}
