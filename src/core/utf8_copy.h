/*
 * Internal: the copy of text that the writers' own document walks make
 * (src/cbor/writer.c, src/ubjson/writer.c, src/binn/writer.c), checking it
 * for UTF-8 on the way. Apart from core/utf8.h because it uses the inline
 * SIMD helpers (simd/inline.h), which the SIMD kernels' sources, which
 * include core/utf8.h, must not see (scripts/amalgamate.py).
 */
#ifndef SDX_UTF8_COPY_H
#define SDX_UTF8_COPY_H

#include "core/utf8.h"
#include "sdx/common.h"
#include "simd/inline.h"

/* Copy s[0, n) to dst (s may be NULL when n is 0) and tell whether the
 * bytes are valid UTF-8 (always true when `check` is 0).
 * Short text is copied with word loads that test it for ASCII on the way,
 * text up to 256 bytes with 16-byte ones (simd/inline.h), longer text with
 * memcpy; text with a byte above 0x7f is then validated in the copy,
 * which is in the cache. */
static SDX_ALWAYS_INLINE bool sdx_utf8_copy_ok(size_t (*valid)(const char *, size_t), char *dst,
                                               const char *s, size_t n, int check) {
    if (n < 16)
        return sdx_hot_copy_ascii(dst, s, n, check ? UINT64_C(0x8080808080808080) : 0) ||
               sdx_utf8_valid_dfa(dst, n);
    if (n <= 256)
        return !sdx_inline_copy_high(dst, s, n) || !check || sdx_utf8_non_ascii_ok(valid, dst, n);
    memcpy(dst, s, n);
    return !check || sdx_utf8_ok(valid, dst, n);
}

#endif /* SDX_UTF8_COPY_H */
