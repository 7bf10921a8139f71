/*
 * SSE2 kernels (16-byte vectors). Compiled with -msse2; called only after
 * dispatch.c has found SSE2 on the CPU.
 *
 * json_escape_copy tests 16 bytes with four compares: one signed compare
 * (x ^ bias) < limit catches bytes below 0x20 (bias 0x80, limit 0xA0 as a
 * signed byte) or, with SDX_ESC_HIGH, also bytes >= 0x80 (bias 0, limit
 * 0x20); then '"', '\\' and a third byte that is '/' with SDX_ESC_SLASH and
 * '"' again otherwise. The per-`set` constants come from a table, so entry
 * costs three loads and no broadcasts.
 *
 * Every vector is stored as soon as it is loaded (the contract lets the
 * kernel write dst[result, n)). Strings of 16 bytes and more check their
 * first vector alone (stops are usually near the start), then go on two
 * vectors per step, and end with one vector that overlaps the previous one
 * and ends at src + n. Shorter strings are read as two overlapping 8-byte
 * or 4-byte pieces packed into one vector, or for 1 to 3 bytes as the
 * first, middle and last byte. Nothing outside src[0, n) is read and
 * nothing outside dst[0, n) is written.
 *
 * utf8_valid_prefix checks the rules of utf8_kernel.h with compares, as
 * SSE2 has no byte shuffle for the lookups (see the comment above
 * u8_errors).
 */
#include "simd/simd.h"

#include <emmintrin.h>

#include "core/platform.h"
#include "simd/utf8_kernel.h"

/* Per `set` (SDX_ESC_SLASH | SDX_ESC_HIGH): bias, limit, third byte. */
#define SPLAT16(c) c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c
static _Alignas(16) const unsigned char esc_consts[4][3][16] = {
    {{SPLAT16(0x80)}, {SPLAT16(0xA0)}, {SPLAT16('"')}}, /* default */
    {{SPLAT16(0x80)}, {SPLAT16(0xA0)}, {SPLAT16('/')}}, /* SLASH */
    {{SPLAT16(0x00)}, {SPLAT16(0x20)}, {SPLAT16('"')}}, /* HIGH */
    {{SPLAT16(0x00)}, {SPLAT16(0x20)}, {SPLAT16('/')}}, /* SLASH | HIGH */
};
#undef SPLAT16

typedef struct {
    __m128i bias, limit, third;
} esc_vecs;

static inline esc_vecs esc_load(unsigned set) {
    const unsigned char(*c)[16] = esc_consts[set & 3];
    esc_vecs k = {_mm_load_si128((const __m128i *)c[0]), _mm_load_si128((const __m128i *)c[1]),
                  _mm_load_si128((const __m128i *)c[2])};
    return k;
}

/* One bit per byte of v that stops the scan. */
static inline unsigned esc_mask(__m128i v, const esc_vecs *k) {
    __m128i ctl = _mm_cmplt_epi8(_mm_xor_si128(v, k->bias), k->limit);
    __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i t = _mm_cmpeq_epi8(v, k->third);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(ctl, q), _mm_or_si128(b, t)));
}

static inline __m128i load32(const char *p) {
    int v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}

/* n < 16 */
static inline size_t escape_short(char *dst, const char *src, size_t n, const esc_vecs *k) {
    if (n >= 8) {
        /* bytes 0-7 in lanes 0-7, bytes n-8 .. n-1 in lanes 8-15 */
        __m128i lo = _mm_loadl_epi64((const __m128i *)src);
        __m128i hi = _mm_loadl_epi64((const __m128i *)(src + n - 8));
        _mm_storel_epi64((__m128i *)(dst + n - 8), hi);
        _mm_storel_epi64((__m128i *)dst, lo);
        unsigned m = esc_mask(_mm_unpacklo_epi64(lo, hi), k);
        if (!m) return n;
        unsigned b = sdx_ctz64(m);
        return b < 8 ? b : n - 16 + b;
    }
    if (n >= 4) {
        /* bytes 0-3 in lanes 0-3, bytes n-4 .. n-1 in lanes 4-7 */
        __m128i v = _mm_unpacklo_epi32(load32(src), load32(src + n - 4));
        memcpy(dst + n - 4, src + n - 4, 4);
        memcpy(dst, src, 4);
        unsigned m = esc_mask(v, k) & 0xFF;
        if (!m) return n;
        unsigned b = sdx_ctz64(m);
        return b < 4 ? b : n - 8 + b;
    }
    if (n == 0) return 0;
    /* bytes 0, n/2 and n-1 in lanes 0-2: with n <= 3 that is every byte */
    unsigned char c0 = (unsigned char)src[0], c1 = (unsigned char)src[n >> 1],
                  c2 = (unsigned char)src[n - 1];
    dst[n - 1] = (char)c2;
    dst[n >> 1] = (char)c1;
    dst[0] = (char)c0;
    unsigned m = esc_mask(_mm_cvtsi32_si128((int)(c0 | c1 << 8 | (unsigned)c2 << 16)), k) & 7;
    if (!m) return n;
    return m & 1 ? 0 : m & 2 ? n >> 1 : n - 1;
}

static size_t sse2_json_escape_copy(char *dst, const char *src, size_t n, unsigned set) {
    const esc_vecs k = esc_load(set);
    if (n < 16) return escape_short(dst, src, n, &k);
    /* the first vector alone: most stops are near the start */
    __m128i first = _mm_loadu_si128((const __m128i *)src);
    _mm_storeu_si128((__m128i *)dst, first);
    unsigned m16 = esc_mask(first, &k);
    if (m16) return sdx_ctz64(m16);
    size_t i = 16;
    /* then two vectors per step, one branch for both */
    for (; i + 32 <= n; i += 32) {
        __m128i v0 = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i v1 = _mm_loadu_si128((const __m128i *)(src + i + 16));
        _mm_storeu_si128((__m128i *)(dst + i), v0);
        _mm_storeu_si128((__m128i *)(dst + i + 16), v1);
        unsigned m = esc_mask(v0, &k) | esc_mask(v1, &k) << 16;
        if (m) return i + sdx_ctz64(m);
    }
    if (i + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(src + i));
        _mm_storeu_si128((__m128i *)(dst + i), v);
        unsigned m = esc_mask(v, &k);
        if (m) return i + sdx_ctz64(m);
        i += 16;
    }
    if (i < n) {
        i = n - 16;
        __m128i v = _mm_loadu_si128((const __m128i *)(src + i));
        _mm_storeu_si128((__m128i *)(dst + i), v);
        unsigned m = esc_mask(v, &k);
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

/* The JSON string scan: esc_mask with the default set, without the copy.
 * Strings of 16 bytes and more check their first vector alone (most JSON
 * strings are short), then two vectors per step, then one vector ending at
 * s + n; shorter ones are read as in escape_short. */
static size_t sse2_json_string_scan(const char *s, size_t n) {
    const esc_vecs k = esc_load(0);
    if (n < 16) {
        if (n >= 8) {
            __m128i v = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)s),
                                           _mm_loadl_epi64((const __m128i *)(s + n - 8)));
            unsigned m = esc_mask(v, &k);
            if (!m) return n;
            unsigned b = sdx_ctz64(m);
            return b < 8 ? b : n - 16 + b;
        }
        if (n >= 4) {
            unsigned m = esc_mask(_mm_unpacklo_epi32(load32(s), load32(s + n - 4)), &k) & 0xFF;
            if (!m) return n;
            unsigned b = sdx_ctz64(m);
            return b < 4 ? b : n - 8 + b;
        }
        if (n == 0) return 0;
        unsigned c0 = (unsigned char)s[0], c1 = (unsigned char)s[n >> 1],
                 c2 = (unsigned char)s[n - 1];
        unsigned m = esc_mask(_mm_cvtsi32_si128((int)(c0 | c1 << 8 | c2 << 16)), &k) & 7;
        if (!m) return n;
        return m & 1 ? 0 : m & 2 ? n >> 1 : n - 1;
    }
    unsigned m16 = esc_mask(_mm_loadu_si128((const __m128i *)s), &k);
    if (m16) return sdx_ctz64(m16);
    size_t i = 16;
    for (; i + 32 <= n; i += 32) {
        unsigned m = esc_mask(_mm_loadu_si128((const __m128i *)(s + i)), &k) |
                     esc_mask(_mm_loadu_si128((const __m128i *)(s + i + 16)), &k) << 16;
        if (m) return i + sdx_ctz64(m);
    }
    if (i + 16 <= n) {
        unsigned m = esc_mask(_mm_loadu_si128((const __m128i *)(s + i)), &k);
        if (m) return i + sdx_ctz64(m);
        i += 16;
    }
    if (i < n) {
        i = n - 16;
        unsigned m = esc_mask(_mm_loadu_si128((const __m128i *)(s + i)), &k);
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* UTF-8 validation                                                          */
/* ------------------------------------------------------------------------ */

/* SSE2 has no byte shuffle, so the nibble lookups of utf8_kernel.h are out
 * of reach; the same rules are checked with compares instead. With prev1,
 * prev2, prev3 the bytes 1 to 3 positions before cur:
 *
 *   count:  cur is a continuation (80..BF) exactly when prev1 >= C0, prev2
 *           >= E0 or prev3 >= F0 asks for one. (Two leads asking for the
 *           same position cannot both pass: the later lead sits where the
 *           earlier one asks for a continuation.) This covers a lead
 *           without its continuations, a continuation without a lead, and
 *           one too many.
 *   bytes:  C0, C1 and F5..FF never occur.
 *   ranges: after E0 the next byte is at least A0, after F0 at least 90
 *           (no overlong forms); after ED at most 9F (no surrogates), after
 *           F4 at most 8F (nothing above U+10FFFF). As signed bytes a
 *           continuation is -128..-65, so the bounds are one signed compare
 *           each: the lower bound is 80 (no bound) | 20 after E0 | 10 after
 *           F0, the upper 7F (no bound) ^ E0 after ED ^ F0 after F4.
 *
 * x >= lead is tested as a saturating x - (lead - 1) != 0. */
typedef struct {
    __m128i c0, bf, df, ef, f4, fe, e0, f0, ed, x20, x10, x80, x7f;
} u8_vecs;

static inline u8_vecs u8_load(void) {
    u8_vecs k = {_mm_set1_epi8((char)0xC0), _mm_set1_epi8((char)0xBF), _mm_set1_epi8((char)0xDF),
                 _mm_set1_epi8((char)0xEF), _mm_set1_epi8((char)0xF4), _mm_set1_epi8((char)0xFE),
                 _mm_set1_epi8((char)0xE0), _mm_set1_epi8((char)0xF0), _mm_set1_epi8((char)0xED),
                 _mm_set1_epi8(0x20),       _mm_set1_epi8(0x10),       _mm_set1_epi8((char)0x80),
                 _mm_set1_epi8(0x7F)};
    return k;
}

/* Nonzero bytes where cur breaks a rule. */
static inline __m128i u8_errors(__m128i cur, __m128i prev1, __m128i prev2, __m128i prev3,
                                const u8_vecs *k) {
    const __m128i zero = _mm_setzero_si128();
    __m128i is_cont = _mm_cmplt_epi8(cur, k->c0);
    __m128i asks = _mm_or_si128(
        _mm_or_si128(_mm_subs_epu8(prev1, k->bf), _mm_subs_epu8(prev2, k->df)),
        _mm_subs_epu8(prev3, k->ef));
    __m128i count = _mm_cmpeq_epi8(_mm_cmpeq_epi8(asks, zero), is_cont);
    __m128i never = _mm_or_si128(_mm_cmpeq_epi8(_mm_and_si128(cur, k->fe), k->c0),
                                 _mm_subs_epu8(cur, k->f4));
    __m128i low = _mm_or_si128(_mm_or_si128(_mm_and_si128(_mm_cmpeq_epi8(prev1, k->e0), k->x20),
                                            _mm_and_si128(_mm_cmpeq_epi8(prev1, k->f0), k->x10)),
                               k->x80);
    __m128i high = _mm_xor_si128(_mm_xor_si128(_mm_and_si128(_mm_cmpeq_epi8(prev1, k->ed), k->e0),
                                               _mm_and_si128(_mm_cmpeq_epi8(prev1, k->f4), k->f0)),
                                 k->x7f);
    __m128i range = _mm_or_si128(_mm_cmpgt_epi8(low, cur), _mm_cmpgt_epi8(cur, high));
    return _mm_or_si128(_mm_or_si128(count, never), range);
}

/* The errors of the 16 bytes at p, the bytes before them read from memory
 * (p[-3] .. p[-1] exist). */
static inline __m128i u8_errors_at(const char *p, __m128i cur, const u8_vecs *k) {
    return u8_errors(cur, _mm_loadu_si128((const __m128i *)(p - 1)),
                     _mm_loadu_si128((const __m128i *)(p - 2)),
                     _mm_loadu_si128((const __m128i *)(p - 3)), k);
}

/* The errors of the first 16 bytes, with zeros (ASCII) before them. */
static inline __m128i u8_errors_first(__m128i cur, const u8_vecs *k) {
    return u8_errors(cur, _mm_slli_si128(cur, 1), _mm_slli_si128(cur, 2), _mm_slli_si128(cur, 3),
                     k);
}

static inline int u8_any(__m128i v) {
    return _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())) != 0xFFFF;
}

/* The first 16 bytes take zeros for the bytes before them (for n < 16 they
 * are padded with zeros after the end, which catch a cut sequence). Then
 * blocks of 64 bytes from the next 16-byte boundary on (from s + 16 when
 * that is less than 3 bytes in), one ASCII test for the four vectors, the 3
 * bytes before each vector read from memory; then 16
 * bytes at a time, the last 16 overlapping bytes already checked, and a
 * check for a sequence cut by the end. A block with no byte >= 0x80 needs
 * only the check that the block before did not end inside a sequence
 * (`open`, set after a block with non-ASCII bytes, tells when). */
static size_t sse2_utf8_valid_prefix(const char *s, size_t n) {
    if (n < 16) {
        uint64_t lo, hi;
        sdx_utf8_load_short(s, n, &lo, &hi);
        if (!((lo | hi) & 0x8080808080808080ull)) return n;
        const u8_vecs k = u8_load();
        __m128i v = _mm_set_epi64x((long long)hi, (long long)lo);
        return u8_any(u8_errors_first(v, &k)) ? sdx_utf8_valid_prefix(s, n) : n;
    }
    const u8_vecs k = u8_load();
    __m128i first = _mm_loadu_si128((const __m128i *)s);
    int open = _mm_movemask_epi8(first) != 0;
    if (open && u8_any(u8_errors_first(first, &k))) return sdx_utf8_finish(s, n, 0);
    /* the next 16-byte boundary, unless that leaves no 3 bytes before it */
    size_t i = 16 - ((uintptr_t)s & 15);
    if (i < 3) i = 16;
    for (; i + 64 <= n; i += 64) {
        __m128i a = _mm_loadu_si128((const __m128i *)(s + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(s + i + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(s + i + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(s + i + 48));
        if (!_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(a, b), _mm_or_si128(c, d)))) {
            if (SDX_UNLIKELY(open)) {
                if (sdx_utf8_ends_incomplete(s, i)) return sdx_utf8_finish(s, n, i);
                open = 0;
            }
            continue;
        }
        __m128i e = _mm_or_si128(
            _mm_or_si128(u8_errors_at(s + i, a, &k), u8_errors_at(s + i + 16, b, &k)),
            _mm_or_si128(u8_errors_at(s + i + 32, c, &k), u8_errors_at(s + i + 48, d, &k)));
        if (u8_any(e)) return sdx_utf8_finish(s, n, i);
        open = 1;
    }
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + i));
        if (!_mm_movemask_epi8(v)) {
            if (open && sdx_utf8_ends_incomplete(s, i)) return sdx_utf8_finish(s, n, i);
            open = 0;
        } else {
            if (u8_any(u8_errors_at(s + i, v, &k))) return sdx_utf8_finish(s, n, i);
            open = 1;
        }
    }
    if (i < n) {
        if (n < 19) return sdx_utf8_finish(s, n, i); /* too close to the start to overlap */
        /* all ASCII: then so is s[i-1], which passed, so nothing is cut */
        __m128i v = _mm_loadu_si128((const __m128i *)(s + n - 16));
        if (!_mm_movemask_epi8(v)) return n;
        i = n - 16;
        if (u8_any(u8_errors_at(s + i, v, &k))) return sdx_utf8_finish(s, n, i);
    }
    return sdx_utf8_ends_incomplete(s, n) ? sdx_utf8_finish(s, n, n) : n;
}

/* json_escape_copy_utf8: stops at every byte above 0x7F, which the caller
 * then validates. */
static size_t sse2_json_escape_copy_utf8(char *dst, const char *src, size_t n, unsigned set) {
    return sse2_json_escape_copy(dst, src, n, set | SDX_ESC_HIGH);
}

/* ------------------------------------------------------------------------ */
/* Text control bytes                                                        */
/* ------------------------------------------------------------------------ */

/* Bit i set where byte i of v is a control byte other than tab, newline
 * and carriage return (v == min(v, 0x1F) unsigned), or DEL. */
static inline unsigned text_control_mask(__m128i v) {
    const __m128i low = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    const __m128i ok = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')),
                                                 _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('\r')));
    const __m128i del = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_andnot_si128(ok, low), del));
}

/* text_control_scan: 32 bytes per step, then one vector ending at s + n
 * (its bytes before the step's end are known clean, so its first stop is
 * the first); below 16 bytes the scalar kernel. */
static size_t sse2_text_control_scan(const char *s, size_t n) {
    if (n < 16) return sdx_simd_scalar.text_control_scan(s, n);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        unsigned m = text_control_mask(_mm_loadu_si128((const __m128i *)(s + i))) |
                     text_control_mask(_mm_loadu_si128((const __m128i *)(s + i + 16))) << 16;
        if (m) return i + sdx_ctz64(m);
    }
    if (i + 16 <= n) {
        unsigned m = text_control_mask(_mm_loadu_si128((const __m128i *)(s + i)));
        if (m) return i + sdx_ctz64(m);
        i += 16;
    }
    if (i < n) {
        unsigned m = text_control_mask(_mm_loadu_si128((const __m128i *)(s + n - 16)));
        if (m) return n - 16 + sdx_ctz64(m);
    }
    return n;
}

const sdx_simd_kernels sdx_simd_sse2 = {
    SDX_SIMD_SSE2,
    "sse2",
    sse2_json_escape_copy,
    sse2_utf8_valid_prefix,
    sse2_json_string_scan,
    sse2_json_escape_copy_utf8,
    sse2_text_control_scan,
};
