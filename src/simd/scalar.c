/*
 * Portable kernels: eight bytes at a time in a 64-bit register (SWAR).
 *
 * json_escape_copy tests a word of eight bytes for all stop conditions at
 * once. Each test below sets the high bit of every byte that matches, with
 * false positives possible only in bytes above a true match (they come from
 * the borrow of a subtraction, and a borrow starts only at a match), so the
 * lowest set bit always marks the first byte to stop at. Words are read in
 * little-endian order (sdx_load64le), so byte i of the string is byte i of
 * the word on every host.
 *
 * Strings of 8 bytes or more are copied word by word, the last word
 * overlapping the one before it (bytes already found clean are found clean
 * again). Strings of 4 to 7 bytes are read as two overlapping 4-byte words
 * packed into one 64-bit word; 1 to 3 bytes go through a byte table.
 *
 * utf8_valid_prefix runs a branch-free automaton over the bytes, with a
 * word-at-a-time ASCII fast path (see "UTF-8 validation" below).
 */
#include "simd/simd.h"

#include "core/platform.h"
#include "simd/utf8_kernel.h"

#define ONES 0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

/* Byte classes: bit 0 always stops the scan ('"', '\\', 0x00-0x1F), bit 1
 * stops it with SDX_ESC_SLASH ('/'), bit 2 with SDX_ESC_HIGH (0x80-0xFF). */
#define X16(c) c, c, c, c, c, c, c, c, c, c, c, c, c, c, c, c
static const unsigned char esc_class[256] = {
    X16(1), X16(1),                                  /* 0x00-0x1F */
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,  /* 0x20-0x2F: '"' '/' */
    X16(0), X16(0),                                  /* 0x30-0x4F */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,  /* 0x50-0x5F: '\\' */
    X16(0), X16(0),                                  /* 0x60-0x7F */
    X16(4), X16(4), X16(4), X16(4),                  /* 0x80-0xBF */
    X16(4), X16(4), X16(4), X16(4),                  /* 0xC0-0xFF */
};
#undef X16

/* The class bits that stop the scan for `set`. */
static inline unsigned class_mask(unsigned set) {
    return 1u | (set & (SDX_ESC_SLASH | SDX_ESC_HIGH)) << 1;
}

/* High bit of each byte of x that equals zero (exact up to the first). */
static inline uint64_t zero_bytes(uint64_t x) {
    return (x - ONES) & ~x & HIGHS;
}

/* High bit of each byte of x that stops the scan. `high` is HIGHS when bytes
 * >= 0x80 stop it, else 0; `third` is '/' or '"' repeated (an extra compare
 * that is redundant when '/' is not wanted). */
static inline uint64_t stop_bytes(uint64_t x, uint64_t high, uint64_t third) {
    uint64_t m = ((x - 0x20 * ONES) & ~x & HIGHS) | (x & high);
    m |= zero_bytes(x ^ ('"' * ONES));
    m |= zero_bytes(x ^ ('\\' * ONES));
    m |= zero_bytes(x ^ third);
    return m;
}

static inline uint32_t load32le(const char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#ifdef SDX_BIG_ENDIAN
    v = __builtin_bswap32(v);
#endif
    return v;
}

static size_t scalar_json_escape_copy(char *dst, const char *src, size_t n, unsigned set) {
    const uint64_t high = (set & SDX_ESC_HIGH) ? HIGHS : 0;
    const uint64_t third = ((set & SDX_ESC_SLASH) ? '/' : '"') * ONES;
    if (SDX_LIKELY(n >= 8)) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t w = sdx_load64le(src + i);
            uint64_t m = stop_bytes(w, high, third);
            sdx_store64le(dst + i, w);
            if (m) return i + (sdx_ctz64(m) >> 3);
        }
        if (i < n) {
            i = n - 8;
            uint64_t w = sdx_load64le(src + i);
            uint64_t m = stop_bytes(w, high, third);
            sdx_store64le(dst + i, w);
            if (m) return i + (sdx_ctz64(m) >> 3);
        }
        return n;
    }
    if (n >= 4) {
        /* bytes 0-3 in the low half, bytes n-4 .. n-1 in the high half */
        uint32_t lo = load32le(src), hi = load32le(src + n - 4);
        memcpy(dst + n - 4, src + n - 4, 4);
        memcpy(dst, src, 4);
        uint64_t m = stop_bytes((uint64_t)hi << 32 | lo, high, third);
        if (!m) return n;
        size_t b = sdx_ctz64(m) >> 3;
        return b < 4 ? b : n - 8 + b;
    }
    const unsigned stop = class_mask(set);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        if (esc_class[c] & stop) return i;
        dst[i] = (char)c;
    }
    return n;
}

/* The JSON string scan: the stop test of json_escape_copy with the default
 * set, without the copy. Eight bytes per step, the last word overlapping the
 * one before; 4 to 7 bytes as two overlapping 4-byte words; 1 to 3 bytes
 * through the byte table. */
static size_t scalar_json_string_scan(const char *s, size_t n) {
    const uint64_t quote = '"' * ONES;
    if (SDX_LIKELY(n >= 8)) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t m = stop_bytes(sdx_load64le(s + i), 0, quote);
            if (m) return i + (sdx_ctz64(m) >> 3);
        }
        if (i < n) {
            i = n - 8;
            uint64_t m = stop_bytes(sdx_load64le(s + i), 0, quote);
            if (m) return i + (sdx_ctz64(m) >> 3);
        }
        return n;
    }
    if (n >= 4) {
        uint64_t m = stop_bytes((uint64_t)load32le(s + n - 4) << 32 | load32le(s), 0, quote);
        if (!m) return n;
        size_t b = sdx_ctz64(m) >> 3;
        return b < 4 ? b : n - 8 + b;
    }
    for (size_t i = 0; i < n; i++)
        if (esc_class[(unsigned char)s[i]] & 1) return i;
    return n;
}

/* ------------------------------------------------------------------------ */
/* UTF-8 validation                                                          */
/* ------------------------------------------------------------------------ */

/* A finite automaton over the well-formed sequences of Unicode table 3-7,
 * one table lookup and one shift per byte and no branch on the byte. Each
 * state is a multiple of 6 below 64, and the table row of a byte holds, at
 * bit `state`, the next state for each state: next = row >> state (only the
 * low 6 bits count; x86 shifts use only the low 6 bits of the count, so the
 * mask is free). ERROR is 0, so every row's low 6 bits (its next state from
 * ERROR) are 0 and an error is sticky. */
enum {
    U8_ERROR = 0,
    U8_ACCEPT = 6,  /* between characters */
    U8_NEED1 = 12,  /* one continuation (80..BF) to go */
    U8_NEED2 = 18,  /* two to go */
    U8_NEED3 = 24,  /* three to go */
    U8_AFTER_E0 = 30, /* A0..BF, then one */
    U8_AFTER_ED = 36, /* 80..9F, then one */
    U8_AFTER_F0 = 42, /* 90..BF, then two */
    U8_AFTER_F4 = 48  /* 80..8F, then two */
};

#define U8_IN(b, lo, hi) ((b) >= (lo) && (b) <= (hi))
#define U8_FROM_ACCEPT(b)                                                                      \
    ((b) < 0x80      ? U8_ACCEPT                                                               \
     : (b) < 0xC2    ? U8_ERROR                                                                \
     : (b) < 0xE0    ? U8_NEED1                                                                \
     : (b) == 0xE0   ? U8_AFTER_E0                                                             \
     : (b) == 0xED   ? U8_AFTER_ED                                                             \
     : (b) < 0xF0    ? U8_NEED2                                                                \
     : (b) == 0xF0   ? U8_AFTER_F0                                                             \
     : (b) < 0xF4    ? U8_NEED3                                                                \
     : (b) == 0xF4   ? U8_AFTER_F4                                                             \
                     : U8_ERROR)
#define U8_ROW(b)                                                                              \
    ((uint64_t)U8_FROM_ACCEPT(b) << U8_ACCEPT |                                                \
     (uint64_t)(U8_IN(b, 0x80, 0xBF) ? U8_ACCEPT : U8_ERROR) << U8_NEED1 |                     \
     (uint64_t)(U8_IN(b, 0x80, 0xBF) ? U8_NEED1 : U8_ERROR) << U8_NEED2 |                      \
     (uint64_t)(U8_IN(b, 0x80, 0xBF) ? U8_NEED2 : U8_ERROR) << U8_NEED3 |                      \
     (uint64_t)(U8_IN(b, 0xA0, 0xBF) ? U8_NEED1 : U8_ERROR) << U8_AFTER_E0 |                   \
     (uint64_t)(U8_IN(b, 0x80, 0x9F) ? U8_NEED1 : U8_ERROR) << U8_AFTER_ED |                   \
     (uint64_t)(U8_IN(b, 0x90, 0xBF) ? U8_NEED2 : U8_ERROR) << U8_AFTER_F0 |                   \
     (uint64_t)(U8_IN(b, 0x80, 0x8F) ? U8_NEED2 : U8_ERROR) << U8_AFTER_F4)
#define U8_ROW4(b) U8_ROW(b), U8_ROW(b + 1), U8_ROW(b + 2), U8_ROW(b + 3)
#define U8_ROW16(b) U8_ROW4(b), U8_ROW4(b + 4), U8_ROW4(b + 8), U8_ROW4(b + 12)
#define U8_ROW64(b) U8_ROW16(b), U8_ROW16(b + 16), U8_ROW16(b + 32), U8_ROW16(b + 48)
static const uint64_t u8_rows[256] = {U8_ROW64(0), U8_ROW64(64), U8_ROW64(128), U8_ROW64(192)};
#undef U8_ROW64
#undef U8_ROW16
#undef U8_ROW4
#undef U8_ROW
#undef U8_FROM_ACCEPT
#undef U8_IN

/* Between characters, ASCII goes 32 bytes at a time (and an ASCII rest of
 * less than 16 bytes in one step); otherwise the
 * automaton runs over 16 bytes (or what is left) and is checked for an
 * error once per 16. On an error, s[0, start of those 16) was valid up to a
 * cut sequence, and sdx_utf8_finish() finds the exact offset from there. */
static size_t scalar_utf8_valid_prefix(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    uint64_t state = U8_ACCEPT;
    size_t i = 0;
    while (i < n) {
        if ((state & 63) == U8_ACCEPT) {
            while (n - i >= 32 && !((sdx_load64le(p + i) | sdx_load64le(p + i + 8) |
                                     sdx_load64le(p + i + 16) | sdx_load64le(p + i + 24)) &
                                    HIGHS))
                i += 32;
            if (n - i >= 16 && !((sdx_load64le(p + i) | sdx_load64le(p + i + 8)) & HIGHS)) i += 16;
            if (n - i < 16) {
                uint64_t lo, hi;
                sdx_utf8_load_short(s + i, n - i, &lo, &hi);
                if (!((lo | hi) & HIGHS)) return n;
            }
        }
        const size_t start = i, end = n - i >= 16 ? i + 16 : n;
        for (; i < end; i++) state = u8_rows[p[i]] >> (state & 63);
        if ((state & 63) == U8_ERROR) return sdx_utf8_finish(s, n, start);
    }
    return (state & 63) == U8_ACCEPT ? n : sdx_utf8_finish(s, n, n);
}

/* json_escape_copy_utf8: stops at every byte above 0x7F, which the caller
 * then validates. */
static size_t scalar_json_escape_copy_utf8(char *dst, const char *src, size_t n, unsigned set) {
    return scalar_json_escape_copy(dst, src, n, set | SDX_ESC_HIGH);
}

/* Per byte of x, 0x80 where the byte equals c, else 0: exact for every
 * byte ((y & 0x7f) + 0x7f reaches 0x80 exactly when the low seven bits of y
 * are not all zero, and never carries into the next byte), where
 * zero_bytes is exact only up to the first. */
static inline uint64_t eq_bytes(uint64_t x, unsigned char c) {
    const uint64_t low7 = 0x7f * ONES;
    const uint64_t y = x ^ (c * ONES);
    return ~(((y & low7) + low7) | y) & HIGHS;
}

/* Per byte of x, 0x80 where the byte is a control byte other than tab,
 * newline and carriage return, or DEL; exact per byte (the low seven bits
 * plus 0x60 stay below 0x100, so no carry crosses a byte). */
static inline uint64_t text_control_bytes(uint64_t x) {
    const uint64_t low7 = 0x7f * ONES;
    const uint64_t below = ~(((x & low7) + 0x60 * ONES) | x) & HIGHS; /* < 0x20 */
    const uint64_t del = eq_bytes(x, 0x7f);
    if (!(below | del)) return 0;
    return (below & ~(eq_bytes(x, '\t') | eq_bytes(x, '\n') | eq_bytes(x, '\r'))) | del;
}

/* text_control_scan: eight bytes per step, the last word overlapping the
 * one before; below 8 bytes, byte by byte. */
static size_t scalar_text_control_scan(const char *s, size_t n) {
    if (n < 8) {
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)s[i];
            if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f) return i;
        }
        return n;
    }
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t m = text_control_bytes(sdx_load64le(s + i));
        if (m) return i + (sdx_ctz64(m) >> 3);
    }
    if (i < n) {
        i = n - 8;
        uint64_t m = text_control_bytes(sdx_load64le(s + i));
        if (m) return i + (sdx_ctz64(m) >> 3);
    }
    return n;
}

const sdx_simd_kernels sdx_simd_scalar = {
    SDX_SIMD_SCALAR,
    "scalar",
    scalar_json_escape_copy,
    scalar_utf8_valid_prefix,
    scalar_json_string_scan,
    scalar_json_escape_copy_utf8,
    scalar_text_control_scan,
};
