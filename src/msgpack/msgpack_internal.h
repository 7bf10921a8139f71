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

#include "core/endian.h"
#include "core/floatbits.h"
#include "core/platform.h"
#include "sdx/common.h"

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
