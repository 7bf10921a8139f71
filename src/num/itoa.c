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
 * Larger values are split into 8-digit groups with divisions by the constant
 * 10^8, which compilers turn into multiplications; there is no division
 * instruction on the path.
 */
#include "num/num.h"

#include "core/platform.h"

#define ASCII_ZEROS 0x3030303030303030ull

/* The eight decimal digits of v < 10^8, first digit in the lowest byte, each
 * byte holding 0..9. */
static inline uint64_t digits8(uint32_t v) {
    uint64_t hi = v / 10000;
    uint64_t lo = v - hi * 10000;
    uint64_t x = hi | (lo << 32);                              /* [hi, lo] */
    uint64_t q = ((x * 10486) >> 20) & 0x0000007F0000007Full; /* lane / 100 */
    x = (x - q * 100) << 16 | q;                               /* [q, r] per lane */
    q = ((x * 103) >> 10) & 0x000F000F000F000Full;             /* quarter / 10 */
    return (x - q * 10) << 8 | q;                              /* [tens, ones] */
}

/* Exactly eight digits (with leading zeros). */
static inline char *put8(char *dst, uint32_t v) {
    sdx_store64le(dst, digits8(v) + ASCII_ZEROS);
    return dst + 8;
}

/* 1 to 8 digits, no leading zeros ("0" for 0). Stores 8 bytes. */
static inline char *put_upto8(char *dst, uint32_t v) {
    uint64_t d = digits8(v);
    /* Leading zero digits are the zero bytes at the low end; for v == 0 the
     * guard bit keeps one digit. */
    unsigned skip = sdx_ctz64(d | (1ull << 56)) / 8;
    sdx_store64le(dst, (d >> (skip * 8)) + ASCII_ZEROS);
    return dst + 8 - skip;
}

char *sdx_u64_to_dec(char *dst, uint64_t v) {
    if (v < 100000000u) return put_upto8(dst, (uint32_t)v);
    if (v < 10000000000000000ull) {
        uint64_t hi = v / 100000000u;
        dst = put_upto8(dst, (uint32_t)hi);
        return put8(dst, (uint32_t)(v - hi * 100000000u));
    }
    uint64_t top = v / 10000000000000000ull; /* 1 .. 1844 */
    uint64_t rest = v - top * 10000000000000000ull;
    uint64_t mid = rest / 100000000u;
    dst = put_upto8(dst, (uint32_t)top);
    dst = put8(dst, (uint32_t)mid);
    return put8(dst, (uint32_t)(rest - mid * 100000000u));
}

char *sdx_i64_to_dec(char *dst, int64_t v) {
    uint64_t u = (uint64_t)v;
    if (v < 0) {
        *dst++ = '-';
        u = 0 - u; /* well defined for INT64_MIN as well */
    }
    return sdx_u64_to_dec(dst, u);
}
