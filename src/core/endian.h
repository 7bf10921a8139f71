/*
 * Internal: big-endian and little-endian loads and stores of 16, 32 and
 * 64 bits at any alignment, shared by the binary formats (MessagePack and
 * CBOR big-endian, BSON little-endian).
 */
#ifndef SDX_CORE_ENDIAN_H
#define SDX_CORE_ENDIAN_H

#include <stdint.h>
#include <string.h>

#include "core/platform.h"

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

/* Little-endian loads and stores of 32 and 64 bits at any alignment (BSON). */
#ifdef SDX_BIG_ENDIAN
#define SDX_LE32(v) sdx_bswap32(v)
#define SDX_LE64(v) sdx_bswap64(v)
#else
#define SDX_LE32(v) (v)
#define SDX_LE64(v) (v)
#endif

static inline void sdx_store_le32(void *p, uint32_t v) {
    v = SDX_LE32(v);
    memcpy(p, &v, 4);
}
static inline void sdx_store_le64(void *p, uint64_t v) {
    v = SDX_LE64(v);
    memcpy(p, &v, 8);
}
static inline uint32_t sdx_load_le32(const void *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return SDX_LE32(v);
}
static inline uint64_t sdx_load_le64(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return SDX_LE64(v);
}

#endif /* SDX_CORE_ENDIAN_H */
