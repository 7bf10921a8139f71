/*
 * Tests for src/num/dtoa.c (shortest round-trip digits by Dragonbox, JSON
 * layout) and for the generated src/num/pow10_table.h.
 *
 * The reference for every double is the C library: strtod (correctly rounded
 * in glibc) for reading back, and printf("%.*e") (exact, correctly rounded in
 * glibc) for the decimals with a given number of significant digits. For a
 * double v with shortest output of n digits the checks are:
 *   round trip  the digits, and the JSON text, read back as v exactly;
 *   shortest    neither n-1-digit decimal next to v (below and above, taken
 *               from printf's correctly rounded n-1 digits and its neighbour
 *               on the other side of v) reads back as v; any shorter decimal
 *               that read back as v would make one of those two do so, since
 *               the set of decimals that read back as v is an interval;
 *   closest     when printf's n-digit decimal (the closest to v, ties to even)
 *               reads back as v, the output is that decimal;
 *   layout      the JSON text is the one that the layout rule of num.h gives
 *               for those digits (spec_json() below, written from the rule).
 *
 * Size: by default about 4.5 million doubles get all four checks: 2,000,000
 * random bit patterns, 1,000,000 random exponent and mantissa pairs,
 * 1,000,000 random short decimals, and 0.5 million chosen ones; about 10 s
 * in a Release build, most of it in strtod and printf. SDX_TEST_SCALE=10
 * scales the random ones tenfold, the long variant: 20 million random bit
 * patterns, 40 million random doubles in all (about 90 s).
 *
 * Dragonbox in particular: the generated tables are checked against exact
 * arithmetic (the ceiling of each power of ten, the per-exponent table, the
 * exponent ranges where scaled values can be integers); the multiplications
 * by reciprocals of the digit conversion are checked exhaustively; doubles
 * that take each rare branch of the algorithm (found with exact arithmetic)
 * get the full checks; and about 20 million doubles (every exponent, every
 * power of two, many subnormals, random bit patterns; scaled by
 * SDX_TEST_SCALE) are compared with an independent implementation of
 * Schubfach, the algorithm this file used to test, and their JSON text with
 * the layout rule.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "num/num.h"
#include "num/pow10_table.h"
#include "test.h"

/* ------------------------------------------------------------------------ */
/* A small bignum (little-endian 32-bit limbs) for exact checks.            */

#define BIG_LIMBS 96 /* 3072 bits: 10^400 * 2^1200 would still fit */

typedef struct {
    uint32_t w[BIG_LIMBS];
    int n; /* limbs in use; w[n-1] != 0 unless n == 0 */
} big;

static void big_set_u128(big *b, uint64_t hi, uint64_t lo) {
    b->w[0] = (uint32_t)lo;
    b->w[1] = (uint32_t)(lo >> 32);
    b->w[2] = (uint32_t)hi;
    b->w[3] = (uint32_t)(hi >> 32);
    b->n = 4;
    while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
}

static void big_mul_small(big *b, uint32_t m) {
    uint64_t carry = 0;
    for (int i = 0; i < b->n; i++) {
        uint64_t x = (uint64_t)b->w[i] * m + carry;
        b->w[i] = (uint32_t)x;
        carry = x >> 32;
    }
    if (carry) {
        if (b->n >= BIG_LIMBS) abort();
        b->w[b->n++] = (uint32_t)carry;
    }
}

static void big_mul_pow10(big *b, int e) {
    static const uint32_t p10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                    100000000};
    for (; e >= 9; e -= 9) big_mul_small(b, 1000000000u);
    if (e > 0) big_mul_small(b, p10[e]);
}

static void big_shl(big *b, int s) {
    if (b->n == 0 || s == 0) return;
    int words = s / 32, bits = s % 32;
    if (b->n + words + 1 > BIG_LIMBS) abort();
    b->w[b->n + words] = 0;
    for (int i = b->n - 1; i >= 0; i--) {
        uint64_t x = (uint64_t)b->w[i] << bits;
        b->w[i + words + 1] |= (uint32_t)(x >> 32);
        b->w[i + words] = (uint32_t)x;
    }
    for (int i = 0; i < words; i++) b->w[i] = 0;
    b->n += words + 1;
    while (b->n > 0 && b->w[b->n - 1] == 0) b->n--;
}

static int big_cmp(const big *a, const big *b) {
    if (a->n != b->n) return a->n < b->n ? -1 : 1;
    for (int i = a->n - 1; i >= 0; i--)
        if (a->w[i] != b->w[i]) return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

static int big_bitlen(const big *b) {
    if (b->n == 0) return 0;
    int top = 0;
    for (uint32_t x = b->w[b->n - 1]; x; x >>= 1) top++;
    return (b->n - 1) * 32 + top;
}

/* The sign of 10^e10 - m * 2^e2, exactly. */
static int cmp_pow10_vs_pow2(int e10, uint32_t m, int e2) {
    big l, r;
    big_set_u128(&l, 0, 1);
    big_mul_pow10(&l, e10 > 0 ? e10 : 0);
    big_shl(&l, e2 < 0 ? -e2 : 0);
    big_set_u128(&r, 0, m);
    big_mul_pow10(&r, e10 < 0 ? -e10 : 0);
    big_shl(&r, e2 > 0 ? e2 : 0);
    return big_cmp(&l, &r);
}

/* floor(log2(10^e)) from the bit length of 10^|e| (10^|e| is not a power of
 * two for e != 0). */
static int exact_floor_log2_pow10(int e) {
    big b;
    big_set_u128(&b, 0, 1);
    big_mul_pow10(&b, e < 0 ? -e : e);
    int len = big_bitlen(&b);
    if (e == 0) return 0;
    return e > 0 ? len - 1 : -len;
}

/* ------------------------------------------------------------------------ */
/* The table and the exponent approximations                                */

TEST(pow10_table_exact) {
    int bad = 0;
    for (int e = SDX_POW10_MIN; e <= SDX_POW10_MAX; e++) {
        uint64_t hi = sdx_pow10_128[e - SDX_POW10_MIN][0], lo = sdx_pow10_128[e - SDX_POW10_MIN][1];
        int E = exact_floor_log2_pow10(e) - 127;
        /* 2^127 <= T < 2^128 - 1 (so T + 1 fits in 128 bits) */
        bool ok = (hi >> 63) == 1 && !(hi == UINT64_MAX && lo == UINT64_MAX);
        /* T * 2^E <= 10^e < (T + 1) * 2^E, with both sides scaled to integers:
         * T * 10^max(-e,0) * 2^max(E,0) <= 10^max(e,0) * 2^max(-E,0) < ... */
        big a, t, t1;
        big_set_u128(&a, 0, 1);
        big_mul_pow10(&a, e > 0 ? e : 0);
        big_shl(&a, E < 0 ? -E : 0);
        big_set_u128(&t, hi, lo);
        big_set_u128(&t1, hi + (lo == UINT64_MAX), lo + 1);
        big *side[2] = {&t, &t1};
        for (int i = 0; i < 2; i++) {
            big_mul_pow10(side[i], e < 0 ? -e : 0);
            big_shl(side[i], E > 0 ? E : 0);
        }
        ok = ok && big_cmp(&t, &a) <= 0 && big_cmp(&a, &t1) < 0;
        /* Dragonbox's ceiling is T + 1 unless T is exact, which it is for
         * exactly SDX_POW10_EXACT_MIN <= e <= SDX_POW10_EXACT_MAX, and then
         * the low half of T + 1 never carries into the high half */
        bool exact = big_cmp(&t, &a) == 0;
        ok = ok && exact == (e >= SDX_POW10_EXACT_MIN && e <= SDX_POW10_EXACT_MAX);
        ok = ok && (exact || lo != UINT64_MAX);
        if (!ok && bad++ < 10) fprintf(stderr, "  table entry for 1e%d is wrong\n", e);
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(exponent_approximations) {
    /* The ranges documented in pow10_table.h; a double's binary exponent q
     * is in [-1074, 971] and the table's decimal exponents in [-342, 324]. */
    int bad = 0;
    for (int q = -1200; q <= 1100; q++) {
        int k = sdx_floor_log10_pow2(q); /* 10^k <= 2^q < 10^(k+1) */
        if (!(cmp_pow10_vs_pow2(k, 1, q) <= 0 && cmp_pow10_vs_pow2(k + 1, 1, q) > 0)) {
            if (bad++ < 10) fprintf(stderr, "  floor(log10(2^%d)) != %d\n", q, k);
        }
        k = sdx_floor_log10_3q4_pow2(q); /* 10^k <= 3 * 2^(q-2) < 10^(k+1) */
        if (!(cmp_pow10_vs_pow2(k, 3, q - 2) <= 0 && cmp_pow10_vs_pow2(k + 1, 3, q - 2) > 0)) {
            if (bad++ < 10) fprintf(stderr, "  floor(log10(3/4 * 2^%d)) != %d\n", q, k);
        }
    }
    for (int e = -400; e <= 400; e++) {
        int f = sdx_floor_log2_pow10(e); /* 2^f <= 10^e < 2^(f+1) */
        if (!(cmp_pow10_vs_pow2(e, 1, f) >= 0 && cmp_pow10_vs_pow2(e, 1, f + 1) < 0)) {
            if (bad++ < 10) fprintf(stderr, "  floor(log2(10^%d)) != %d\n", e, f);
        }
        if (f != exact_floor_log2_pow10(e) && bad++ < 10) fprintf(stderr, "  log2 10^%d\n", e);
    }
    CHECK_EQ_INT(bad, 0);
}

/* The per-exponent table of Dragonbox: for every biased exponent, the index
 * of 10^k, k = 2 - floor(log10(2^q)), 2^beta for beta = q + floor(log2(10^k))
 * (the helpers are checked exactly above) and whether the entry is truncated;
 * the tabulated delta = floor(2^q * 10^k), the high word shifted, is exact;
 * and the scaled values x * 2^(q-1) * 10^k can be integers (their
 * denominator is below 2^54 > x) for q in [SDX_DBOX_INT_QMIN,
 * SDX_DBOX_INT_QMAX] only. */
TEST(dragonbox_exponent_table) {
    int bad = 0;
    for (int b = 0; b < 2047; b++) {
        int q = (b ? b : 1) - 1075;
        unsigned ent = sdx_dbox_exp[b];
        int k = 2 - sdx_floor_log10_pow2(q);
        int beta = q + sdx_floor_log2_pow10(k);
        bool inexact = k < SDX_POW10_EXACT_MIN || k > SDX_POW10_EXACT_MAX;
        bool ok = SDX_DBOX_EXP_IDX(ent) == (unsigned)(k - SDX_POW10_MIN) && beta >= 6 &&
                  beta <= 9 && SDX_DBOX_EXP_POW2_BETA(ent) == 1u << beta &&
                  SDX_DBOX_EXP_INEXACT(ent) == (uint32_t)inexact;
        uint64_t delta = SDX_DBOX_EXP_DELTA(ent);
        /* the tabulated delta is the high word shifted (what it replaces)
         * and delta <= 2^q * 10^k < delta + 1, i.e. 10^k vs delta * 2^-q */
        ok = ok && delta == sdx_pow10_128[k - SDX_POW10_MIN][0] >> (63 - beta) && delta < 1000 &&
             cmp_pow10_vs_pow2(k, (uint32_t)delta, -q) >= 0 &&
             cmp_pow10_vs_pow2(k, (uint32_t)delta + 1, -q) < 0;
        /* the denominator of 2^(q-1) * 10^k is 2^a * 5^f; it is below 2^54
         * when 10^f * 2^a < 2^(54 + f) */
        int a = 1 - q - k > 0 ? 1 - q - k : 0, f = k < 0 ? -k : 0;
        bool small_den = cmp_pow10_vs_pow2(f, 1, 54 + f - a) < 0;
        bool in_range = q >= SDX_DBOX_INT_QMIN && q <= SDX_DBOX_INT_QMAX;
        ok = ok && small_den == in_range;
        if (!ok && bad++ < 10) fprintf(stderr, "  exponent table entry %d (q = %d)\n", b, q);
    }
    /* The shorter interval (c = 2^52): the left endpoint
     * (2^54 - 1) * 2^(q-2) * 10^K, K = -floor(log10(3/4 * 2^q)), is an integer
     * exactly when K >= 0 and q - 2 + K >= 0 (2^54 - 1 is odd and not a
     * multiple of 5); the value 2^(q+52) * 10^K is halfway between integers
     * exactly when K >= 0 and q + 52 + K = -1. */
    bad += ((1ull << 54) - 1) % 5 == 0;
    for (int q = -1073; q <= 971; q++) {
        int K = -sdx_floor_log10_3q4_pow2(q);
        bool left_int = K >= 0 && q - 2 + K >= 0;
        bool tie = K >= 0 && q + 52 + K == -1;
        bool ok = left_int == (q >= SDX_DBOX_SHORTER_LEFT_INT_QMIN &&
                               q <= SDX_DBOX_SHORTER_LEFT_INT_QMAX) &&
                  tie == (q == SDX_DBOX_SHORTER_TIE_Q);
        if (!ok && bad++ < 10) fprintf(stderr, "  shorter interval constants at q = %d\n", q);
    }
    CHECK_EQ_INT(bad, 0);
}

/* The multiplications by reciprocals in the digit conversion (itoa.h's
 * sdx_itoa_ascii16, which dtoa.c uses) and dtoa.c's exponent, exhaustively
 * over their ranges. */
TEST(reciprocal_constants) {
    long bad = 0;
    for (uint64_t x = 0; x < 100000000; x++) bad += (x * 3518437209u) >> 45 != x / 10000;
    for (uint32_t x = 0; x < 10000; x++) bad += (x * 5243) >> 19 != x / 100;
    for (uint32_t x = 0; x < 100; x++) bad += (x * 6554) >> 16 != x / 10;
    for (uint32_t x = 0; x < 100; x++) bad += (x * 103) >> 10 != x / 10;
    for (uint32_t x = 0; x < 1000; x++) bad += (x * 41) >> 12 != x / 100;
    for (uint32_t x = 0; x < 1099; x++) bad += (x * 656) >> 16 != x / 100;
    CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------------------------------ */
/* The reference checks                                                     */

static uint64_t bits_of(double v) {
    uint64_t b;
    memcpy(&b, &v, 8);
    return b;
}

static double double_of(uint64_t b) {
    double v;
    memcpy(&v, &b, 8);
    return v;
}

/* The JSON text for the decimal (-1)^neg * d * 10^e (d without trailing
 * zeros), from the layout rule in num.h: with n the position of the decimal
 * point (v = 0.d1d2...dk * 10^n), fixed notation when -6 < n <= 21, with
 * ".0" after an integer; otherwise d[.ddd]e[-]x with x = n - 1. */
static void spec_json(char *out, bool neg, uint64_t d, int e) {
    char digs[32];
    int nd = snprintf(digs, sizeof digs, "%" PRIu64, d);
    int n = nd + e;
    char *p = out;
    if (neg) *p++ = '-';
    if (n > -6 && n <= 21) {
        if (n <= 0) {
            *p++ = '0';
            *p++ = '.';
            for (int i = 0; i < -n; i++) *p++ = '0';
            p += sprintf(p, "%s", digs);
        } else if (n >= nd) {
            p += sprintf(p, "%s", digs);
            for (int i = 0; i < n - nd; i++) *p++ = '0';
            p += sprintf(p, ".0");
        } else {
            memcpy(p, digs, (size_t)n);
            p += n;
            p += sprintf(p, ".%s", digs + n);
        }
    } else {
        *p++ = digs[0];
        if (nd > 1) p += sprintf(p, ".%s", digs + 1);
        p += sprintf(p, "e%d", n - 1);
    }
    *p = 0;
}

/* Significant digits and exponent of printf's "%.*e" text: the value is
 * *m * 10^*e (the mantissa digits as an integer, at most 18 of them). */
static void parse_e_format(const char *s, uint64_t *m, int *e) {
    uint64_t x = 0;
    int frac = 0, seen_point = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s == '.') {
            seen_point = 1;
            continue;
        }
        x = x * 10 + (uint64_t)(*s - '0');
        frac += seen_point;
    }
    *m = x;
    *e = atoi(s + 1) - frac;
}

/* Whether strtod reads m * 10^e as v. */
static int reads_back(uint64_t m, int e, double v) {
    char buf[48], *p = buf + 24;
    *p = 0;
    int ae = e < 0 ? -e : e;
    do *--p = (char)('0' + ae % 10);
    while ((ae /= 10) != 0);
    if (e < 0) *--p = '-';
    *--p = 'e';
    do *--p = (char)('0' + m % 10);
    while ((m /= 10) != 0);
    return bits_of(strtod(p, NULL)) == bits_of(v);
}

static long checked_doubles;
static int diag_budget = 20;

static void report(double v, const char *what, const char *detail) {
    if (diag_budget > 0) {
        diag_budget--;
        fprintf(stderr, "  %.17g (bits %016" PRIx64 "): %s %s\n", v, bits_of(v), what,
                detail ? detail : "");
    }
}

/* All checks on one finite nonzero double; returns the number of failures. */
static int verify(double v) {
    int bad = 0;
    double a = fabs(v);
    char buf[64], text[96];
    checked_doubles++;

    uint64_t d;
    int e;
    sdx_dtoa_shortest(v, &d, &e);
    if (d == 0 || d >= 100000000000000000ull || d % 10 == 0) {
        report(v, "digits out of range or with a trailing zero", NULL);
        return 1;
    }
    /* round trip */
    if (!reads_back(d, e, a)) {
        snprintf(text, sizeof text, "%" PRIu64 "e%d", d, e);
        report(v, "does not read back:", text);
        bad++;
    }
    int n = snprintf(buf, sizeof buf, "%" PRIu64, d);

    /* shortest: the nearest n-1-digit decimals on either side do not read
     * back */
    if (n >= 2) {
        snprintf(buf, sizeof buf, "%.*e", n - 2, a);
        uint64_t m;
        int me;
        parse_e_format(buf, &m, &me);
        double r = strtod(buf, NULL);
        if (bits_of(r) == bits_of(a)) {
            report(v, "a shorter decimal reads back:", buf);
            bad++;
        } else {
            /* the n-1-digit neighbour on the other side of v */
            uint64_t m2 = m;
            int e2 = me;
            uint64_t low = 1; /* 10^(n-2): the smallest n-1-digit mantissa */
            for (int i = 0; i < n - 2; i++) low *= 10;
            if (r < a) {
                m2 = m + 1; /* may become 10^(n-1): still the next decimal */
            } else if (m == low) {
                m2 = low * 10 - 1; /* below a power of ten the grid is finer */
                e2 = me - 1;
            } else {
                m2 = m - 1;
            }
            if (reads_back(m2, e2, a)) {
                snprintf(text, sizeof text, "%" PRIu64 "e%d", m2, e2);
                report(v, "a shorter decimal reads back:", text);
                bad++;
            }
        }
    }

    /* closest: printf's n-digit decimal, if it reads back, is the output */
    snprintf(buf, sizeof buf, "%.*e", n - 1, a);
    uint64_t m;
    int me;
    parse_e_format(buf, &m, &me);
    while (m % 10 == 0) {
        m /= 10;
        me++;
    }
    if ((m != d || me != e) && bits_of(strtod(buf, NULL)) == bits_of(a)) {
        snprintf(text, sizeof text, "%" PRIu64 "e%d, closest is %s", d, e, buf);
        report(v, "not the closest:", text);
        bad++;
    }

    /* JSON: reads back (with the sign), has the layout, stays in its 32
     * bytes */
    char out[96];
    memset(out, 0x5a, sizeof out);
    char *end = sdx_dtoa_json(out, v);
    size_t len = (size_t)(end - out);
    int overrun = 0;
    for (size_t i = SDX_DTOA_RESERVE; i < sizeof out; i++) overrun |= out[i] != 0x5a;
    if (len >= SDX_DTOA_RESERVE || overrun) {
        report(v, "JSON text too long or stored beyond SDX_DTOA_RESERVE", NULL);
        return bad + 1;
    }
    out[len] = 0;
    if (bits_of(strtod(out, NULL)) != bits_of(v)) {
        report(v, "JSON does not read back:", out);
        bad++;
    }
    spec_json(text, v < 0, d, e);
    if (strcmp(out, text) != 0) {
        char both[256];
        snprintf(both, sizeof both, "\"%s\", expected \"%s\"", out, text);
        report(v, "JSON layout:", both);
        bad++;
    }
    return bad;
}

static int verify_if_finite(double v) {
    if (!isfinite(v) || v == 0) return 0;
    return verify(v);
}

/* ------------------------------------------------------------------------ */
/* Randomized                                                               */

static long scaled(long n) {
    return (long)((double)n * test_scale());
}

TEST(random_bit_patterns) {
    uint64_t seed = 0x5eed0001;
    long count = scaled(2000000), bad = 0;
    long before = checked_doubles;
    for (long i = 0; i < count; i++) bad += verify_if_finite(double_of(test_rand(&seed)));
    printf("  %ld random bit patterns\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

/* A random biased exponent (uniform over all 2047 finite ones, subnormals
 * included) with a mantissa of one of several shapes: uniform, a few high
 * bits only (short binary fractions), runs of ones, or next to zero. */
TEST(random_exponent_and_mantissa) {
    uint64_t seed = 0x5eed0002;
    long count = scaled(1000000), bad = 0;
    long before = checked_doubles;
    for (long i = 0; i < count; i++) {
        uint64_t r = test_rand(&seed), f = test_rand(&seed) & ((1ull << 52) - 1);
        uint64_t bexp = (r >> 8) % 2047;
        switch (r & 3) {
        case 0: break;
        case 1: f &= ~((1ull << ((r >> 20) % 53)) - 1); break; /* low bits clear */
        case 2: f |= (1ull << ((r >> 20) % 53)) - 1; break;        /* low bits set */
        default: f = (r >> 40) & 0xff; break;                      /* tiny mantissa */
        }
        uint64_t bits = (r & (1ull << 63)) | (bexp << 52) | f;
        bad += verify_if_finite(double_of(bits));
    }
    printf("  %ld doubles\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

/* Decimals of 1 to 17 random digits with a random exponent, as read by
 * strtod: values like the ones in real documents, whose shortest digits are
 * often fewer than 17 (the path that removes trailing zeros). */
TEST(random_short_decimals) {
    uint64_t seed = 0x5eed0003;
    long count = scaled(1000000), bad = 0;
    long before = checked_doubles;
    for (long i = 0; i < count; i++) {
        uint64_t r = test_rand(&seed);
        int digits = 1 + (int)(r % 17);
        int exp = (int)((r >> 8) % 650) - 340;
        uint64_t m = test_rand(&seed), mod = 1;
        for (int j = 0; j < digits; j++) mod *= 10;
        m %= mod;
        char s[48];
        snprintf(s, sizeof s, "%s%" PRIu64 "e%d", (r >> 63) ? "-" : "", m, exp);
        double v = strtod(s, NULL);
        bad += verify_if_finite(v);
        /* a decimal of at most 15 digits survives the trip through a normal
         * double, so the shortest output has at most as many digits */
        if (isfinite(v) && fabs(v) >= DBL_MIN && m != 0) {
            uint64_t d;
            int e;
            sdx_dtoa_shortest(v, &d, &e);
            int nd = snprintf(s, sizeof s, "%" PRIu64, d);
            int nm = snprintf(s, sizeof s, "%" PRIu64, m);
            if (nm <= 15 && nd > nm) {
                report(v, "more digits than a 15-digit input", NULL);
                bad++;
            }
        }
    }
    printf("  %ld doubles\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------------------------------ */
/* Known hard cases                                                         */

TEST(subnormals_and_extremes) {
    long bad = 0, before = checked_doubles;
    for (uint64_t f = 1; f <= 100000; f++) {
        bad += verify(double_of(f));                          /* smallest subnormals */
        bad += verify(double_of(((1ull << 52) - f)));         /* largest subnormals */
        bad += verify(double_of((1ull << 52) + f - 1));       /* smallest normals */
        bad += verify(double_of(0x7fefffffffffffffull - f + 1)); /* DBL_MAX and below */
    }
    bad += verify(DBL_MIN) + verify(DBL_MAX) + verify(-DBL_MAX) + verify(DBL_TRUE_MIN);
    bad += verify(DBL_EPSILON);
    printf("  %ld doubles\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

/* Powers of two have an interval twice as wide above as below. */
TEST(powers_of_two) {
    long bad = 0, before = checked_doubles;
    for (int q = -1074; q <= 1023; q++) {
        double p = ldexp(1.0, q);
        bad += verify(p) + verify(-p);
        double below = p, above = p;
        for (int i = 0; i < 4; i++) {
            below = nextafter(below, 0);
            above = nextafter(above, INFINITY);
            bad += verify_if_finite(below) + verify_if_finite(above);
        }
    }
    printf("  %ld doubles\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

/* Around 2^53, 2^54 and the powers of ten where the layout switches. */
TEST(neighbourhoods) {
    static const double centers[] = {9007199254740992.0, 18014398509481984.0, 1e15, 1e16,
                                     1e17, 1e20, 1e21, 1e22, 1e23, 1e-5, 1e-6, 1e-7,
                                     0.1, 1.0, 10.0};
    long bad = 0, before = checked_doubles;
    for (size_t i = 0; i < sizeof centers / sizeof centers[0]; i++) {
        double lo = centers[i], hi = centers[i];
        bad += verify(lo);
        for (int j = 0; j < 2000; j++) {
            lo = nextafter(lo, 0);
            hi = nextafter(hi, INFINITY);
            bad += verify(lo) + verify(hi);
        }
    }
    printf("  %ld doubles\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

TEST(literature_cases) {
    /* V. Paxson, "A Program for Testing IEEE Decimal-Binary Conversion"
     * (1991), the binary-to-decimal table: m * 2^e. */
    static const struct {
        uint64_t m;
        int e;
    } paxson[] = {
        {8511030020275656ull, -342}, {5201988407066741ull, -824}, {6406892948269899ull, 237},
        {8431154198732492ull, 72},   {6475049196144587ull, 99},   {8274307542972842ull, 726},
        {5381065484265332ull, -456}, {6761728585499734ull, -1057}, {7976538478610756ull, 376},
        {5982403858958067ull, 377},  {5536995190630837ull, 93},   {7225450889282194ull, 710},
        {7225450889282194ull, 709},  {8703372741147379ull, 117},  {8944262675275217ull, -1001},
        {7459803696087692ull, -707}, {6080469016670379ull, -381}, {8385515147034757ull, 721},
        {7514216811389786ull, -828}, {8397297803260511ull, -345}, {6733459239310543ull, 202},
        {8091450587292794ull, -473},
    };
    /* Decimal literals: Paxson's decimal-to-binary table, the Ryu paper's and
     * test suite's regressions and pow5-like cases, the Java bug JDK-4511638
     * cases that motivated Schubfach, and classic troublemakers. */
    static const char *const literals[] = {
        "9e-265", "85e-037", "623e+100", "3571e+263", "81661e+153", "920657e-023",
        "4603204e-182", "87575437e-309", "245540327e+122", "6138508396e+014",
        "83356057653e+193", "619534293513e+124", "2335141086879e+218",
        "36167929443327e-159", "609610927149051e-255", "3743626360493413e-165",
        "94080055902682397e-242", "899810892172646163e+283", "7120190517612959703e+120",
        "25188282901709339043e-252", "308984926168550152811e-052",
        "6372891218502368041059e+064", "5e-20", "67e+14", "985e+15", "7693e-42",
        "55895e-16", "996622e-44", "7038531e-32", "60419369e-46", "702990899e-20",
        "6930161142e-48", "25933168707e+13", "596428896559e+20",
        "-2.109808898695963e16", "4.940656e-318", "1.18575755e-316", "2.989102097996e-312",
        "9.0608011534336e15", "4.708356024711512e18", "9.409340012568248e18", "1.2345678",
        "5.764607523034235e39", "1.152921504606847e40", "2.305843009213694e40",
        "2.0E-3", "1.0E23", "8.41E21", "2.82879384806159E17", "1.387364135037754E18",
        "1.45800632428665E17", "1.9400994884341945E25", "5.684341886080802E-14",
        "2e23", "1e23", "9007199254740993", "9007199254740995", "18014398509481985",
        "295147905179352825856", "5e-324", "1e-323", "2.2250738585072014e-308",
        "2.225073858507201e-308", "2.2250738585072011e-308", "4.9406564584124654e-324",
        "1.7976931348623157e308", "1.7976931348623158e308", "0.1", "0.2", "0.3",
        "2.5e-5", "1.5e-7", "123456789012345680000", "9.999999999999999e20",
        "9.999999999999999e22", "4.35", "0.000001", "3.0e-6", "65.613616999999977",
    };
    long bad = 0, before = checked_doubles;
    for (size_t i = 0; i < sizeof paxson / sizeof paxson[0]; i++)
        bad += verify(ldexp((double)paxson[i].m, paxson[i].e));
    for (size_t i = 0; i < sizeof literals / sizeof literals[0]; i++)
        bad += verify_if_finite(strtod(literals[i], NULL));
    /* Ryu's "looks like pow5" patterns by their bits */
    bad += verify(double_of(0x4830F0CF064DD592ull)) + verify(double_of(0x4840F0CF064DD592ull)) +
           verify(double_of(0x4850F0CF064DD592ull));
    printf("  %ld doubles\n", checked_doubles - before);
    CHECK_EQ_INT(bad, 0);
}

/* The doubles for which some scaled value 4 * (vl, v or vr) / 10^k that
 * dtoa.c computes comes closest to an integer without being one (a fraction
 * within 2^-59.6 of 0 or 1), where its rounding to odd is most delicate.
 * Found with the lattice walk of tools/gen_pow10.py, by their bits. */
TEST(closest_approaches) {
    static const uint64_t cases[] = {
        0x6cbf92bacb3cb40cull, 0x4d63de005bd620dfull, 0x0d07c0747bd76fa1ull,
        0x4d53de005bd620dfull, 0x494ec55666d8f9ecull, 0x494ec55666d8f9edull,
        0x15e7f399fe02c4b9ull, 0x15e7f399fe02c4baull, 0x67c43e72fcd3aeb2ull,
        0x67c43e72fcd3aeb3ull, 0x59fc66f5ea0149cbull, 0x59fc66f5ea0149ccull,
        0x0cf7c0747bd76fa1ull, 0x2b559a2783ce70abull, 0x1ff6404b5f1623acull,
        0x1ff6404b5f1623adull, 0x10e1d467e94b856eull, 0x11164981e39e66c9ull,
        0x11164981e39e66caull, 0x3076e22db4568793ull, 0x4f208ce499519ce3ull,
        0x4f208ce499519ce4ull, 0x1057406753df2f0cull, 0x1057406753df2f0dull,
    };
    long bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = double_of(cases[i]);
        bad += verify(v) + verify(nextafter(v, 0)) + verify(nextafter(v, INFINITY));
    }
    CHECK_EQ_INT(bad, 0);
}

/* Doubles that take each rare branch of Dragonbox's main case (with the
 * scaled values vr', vl', y of dtoa.c's header; s, r, delta, dist as there),
 * four of each, found with exact rational arithmetic. */
TEST(dragonbox_branch_cases) {
    static const uint64_t cases[] = {
        /* r = 0, vr' an integer, c odd: the candidate 1000s is the excluded right endpoint */
        0x47637b547a731c01ull, 0x4358ee736567439full,
        0x436d03e6b60d30cfull, 0x4540b0d39d75f159ull,
        /* r = 0, vr' an integer, c even: 1000s is the included right endpoint */
        0x4359de9f89a97350ull, 0x436ccf6ab1da6992ull,
        0x436d5a0129d2821aull, 0x436054f01e6259dcull,
        /* r = delta, floor(vl') odd: 1000s is inside */
        0x47b9a5eda8c6bcb0ull, 0x454341a2281ade6eull,
        0x45f9b3babeb3a6a1ull, 0x46d5187fdeb5f8efull,
        /* r = delta, vl' = 1000s an integer, c even: included left endpoint */
        0x47637b547a731c02ull, 0x4358ee73656743a0ull,
        0x436d03e6b60d30d0ull, 0x4540b0d39d75f15aull,
        /* r = delta, vl' = 1000s an integer, c odd: excluded left endpoint */
        0x4359de9f89a97351ull, 0x436ccf6ab1da6993ull,
        0x43564722ddb09f87ull, 0x436d5a0129d2821bull,
        /* r = delta, floor(vl') even and vl' not an integer: 1000s is outside */
        0x46e261ffdddaf54bull, 0x47b92c7f6a22c407ull,
        0x46eaa9fbf5fe2abdull, 0x46d5371d2805df74ull,
        /* step 2, dist a multiple of 100, floor(y) odd: one less */
        0x44f58d734c0fe406ull, 0x44958cbb5a9c8830ull,
        0x463ae93299a2a7cdull, 0x475558b9d430cd70ull,
        /* step 2, dist a multiple of 100, y an integer: a tie, odd, one less */
        0x43190bc0b09a9779ull, 0x3f11a00000000000ull,
        0x408c474920000000ull, 0x430e18fa3a8539f2ull,
        /* step 2, dist a multiple of 100, y an integer: a tie, already even */
        0x42baf9738d7e4570ull, 0x43190bc0b09a9777ull,
        0x41c7462c54598000ull, 0x42836ac78afad6c0ull,
        /* step 2, dist a multiple of 100, floor(y) even, y not an integer */
        0x4826deb1154f79edull, 0x46994390065484baull,
        0x44ebf995ce2bb399ull, 0x44eae54e0c319fdaull,
    };
    long bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double v = double_of(cases[i]);
        bad += verify(v) + verify(-v) + verify(nextafter(v, 0)) + verify(nextafter(v, INFINITY));
    }
    CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------------------------------ */
/* An independent reference: Schubfach                                      */

/* R. Giulietti's Schubfach ("The Schubfach way to render doubles",
 * 2020/2021), as src/num/dtoa.c implemented it before Dragonbox: three
 * products rounded to odd with T + 1 (tools/gen_pow10.py checks the margins
 * this relies on), the candidates of D(k+1), then of D(k). A different
 * algorithm on the same table, for comparison over many more doubles than
 * strtod and printf can check. */

static uint64_t ref_mul_hi(uint64_t a, uint64_t b, uint64_t *lo) {
    uint64_t a0 = (uint32_t)a, a1 = a >> 32, b0 = (uint32_t)b, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
    *lo = (mid << 32) | (uint32_t)p00;
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* r_o(cp * T / 2^128) from g = T + 1 */
static uint64_t ref_round_to_odd(uint64_t g_hi, uint64_t g_lo, uint64_t cp) {
    uint64_t a_lo, a_hi = ref_mul_hi(g_hi, cp, &a_lo);
    uint64_t b_lo, b_hi = ref_mul_hi(g_lo, cp, &b_lo);
    uint64_t frac = a_lo + b_hi;
    uint64_t whole = a_hi + (frac < a_lo);
    return whole | ((frac | (b_lo >> 60)) != 0);
}

static uint64_t ref_strip(uint64_t d, int *e) {
    while (d % 10 == 0) {
        d /= 10;
        ++*e;
    }
    return d;
}

/* Shortest digits (no trailing zeros) of a positive finite nonzero double. */
static uint64_t ref_schubfach(double v, int *exp10) {
    uint64_t bits = bits_of(v) & ~(1ull << 63);
    uint64_t frac = bits & ((1ull << 52) - 1);
    int bexp = (int)(bits >> 52);
    uint64_t c = bexp ? frac | (1ull << 52) : frac;
    int q = bexp ? bexp - 1075 : -1074;
    bool asym = bexp > 1 && frac == 0;
    uint64_t cb = c << 2, cbr = cb + 2, cbl = asym ? cb - 1 : cb - 2;
    int k = asym ? sdx_floor_log10_3q4_pow2(q) : sdx_floor_log10_pow2(q);
    int h = q + sdx_floor_log2_pow10(-k) + 1;
    const uint64_t *t = sdx_pow10_128[-k - SDX_POW10_MIN];
    uint64_t g_lo = t[1] + 1, g_hi = t[0] + (g_lo == 0);
    uint64_t vbl = ref_round_to_odd(g_hi, g_lo, cbl << h);
    uint64_t vb = ref_round_to_odd(g_hi, g_lo, cb << h);
    uint64_t vbr = ref_round_to_odd(g_hi, g_lo, cbr << h);
    uint64_t open = c & 1, s = vb >> 2, s10 = s / 10;
    uint64_t u4 = s10 * 40, w4 = u4 + 40;
    bool uin = vbl + open <= u4, win = w4 + open <= vbr;
    if (uin != win) {
        *exp10 = k + 1;
        return ref_strip(s10 + win, exp10);
    }
    *exp10 = k;
    uin = vbl + open <= 4 * s;
    win = 4 * s + 4 + open <= vbr;
    if (uin != win) return s + win;
    uint64_t mid = 4 * s + 2;
    return s + (vb > mid || (vb == mid && (s & 1)));
}

/* sdx_dtoa_shortest against the reference, and with `json` the JSON text
 * against the layout rule; returns the number of failures. */
static int compare_with_reference(double v, bool json) {
    uint64_t d, rd;
    int e, re;
    sdx_dtoa_shortest(v, &d, &e);
    rd = ref_schubfach(v, &re);
    if (d != rd || e != re) {
        char text[96];
        snprintf(text, sizeof text, "%" PRIu64 "e%d, Schubfach %" PRIu64 "e%d", d, e, rd, re);
        report(v, "differs from the reference:", text);
        return 1;
    }
    if (!json) return 0;
    char out[96], want[96];
    memset(out, 0x5a, sizeof out);
    char *end = sdx_dtoa_json(out, v);
    size_t len = (size_t)(end - out);
    int overrun = 0;
    for (size_t i = SDX_DTOA_RESERVE; i < sizeof out; i++) overrun |= out[i] != 0x5a;
    out[len < sizeof out ? len : sizeof out - 1] = 0;
    spec_json(want, v < 0, d, e);
    if (overrun || strcmp(out, want) != 0) {
        char both[256];
        snprintf(both, sizeof both, "\"%s\", expected \"%s\"%s", out, want,
                 overrun ? " (stored beyond SDX_DTOA_RESERVE)" : "");
        report(v, "JSON layout:", both);
        return 1;
    }
    return 0;
}

/* About 20 million doubles against Schubfach (scaled by SDX_TEST_SCALE):
 * for every biased exponent the lowest and highest 512 significands (the
 * power of two among them) and 1536 random ones; the subnormals with the
 * 2^20 smallest significands and 2^20 random ones; random bit patterns. One
 * in eight also gets its JSON text checked. */
TEST(schubfach_reference) {
    uint64_t seed = 0x5eed0004;
    long bad = 0, n = 0;
    for (uint64_t b = 1; b < 2047; b++) {
        for (uint64_t j = 0; j < 2560; j++) {
            uint64_t f = j < 512    ? j
                         : j < 1024 ? (1ull << 52) - 1 - (j - 512)
                                    : test_rand(&seed) & ((1ull << 52) - 1);
            double v = double_of(b << 52 | f);
            bad += compare_with_reference(v, (n++ & 7) == 0);
            if (bad > 20) break;
        }
    }
    for (uint64_t f = 1; f <= (1u << 20) && bad <= 20; f++)
        bad += compare_with_reference(double_of(f), (n++ & 7) == 0);
    for (long i = 0; i < (1l << 20) && bad <= 20; i++) {
        uint64_t f = test_rand(&seed) & ((1ull << 52) - 1);
        if (f) bad += compare_with_reference(double_of(f), (n++ & 7) == 0);
    }
    long count = scaled(13000000);
    for (long i = 0; i < count && bad <= 20; i++) {
        double v = double_of(test_rand(&seed));
        if (isfinite(v) && v != 0) bad += compare_with_reference(v, (n++ & 7) == 0);
    }
    printf("  %ld doubles\n", n);
    CHECK_EQ_INT(bad, 0);
}

/* ------------------------------------------------------------------------ */
/* Exact expectations                                                       */

TEST(integers_to_a_million) {
    long bad = 0;
    for (int i = 0; i <= 1000000; i++) {
        char want[32], got[64];
        for (int sign = 0; sign < 2; sign++) {
            double v = sign ? -(double)i : (double)i;
            snprintf(want, sizeof want, "%s%d.0", sign ? "-" : "", i);
            char *end = sdx_dtoa_json(got, v);
            *end = 0;
            if (strcmp(got, want) != 0 && bad++ < 10)
                fprintf(stderr, "  %d: \"%s\", expected \"%s\"\n", i, got, want);
        }
        if (i > 0) { /* the digits are i without its trailing zeros */
            uint64_t d, m = (uint64_t)i;
            int e, me = 0;
            while (m % 10 == 0) {
                m /= 10;
                me++;
            }
            sdx_dtoa_shortest((double)i, &d, &e);
            if ((d != m || e != me) && bad++ < 10) fprintf(stderr, "  digits of %d\n", i);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(powers_of_ten) {
    long bad = 0;
    for (int x = -330; x <= 310; x++) {
        char lit[16], want[400], got[64];
        snprintf(lit, sizeof lit, "1e%d", x);
        double v = strtod(lit, NULL);
        if (!isfinite(v)) continue;
        char *end = sdx_dtoa_json(got, v);
        *end = 0;
        if (v == 0) {
            if (!CHECK(strcmp(got, "0.0") == 0)) fprintf(stderr, "  %s -> %s\n", lit, got);
            continue;
        }
        bad += verify(v);
        /* the digits are "1": built from the layout rule */
        char *p = want;
        if (x + 1 > -6 && x + 1 <= 21) {
            if (x < 0) {
                p += sprintf(p, "0.");
                for (int i = 0; i < -x - 1; i++) *p++ = '0';
                p += sprintf(p, "1");
            } else {
                *p++ = '1';
                for (int i = 0; i < x; i++) *p++ = '0';
                p += sprintf(p, ".0");
            }
        } else {
            p += sprintf(p, "1e%d", x);
        }
        *p = 0;
        if (strcmp(got, want) != 0) {
            bad++;
            fprintf(stderr, "  %s: \"%s\", expected \"%s\"\n", lit, got, want);
        }
    }
    CHECK_EQ_INT(bad, 0);
}

TEST(layout) {
    static const struct {
        const char *literal, *json;
    } cases[] = {
        {"0", "0.0"},
        {"-0", "-0.0"},
        {"1", "1.0"},
        {"-1", "-1.0"},
        {"1.5", "1.5"},
        {"-2.5", "-2.5"},
        {"100", "100.0"},
        {"0.1", "0.1"},
        {"123.456", "123.456"},
        {"-123456.789", "-123456.789"},
        {"65.613617", "65.613617"},
        {"9007199254740993", "9007199254740992.0"},
        {"12345678901234567890", "12345678901234567000.0"},
        {"1e20", "100000000000000000000.0"},
        {"123456789012345680000", "123456789012345680000.0"},
        {"9.999999999999999e20", "999999999999999900000.0"},
        {"1e21", "1e21"},
        {"1.5e21", "1.5e21"},
        {"1e22", "1e22"},
        {"1e23", "1e23"},
        {"123456789012345678901234", "1.2345678901234569e23"},
        {"1.5e300", "1.5e300"},
        {"1e100", "1e100"},
        {"1.7976931348623157e308", "1.7976931348623157e308"},
        {"-1.7976931348623157e308", "-1.7976931348623157e308"},
        {"0.00001", "0.00001"},
        {"0.000001", "0.000001"},
        {"0.0000015", "0.0000015"},
        {"0.0000012345", "0.0000012345"},
        {"0.0000010000000000000002", "0.0000010000000000000002"},
        {"1e-7", "1e-7"},
        {"-1e-7", "-1e-7"},
        {"1.5e-7", "1.5e-7"},
        {"0.00000012345", "1.2345e-7"},
        {"1.2345678901234566e-7", "1.2345678901234566e-7"},
        {"1.5e-300", "1.5e-300"},
        {"2.2250738585072014e-308", "2.2250738585072014e-308"},
        {"4.9406564584124654e-324", "5e-324"},
        {"-5e-324", "-5e-324"},
        {"1e-323", "1e-323"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64];
        double v = strtod(cases[i].literal, NULL);
        char *end = sdx_dtoa_json(out, v);
        CHECK_STR(out, (size_t)(end - out), cases[i].json);
    }
}

int main(int argc, char **argv) {
    return test_run(argc, argv,
                    (test_case[]){{"pow10_table_exact", pow10_table_exact},
                                  {"exponent_approximations", exponent_approximations},
                                  {"dragonbox_exponent_table", dragonbox_exponent_table},
                                  {"reciprocal_constants", reciprocal_constants},
                                  {"layout", layout},
                                  {"powers_of_ten", powers_of_ten},
                                  {"integers_to_a_million", integers_to_a_million},
                                  {"literature_cases", literature_cases},
                                  {"closest_approaches", closest_approaches},
                                  {"dragonbox_branch_cases", dragonbox_branch_cases},
                                  {"powers_of_two", powers_of_two},
                                  {"neighbourhoods", neighbourhoods},
                                  {"subnormals_and_extremes", subnormals_and_extremes},
                                  {"random_short_decimals", random_short_decimals},
                                  {"random_exponent_and_mantissa", random_exponent_and_mantissa},
                                  {"random_bit_patterns", random_bit_patterns},
                                  {"schubfach_reference", schubfach_reference},
                                  {0, 0}});
}
