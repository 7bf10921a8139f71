/*
 * Internal: the common case of a JSON number, inline in the tree parser
 * (src/json/parse.c) and the pull reader (src/json/reader.c).
 *
 * Real documents mostly hold integers of a few digits and decimals of up to
 * 19 significant digits with short exponents, if any. The fast path reads
 * those without bounds checks (it runs only where enough bytes remain) and
 * converts decimals with Clinger's fast path or the first product of
 * Eisel-Lemire, as src/num/strtod.c does; everything else - errors,
 * long numbers, results the first product cannot decide - it leaves to
 * sdx_json_number(), which reads the number again from its start and decides
 * every case. So the fast path answers only where it agrees with
 * sdx_json_number(), and the tree parser and the pull reader, which both use
 * it, agree with each other.
 *
 * Latency matters more than instruction count here: a parser goes on at the
 * number's end, so the end should not wait for arithmetic on the digits.
 * The first three digits are read one at a time, with branches that follow
 * the kind of number (how long integer parts are tends to repeat) and let
 * the processor run ahead; longer runs of digits go eight at a time (the
 * SWAR technique of D. Lemire, "Number Parsing at a Gigabyte per Second",
 * Software: Practice and Experience 51(8), 2021). src/num/strtod.c uses the
 * same digit helpers and tables.
 */
#ifndef SDX_NUM_JSON_NUMBER_H
#define SDX_NUM_JSON_NUMBER_H

#include <float.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/platform.h"
#include "num/num.h"
#include "sdx/json.h"

/* The fast path runs where this many bytes follow the sign; it reads at
 * most 44 of them (the longest case: 19 integer digits, the point, and a
 * fraction read 24 bytes at a time). So a number it takes ends before `lim`
 * and is complete (a byte that cannot continue it follows) even in a
 * stream's window. Nearer to the end, the caller's slow path decides. */
#define SDX_JSON_NUMBER_FAST_AVAIL 48

static const uint64_t sdx_num_pow10[20] = {1u,
                                           10u,
                                           100u,
                                           1000u,
                                           10000u,
                                           100000u,
                                           1000000u,
                                           10000000u,
                                           100000000u,
                                           1000000000u,
                                           10000000000u,
                                           100000000000u,
                                           1000000000000u,
                                           10000000000000u,
                                           100000000000000u,
                                           1000000000000000u,
                                           10000000000000000u,
                                           100000000000000000u,
                                           1000000000000000000u,
                                           10000000000000000000u};

static inline bool sdx_num_is_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* The digits at the start of the 24 bytes at p: their count (0 to 24) in
 * *n and their value, exact when n <= 19 (else modulo 2^64). A further word
 * is read only when the one before is all digits, which depends on the kind
 * of number more than on the number, so the branches are well predicted. */
static SDX_ALWAYS_INLINE uint64_t sdx_num_digits24(const char *p, unsigned *n) {
    unsigned a, b, c;
    const uint64_t x = sdx_hot_digits8(p, &a);
    if (SDX_LIKELY(a < 8)) {
        *n = a;
        return x;
    }
    const uint64_t y = sdx_hot_digits8(p + 8, &b);
    if (SDX_LIKELY(b < 8)) {
        *n = 8 + b;
        return x * sdx_num_pow10[b] + y;
    }
    const uint64_t z = sdx_hot_digits8(p + 16, &c);
    *n = 16 + c;
    return (x * 100000000u + y) * sdx_num_pow10[c] + z;
}

/* Clinger's fast path needs each double operation rounded once to double
 * precision (as in strtod.c). */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD == 0
#define SDX_NUM_FAST_CLINGER 1
static const double sdx_num_pow10_f64[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                             1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                             1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#endif

/* floor(log2(10^q)) for -342 <= q <= 308; the formula of
 * sdx_floor_log2_pow10() in pow10_table.h (tests/unit/test_strtod.c checks
 * that they agree). */
static inline int sdx_num_floor_log2_pow10(int q) {
    return (int)(((int64_t)q * 3483294 + (4096ll << 20)) >> 20) - 4096;
}

/* The bits of the double nearest to w * 10^q (w exact, q in [-1018, 999])
 * when it is finite and decided by Clinger's fast path or by the first
 * product of Eisel-Lemire as strtod.c's eisel_lemire_common() decides it
 * (see there for the derivation); false for the rest. */
static SDX_ALWAYS_INLINE bool sdx_num_fast_bits(uint64_t w, int64_t q, uint64_t *bits) {
#ifdef SDX_NUM_FAST_CLINGER
    if (w <= ((uint64_t)1 << 53) && q >= -22 && q <= 22) {
        double d = (double)w;
        if (q < 0) d /= sdx_num_pow10_f64[-q];
        else d *= sdx_num_pow10_f64[q];
        memcpy(bits, &d, sizeof *bits);
        return true;
    }
#endif
    if (w == 0 || (uint64_t)(q - SDX_NUM_POW10_MIN) > (uint64_t)(308 - SDX_NUM_POW10_MIN))
        return false;
    const int lz = (int)sdx_clz64(w);
    const uint64_t t = sdx_num_pow10_128[q - SDX_NUM_POW10_MIN][0];
    uint64_t hi;
#ifdef SDX_HAVE_U128
    hi = (uint64_t)(((sdx_u128)(w << lz) * t) >> 64);
#else
    {
        const uint64_t a = w << lz;
        const uint64_t al = a & 0xFFFFFFFFu, ah = a >> 32, bl = t & 0xFFFFFFFFu, bh = t >> 32;
        const uint64_t ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
        const uint64_t cross = (ll >> 32) + (lh & 0xFFFFFFFFu) + (hl & 0xFFFFFFFFu);
        hi = hh + (lh >> 32) + (hl >> 32) + (cross >> 32);
    }
#endif
    const int u = (int)(hi >> 63);
    const int biased = 63 + u + sdx_num_floor_log2_pow10((int)q) - lz + 1023;
    const int k = 10 + u;
    const uint64_t half = (uint64_t)1 << (k - 1);
    const uint64_t rem = hi & ((half << 1) - 1);
    if (SDX_UNLIKELY(biased <= 0) || SDX_UNLIKELY(rem - (half - 1) <= 1)) return false;
    const uint64_t b = ((uint64_t)(biased - 1) << 52) + (hi >> k) + (rem > half);
    *bits = b;
    return b < 0x7FF0000000000000u; /* infinity is sdx_json_number's to report */
}

/* A nonnegative integer of 20 digits (p at its fourth, the first three's
 * value w, the rest read as m = 17 digits of value x by sdx_num_digits24):
 * a UINT when it fits uint64 (then the first three digits are at most 184)
 * and nothing makes it a decimal; NULL for everything else. The caller
 * leaves negative numbers out before the call: with the sign among this
 * function's inputs, GCC 12 kept more values live across the decimal path
 * of sdx_json_number_fast and spilled one of its digit words to the stack,
 * which made a decimal such as canada.json's -65.613616999999977 take
 * 16.5 ns instead of 10 (bench/README.md, "Update, 2026-12-03 (third)"). */
static SDX_ALWAYS_INLINE const char *sdx_num_twenty_digits(const char *p, unsigned m, uint64_t x,
                                                           uint64_t w, unsigned *kind,
                                                           uint64_t *bits) {
    const char c = p[m];
    if (m != 17 || c == '.' || (c | 0x20) == 'e') return NULL;
    if (w > 184 || (w == 184 && x > 46744073709551615u)) return NULL; /* above 2^64 - 1 */
    *kind = SDX_NUM_UINT;
    *bits = w * 100000000000000000u + x;
    return p + m;
}

/*
 * The JSON number at p (p < lim, *p is '-' or a digit) in its common forms:
 * an integer of at most 20 digits that fits int64 or, when nonnegative,
 * uint64; or a decimal of at most 19 significant digits (not counting the
 * zeros of "0.000...") with an exponent of at most three digits, whose
 * double the fast conversion decides and is finite. Returns the end, with *kind an sdx_num_kind (INT, UINT or DOUBLE)
 * and *bits the value's 64 bits (int64, uint64 or the double's bits),
 * exactly as sdx_json_number() gives them; NULL for anything else, which
 * the caller hands to sdx_json_number().
 */
static SDX_ALWAYS_INLINE const char *sdx_json_number_fast(const char *p, const char *lim,
                                                          unsigned *kind, uint64_t *bits) {
    const bool neg = *p == '-';
    const char *s = p + neg;
    if (SDX_UNLIKELY(lim - s < SDX_JSON_NUMBER_FAST_AVAIL)) return NULL;
    uint64_t w = (uint64_t)(unsigned char)*s - '0';
    if (SDX_UNLIKELY(w >= 10)) return NULL;
    const char *e = s + 1;
    if (sdx_num_is_digit(*e)) {
        if (SDX_UNLIKELY(w == 0)) return NULL; /* a leading zero */
        w = w * 10 + (uint64_t)(*e++ - '0');
        if (sdx_num_is_digit(*e)) {
            w = w * 10 + (uint64_t)(*e++ - '0');
            if (sdx_num_is_digit(*e)) {
                unsigned m;
                const uint64_t x = sdx_num_digits24(e, &m);
                if (SDX_UNLIKELY(m > 16))
                    return neg ? NULL : sdx_num_twenty_digits(e, m, x, w, kind, bits);
                w = w * sdx_num_pow10[m] + x;
                e += m;
            }
        }
    }
    const unsigned in = (unsigned)(e - s);
    if (*e != '.' && (*e | 0x20) != 'e') {
        if (!neg) {
            *kind = w <= (uint64_t)INT64_MAX ? SDX_NUM_INT : SDX_NUM_UINT;
            *bits = w;
        } else if (SDX_LIKELY(w - 1 <= (uint64_t)INT64_MAX)) { /* 1 <= w <= 2^63 */
            *kind = SDX_NUM_INT;
            *bits = 0 - w;
        } else if (w == 0) {
            *kind = SDX_NUM_DOUBLE; /* -0 */
            *bits = (uint64_t)1 << 63;
        } else {
            return NULL;
        }
        return e;
    }
    int64_t q = 0;
    if (*e == '.') {
        const char *f = e + 1;
        unsigned zeros = 0, fn;
        if (w == 0) {
            /* "0.000123": the zeros after the point only scale, so they
             * need not count against the 19 digits */
            const uint64_t nz = sdx_load64le(f) ^ 0x30 * SDX_HOT_ONES8;
            zeros = nz ? sdx_ctz64(nz) >> 3 : 8;
            if (SDX_UNLIKELY(zeros == 8)) return NULL;
        }
        const uint64_t x = sdx_num_digits24(f + zeros, &fn);
        if (SDX_UNLIKELY(zeros + fn == 0 || (w ? in : 0) + fn > 19)) return NULL;
        w = w * sdx_num_pow10[fn] + x; /* at most 19 digits: exact */
        q = -(int64_t)(zeros + fn);
        e = f + zeros + fn;
    }
    if ((*e | 0x20) == 'e') {
        e++;
        const bool eneg = *e == '-';
        e += eneg || *e == '+';
        unsigned en;
        const uint64_t x = sdx_hot_digits8(e, &en);
        if (SDX_UNLIKELY(en - 1 > 2)) return NULL; /* no digit, or more than three */
        q += eneg ? -(int64_t)x : (int64_t)x;
        e += en;
    }
    if (SDX_UNLIKELY(!sdx_num_fast_bits(w, q, bits))) return NULL;
    *bits |= (uint64_t)neg << 63;
    *kind = SDX_NUM_DOUBLE;
    return e;
}

#endif /* SDX_NUM_JSON_NUMBER_H */
