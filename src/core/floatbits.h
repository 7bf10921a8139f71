/*
 * Internal: exact conversions between double and the narrower IEEE 754
 * binary formats, for the writers that pick the smallest float that keeps a
 * value (MessagePack float 32, CBOR preferred serialization) and the readers
 * that widen them back.
 */
#ifndef SDX_CORE_FLOATBITS_H
#define SDX_CORE_FLOATBITS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* Whether a double converts to float and back to exactly the same bits
 * (NaN: when its payload survives, i.e. its low 29 mantissa bits are 0);
 * if so stores the float's bits in *f. */
static inline bool sdx_double_to_float_exact(double d, uint32_t *f) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    if ((bits >> 52 & 0x7ff) == 0x7ff && (bits & 0xfffffffffffffull)) { /* NaN */
        if (bits & 0x1fffffffu) return false;
        *f = (uint32_t)(bits >> 32 & 0x80000000u) | 0x7f800000u | (uint32_t)((bits >> 29) & 0x7fffffu);
        return true;
    }
    /* Finite beyond the float range: not exact (and the cast would be
     * undefined). Within it, or infinite, the round trip decides. */
    if (d > 3.4028234663852886e38 && d <= 1.7976931348623157e308) return false;
    if (d < -3.4028234663852886e38 && d >= -1.7976931348623157e308) return false;
    float x = (float)d;
    if ((double)x != d) return false;
    if (d == 0 && (bits >> 63) != 0) x = -0.0f;
    memcpy(f, &x, 4);
    return true;
}

/* The double a float's bits stand for, NaN payloads kept (the inverse of
 * sdx_double_to_float_exact). */
static inline double sdx_float_bits_to_double(uint32_t f) {
    if ((f & 0x7f800000u) == 0x7f800000u && (f & 0x7fffffu)) {
        uint64_t bits = (uint64_t)(f & 0x80000000u) << 32 | 0x7ff0000000000000ull |
                        (uint64_t)(f & 0x7fffffu) << 29;
        double d;
        memcpy(&d, &bits, 8);
        return d;
    }
    float x;
    memcpy(&x, &f, 4);
    return (double)x;
}

/* Whether a double converts to IEEE 754 binary16 (half precision: 1 sign
 * bit, 5 exponent bits with bias 15, 10 mantissa bits; RFC 8949 section 3.3
 * and Appendix D) and back to exactly the same bits: zeros, infinities,
 * normal halves (exponent -14 to 15, no mantissa bits below the top 10),
 * subnormal halves (multiples of 2^-24 below 2^-14), and NaNs whose payload
 * fits the top 10 mantissa bits. If so stores the half's bits in *h. */
static inline bool sdx_double_to_half_exact(double d, uint16_t *h) {
    uint64_t bits;
    memcpy(&bits, &d, 8);
    uint16_t sign = (uint16_t)(bits >> 48 & 0x8000u);
    int e = (int)(bits >> 52 & 0x7ff);
    uint64_t m = bits & 0xfffffffffffffull;
    if (e == 0x7ff) { /* infinity or NaN: the payload must survive */
        if (m & 0x3ffffffffffull) return false;
        *h = (uint16_t)(sign | 0x7c00u | (uint16_t)(m >> 42));
        return true;
    }
    if (e == 0) { /* zero, or a double subnormal (far below any half) */
        if (m) return false;
        *h = sign;
        return true;
    }
    int E = e - 1023;
    if (E > 15 || E < -24) return false;
    if (E >= -14) { /* a normal half */
        if (m & 0x3ffffffffffull) return false;
        *h = (uint16_t)(sign | (uint16_t)((E + 15) << 10) | (uint16_t)(m >> 42));
        return true;
    }
    /* A subnormal half k * 2^-24: the value is (2^52 + m) * 2^(E - 52),
     * so k = (2^52 + m) >> (28 - E) when no bit is shifted out. */
    uint64_t full = (1ull << 52) | m;
    unsigned shift = (unsigned)(28 - E); /* 43 to 52 */
    if (full & ((1ull << shift) - 1)) return false;
    *h = (uint16_t)(sign | (uint16_t)(full >> shift));
    return true;
}

/* The double a half's bits stand for, exactly (NaN payloads kept): the
 * decoding of RFC 8949 Appendix D. */
static inline double sdx_half_bits_to_double(uint16_t h) {
    uint64_t sign = (uint64_t)(h & 0x8000u) << 48;
    unsigned e = h >> 10 & 0x1f, m = h & 0x3ffu;
    uint64_t bits;
    if (e == 0) { /* zero or subnormal: m * 2^-24, exact in a double */
        double d = (double)m / 16777216.0;
        memcpy(&bits, &d, 8);
        bits |= sign;
    } else if (e == 31) {
        bits = sign | 0x7ff0000000000000ull | (uint64_t)m << 42;
    } else {
        bits = sign | (uint64_t)(e - 15 + 1023) << 52 | (uint64_t)m << 42;
    }
    double d;
    memcpy(&d, &bits, 8);
    return d;
}

#endif /* SDX_CORE_FLOATBITS_H */
