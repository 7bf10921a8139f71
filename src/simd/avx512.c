/*
 * AVX-512 kernels (F + BW + VL). Compiled with -mavx512f -mavx512bw
 * -mavx512vl -mavx2 -mbmi -mbmi2; called only after dispatch.c has found
 * those extensions and OS support for the opmask and ZMM state.
 *
 * json_escape_copy uses the tests of avx2.c: a signed compare
 * (x ^ bias) < limit for control bytes (and bytes >= 0x80 with
 * SDX_ESC_HIGH), and a vpshufb table lookup by low nibble for '"', '\\' and
 * '/' (with SDX_ESC_SLASH), whose entries have distinct low nibbles.
 *
 * Strings of up to 32 bytes (most of them) take one masked 256-bit load and
 * store: masked-off bytes are neither read nor written (fault suppression),
 * so nothing outside src[0, n) / dst[0, n) is touched. Longer strings check
 * their first 32 bytes alone (stops are usually near the start, and a
 * compare plus movemask reaches the branch sooner than a compare into an
 * opmask register), go on 64 bytes per step, and end with unmasked 32-byte
 * vectors, the last one overlapping bytes already found clean and ending at
 * src + n. On a Sapphire Rapids-class CPU this was faster than an
 * all-256-bit version with masked tails, an all-512-bit one, and one with
 * a masked 512-bit tail.
 *
 * utf8_valid_prefix runs the lookup algorithm of utf8_kernel.h on 64-byte
 * vectors (see the comment above avx512_utf8_valid_prefix). On the same
 * CPU that was 15-20% faster on non-ASCII text than 32-byte vectors
 * (avx2.c's code with masked loads for the tail), faster on long ASCII, and
 * as fast on short strings.
 */
#include "simd/simd.h"

#include <immintrin.h>

#include "core/platform.h"
#include "simd/short_copy.h"
#include "simd/utf8_kernel.h"

/* Per `set` (SDX_ESC_SLASH | SDX_ESC_HIGH): bias, limit, and the table of
 * the byte to look for per low nibble: '"' at 2, '\\' at 12, '/' at 15 with
 * SDX_ESC_SLASH; 0x80 (which no byte below 0x80 equals) elsewhere. */
#define SPLAT8(c) c, c, c, c, c, c, c, c
#define SPLAT32(c) SPLAT8(c), SPLAT8(c), SPLAT8(c), SPLAT8(c)
#define SPLAT64(c) SPLAT32(c), SPLAT32(c)
#define N 0x80
#define NIBBLES(slash) N, N, '"', N, N, N, N, N, N, N, N, N, '\\', N, N, slash
#define TABLE(slash) NIBBLES(slash), NIBBLES(slash), NIBBLES(slash), NIBBLES(slash)
static _Alignas(64) const unsigned char esc_consts[4][3][64] = {
    {{SPLAT64(0x80)}, {SPLAT64(0xA0)}, {TABLE(N)}},   /* default */
    {{SPLAT64(0x80)}, {SPLAT64(0xA0)}, {TABLE('/')}}, /* SLASH */
    {{SPLAT64(0x00)}, {SPLAT64(0x20)}, {TABLE(N)}},   /* HIGH */
    {{SPLAT64(0x00)}, {SPLAT64(0x20)}, {TABLE('/')}}, /* SLASH | HIGH */
};
#undef TABLE
#undef NIBBLES
#undef N
#undef SPLAT64
#undef SPLAT32
#undef SPLAT8

typedef struct {
    __m256i bias, limit, table;
} esc_vecs256;

typedef struct {
    __m512i bias, limit, table;
} esc_vecs512;

/* Strings shorter than 96 bytes use no 512-bit register at all: the 512-bit
 * constants are loaded only before the 64-byte loop. */
static inline esc_vecs256 esc_load256(const unsigned char (*c)[64]) {
    esc_vecs256 k = {_mm256_load_si256((const __m256i *)c[0]),
                     _mm256_load_si256((const __m256i *)c[1]),
                     _mm256_load_si256((const __m256i *)c[2])};
    return k;
}

static inline esc_vecs512 esc_load512(const unsigned char (*c)[64]) {
    esc_vecs512 k = {_mm512_load_si512(c[0]), _mm512_load_si512(c[1]), _mm512_load_si512(c[2])};
    return k;
}

/* One bit per byte of v that stops the scan: (v ^ bias) < limit as signed
 * bytes, or v equal to its entry in the table. vpshufb looks up each byte's
 * low nibble (per 16-byte lane) and gives 0 for bytes >= 0x80, which so
 * never equal their lookup. */
static inline uint64_t esc_mask512(__m512i v, const esc_vecs512 *k) {
    return _mm512_cmplt_epi8_mask(_mm512_xor_si512(v, k->bias), k->limit) |
           _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(k->table, v), v);
}

/* The same on 32 bytes, with AVX2 compares and a movemask: a shorter
 * latency to the branch than through the opmask registers, which pays off
 * when stops are frequent and so mispredicted. */
static inline uint32_t esc_mask256(__m256i v, const esc_vecs256 *k) {
    return sdx_esc_mask256(v, k->bias, k->limit, k->table);
}

static size_t avx512_json_escape_copy(char *dst, const char *src, size_t n, unsigned set) {
    const unsigned char(*consts)[64] = esc_consts[set & 3];
    const esc_vecs256 k = esc_load256(consts);
    if (n <= 32) {
        /* most strings: one masked 32-byte step */
        return sdx_escape_copy32_avx512(dst, src, n, k.bias, k.limit, k.table);
    }
    /* the first 32 bytes alone: most stops are near the start */
    __m256i first = _mm256_loadu_si256((const __m256i *)src);
    _mm256_storeu_si256((__m256i *)dst, first);
    uint32_t m32 = esc_mask256(first, &k);
    if (m32) return sdx_ctz64(m32);
    size_t i = 32;
    /* then 64 bytes per step */
    if (i + 64 <= n) {
        const esc_vecs512 k512 = esc_load512(consts);
        do {
            __m512i v = _mm512_loadu_si512(src + i);
            _mm512_storeu_si512(dst + i, v);
            uint64_t m = esc_mask512(v, &k512);
            if (m) return i + sdx_ctz64(m);
            i += 64;
        } while (i + 64 <= n);
    }
    if (i + 32 <= n) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(dst + i), v);
        uint32_t m = esc_mask256(v, &k);
        if (m) return i + sdx_ctz64(m);
        i += 32;
    }
    /* the last 32 bytes, overlapping bytes already found clean */
    if (i < n) {
        i = n - 32;
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + i));
        _mm256_storeu_si256((__m256i *)(dst + i), v);
        uint32_t m = esc_mask256(v, &k);
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

/* The JSON string scan: the tests of json_escape_copy with the default
 * set, without the copy. Up to 32 bytes: one masked 256-bit load (nothing
 * outside s[0, n) is read); longer strings check their first 32 bytes
 * alone, then 64 bytes per step, and end with one masked 512-bit load. */
static size_t avx512_json_string_scan(const char *s, size_t n) {
    const unsigned char(*consts)[64] = esc_consts[0];
    const esc_vecs256 k = esc_load256(consts);
    if (n <= 32) {
        const __mmask32 live = (__mmask32)_bzhi_u32(0xFFFFFFFFu, (unsigned)n);
        uint32_t m = esc_mask256(_mm256_maskz_loadu_epi8(live, s), &k) & live;
        return m ? sdx_ctz64(m) : n;
    }
    uint32_t m32 = esc_mask256(_mm256_loadu_si256((const __m256i *)s), &k);
    if (m32) return sdx_ctz64(m32);
    const esc_vecs512 k512 = esc_load512(consts);
    size_t i = 32;
    for (; i + 64 <= n; i += 64) {
        uint64_t m = esc_mask512(_mm512_loadu_si512(s + i), &k512);
        if (m) return i + sdx_ctz64(m);
    }
    if (i < n) {
        const uint64_t live = _bzhi_u64(~0ull, (unsigned)(n - i));
        uint64_t m = esc_mask512(_mm512_maskz_loadu_epi8(live, s + i), &k512) & live;
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* UTF-8 validation                                                          */
/* ------------------------------------------------------------------------ */

/* The lookup tables of utf8_kernel.h (vpshufb looks up per 128-bit lane,
 * so each is broadcast to every lane). */
static _Alignas(16) const unsigned char u8_tables[3][16] = {
    {SDX_U8_TABLE_PREV_HIGH},
    {SDX_U8_TABLE_PREV_LOW},
    {SDX_U8_TABLE_CUR_HIGH},
};

typedef struct {
    __m512i prev_high, prev_low, cur_high, nibble, third, fourth, bit7;
} u8_vecs;

static inline u8_vecs u8_load(void) {
    u8_vecs k = {_mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)u8_tables[0])),
                 _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)u8_tables[1])),
                 _mm512_broadcast_i32x4(_mm_load_si128((const __m128i *)u8_tables[2])),
                 _mm512_set1_epi8(0x0F),
                 _mm512_set1_epi8((char)(0xE0 - 0x80)),
                 _mm512_set1_epi8((char)(0xF0 - 0x80)),
                 _mm512_set1_epi8((char)0x80)};
    return k;
}

/* One bit per position of cur (with prev1..prev3 the same bytes shifted by
 * 1 to 3 positions) that breaks a rule: the three lookups ANDed (vpternlog
 * 0x80 is a & b & c), and the count rule, must = 0x80 where prev2 >= E0 or
 * prev3 >= F0 (vpternlog 0xA8 is (a | b) & c); a position is in error when
 * the lookup differs from must. */
static inline uint64_t u8_errors(__m512i cur, __m512i prev1, __m512i prev2, __m512i prev3,
                                 const u8_vecs *k) {
    __m512i p1_high = _mm512_and_si512(_mm512_srli_epi16(prev1, 4), k->nibble);
    __m512i p1_low = _mm512_and_si512(prev1, k->nibble);
    __m512i c_high = _mm512_and_si512(_mm512_srli_epi16(cur, 4), k->nibble);
    __m512i kinds = _mm512_ternarylogic_epi32(_mm512_shuffle_epi8(k->prev_high, p1_high),
                                              _mm512_shuffle_epi8(k->prev_low, p1_low),
                                              _mm512_shuffle_epi8(k->cur_high, c_high), 0x80);
    /* saturating x - (lead - 0x80) has bit 7 set exactly when x >= lead */
    __m512i must = _mm512_ternarylogic_epi32(_mm512_subs_epu8(prev2, k->third),
                                             _mm512_subs_epu8(prev3, k->fourth), k->bit7, 0xA8);
    return _mm512_cmpneq_epi8_mask(kinds, must);
}

/* The errors of the 64 bytes at p, the bytes before them read from memory
 * (p[-3] .. p[-1] exist) with unaligned loads. */
static inline uint64_t u8_errors_at(const char *p, const u8_vecs *k) {
    return u8_errors(_mm512_loadu_si512(p), _mm512_loadu_si512(p - 1), _mm512_loadu_si512(p - 2),
                     _mm512_loadu_si512(p - 3), k);
}

/* The errors of cur with `before` the 64 bytes before it: valignd makes
 * [last lane of before, lanes 0-2 of cur], from which vpalignr takes the
 * bytes each lane needs. */
static inline uint64_t u8_errors_after(__m512i cur, __m512i before, const u8_vecs *k) {
    __m512i shifted = _mm512_alignr_epi32(cur, before, 12);
    return u8_errors(cur, _mm512_alignr_epi8(cur, shifted, 15),
                     _mm512_alignr_epi8(cur, shifted, 14), _mm512_alignr_epi8(cur, shifted, 13), k);
}

/* The first 64 bytes (for a shorter input, a masked load padded with
 * zeros, which catch a sequence cut by the end) take zeros for the bytes
 * before them. Then blocks of 64 bytes from the next 64-byte boundary on,
 * so no load of a block splits a cache line (from s + 64 when that boundary
 * is less than 3 bytes in), two at a time for the ASCII test; each block
 * reads the 3 bytes before it from memory with unaligned loads (as fast
 * as carrying them over in registers with valignd and vpalignr, and
 * simpler). A block with no byte >= 0x80 needs no lookups, only the check
 * that the block before did not end inside a sequence (`open`, set after a
 * block with non-ASCII bytes, tells when that is needed). The last partial
 * block is a masked load padded with zeros, its previous bytes masked
 * likewise (nothing past s[n-1] is read); an input that ends on a block
 * edge is checked for a cut sequence. */
static size_t avx512_utf8_valid_prefix(const char *s, size_t n) {
    const u8_vecs k = u8_load();
    const __m512i zero = _mm512_setzero_si512();
    if (n < 64) {
        __m512i v = _mm512_maskz_loadu_epi8(_bzhi_u64(~0ull, (unsigned)n), s);
        if (!_mm512_movepi8_mask(v)) return n;
        return u8_errors_after(v, zero, &k) ? sdx_utf8_valid_prefix(s, n) : n;
    }
    __m512i first = _mm512_loadu_si512(s);
    int open = _mm512_movepi8_mask(first) != 0;
    if (open && u8_errors_after(first, zero, &k)) return sdx_utf8_finish(s, n, 0);
    /* the next 64-byte boundary, unless that leaves no 3 bytes before it */
    size_t i = 64 - ((uintptr_t)s & 63);
    if (i < 3) i = 64;
    for (; i + 128 <= n; i += 128) {
        __m512i a = _mm512_loadu_si512(s + i), b = _mm512_loadu_si512(s + i + 64);
        if (!_mm512_movepi8_mask(_mm512_or_si512(a, b))) {
            if (SDX_UNLIKELY(open)) {
                if (sdx_utf8_ends_incomplete(s, i)) return sdx_utf8_finish(s, n, i);
                open = 0;
            }
            continue;
        }
        if (u8_errors_at(s + i, &k)) return sdx_utf8_finish(s, n, i);
        if (u8_errors_at(s + i + 64, &k)) return sdx_utf8_finish(s, n, i + 64);
        open = 1;
    }
    if (i + 64 <= n) {
        if (!_mm512_movepi8_mask(_mm512_loadu_si512(s + i))) {
            if (open && sdx_utf8_ends_incomplete(s, i)) return sdx_utf8_finish(s, n, i);
            open = 0;
        } else {
            if (u8_errors_at(s + i, &k)) return sdx_utf8_finish(s, n, i);
            open = 1;
        }
        i += 64;
    }
    const size_t rest = n - i;
    if (rest == 0) return open && sdx_utf8_ends_incomplete(s, n) ? sdx_utf8_finish(s, n, n) : n;
    /* cur holds s[i, n) and zeros; prev_j holds s[i-j, n) and zeros (one
     * more byte of input each), so the first padding position sees the
     * last three bytes of the input */
    const uint64_t live = _bzhi_u64(~0ull, (unsigned)rest);
    const char *p = s + i;
    const __m512i cur = _mm512_maskz_loadu_epi8(live, p);
    if (!_mm512_movepi8_mask(cur) && !(open && sdx_utf8_ends_incomplete(s, i))) return n;
    uint64_t e = u8_errors(cur, _mm512_maskz_loadu_epi8(live << 1 | 1, p - 1),
                           _mm512_maskz_loadu_epi8(live << 2 | 3, p - 2),
                           _mm512_maskz_loadu_epi8(live << 3 | 7, p - 3), &k);
    return e ? sdx_utf8_finish(s, n, i) : n;
}

/* json_escape_copy_utf8: stops at every byte above 0x7F, which the caller
 * then validates. */
static size_t avx512_json_escape_copy_utf8(char *dst, const char *src, size_t n, unsigned set) {
    return avx512_json_escape_copy(dst, src, n, set | SDX_ESC_HIGH);
}

/* ------------------------------------------------------------------------ */
/* Text control bytes                                                        */
/* ------------------------------------------------------------------------ */

/* Bit i set where byte i of v is a control byte other than tab, newline
 * and carriage return, or DEL. */
static inline uint64_t text_control_mask512(__m512i v) {
    const __mmask64 low = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
    const __mmask64 ok = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\t')) |
                         _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n')) |
                         _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\r'));
    return (low & ~ok) | _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(0x7f));
}

/* text_control_scan: 64 bytes per step, the rest by one masked load
 * (nothing outside s[0, n) is read). */
static size_t avx512_text_control_scan(const char *s, size_t n) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        uint64_t m = text_control_mask512(_mm512_loadu_si512(s + i));
        if (m) return i + sdx_ctz64(m);
    }
    if (i < n) {
        const uint64_t live = _bzhi_u64(~0ull, (unsigned)(n - i));
        uint64_t m = text_control_mask512(_mm512_maskz_loadu_epi8(live, s + i)) & live;
        if (m) return i + sdx_ctz64(m);
    }
    return n;
}

const sdx_simd_kernels sdx_simd_avx512 = {
    SDX_SIMD_AVX512,
    "avx512",
    avx512_json_escape_copy,
    avx512_utf8_valid_prefix,
    avx512_json_string_scan,
    avx512_json_escape_copy_utf8,
    avx512_text_control_scan,
};
