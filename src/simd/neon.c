/*
 * NEON kernels (AArch64 Advanced SIMD, 16-byte vectors); NEON is part of
 * every AArch64 CPU, so there is nothing to detect.
 *
 * json_escape_copy tests 16 bytes with four compares: one unsigned compare
 * (x ^ bias) < limit catches bytes below 0x20 (bias 0, limit 0x20) or, with
 * SDX_ESC_HIGH, also bytes >= 0x80 (bias 0x80, limit 0xA0); then '"', '\\'
 * and a third byte that is '/' with SDX_ESC_SLASH and '"' again otherwise.
 * The compare result (0x00 or 0xFF per byte) is narrowed to a 64-bit word
 * with four bits per byte by a shift-right-and-narrow of its 16-bit lanes by
 * 4, so the first matching byte is count-trailing-zeros / 4.
 *
 * The handling of lengths follows sse2.c: store as you go; for 16 bytes and
 * more the first vector alone, then two vectors per step, then an
 * overlapping last vector; two overlapping 8- or 4-byte halves for shorter
 * strings, and the first, middle and last byte for 1 to 3 bytes.
 * Nothing outside src[0, n) is read and nothing outside dst[0, n) is
 * written.
 *
 * utf8_valid_prefix runs the lookup algorithm of utf8_kernel.h with
 * vqtbl1q_u8 on 16-byte vectors (see the comment above
 * neon_utf8_valid_prefix).
 */
#include "simd/simd.h"

#include <arm_neon.h>

#include "core/platform.h"
#include "simd/utf8_kernel.h"

typedef struct {
    uint8x16_t bias, limit, third;
} esc_vecs;

static inline esc_vecs esc_load(unsigned set) {
    esc_vecs k;
    k.bias = vdupq_n_u8((set & SDX_ESC_HIGH) ? 0x80 : 0x00);
    k.limit = vdupq_n_u8((set & SDX_ESC_HIGH) ? 0xA0 : 0x20);
    k.third = vdupq_n_u8((set & SDX_ESC_SLASH) ? '/' : '"');
    return k;
}

/* 0xFF in each byte of v that stops the scan, 0x00 elsewhere. */
static inline uint8x16_t esc_bytes(uint8x16_t v, const esc_vecs *k) {
    uint8x16_t ctl = vcltq_u8(veorq_u8(v, k->bias), k->limit);
    uint8x16_t q = vceqq_u8(v, vdupq_n_u8('"'));
    uint8x16_t b = vceqq_u8(v, vdupq_n_u8('\\'));
    uint8x16_t t = vceqq_u8(v, k->third);
    return vorrq_u8(vorrq_u8(ctl, q), vorrq_u8(b, t));
}

/* Four bits per byte: bits 4i..4i+3 are set if byte i stops the scan. */
static inline uint64_t nibble_mask(uint8x16_t m) {
    return vget_lane_u64(vreinterpret_u64_u8(vshrn_n_u16(vreinterpretq_u16_u8(m), 4)), 0);
}

static inline uint64_t load32(const char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* n < 16 */
static inline size_t escape_short(char *dst, const char *src, size_t n, const esc_vecs *k) {
    if (n >= 8) {
        /* bytes 0-7 in lanes 0-7, bytes n-8 .. n-1 in lanes 8-15 */
        uint8x8_t lo = vld1_u8((const uint8_t *)src);
        uint8x8_t hi = vld1_u8((const uint8_t *)(src + n - 8));
        vst1_u8((uint8_t *)(dst + n - 8), hi);
        vst1_u8((uint8_t *)dst, lo);
        uint64_t m = nibble_mask(esc_bytes(vcombine_u8(lo, hi), k));
        if (!m) return n;
        unsigned b = sdx_ctz64(m) >> 2;
        return b < 8 ? b : n - 16 + b;
    }
    if (n >= 4) {
        /* bytes 0-3 in lanes 0-3, bytes n-4 .. n-1 in lanes 4-7 */
        uint64_t w = load32(src) | load32(src + n - 4) << 32;
        memcpy(dst + n - 4, src + n - 4, 4);
        memcpy(dst, src, 4);
        uint64_t m = nibble_mask(esc_bytes(vreinterpretq_u8_u64(vdupq_n_u64(w)), k));
        m &= 0xFFFFFFFFull; /* lanes 0-7 */
        if (!m) return n;
        unsigned b = sdx_ctz64(m) >> 2;
        return b < 4 ? b : n - 8 + b;
    }
    if (n == 0) return 0;
    /* bytes 0, n/2 and n-1 in lanes 0-2: with n <= 3 that is every byte */
    uint8_t c0 = (uint8_t)src[0], c1 = (uint8_t)src[n >> 1], c2 = (uint8_t)src[n - 1];
    dst[n - 1] = (char)c2;
    dst[n >> 1] = (char)c1;
    dst[0] = (char)c0;
    uint64_t w = c0 | (uint64_t)c1 << 8 | (uint64_t)c2 << 16;
    uint64_t m = nibble_mask(esc_bytes(vreinterpretq_u8_u64(vdupq_n_u64(w)), k)) & 0xFFF;
    if (!m) return n;
    return m & 0xF ? 0 : m & 0xF0 ? n >> 1 : n - 1;
}

static size_t neon_json_escape_copy(char *dst, const char *src, size_t n, unsigned set) {
    const esc_vecs k = esc_load(set);
    if (n < 16) return escape_short(dst, src, n, &k);
    /* the first vector alone: most stops are near the start */
    uint8x16_t first = vld1q_u8((const uint8_t *)src);
    vst1q_u8((uint8_t *)dst, first);
    uint64_t m16 = nibble_mask(esc_bytes(first, &k));
    if (m16) return sdx_ctz64(m16) >> 2;
    size_t i = 16;
    /* then two vectors per step, one narrowing and branch for both */
    for (; i + 32 <= n; i += 32) {
        uint8x16_t v0 = vld1q_u8((const uint8_t *)(src + i));
        uint8x16_t v1 = vld1q_u8((const uint8_t *)(src + i + 16));
        vst1q_u8((uint8_t *)(dst + i), v0);
        vst1q_u8((uint8_t *)(dst + i + 16), v1);
        uint8x16_t b0 = esc_bytes(v0, &k), b1 = esc_bytes(v1, &k);
        if (nibble_mask(vorrq_u8(b0, b1))) {
            uint64_t m = nibble_mask(b0);
            return m ? i + (sdx_ctz64(m) >> 2) : i + 16 + (sdx_ctz64(nibble_mask(b1)) >> 2);
        }
    }
    if (i + 16 <= n) {
        uint8x16_t v = vld1q_u8((const uint8_t *)(src + i));
        vst1q_u8((uint8_t *)(dst + i), v);
        uint64_t m = nibble_mask(esc_bytes(v, &k));
        if (m) return i + (sdx_ctz64(m) >> 2);
        i += 16;
    }
    if (i < n) {
        i = n - 16;
        uint8x16_t v = vld1q_u8((const uint8_t *)(src + i));
        vst1q_u8((uint8_t *)(dst + i), v);
        uint64_t m = nibble_mask(esc_bytes(v, &k));
        if (m) return i + (sdx_ctz64(m) >> 2);
    }
    return n;
}

/* The JSON string scan: esc_bytes with the default set, without the copy.
 * Strings of 16 bytes and more check their first vector alone, then two
 * vectors per step, then one vector ending at s + n; shorter ones are read
 * as in escape_short. */
static size_t neon_json_string_scan(const char *s, size_t n) {
    const esc_vecs k = esc_load(0);
    if (n < 16) {
        if (n >= 8) {
            uint8x16_t v = vcombine_u8(vld1_u8((const uint8_t *)s),
                                       vld1_u8((const uint8_t *)(s + n - 8)));
            uint64_t m = nibble_mask(esc_bytes(v, &k));
            if (!m) return n;
            unsigned b = sdx_ctz64(m) >> 2;
            return b < 8 ? b : n - 16 + b;
        }
        if (n >= 4) {
            uint64_t w = load32(s) | load32(s + n - 4) << 32;
            uint64_t m = nibble_mask(esc_bytes(vreinterpretq_u8_u64(vdupq_n_u64(w)), &k));
            m &= 0xFFFFFFFFull;
            if (!m) return n;
            unsigned b = sdx_ctz64(m) >> 2;
            return b < 4 ? b : n - 8 + b;
        }
        if (n == 0) return 0;
        uint64_t w = (uint8_t)s[0] | (uint64_t)(uint8_t)s[n >> 1] << 8 |
                     (uint64_t)(uint8_t)s[n - 1] << 16;
        uint64_t m = nibble_mask(esc_bytes(vreinterpretq_u8_u64(vdupq_n_u64(w)), &k)) & 0xFFF;
        if (!m) return n;
        return m & 0xF ? 0 : m & 0xF0 ? n >> 1 : n - 1;
    }
    uint64_t m16 = nibble_mask(esc_bytes(vld1q_u8((const uint8_t *)s), &k));
    if (m16) return sdx_ctz64(m16) >> 2;
    size_t i = 16;
    for (; i + 32 <= n; i += 32) {
        uint8x16_t b0 = esc_bytes(vld1q_u8((const uint8_t *)(s + i)), &k);
        uint8x16_t b1 = esc_bytes(vld1q_u8((const uint8_t *)(s + i + 16)), &k);
        if (nibble_mask(vorrq_u8(b0, b1))) {
            uint64_t m = nibble_mask(b0);
            return m ? i + (sdx_ctz64(m) >> 2) : i + 16 + (sdx_ctz64(nibble_mask(b1)) >> 2);
        }
    }
    if (i + 16 <= n) {
        uint64_t m = nibble_mask(esc_bytes(vld1q_u8((const uint8_t *)(s + i)), &k));
        if (m) return i + (sdx_ctz64(m) >> 2);
        i += 16;
    }
    if (i < n) {
        i = n - 16;
        uint64_t m = nibble_mask(esc_bytes(vld1q_u8((const uint8_t *)(s + i)), &k));
        if (m) return i + (sdx_ctz64(m) >> 2);
    }
    return n;
}

/* ------------------------------------------------------------------------ */
/* UTF-8 validation                                                          */
/* ------------------------------------------------------------------------ */

/* The lookup tables of utf8_kernel.h, for vqtbl1q_u8 (an index above 15
 * gives 0, but every index here is a nibble). */
static const uint8_t u8_tables[3][16] = {
    {SDX_U8_TABLE_PREV_HIGH},
    {SDX_U8_TABLE_PREV_LOW},
    {SDX_U8_TABLE_CUR_HIGH},
};

typedef struct {
    uint8x16_t prev_high, prev_low, cur_high, nibble, e0, f0, bit7;
} u8_vecs;

static inline u8_vecs u8_load(void) {
    u8_vecs k = {vld1q_u8(u8_tables[0]), vld1q_u8(u8_tables[1]), vld1q_u8(u8_tables[2]),
                 vdupq_n_u8(0x0F),       vdupq_n_u8(0xE0),       vdupq_n_u8(0xF0),
                 vdupq_n_u8(0x80)};
    return k;
}

/* Nonzero bytes where cur (with prev1..prev3 the same bytes shifted by 1 to
 * 3 positions) breaks a rule: the lookup, then the count rule (must = 0x80
 * where prev2 >= E0 or prev3 >= F0). */
static inline uint8x16_t u8_errors(uint8x16_t cur, uint8x16_t prev1, uint8x16_t prev2,
                                   uint8x16_t prev3, const u8_vecs *k) {
    uint8x16_t kinds = vandq_u8(vandq_u8(vqtbl1q_u8(k->prev_high, vshrq_n_u8(prev1, 4)),
                                         vqtbl1q_u8(k->prev_low, vandq_u8(prev1, k->nibble))),
                                vqtbl1q_u8(k->cur_high, vshrq_n_u8(cur, 4)));
    uint8x16_t must = vandq_u8(vorrq_u8(vcgeq_u8(prev2, k->e0), vcgeq_u8(prev3, k->f0)), k->bit7);
    return veorq_u8(kinds, must);
}

/* The errors of the 16 bytes cur at p, the bytes before them read from
 * memory (p[-3] .. p[-1] exist). */
static inline uint8x16_t u8_errors_at(const char *p, uint8x16_t cur, const u8_vecs *k) {
    const uint8_t *q = (const uint8_t *)p;
    return u8_errors(cur, vld1q_u8(q - 1), vld1q_u8(q - 2), vld1q_u8(q - 3), k);
}

/* The errors of the first 16 bytes, with zeros (ASCII) before them. */
static inline uint8x16_t u8_errors_first(uint8x16_t cur, const u8_vecs *k) {
    const uint8x16_t zero = vdupq_n_u8(0);
    return u8_errors(cur, vextq_u8(zero, cur, 15), vextq_u8(zero, cur, 14), vextq_u8(zero, cur, 13),
                     k);
}

/* The first 16 bytes take zeros for the bytes before them (for n < 16 they
 * are padded with zeros after the end, which catch a cut sequence). Then
 * blocks of 64 bytes with one ASCII test for the four vectors, the 3 bytes
 * before each vector read from memory; then 16 bytes at a time, the last
 * 16 overlapping bytes already checked, and a check for a sequence cut by
 * the end. A block with no byte >= 0x80 needs only the check that the
 * block before did not end inside a sequence (`open`, set after a block
 * with non-ASCII bytes, tells when). */
static size_t neon_utf8_valid_prefix(const char *s, size_t n) {
    const uint8_t *p = (const uint8_t *)s;
    if (n < 16) {
        uint64_t lo, hi;
        sdx_utf8_load_short(s, n, &lo, &hi);
        if (!((lo | hi) & 0x8080808080808080ull)) return n;
        const u8_vecs k = u8_load();
        uint8x16_t v = vcombine_u8(vcreate_u8(lo), vcreate_u8(hi));
        return vmaxvq_u8(u8_errors_first(v, &k)) ? sdx_utf8_valid_prefix(s, n) : n;
    }
    const u8_vecs k = u8_load();
    uint8x16_t first = vld1q_u8(p);
    int open = vmaxvq_u8(first) >= 0x80;
    if (open && vmaxvq_u8(u8_errors_first(first, &k))) return sdx_utf8_finish(s, n, 0);
    size_t i = 16;
    for (; i + 64 <= n; i += 64) {
        uint8x16_t a = vld1q_u8(p + i), b = vld1q_u8(p + i + 16);
        uint8x16_t c = vld1q_u8(p + i + 32), d = vld1q_u8(p + i + 48);
        if (vmaxvq_u8(vorrq_u8(vorrq_u8(a, b), vorrq_u8(c, d))) < 0x80) {
            if (SDX_UNLIKELY(open)) {
                if (sdx_utf8_ends_incomplete(s, i)) return sdx_utf8_finish(s, n, i);
                open = 0;
            }
            continue;
        }
        uint8x16_t e0 = vorrq_u8(u8_errors_at(s + i, a, &k), u8_errors_at(s + i + 16, b, &k));
        uint8x16_t e1 = vorrq_u8(u8_errors_at(s + i + 32, c, &k), u8_errors_at(s + i + 48, d, &k));
        uint8x16_t e = vorrq_u8(e0, e1);
        if (vmaxvq_u8(e)) return sdx_utf8_finish(s, n, i);
        open = 1;
    }
    for (; i + 16 <= n; i += 16)
        if (vmaxvq_u8(u8_errors_at(s + i, vld1q_u8(p + i), &k))) return sdx_utf8_finish(s, n, i);
    if (i < n) {
        if (n < 19) return sdx_utf8_finish(s, n, i); /* too close to the start to overlap */
        i = n - 16;
        if (vmaxvq_u8(u8_errors_at(s + i, vld1q_u8(p + i), &k))) return sdx_utf8_finish(s, n, i);
    }
    return sdx_utf8_ends_incomplete(s, n) ? sdx_utf8_finish(s, n, n) : n;
}

/* json_escape_copy_utf8: stops at every byte above 0x7F, which the caller
 * then validates. */
static size_t neon_json_escape_copy_utf8(char *dst, const char *src, size_t n, unsigned set) {
    return neon_json_escape_copy(dst, src, n, set | SDX_ESC_HIGH);
}

/* ------------------------------------------------------------------------ */
/* Text control bytes                                                        */
/* ------------------------------------------------------------------------ */

/* 0xFF where a byte of v is a control byte other than tab, newline and
 * carriage return, or DEL. */
static inline uint8x16_t text_control_bytes(uint8x16_t v) {
    const uint8x16_t low = vcltq_u8(v, vdupq_n_u8(0x20));
    const uint8x16_t ok = vorrq_u8(vorrq_u8(vceqq_u8(v, vdupq_n_u8('\t')), vceqq_u8(v, vdupq_n_u8('\n'))),
                                   vceqq_u8(v, vdupq_n_u8('\r')));
    return vorrq_u8(vbicq_u8(low, ok), vceqq_u8(v, vdupq_n_u8(0x7f)));
}

/* text_control_scan: 32 bytes per step, then one vector ending at s + n
 * (its bytes before the step's end are known clean, so its first stop is
 * the first); below 16 bytes the scalar kernel. */
static size_t neon_text_control_scan(const char *s, size_t n) {
    if (n < 16) return sdx_simd_scalar.text_control_scan(s, n);
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint8x16_t a = text_control_bytes(vld1q_u8((const uint8_t *)(s + i)));
        uint8x16_t b = text_control_bytes(vld1q_u8((const uint8_t *)(s + i + 16)));
        if (vmaxvq_u8(vorrq_u8(a, b))) {
            uint64_t m = nibble_mask(a);
            if (m) return i + (sdx_ctz64(m) >> 2);
            return i + 16 + (sdx_ctz64(nibble_mask(b)) >> 2);
        }
    }
    if (i + 16 <= n) {
        uint64_t m = nibble_mask(text_control_bytes(vld1q_u8((const uint8_t *)(s + i))));
        if (m) return i + (sdx_ctz64(m) >> 2);
        i += 16;
    }
    if (i < n) {
        uint64_t m = nibble_mask(text_control_bytes(vld1q_u8((const uint8_t *)(s + n - 16))));
        if (m) return n - 16 + (sdx_ctz64(m) >> 2);
    }
    return n;
}

const sdx_simd_kernels sdx_simd_neon = {
    SDX_SIMD_NEON,
    "neon",
    neon_json_escape_copy,
    neon_utf8_valid_prefix,
    neon_json_string_scan,
    neon_json_escape_copy_utf8,
    neon_text_control_scan,
};
