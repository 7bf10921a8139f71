/*
 * Internal: helpers shared by the MessagePack writer, reader and parser, and
 * the JSON writer's form of timestamps.
 */
#ifndef SDX_MSGPACK_INTERNAL_H
#define SDX_MSGPACK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/platform.h"
#include "sdx/common.h"

/* Big-endian loads and stores of 16, 32 and 64 bits at any alignment. */
static inline uint16_t sdx_bswap16(uint16_t v) { return (uint16_t)(v << 8 | v >> 8); }
static inline uint32_t sdx_bswap32(uint32_t v) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap32(v);
#else
    return v >> 24 | (v >> 8 & 0xff00) | (v << 8 & 0xff0000) | v << 24;
#endif
}
static inline uint64_t sdx_bswap64(uint64_t v) {
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(v);
#else
    return (uint64_t)sdx_bswap32((uint32_t)v) << 32 | sdx_bswap32((uint32_t)(v >> 32));
#endif
}

#ifdef SDX_BIG_ENDIAN
#define SDX_BE16(v) (v)
#define SDX_BE32(v) (v)
#define SDX_BE64(v) (v)
#else
#define SDX_BE16(v) sdx_bswap16(v)
#define SDX_BE32(v) sdx_bswap32(v)
#define SDX_BE64(v) sdx_bswap64(v)
#endif

static inline void sdx_store_be16(void *p, uint16_t v) {
    v = SDX_BE16(v);
    memcpy(p, &v, 2);
}
static inline void sdx_store_be32(void *p, uint32_t v) {
    v = SDX_BE32(v);
    memcpy(p, &v, 4);
}
static inline void sdx_store_be64(void *p, uint64_t v) {
    v = SDX_BE64(v);
    memcpy(p, &v, 8);
}
static inline uint16_t sdx_load_be16(const void *p) {
    uint16_t v;
    memcpy(&v, p, 2);
    return SDX_BE16(v);
}
static inline uint32_t sdx_load_be32(const void *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return SDX_BE32(v);
}
static inline uint64_t sdx_load_be64(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return SDX_BE64(v);
}

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

/* The bits of the double a float 32 at p + 1 stands for. */
static inline uint64_t sdx_mp_f32_bits(const uint8_t *p) {
    double d = sdx_float_bits_to_double(sdx_load_be32(p + 1));
    uint64_t bits;
    memcpy(&bits, &d, 8);
    return bits;
}

/* The cases, in a switch on the type byte at p, of the scalars of a fixed
 * size other than the fixints: nil, bool, float 32 and 64, uint and int of
 * 8 to 64 bits. Each case is ON(kind, flags, bits, size): the event kind
 * (sdx_kind), SDX_EVENT_FLOAT32 or 0, the value's 64 bits (an integer's
 * two's complement, a double's bits, a bool's 0 or 1) and the item's size;
 * ON ends the case (break or goto). The reader's two paths and the tree
 * parser share them; p must have 9 bytes at hand. */
#define SDX_MP_FIXED_SCALARS(p, ON)                                                          \
    case 0xc0: ON(SDX_NULL, 0, 0, 1)                                                        \
    case 0xc2: ON(SDX_BOOL, 0, 0, 1)                                                        \
    case 0xc3: ON(SDX_BOOL, 0, 1, 1)                                                        \
    case 0xca: ON(SDX_DOUBLE, SDX_EVENT_FLOAT32, sdx_mp_f32_bits(p), 5)                     \
    case 0xcb: ON(SDX_DOUBLE, 0, sdx_load_be64((p) + 1), 9)                                 \
    case 0xcc: ON(SDX_INT, 0, (p)[1], 2)                                                    \
    case 0xcd: ON(SDX_INT, 0, sdx_load_be16((p) + 1), 3)                                    \
    case 0xce: ON(SDX_INT, 0, sdx_load_be32((p) + 1), 5)                                    \
    case 0xcf: ON(sdx_load_be64((p) + 1) > INT64_MAX ? SDX_UINT : SDX_INT, 0,               \
                  sdx_load_be64((p) + 1), 9)                                                \
    case 0xd0: ON(SDX_INT, 0, (uint64_t)(int64_t)(int8_t)(p)[1], 2)                         \
    case 0xd1: ON(SDX_INT, 0, (uint64_t)(int64_t)(int16_t)sdx_load_be16((p) + 1), 3)        \
    case 0xd2: ON(SDX_INT, 0, (uint64_t)(int64_t)(int32_t)sdx_load_be32((p) + 1), 5)        \
    case 0xd3: ON(SDX_INT, 0, sdx_load_be64((p) + 1), 9)

/* The cases, in a switch on the type byte at p, of the items that carry a
 * length or count in their header (besides fixstr, fixarray and fixmap):
 * bin 8/16/32, ext 8/16/32 and fixext 1-16, str 8/16/32, array and map
 * 16/32. Each stores the length (a map: its entries) in n and the header
 * size (ext: the type byte included) in h, then jumps to the label STR,
 * BIN, EXT, ARRAY or MAP. The reader's two paths and the tree parser share
 * them; p must have 9 bytes at hand. */
#define SDX_MP_SIZED_ITEMS(p, n, h, STR, BIN, EXT, ARRAY, MAP)                  \
    case 0xc4: n = (p)[1]; h = 2; goto BIN;                                     \
    case 0xc5: n = sdx_load_be16((p) + 1); h = 3; goto BIN;                     \
    case 0xc6: n = sdx_load_be32((p) + 1); h = 5; goto BIN;                     \
    case 0xc7: n = (p)[1]; h = 3; goto EXT;                                     \
    case 0xc8: n = sdx_load_be16((p) + 1); h = 4; goto EXT;                     \
    case 0xc9: n = sdx_load_be32((p) + 1); h = 6; goto EXT;                     \
    case 0xd4: n = 1; h = 2; goto EXT;                                          \
    case 0xd5: n = 2; h = 2; goto EXT;                                          \
    case 0xd6: n = 4; h = 2; goto EXT;                                          \
    case 0xd7: n = 8; h = 2; goto EXT;                                          \
    case 0xd8: n = 16; h = 2; goto EXT;                                         \
    case 0xd9: n = (p)[1]; h = 2; goto STR;                                     \
    case 0xda: n = sdx_load_be16((p) + 1); h = 3; goto STR;                     \
    case 0xdb: n = sdx_load_be32((p) + 1); h = 5; goto STR;                     \
    case 0xdc: n = sdx_load_be16((p) + 1); h = 3; goto ARRAY;                   \
    case 0xdd: n = sdx_load_be32((p) + 1); h = 5; goto ARRAY;                   \
    case 0xde: n = sdx_load_be16((p) + 1); h = 3; goto MAP;                     \
    case 0xdf: n = sdx_load_be32((p) + 1); h = 5; goto MAP;

/* Decode a timestamp payload (4, 8 or 12 bytes); false if it is not one. */
bool sdx_msgpack_ts_decode(const uint8_t *p, size_t len, int64_t *sec, uint32_t *nsec);

/* The timestamp as RFC 3339 text in UTC, "YYYY-MM-DDTHH:MM:SS[.f]Z" with
 * as many fraction digits as needed (none for whole seconds, at most 9), at
 * dst (room for SDX_RFC3339_MAX bytes); returns the end, or NULL when the
 * year is outside 0000-9999. */
char *sdx_rfc3339(char *dst, int64_t sec, uint32_t nsec);
#define SDX_RFC3339_MAX 30

#endif /* SDX_MSGPACK_INTERNAL_H */
