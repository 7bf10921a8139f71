/*
 * Internal: short strings copied with one AVX-512 masked load and store, for
 * the MessagePack writer's fast path (issue 17; the same copy in CBOR's and
 * UBJSON's inline paths and in the JSON writer was measured slower,
 * bench/README.md, "MessagePack short strings by one masked load").
 *
 * A writer's short-string path copies up to 32 bytes after a header. Without
 * reading past s + n, the portable copy needs branches on n (two overlapping
 * words of 16, 8, 4 or 1 bytes), and on strings and keys of random lengths
 * those branches mispredict. With AVX-512 BW and VL one masked load reads
 * exactly s[0, n) (masked-off bytes are not accessed, so nothing past the
 * string is read and no fault can occur) and one masked store writes
 * them: no branch on n at all. The movemask of the loaded bytes
 * is the ASCII test the UTF-8 check needs.
 *
 * The functions that use it carry SDX_TARGET_AVX512 and are called only
 * after the writer's init found the active SIMD level to be avx512
 * (src/simd/dispatch.c checks the CPU and the OS's opmask and ZMM state,
 * and SDX_SIMD or sdx_simd_select can lower it, as the tests do to run both
 * paths).
 */
#ifndef SDX_SHORT_COPY_H
#define SDX_SHORT_COPY_H

#include <stddef.h>
#include <stdint.h>

#include "core/platform.h"

#if defined(SDX_HAVE_X86_KERNELS) && defined(SDX_ARCH_X86) && defined(__x86_64__) && \
    (defined(__GNUC__) || defined(__clang__))
#define SDX_SHORT_COPY_AVX512 1
#include <immintrin.h>

#define SDX_TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,bmi,bmi2")))

/* Copies s[0, n), n <= 32, to dst: only n bytes are read at s and stored
 * at dst. Returns the mask of the copied bytes that have their high bit set
 * (0 for plain ASCII). */
SDX_TARGET_AVX512 static SDX_ALWAYS_INLINE uint32_t sdx_copy32_avx512(char *dst, const char *s,
                                                                      size_t n) {
    const __mmask32 k = _cvtu32_mask32(_bzhi_u32(0xffffffffu, (unsigned)n));
    const __m256i v = _mm256_maskz_loadu_epi8(k, s);
    _mm256_mask_storeu_epi8(dst, k, v);
    return (uint32_t)_mm256_movemask_epi8(v);
}

/* One bit per byte of v (32 bytes) that the JSON escape kernels stop at:
 * (v ^ bias) < limit as signed bytes (control bytes, and with a bias of 0
 * every byte >= 0x80), or v equal to its entry in `table`, looked up by
 * low nibble (vpshufb gives 0 for bytes >= 0x80, which so never match).
 * src/simd/avx512.c builds bias, limit and table for each escape set. */
SDX_TARGET_AVX512 static SDX_ALWAYS_INLINE uint32_t sdx_esc_mask256(__m256i v, __m256i bias, __m256i limit,
                                                                    __m256i table) {
    const __m256i ctl = _mm256_cmpgt_epi8(limit, _mm256_xor_si256(v, bias));
    const __m256i chr = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, v), v);
    return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(ctl, chr));
}

/* Copies s[0, n), n <= 32, to dst as sdx_copy32_avx512 does, and returns
 * the index of the first byte sdx_esc_mask256 stops at, or n: the short
 * path of the AVX-512 json_escape_copy kernel (src/simd/avx512.c). */
SDX_TARGET_AVX512 static SDX_ALWAYS_INLINE size_t sdx_escape_copy32_avx512(char *dst, const char *s, size_t n,
                                                                           __m256i bias, __m256i limit,
                                                                           __m256i table) {
    const __mmask32 k = _cvtu32_mask32(_bzhi_u32(0xffffffffu, (unsigned)n));
    const __m256i v = _mm256_maskz_loadu_epi8(k, s);
    _mm256_mask_storeu_epi8(dst, k, v);
    const uint32_t m = sdx_esc_mask256(v, bias, limit, table) & _cvtmask32_u32(k);
    return m ? (size_t)sdx_ctz64(m) : n;
}

/* The same with JSON's default escape set ('"', '\\', control bytes), for
 * a caller that would otherwise call the kernel through its pointer for
 * every short string: the Python package's JSON dumps walk, not the
 * library itself (hence `unused`, for the amalgamation's single file). */
SDX_TARGET_AVX512 static SDX_ALWAYS_INLINE __attribute__((unused)) size_t
sdx_json_escape_copy32_avx512(char *dst, const char *s, size_t n) {
    const char x = (char)0x80; /* no byte below 0x80 equals it */
    const __m256i table = _mm256_setr_epi8(x, x, '"', x, x, x, x, x, x, x, x, x, '\\', x, x, x,
                                           x, x, '"', x, x, x, x, x, x, x, x, x, '\\', x, x, x);
    return sdx_escape_copy32_avx512(dst, s, n, _mm256_set1_epi8(x), _mm256_set1_epi8((char)0xA0), table);
}
#endif

#endif
