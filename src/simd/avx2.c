/*
 * AVX2 kernels (32-byte vectors). Compiled with -mavx2 -mbmi -mbmi2; called
 * only after dispatch.c has found AVX2, BMI1, BMI2 and OS support for the
 * YMM state.
 *
 * json_escape_copy tests 32 bytes with one signed compare (x ^ bias) <
 * limit for control bytes (and bytes >= 0x80 with SDX_ESC_HIGH), as sse2.c
 * does, and finds '"', '\\' and '/' (with SDX_ESC_SLASH) with one vpshufb
 * table lookup by low nibble and one compare: the three have distinct low
 * nibbles (2, 12, 15), so each byte is compared with the one candidate its
 * low nibble allows. Constants come from a table indexed by `set`.
 *
 * Vectors are stored as soon as they are loaded. Strings of 32 bytes and
 * more check their first vector alone (stops are usually near the start),
 * then go on two vectors per step, and end with one vector overlapping the
 * previous one and ending at src + n. 16 to 31 bytes are two overlapping
 * 16-byte halves of one vector; shorter strings are two overlapping 8- or
 * 4-byte pieces in one 16-byte vector, or the first, middle and last byte
 * for 1 to 3 bytes. Nothing outside src[0, n) is read and nothing outside
 * dst[0, n) is written.
 *
 * utf8_valid_prefix runs the lookup algorithm of utf8_kernel.h on 32-byte
 * vectors (see the comment above avx2_utf8_valid_prefix).
 *
 * json_escape_copy_utf8 does both in one pass over strings of 32 bytes and
 * more (see the comment above escape_utf8_long).
 */
#include "simd/simd.h"

#include <immintrin.h>

#include "core/platform.h"
#include "simd/utf8_kernel.h"

/* Per `set` (SDX_ESC_SLASH | SDX_ESC_HIGH): bias, limit, and the table of
 * the byte to look for per low nibble: '"' at 2, '\\' at 12, '/' at 15 with
 * SDX_ESC_SLASH; 0x80 (which no byte below 0x80 equals) elsewhere. */
#define SPLAT8(c) c, c, c, c, c, c, c, c
#define SPLAT32(c) SPLAT8(c), SPLAT8(c), SPLAT8(c), SPLAT8(c)
#define N 0x80
#define NIBBLES(slash) N, N, '"', N, N, N, N, N, N, N, N, N, '\\', N, N, slash
#define TABLE(slash) NIBBLES(slash), NIBBLES(slash)
static _Alignas(32) const unsigned char esc_consts[4][3][32] = {
    {{SPLAT32(0x80)}, {SPLAT32(0xA0)}, {TABLE(N)}},   /* default */
    {{SPLAT32(0x80)}, {SPLAT32(0xA0)}, {TABLE('/')}}, /* SLASH */
    {{SPLAT32(0x00)}, {SPLAT32(0x20)}, {TABLE(N)}},   /* HIGH */
    {{SPLAT32(0x00)}, {SPLAT32(0x20)}, {TABLE('/')}}, /* SLASH | HIGH */
};
#undef TABLE
#undef NIBBLES
#undef N
#undef SPLAT32
#undef SPLAT8

typedef struct {
    __m256i bias, limit, table;
} esc_vecs;

static inline esc_vecs esc_load(unsigned set) {
    const unsigned char(*c)[32] = esc_consts[set & 3];
    esc_vecs k = {_mm256_load_si256((const __m256i *)c[0]),
                  _mm256_load_si256((const __m256i *)c[1]),
                  _mm256_load_si256((const __m256i *)c[2])};
    return k;
}

/* 0xFF in each byte of v that stops the scan. vpshufb looks up each byte's
 * low nibble in the table (per 16-byte lane), and gives 0 for bytes >= 0x80,
 * which so never equal their lookup. */
static inline __m256i esc_bytes256(__m256i v, const esc_vecs *k) {
    __m256i ctl = _mm256_cmpgt_epi8(k->limit, _mm256_xor_si256(v, k->bias));
    __m256i chr = _mm256_cmpeq_epi8(_mm256_shuffle_epi8(k->table, v), v);
    return _mm256_or_si256(ctl, chr);
}

static inline uint32_t esc_mask256(__m256i v, const esc_vecs *k) {
    return (uint32_t)_mm256_movemask_epi8(esc_bytes256(v, k));
}

static inline uint32_t esc_mask128(__m128i v, const esc_vecs *k) {
    __m128i ctl = _mm_cmplt_epi8(_mm_xor_si128(v, _mm256_castsi256_si128(k->bias)),
                                 _mm256_castsi256_si128(k->limit));
    __m128i chr = _mm_cmpeq_epi8(_mm_shuffle_epi8(_mm256_castsi256_si128(k->table), v), v);
    return (uint32_t)_mm_movemask_epi8(_mm_or_si128(ctl, chr));
}

static inline __m128i load32(const char *p) {
    int v;
    memcpy(&v, p, 4);
    return _mm_cvtsi32_si128(v);
}

/* n < 32. *high: nonzero when a byte of src[0, n) is above 0x7F (the
 * loads cover exactly those bytes). */
static inline size_t escape_short(char *dst, const char *src, size_t n, const esc_vecs *k,
                                  uint32_t *high) {
    if (n >= 16) {
        /* bytes 0-15 in lanes 0-15, bytes n-16 .. n-1 in lanes 16-31 */
        __m128i lo = _mm_loadu_si128((const __m128i *)src);
        __m128i hi = _mm_loadu_si128((const __m128i *)(src + n - 16));
        _mm_storeu_si128((__m128i *)(dst + n - 16), hi);
        _mm_storeu_si128((__m128i *)dst, lo);
        const __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
        *high = (uint32_t)_mm256_movemask_epi8(v);
        uint32_t m = esc_mask256(v, k);
        if (!m) return n;
        unsigned b = sdx_ctz64(m);
        return b < 16 ? b : n - 32 + b;
    }
    if (n >= 8) {
        __m128i lo = _mm_loadl_epi64((const __m128i *)src);
        __m128i hi = _mm_loadl_epi64((const __m128i *)(src + n - 8));
        _mm_storel_epi64((__m128i *)(dst + n - 8), hi);
        _mm_storel_epi64((__m128i *)dst, lo);
        const __m128i v = _mm_unpacklo_epi64(lo, hi);
        *high = (uint32_t)_mm_movemask_epi8(v);
        uint32_t m = esc_mask128(v, k);
        if (!m) return n;
        unsigned b = sdx_ctz64(m);
        return b < 8 ? b : n - 16 + b;
    }
    if (n >= 4) {
        __m128i v = _mm_unpacklo_epi32(load32(src), load32(src + n - 4));
        memcpy(dst + n - 4, src + n - 4, 4);
        memcpy(dst, src, 4);
        *high = (uint32_t)_mm_movemask_epi8(v) & 0xFF;
        uint32_t m = esc_mask128(v, k) & 0xFF;
        if (!m) return n;
        unsigned b = sdx_ctz64(m);
        return b < 4 ? b : n - 8 + b;
    }
    *high = 0;
    if (n == 0) return 0;
    unsigned char c0 = (unsigned char)src[0], c1 = (unsigned char)src[n >> 1],
                  c2 = (unsigned char)src[n - 1];
    *high = (c0 | c1 | c2) & 0x80;
    dst[n - 1] = (char)c2;
    dst[n >> 1] = (char)c1;
    dst[0] = (char)c0;
    uint32_t m = esc_mask128(_mm_cvtsi32_si128((int)(c0 | c1 << 8 | (unsigned)c2 << 16)), k) & 7;
    if (!m) return n;
    return m & 1 ? 0 : m & 2 ? n >> 1 : n - 1;
}

static size_t avx2_json_escape_copy(char *dst, const char *src, size_t n, unsigned set) {
    const esc_vecs k = esc_load(set);
    uint32_t high;
    if (n < 32) return escape_short(dst, src, n, &k, &high);
    /* the first vector alone: most stops are near the start */
    __m256i first = _mm256_loadu_si256((const __m256i *)src);
    _mm256_storeu_si256((__m256i *)dst, first);
    uint32_t m32 = esc_mask256(first, &k);
    if (m32) return sdx_ctz64(m32);
    size_t i = 32;
    /* then two vectors per step, one branch for both */
    for (; i + 64 <= n; i += 64) {
        __m256i v0 = _mm256_loadu_si256((const __m256i *)(src + i));
        __m256i v1 = _mm256_loadu_si256((const __m256i *)(src + i + 32));
        _mm256_storeu_si256((__m256i *)(dst + i), v0);
        _mm256_storeu_si256((__m256i *)(dst + i + 32), v1);
        __m256i b0 = esc_bytes256(v0, &k), b1 = esc_bytes256(v1, &k);
        if (_mm256_movemask_epi8(_mm256_or_si256(b0, b1))) {
            uint64_t m = (uint32_t)_mm256_movemask_epi8(b0) |
                         (uint64_t)(uint32_t)_mm256_movemask_epi8(b1) << 32;
            return i + sdx_ctz64(m);
        }
    }
    if (i + 32 <= n) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(dst + i), v);
        uint32_t m = esc_mask256(v, &k);
        if (m) return i + sdx_ctz64(m);
        i += 32;
    }
    if (i < n) {
        i = n - 32;
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(dst + i), v);
        uint32_t m = esc_mask256(v, &k);
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

/* The JSON string scan: esc_mask256 with the default set, without the
 * copy. Strings of 32 bytes and more check their first vector alone, then
 * two vectors per step, then one vector ending at s + n; shorter ones are
 * read as in escape_short. */
static size_t avx2_json_string_scan(const char *s, size_t n) {
    const esc_vecs k = esc_load(0);
    if (n < 32) {
        if (n >= 16) {
            __m128i lo = _mm_loadu_si128((const __m128i *)s);
            __m128i hi = _mm_loadu_si128((const __m128i *)(s + n - 16));
            uint32_t m =
                esc_mask256(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1), &k);
            if (!m) return n;
            unsigned b = sdx_ctz64(m);
            return b < 16 ? b : n - 32 + b;
        }
        if (n >= 8) {
            __m128i v = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)s),
                                           _mm_loadl_epi64((const __m128i *)(s + n - 8)));
            uint32_t m = esc_mask128(v, &k);
            if (!m) return n;
            unsigned b = sdx_ctz64(m);
            return b < 8 ? b : n - 16 + b;
        }
        if (n >= 4) {
            uint32_t m = esc_mask128(_mm_unpacklo_epi32(load32(s), load32(s + n - 4)), &k) & 0xFF;
            if (!m) return n;
            unsigned b = sdx_ctz64(m);
            return b < 4 ? b : n - 8 + b;
        }
        if (n == 0) return 0;
        unsigned c0 = (unsigned char)s[0], c1 = (unsigned char)s[n >> 1],
                 c2 = (unsigned char)s[n - 1];
        uint32_t m = esc_mask128(_mm_cvtsi32_si128((int)(c0 | c1 << 8 | c2 << 16)), &k) & 7;
        if (!m) return n;
        return m & 1 ? 0 : m & 2 ? n >> 1 : n - 1;
    }
    uint32_t m32 = esc_mask256(_mm256_loadu_si256((const __m256i *)s), &k);
    if (m32) return sdx_ctz64(m32);
    size_t i = 32;
    for (; i + 64 <= n; i += 64) {
        __m256i b0 = esc_bytes256(_mm256_loadu_si256((const __m256i *)(s + i)), &k);
        __m256i b1 = esc_bytes256(_mm256_loadu_si256((const __m256i *)(s + i + 32)), &k);
        if (_mm256_movemask_epi8(_mm256_or_si256(b0, b1))) {
            uint64_t m = (uint32_t)_mm256_movemask_epi8(b0) |
                         (uint64_t)(uint32_t)_mm256_movemask_epi8(b1) << 32;
            return i + sdx_ctz64(m);
        }
    }
    if (i + 32 <= n) {
        uint32_t m = esc_mask256(_mm256_loadu_si256((const __m256i *)(s + i)), &k);
        if (m) return i + sdx_ctz64(m);
        i += 32;
    }
    if (i < n) {
        i = n - 32;
        uint32_t m = esc_mask256(_mm256_loadu_si256((const __m256i *)(s + i)), &k);
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* UTF-8 validation                                                          */
/* ------------------------------------------------------------------------ */

/* The lookup tables of utf8_kernel.h, one 16-byte copy each (vpshufb looks
 * up per 128-bit lane, so each is broadcast to both lanes). */
static _Alignas(16) const unsigned char u8_tables[3][16] = {
    {SDX_U8_TABLE_PREV_HIGH},
    {SDX_U8_TABLE_PREV_LOW},
    {SDX_U8_TABLE_CUR_HIGH},
};

typedef struct {
    __m256i prev_high, prev_low, cur_high, nibble, third, fourth, bit7;
} u8_vecs;

static inline u8_vecs u8_load(void) {
    u8_vecs k = {_mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)u8_tables[0])),
                 _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)u8_tables[1])),
                 _mm256_broadcastsi128_si256(_mm_load_si128((const __m128i *)u8_tables[2])),
                 _mm256_set1_epi8(0x0F),
                 _mm256_set1_epi8((char)(0xE0 - 0x80)),
                 _mm256_set1_epi8((char)(0xF0 - 0x80)),
                 _mm256_set1_epi8((char)0x80)};
    return k;
}

/* Nonzero bytes where cur (with prev1..prev3 the same bytes shifted by 1 to
 * 3 positions) breaks a rule: the lookup, then the count rule. */
static inline __m256i u8_errors(__m256i cur, __m256i prev1, __m256i prev2, __m256i prev3,
                                const u8_vecs *k) {
    __m256i p1_high = _mm256_and_si256(_mm256_srli_epi16(prev1, 4), k->nibble);
    __m256i p1_low = _mm256_and_si256(prev1, k->nibble);
    __m256i c_high = _mm256_and_si256(_mm256_srli_epi16(cur, 4), k->nibble);
    __m256i kinds = _mm256_and_si256(_mm256_and_si256(_mm256_shuffle_epi8(k->prev_high, p1_high),
                                                      _mm256_shuffle_epi8(k->prev_low, p1_low)),
                                     _mm256_shuffle_epi8(k->cur_high, c_high));
    /* saturating x - (lead - 0x80) has bit 7 set exactly when x >= lead */
    __m256i must = _mm256_and_si256(
        _mm256_or_si256(_mm256_subs_epu8(prev2, k->third), _mm256_subs_epu8(prev3, k->fourth)),
        k->bit7);
    return _mm256_xor_si256(kinds, must);
}

/* The errors of the 32 bytes cur at p, the bytes before them read from
 * memory (p[-3] .. p[-1] exist). */
static inline __m256i u8_errors_at(const char *p, __m256i cur, const u8_vecs *k) {
    return u8_errors(cur, _mm256_loadu_si256((const __m256i *)(p - 1)),
                     _mm256_loadu_si256((const __m256i *)(p - 2)),
                     _mm256_loadu_si256((const __m256i *)(p - 3)), k);
}

/* The errors of the first block, with zeros (ASCII) before it. */
static inline __m256i u8_errors_first(__m256i cur, const u8_vecs *k) {
    /* [zero, low lane of cur]: the bytes that vpalignr shifts in per lane */
    __m256i before = _mm256_permute2x128_si256(cur, cur, 0x08);
    return u8_errors(cur, _mm256_alignr_epi8(cur, before, 15), _mm256_alignr_epi8(cur, before, 14),
                     _mm256_alignr_epi8(cur, before, 13), k);
}

static inline int u8_is_ascii(__m256i v) {
    return _mm256_movemask_epi8(v) == 0;
}

/* Bytes 16 .. n-1 (16 <= n < 32) of s moved to lanes 0 .. n-17, zeros in
 * the rest: the 16 bytes ending at s + n, shifted down by 32 - n lanes with
 * vpshufb indices taken from a sliding window (0x80 gives a zero). */
static _Alignas(16) const unsigned char u8_shift_window[32] = {
    0,    1,    2,    3,    4,    5,    6,    7,    8,    9,    10,   11,   12,   13,   14,   15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80};

/* n < 32: one block padded with zeros, which also catch a sequence cut by
 * the end. */
static size_t avx2_utf8_short(const char *s, size_t n) {
    __m256i v;
    if (n >= 16) {
        __m128i lo = _mm_loadu_si128((const __m128i *)s);
        __m128i end = _mm_loadu_si128((const __m128i *)(s + n - 16));
        if (!_mm_movemask_epi8(_mm_or_si128(lo, end))) return n;
        __m128i shift = _mm_loadu_si128((const __m128i *)(u8_shift_window + 32 - n));
        __m128i hi = _mm_shuffle_epi8(end, shift);
        v = _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
    } else {
        uint64_t lo, hi;
        sdx_utf8_load_short(s, n, &lo, &hi);
        if (!((lo | hi) & 0x8080808080808080ull)) return n;
        v = _mm256_zextsi128_si256(_mm_set_epi64x((long long)hi, (long long)lo));
    }
    const u8_vecs k = u8_load();
    if (!_mm256_testz_si256(u8_errors_first(v, &k), _mm256_set1_epi8(-1)))
        return sdx_utf8_valid_prefix(s, n);
    return n;
}

/* The first 32 bytes take zeros for the bytes before them. Then blocks of
 * 64 bytes (two vectors, one ASCII test and one error test for both) from
 * the next 32-byte boundary on, so no load of a block splits a cache line
 * (from s + 32 when that boundary is less than 3 bytes in); each vector
 * reads the 3 bytes before it from memory with unaligned loads (no
 * lane-crossing shuffles). A block with no byte >= 0x80 needs no
 * lookups, only the check that the block before did not end inside a
 * sequence (`open`, set after a block with non-ASCII bytes, tells when that
 * is needed). The last 32 bytes overlap bytes already checked, and the end
 * is checked for a cut sequence. */
static size_t avx2_utf8_valid_prefix(const char *s, size_t n) {
    if (n < 32) return avx2_utf8_short(s, n);
    const u8_vecs k = u8_load();
    const __m256i ones = _mm256_set1_epi8(-1);
    __m256i first = _mm256_loadu_si256((const __m256i *)s);
    int open = !u8_is_ascii(first);
    if (open && !_mm256_testz_si256(u8_errors_first(first, &k), ones))
        return sdx_utf8_finish(s, n, 0);
    /* the next 32-byte boundary, unless that leaves no 3 bytes before it */
    size_t i = 32 - ((uintptr_t)s & 31);
    if (i < 3) i = 32;
    for (; i + 64 <= n; i += 64) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(s + i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(s + i + 32));
        if (u8_is_ascii(_mm256_or_si256(a, b))) {
            if (SDX_UNLIKELY(open)) {
                if (sdx_utf8_ends_incomplete(s, i)) return sdx_utf8_finish(s, n, i);
                open = 0;
            }
            continue;
        }
        __m256i e = _mm256_or_si256(u8_errors_at(s + i, a, &k), u8_errors_at(s + i + 32, b, &k));
        if (!_mm256_testz_si256(e, ones)) return sdx_utf8_finish(s, n, i);
        open = 1;
    }
    /* the last vectors as the blocks: no lookup for ASCII after a block
     * that ended a sequence (an all-ASCII input is checked by ASCII tests
     * alone) */
    if (i + 32 <= n) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + i));
        const int ascii = u8_is_ascii(v);
        if ((open || !ascii) && !_mm256_testz_si256(u8_errors_at(s + i, v, &k), ones))
            return sdx_utf8_finish(s, n, i);
        open = !ascii;
        i += 32;
    }
    if (i < n) {
        if (n < 35) return sdx_utf8_finish(s, n, i); /* too close to the start to overlap */
        __m256i v = _mm256_loadu_si256((const __m256i *)(s + n - 32));
        /* bytes from n - 32 to i are checked already */
        const int ascii = u8_is_ascii(v);
        if ((open || !ascii) && !_mm256_testz_si256(u8_errors_at(s + n - 32, v, &k), ones))
            return sdx_utf8_finish(s, n, n - 32);
        open = !ascii;
    }
    if (!open) return n;
    return sdx_utf8_ends_incomplete(s, n) ? sdx_utf8_finish(s, n, n) : n;
}

/* ------------------------------------------------------------------------ */
/* Escape scan and UTF-8 validation in one pass                              */
/* ------------------------------------------------------------------------ */

/* The exact result of json_escape_copy_utf8 from `from` on, where
 * src[0, from) is valid, ends at a character boundary and holds no stop:
 * the valid prefix, then the escape scan within it (two passes, after an
 * error). */
static SDX_NOINLINE size_t escape_utf8_rest(char *dst, const char *src, size_t n, unsigned set,
                                            size_t from) {
    const size_t v = from + avx2_utf8_valid_prefix(src + from, n - from);
    return from + avx2_json_escape_copy(dst + from, src + from, v - from, set);
}

/* json_escape_copy_utf8 (escape_utf8_long, escape_utf8_short and
 * avx2_json_escape_copy_utf8 below). Strings of 32 bytes and more are read
 * once, 32 bytes at a time (the last vector overlapping the one before and
 * ending at src + n): each vector is stored, its stops found as in
 * json_escape_copy, and, when it holds a byte above 0x7F or the vector
 * before ended inside a sequence, its UTF-8 errors by the lookup algorithm
 * of utf8_valid_prefix. A stop before the first error (an error at the
 * stop itself is a sequence the stop cuts) ends the copy there; an error
 * first hands the rest, from the start of the sequence it falls in, to
 * escape_utf8_rest, which finds the exact end. Shorter strings take
 * json_escape_copy's short path, whose loads also tell whether the string
 * has a byte above 0x7F, and then the short UTF-8 check of the bytes before
 * the stop. Before, the JSON writer scanned such a string to its first
 * byte above 0x7F, validated the rest and scanned the rest again: three
 * calls and two passes. */
static SDX_NOINLINE size_t escape_utf8_short(const char *src, size_t h) {
    return avx2_utf8_short(src, h);
}

static SDX_NOINLINE size_t escape_utf8_long(char *dst, const char *src, size_t n, unsigned set) {
    const esc_vecs k = esc_load(set);
    const u8_vecs u = u8_load();
    const __m256i zero = _mm256_setzero_si256();
    int open = 0;
    size_t i = 0;
    for (;;) {
        const __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), v);
        const uint32_t stops = esc_mask256(v, &k);
        const uint32_t high = (uint32_t)_mm256_movemask_epi8(v);
        if (high | (uint32_t)open) {
            const __m256i e = i ? u8_errors_at(src + i, v, &u) : u8_errors_first(v, &u);
            const uint32_t bad = ~(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(e, zero));
            if (bad && (!stops || sdx_ctz64(bad) <= sdx_ctz64(stops)))
                return escape_utf8_rest(dst, src, n, set, sdx_utf8_back_to_lead(src, i));
        }
        if (stops) return i + sdx_ctz64(stops);
        if (i + 32 == n) break;
        open = high && sdx_utf8_ends_incomplete(src, i + 32);
        if (i + 64 <= n) {
            i += 32;
        } else if (n - 32 >= 3) {
            i = n - 32;
        } else {
            /* 33 or 34 bytes: a vector ending at src + n would need the
             * bytes before src for its errors */
            return escape_utf8_rest(dst, src, n, set, sdx_utf8_back_to_lead(src, 32));
        }
    }
    /* a sequence cut by the end */
    return sdx_utf8_ends_incomplete(src, n) ? sdx_utf8_back_to_lead(src, n) : n;
}

/* The short path inline, as in json_escape_copy; the UTF-8 check of a short
 * string and the long loop are functions of their own, so that their
 * vectors do not weigh on this one's entry. */
static size_t avx2_json_escape_copy_utf8(char *dst, const char *src, size_t n, unsigned set) {
    set &= ~(unsigned)SDX_ESC_HIGH;
    if (n >= 32) return escape_utf8_long(dst, src, n, set);
    const esc_vecs k = esc_load(set);
    uint32_t high;
    const size_t h = escape_short(dst, src, n, &k, &high);
    return high ? escape_utf8_short(src, h) : h;
}

/* ------------------------------------------------------------------------ */
/* Text control bytes                                                        */
/* ------------------------------------------------------------------------ */

/* Bit i set where byte i of v is a control byte other than tab, newline
 * and carriage return (v == min(v, 0x1F) unsigned), or DEL. */
static inline uint32_t text_control_mask256(__m256i v) {
    const __m256i low = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);
    const __m256i ok = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t')),
                                                       _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n'))),
                                       _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r')));
    const __m256i del = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f));
    return (uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_andnot_si256(ok, low), del));
}

/* text_control_scan: 64 bytes per step, then one vector ending at s + n
 * (its bytes before the step's end are known clean, so its first stop is
 * the first); below 32 bytes the SSE2 kernel. */
static size_t avx2_text_control_scan(const char *s, size_t n) {
    if (n < 32) return sdx_simd_sse2.text_control_scan(s, n);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t m = text_control_mask256(_mm256_loadu_si256((const __m256i *)(s + i))) |
                     (uint64_t)text_control_mask256(_mm256_loadu_si256((const __m256i *)(s + i + 32))) << 32;
        if (m) return i + sdx_ctz64(m);
    }
    if (i + 32 <= n) {
        uint32_t m = text_control_mask256(_mm256_loadu_si256((const __m256i *)(s + i)));
        if (m) return i + sdx_ctz64(m);
        i += 32;
    }
    if (i < n) {
        uint32_t m = text_control_mask256(_mm256_loadu_si256((const __m256i *)(s + n - 32)));
        if (m) return n - 32 + sdx_ctz64(m);
    }
    return n;
}

const sdx_simd_kernels sdx_simd_avx2 = {
    SDX_SIMD_AVX2,
    "avx2",
    avx2_json_escape_copy,
    avx2_utf8_valid_prefix,
    avx2_json_string_scan,
    avx2_json_escape_copy_utf8,
    avx2_text_control_scan,
};
