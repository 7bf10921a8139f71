/*
 * Integer to decimal text, eight digits per step.
 *
 * A value below 10^8 is turned into its eight decimal digits with SWAR
 * arithmetic in one 64-bit register: split into two 4-digit halves (one per
 * 32-bit lane), each half into two 2-digit quarters (16-bit lanes), each
 * quarter into tens and ones (8-bit lanes). Divisions by 100 and by 10 are
 * multiplications by reciprocals, exact for the ranges involved:
 *   floor(x / 100) = (x * 10486) >> 20  for 0 <= x < 10000
 *   floor(x / 10)  = (x * 103) >> 10    for 0 <= x < 100
 * Leading zeros are found with one count-trailing-zeros on the digit word.
 * Values below 10^4 take a table of digit pairs instead. Larger values are
 * split into 8-digit groups with divisions by the constant
 * 10^8, which compilers turn into multiplications; there is no division
 * instruction on the path. Inline, because it sits on the hot path of every
 * writer.
 */
#ifndef SDX_ITOA_H
#define SDX_ITOA_H

#include <stdint.h>
#include <string.h>

#include "core/platform.h"

/* Stores at most this many bytes for any value (20 digits and a sign, plus
 * the slack of whole-word stores). */
#define SDX_ITOA_RESERVE 24

#define SDX_ASCII_ZEROS 0x3030303030303030ull

/* Byte-reverse a 64-bit word (compilers turn the shifts into one bswap). */
static inline uint64_t sdx_itoa_bswap64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(x);
#else
    x = (x & 0x00000000FFFFFFFFull) << 32 | (x >> 32);
    x = (x & 0x0000FFFF0000FFFFull) << 16 | (x >> 16 & 0x0000FFFF0000FFFFull);
    return (x & 0x00FF00FF00FF00FFull) << 8 | (x >> 8 & 0x00FF00FF00FF00FFull);
#endif
}

/* The eight decimal digits of v < 10^8, first digit in the lowest byte, each
 * byte holding 0..9. The lanes are built last digit first: a lane x with
 * quotient q = floor(x / m) becomes x + q * (2^k - m), i.e. x % m in its low
 * half and q in its high half, in one multiply-add; the final byte swap
 * puts the first digit in the lowest byte. */
static inline uint64_t sdx_itoa_digits8(uint32_t v) {
    uint64_t hi = v / 10000;
    uint64_t lo = v - hi * 10000;
    uint64_t x = lo | (hi << 32);                              /* [lo, hi] */
    uint64_t q = ((x * 10486) >> 20) & 0x0000007F0000007Full; /* lane / 100 */
    x += q * (0x10000 - 100);                                  /* [r, q] per lane */
    q = ((x * 103) >> 10) & 0x000F000F000F000Full;             /* quarter / 10 */
    x += q * (0x100 - 10);                                     /* [ones, tens] */
    return sdx_itoa_bswap64(x);
}

/* Exactly eight digits (with leading zeros). */
static inline char *sdx_itoa_put8(char *dst, uint32_t v) {
    sdx_store64le(dst, sdx_itoa_digits8(v) + SDX_ASCII_ZEROS);
    return dst + 8;
}

/* 1 to 8 digits, no leading zeros ("0" for 0). Stores 8 bytes. */
static inline char *sdx_itoa_upto8(char *dst, uint32_t v) {
    uint64_t d = sdx_itoa_digits8(v);
    /* Leading zero digits are the zero bytes at the low end; for v == 0 the
     * guard bit keeps one digit. */
    unsigned skip = sdx_ctz64(d | (1ull << 56)) / 8;
    sdx_store64le(dst, (d >> (skip * 8)) + SDX_ASCII_ZEROS);
    return dst + 8 - skip;
}

/* "00" "01" ... "99": two digits per table entry. */
static const char sdx_digit_pairs[200] = {
    '0','0','0','1','0','2','0','3','0','4','0','5','0','6','0','7','0','8','0','9',
    '1','0','1','1','1','2','1','3','1','4','1','5','1','6','1','7','1','8','1','9',
    '2','0','2','1','2','2','2','3','2','4','2','5','2','6','2','7','2','8','2','9',
    '3','0','3','1','3','2','3','3','3','4','3','5','3','6','3','7','3','8','3','9',
    '4','0','4','1','4','2','4','3','4','4','4','5','4','6','4','7','4','8','4','9',
    '5','0','5','1','5','2','5','3','5','4','5','5','5','6','5','7','5','8','5','9',
    '6','0','6','1','6','2','6','3','6','4','6','5','6','6','6','7','6','8','6','9',
    '7','0','7','1','7','2','7','3','7','4','7','5','7','6','7','7','7','8','7','9',
    '8','0','8','1','8','2','8','3','8','4','8','5','8','6','8','7','8','8','8','9',
    '9','0','9','1','9','2','9','3','9','4','9','5','9','6','9','7','9','8','9','9'};

/* 1 to 4 digits of v < 10^4, no leading zeros. Stores up to 4 bytes. Small
 * values are common (counts, indexes, small ids), so they take a digit-pair
 * table instead of the 8-digit SWAR step. */
static inline char *sdx_itoa_upto4(char *dst, uint32_t v) {
    if (v < 100) {
        memcpy(dst, sdx_digit_pairs + 2 * v + (v < 10), 2);
        return dst + 1 + (v >= 10);
    }
    uint32_t hi = v / 100, lo = v - hi * 100; /* hi in 1..99 */
    memcpy(dst, sdx_digit_pairs + 2 * hi + (hi < 10), 2);
    dst += 1 + (hi >= 10);
    memcpy(dst, sdx_digit_pairs + 2 * lo, 2);
    return dst + 2;
}

/* 1 to 8 digits of v < 10^8, no leading zeros. Stores 8 bytes. */
static inline char *sdx_itoa_small(char *dst, uint32_t v) {
    if (v < 10000) return sdx_itoa_upto4(dst, v);
    return sdx_itoa_upto8(dst, v);
}

/* Decimal digits of v at dst, no terminator; returns the end. Writes at most
 * 20 digits but may store up to SDX_ITOA_RESERVE bytes. */
static SDX_ALWAYS_INLINE char *sdx_u64_to_dec(char *dst, uint64_t v) {
    if (v < 100000000u) return sdx_itoa_small(dst, (uint32_t)v);
    if (v < 10000000000000000ull) {
        uint64_t hi = v / 100000000u;
        dst = sdx_itoa_small(dst, (uint32_t)hi);
        return sdx_itoa_put8(dst, (uint32_t)(v - hi * 100000000u));
    }
    uint64_t top = v / 10000000000000000ull; /* 1 .. 1844 */
    uint64_t rest = v - top * 10000000000000000ull;
    uint64_t mid = rest / 100000000u;
    dst = sdx_itoa_upto4(dst, (uint32_t)top);
    dst = sdx_itoa_put8(dst, (uint32_t)mid);
    return sdx_itoa_put8(dst, (uint32_t)(rest - mid * 100000000u));
}

/* The same for a signed value, with a leading '-' when negative. */
static SDX_ALWAYS_INLINE char *sdx_i64_to_dec(char *dst, int64_t v) {
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        *dst++ = '-';
        u = 0 - u; /* well defined for INT64_MIN as well */
    }
    return sdx_u64_to_dec(dst, u);
}

#endif /* SDX_ITOA_H */
