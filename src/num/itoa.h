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
 *
 * On x86-64 values of 13 to 20 digits run the same splits in one SSE2
 * register instead, 16 digits at once (sdx_itoa_ascii16), as dtoa.c does
 * for its digits: one chain of vector multiplications instead of two
 * scalar ones. Below 13 digits (one 8-digit group at most, and a short
 * head) the SWAR steps are faster: on the Intel Xeon of 2026-11-28 the
 * SSE2 chain took 1.05-1.35x their time for 5 to 12 digits
 * (bench/micro/itoa_bench.c, whose sse2_before is the earlier all-SSE2
 * version), and the JSON writer and document serializer of the suite ran
 * 3-5 % faster on citm_catalog (its 9-digit ids), bench/README.md. (On the
 * AMD EPYC of 2026-11-25 SSE2 had measured faster from 5 digits.)
 */
#ifndef SDX_ITOA_H
#define SDX_ITOA_H

#include <stdint.h>
#include <string.h>

#include "core/platform.h"

/* SSE2 digit conversion on x86-64 (part of its baseline; the code moves
 * 64-bit words between SSE and general registers). SDX_DTOA_PORTABLE (for
 * testing) keeps the portable code here as in dtoa.c. */
#if defined(__SSE2__) && (defined(__x86_64__) || defined(_M_X64)) && !defined(SDX_DTOA_PORTABLE)
#define SDX_ITOA_SSE2 1
#include <emmintrin.h>
#endif

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

/* Decimal digits of v at dst by the SWAR steps above, no terminator;
 * returns the end. Writes at most 20 digits but may store up to
 * SDX_ITOA_RESERVE bytes. sdx_u64_to_dec where there is no SSE2 (and what
 * bench/micro/itoa_bench.c compares it with where there is). */
static SDX_ALWAYS_INLINE char *sdx_itoa_u64_swar(char *dst, uint64_t v) {
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

#ifdef SDX_ITOA_SSE2
/* The 16 decimal digits of hi * 10^8 + lo (hi, lo < 10^8), with leading
 * zeros, as ASCII, first digit in the lowest byte: the 64-bit lanes [hi, lo] split into 32-bit lanes of four digits,
 * those into 16-bit lanes of two, those into bytes. The divisions are
 * multiplications by reciprocals, exact over the ranges involved
 * (test_dtoa.c's reciprocal_constants checks them exhaustively):
 *   floor(x / 10^4) = (x * 3518437209) >> 45  for x < 10^8
 *   floor(x / 100)  = (x * 5243) >> 19        for x < 10^4
 *   floor(x / 10)   = (x * 6554) >> 16        for x < 100 */
static SDX_ALWAYS_INLINE __m128i sdx_itoa_ascii16(uint64_t hi, uint64_t lo) {
    __m128i x = _mm_set_epi64x((long long)lo, (long long)hi);
    /* 64-bit lanes: [hi, lo] -> 32-bit lanes [hi / 10^4, hi % 10^4, ...] */
    __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, _mm_set1_epi32((int)3518437209u)), 45);
    __m128i r = _mm_sub_epi32(x, _mm_mul_epu32(q, _mm_set1_epi32(10000)));
    x = _mm_or_si128(q, _mm_slli_epi64(r, 32));
    /* 32-bit lanes -> 16-bit lanes: x / 100, x % 100 (the multipliers are
     * hidden from the compiler, which would otherwise turn each pmullw into
     * five shifts and adds) */
    __m128i m100 = _mm_set1_epi16(100), m10 = _mm_set1_epi16(10);
#if defined(__GNUC__) || defined(__clang__)
    __asm__("" : "+x"(m100), "+x"(m10));
#endif
    q = _mm_srli_epi16(_mm_mulhi_epu16(x, _mm_set1_epi16(5243)), 3);
    r = _mm_sub_epi16(x, _mm_mullo_epi16(q, m100));
    x = _mm_or_si128(q, _mm_slli_epi32(r, 16));
    /* 16-bit lanes -> bytes: x / 10, x % 10 */
    q = _mm_mulhi_epu16(x, _mm_set1_epi16(6554));
    r = _mm_sub_epi16(x, _mm_mullo_epi16(q, m10));
    return _mm_add_epi8(_mm_or_si128(q, _mm_slli_epi16(r, 8)), _mm_set1_epi8('0'));
}

/* The number of digits of 10^4 <= v < 10^8. */
static SDX_ALWAYS_INLINE unsigned sdx_itoa_len5to8(uint64_t v) {
    return 5u + (v >= 100000u) + (v >= 1000000u) + (v >= 10000000u);
}

/* Decimal digits of v at dst, no terminator; returns the end. Writes at most
 * 20 digits but may store up to SDX_ITOA_RESERVE bytes. */
static SDX_ALWAYS_INLINE char *sdx_u64_to_dec(char *dst, uint64_t v) {
    if (v < 100000000u) return sdx_itoa_small(dst, (uint32_t)v);
    if (v < 10000000000000000ull) {
        const uint64_t hi = v / 100000000u, lo = v - hi * 100000000u;
        if (hi < 10000u) { /* below 13 digits: the SWAR steps, as sdx_itoa_u64_swar */
            dst = sdx_itoa_upto4(dst, (uint32_t)hi);
            return sdx_itoa_put8(dst, (uint32_t)lo);
        }
        const __m128i d = sdx_itoa_ascii16(hi, lo);
        const unsigned len = sdx_itoa_len5to8(hi);
        sdx_store64le(dst, (uint64_t)_mm_cvtsi128_si64(d) >> (8 * (8 - len)));
        sdx_store64le(dst + len, (uint64_t)_mm_cvtsi128_si64(_mm_unpackhi_epi64(d, d)));
        return dst + len + 8;
    }
    const uint64_t top = v / 10000000000000000ull; /* 1 .. 1844 */
    const uint64_t rest = v - top * 10000000000000000ull;
    const uint64_t mid = rest / 100000000u;
    dst = sdx_itoa_upto4(dst, (uint32_t)top);
    _mm_storeu_si128((__m128i *)(void *)dst, sdx_itoa_ascii16(mid, rest - mid * 100000000u));
    return dst + 16;
}
#else
/* Decimal digits of v at dst, no terminator; returns the end. Writes at most
 * 20 digits but may store up to SDX_ITOA_RESERVE bytes. */
static SDX_ALWAYS_INLINE char *sdx_u64_to_dec(char *dst, uint64_t v) { return sdx_itoa_u64_swar(dst, v); }
#endif

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
