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

/* Copies s[0, n), n <= 32, to dst as sdx_copy32_avx512 does, and returns
 * the index of the first byte JSON escapes by default ('"', '\\', a
 * control byte: the tests of src/simd/avx512.c's json_escape_copy, a
 * control byte being (v ^ 0x80) < 0xA0 as signed bytes), or n. For a
 * caller that would otherwise call that kernel through its pointer for
 * every short string: the Python package's JSON dumps walk, not the
 * library itself (hence `unused`, for the amalgamation's single file). */
SDX_TARGET_AVX512 static SDX_ALWAYS_INLINE __attribute__((unused)) size_t sdx_json_escape_copy32_avx512(char *dst, const char *s,
                                                                             size_t n) {
    const __mmask32 k = _cvtu32_mask32(_bzhi_u32(0xffffffffu, (unsigned)n));
    const __m256i v = _mm256_maskz_loadu_epi8(k, s);
    _mm256_mask_storeu_epi8(dst, k, v);
    const __m256i ctl = _mm256_cmpgt_epi8(_mm256_set1_epi8((char)0xA0), _mm256_xor_si256(v, _mm256_set1_epi8((char)0x80)));
    const __m256i q = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('"'));
    const __m256i bs = _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\\'));
    const uint32_t m = (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(ctl, _mm256_or_si256(q, bs))) & _cvtmask32_u32(k);
    return m ? (size_t)sdx_ctz64(m) : n;
}
#endif

#endif
