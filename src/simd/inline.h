/*
 * Internal: 16-byte scans inlined into hot loops outside src/simd.
 *
 * A call through the kernel table costs more than scanning a short token,
 * so the JSON parser looks at the first 16 bytes of a string or a run of
 * whitespace with these helpers and calls a kernel only when the token goes
 * on. They use only what every CPU of the target has, so they need no
 * run-time dispatch: SSE2 on x86-64, Advanced SIMD on AArch64, and two
 * 64-bit words (SWAR) elsewhere. Each reads exactly p[0, 16).
 */
#ifndef SDX_SIMD_INLINE_H
#define SDX_SIMD_INLINE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/platform.h"
#include "sdx/json.h"

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define SDX_INLINE_SSE2 1
#elif defined(SDX_ARCH_ARM64) && (defined(__ARM_NEON) || defined(_M_ARM64))
#include <arm_neon.h>
#define SDX_INLINE_NEON 1
#endif

#if defined(SDX_INLINE_SSE2)

/* Index of the first byte of p[0, 16) that is '"', '\\' or below 0x20;
 * 16 if none is (json.h's, for its inline reading path). */
static inline unsigned sdx_inline_string_stop16(const char *p) { return sdx_hot_string_stop16(p); }

/* Index of the first byte of p[0, 16) that is not JSON whitespace (space,
 * tab, line feed, carriage return); 16 if all are (json.h's). */
static inline unsigned sdx_inline_ws_run16(const char *p) { return sdx_hot_ws_run16(p); }

/* Number of spaces (0x20) at the start of p[0, 16), 16 if all are. */
static inline unsigned sdx_inline_space_run16(const char *p) {
    const __m128i v = _mm_loadu_si128((const __m128i *)p);
    const unsigned m = ~(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')));
    return sdx_ctz64(m | 0x10000u);
}

#elif defined(SDX_INLINE_NEON)

/* The index of the first 0xFF byte of a compare result, or 16: narrowed to
 * four bits per byte by a shift-right-and-narrow of its 16-bit lanes. */
static inline unsigned sdx_inline_first16(uint8x16_t m) {
    const uint64_t bits =
        vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
    return bits ? sdx_ctz64(bits) >> 2 : 16;
}

static inline unsigned sdx_inline_string_stop16(const char *p) {
    const uint8x16_t v = vld1q_u8((const uint8_t *)p);
    const uint8x16_t m = vorrq_u8(vcltq_u8(v, vdupq_n_u8(0x20)),
                                  vorrq_u8(vceqq_u8(v, vdupq_n_u8('"')),
                                           vceqq_u8(v, vdupq_n_u8('\\'))));
    return sdx_inline_first16(m);
}

static inline unsigned sdx_inline_ws_run16(const char *p) {
    const uint8x16_t v = vld1q_u8((const uint8_t *)p);
    const uint8x16_t ws = vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8(' ')), vceqq_u8(v, vdupq_n_u8('\n'))),
                                   vorrq_u8(vceqq_u8(v, vdupq_n_u8('\r')), vceqq_u8(v, vdupq_n_u8('\t'))));
    return sdx_inline_first16(vmvnq_u8(ws));
}

static inline unsigned sdx_inline_space_run16(const char *p) {
    const uint8x16_t v = vld1q_u8((const uint8_t *)p);
    return sdx_inline_first16(vmvnq_u8(vceqq_u8(v, vdupq_n_u8(' '))));
}

#else

/* SWAR: eight bytes at a time with json.h's word tests. */
static inline unsigned sdx_inline_string_stop16(const char *p) {
    const unsigned k = sdx_hot_string_stop8(p);
    return k < 8 ? k : 8 + sdx_hot_string_stop8(p + 8);
}

static inline unsigned sdx_inline_space_run16(const char *p) {
    uint64_t m = sdx_hot_nonzero8(sdx_load64le(p) ^ (' ' * SDX_HOT_ONES8));
    if (m) return sdx_ctz64(m) >> 3;
    m = sdx_hot_nonzero8(sdx_load64le(p + 8) ^ (' ' * SDX_HOT_ONES8));
    return m ? 8 + (sdx_ctz64(m) >> 3) : 16;
}

static inline unsigned sdx_inline_ws_run16(const char *p) {
    const unsigned k = sdx_hot_ws_run8(p);
    return k < 8 ? k : 8 + sdx_hot_ws_run8(p + 8);
}

#endif

/* Copy s[0, n) (n >= 16) to dst, 16 bytes per step with the last step
 * overlapping the one before, and return whether any byte copied is above
 * 0x7f: the writers' copy of a string that is tested for ASCII on the way
 * (src/msgpack/writer.c, core/utf8_copy.h). SSE2, Advanced SIMD, or two
 * 64-bit words, as above; unlike the scans above it reads all of s[0, n). */
#if defined(SDX_INLINE_SSE2)
static SDX_ALWAYS_INLINE int sdx_inline_copy_high(char *dst, const char *s, size_t n) {
    __m128i acc = _mm_setzero_si128(), x;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        x = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), x);
        acc = _mm_or_si128(acc, x);
    }
    if (i < n) {
        x = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
        _mm_storeu_si128((__m128i *)(void *)(dst + n - 16), x);
        acc = _mm_or_si128(acc, x);
    }
    return _mm_movemask_epi8(acc) != 0;
}
#elif defined(SDX_INLINE_NEON)
static SDX_ALWAYS_INLINE int sdx_inline_copy_high(char *dst, const char *s, size_t n) {
    uint8x16_t acc = vdupq_n_u8(0), x;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        x = vld1q_u8((const uint8_t *)s + i);
        vst1q_u8((uint8_t *)dst + i, x);
        acc = vorrq_u8(acc, x);
    }
    if (i < n) {
        x = vld1q_u8((const uint8_t *)s + n - 16);
        vst1q_u8((uint8_t *)dst + n - 16, x);
        acc = vorrq_u8(acc, x);
    }
    return vmaxvq_u8(acc) >= 0x80;
}
#else
static SDX_ALWAYS_INLINE int sdx_inline_copy_high(char *dst, const char *s, size_t n) {
    uint64_t acc0 = 0, acc1 = 0, x, y;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        memcpy(&x, s + i, 8);
        memcpy(&y, s + i + 8, 8);
        memcpy(dst + i, &x, 8);
        memcpy(dst + i + 8, &y, 8);
        acc0 |= x;
        acc1 |= y;
    }
    if (i < n) {
        memcpy(&x, s + n - 16, 8);
        memcpy(&y, s + n - 8, 8);
        memcpy(dst + n - 16, &x, 8);
        memcpy(dst + n - 8, &y, 8);
        acc0 |= x;
        acc1 |= y;
    }
    return ((acc0 | acc1) & 0x8080808080808080ull) != 0;
}
#endif

#endif /* SDX_SIMD_INLINE_H */
