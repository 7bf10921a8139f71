/*
 * Internal: compiler and platform helpers shared by the library's sources.
 * Not installed; not part of the public API.
 */
#ifndef SDX_PLATFORM_H
#define SDX_PLATFORM_H

#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define SDX_LIKELY(x) __builtin_expect(!!(x), 1)
#define SDX_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define SDX_NOINLINE __attribute__((noinline))
#define SDX_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define SDX_LIKELY(x) (x)
#define SDX_UNLIKELY(x) (x)
#define SDX_NOINLINE
#define SDX_ALWAYS_INLINE inline
#endif

#if defined(__x86_64__) || defined(_M_X64) || defined(__i386__) || defined(_M_IX86)
#define SDX_ARCH_X86 1
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#define SDX_ARCH_ARM64 1
#endif

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define SDX_BIG_ENDIAN 1
#endif

/* 128-bit unsigned arithmetic (GCC and Clang on 64-bit targets). */
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 sdx_u128;
#define SDX_HAVE_U128 1
#endif

/* Count trailing / leading zero bits; x must not be 0. */
static inline unsigned sdx_ctz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned n = 0;
    while (!(x & 1)) { x >>= 1; n++; }
    return n;
#endif
}

static inline unsigned sdx_clz64(uint64_t x) {
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_clzll(x);
#else
    unsigned n = 0;
    while (!(x & 0x8000000000000000ull)) { x <<= 1; n++; }
    return n;
#endif
}

/* Unaligned little-endian loads and stores of 32- and 64-bit words. */
static inline uint32_t sdx_load32le(const void *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#ifdef SDX_BIG_ENDIAN
    v = __builtin_bswap32(v);
#endif
    return v;
}

static inline uint64_t sdx_load64le(const void *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#ifdef SDX_BIG_ENDIAN
    v = __builtin_bswap64(v);
#endif
    return v;
}

static inline void sdx_store64le(void *p, uint64_t v) {
#ifdef SDX_BIG_ENDIAN
    v = __builtin_bswap64(v);
#endif
    memcpy(p, &v, 8);
}

/* Zero n bytes (a constant, a few hundred) at p with plain stores, 64 at a
 * time: a memset of more than 64 bytes becomes rep stosq with GCC's
 * default tuning, whose start-up takes longer than the stores of a
 * reader's state (which sdx.loads clears once per message). */
static inline void sdx_zero_small(void *p, size_t n) {
    char *q = (char *)p;
    for (; n >= 64; n -= 64, q += 64) memset(q, 0, 64);
    memset(q, 0, n);
}

#endif /* SDX_PLATFORM_H */
