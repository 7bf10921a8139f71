/*
 * UTF-8 validation, decoding and encoding.
 *
 * Well-formed sequences (Unicode 15, table 3-7):
 *   00..7F
 *   C2..DF 80..BF
 *   E0     A0..BF 80..BF
 *   E1..EC 80..BF 80..BF
 *   ED     80..9F 80..BF          (no surrogates)
 *   EE..EF 80..BF 80..BF
 *   F0     90..BF 80..BF 80..BF   (no overlong forms)
 *   F1..F3 80..BF 80..BF 80..BF
 *   F4     80..8F 80..BF 80..BF   (nothing above U+10FFFF)
 */
#include "core/utf8.h"

#include "core/platform.h"

/* Number of bytes of a sequence by lead byte (0: never a valid lead), and
 * the allowed range of the second byte. */
static uint8_t utf8_second_range(uint8_t lead, uint8_t *lo, uint8_t *hi) {
    *lo = 0x80;
    *hi = 0xBF;
    if (lead < 0xC2) return 0;
    if (lead < 0xE0) return 2;
    if (lead < 0xF0) {
        if (lead == 0xE0) *lo = 0xA0;
        if (lead == 0xED) *hi = 0x9F;
        return 3;
    }
    if (lead < 0xF5) {
        if (lead == 0xF0) *lo = 0x90;
        if (lead == 0xF4) *hi = 0x8F;
        return 4;
    }
    return 0;
}

/* Check the multi-byte sequence at p (p[0] >= 0x80) with `avail` bytes left.
 * Returns its length if well-formed, else 0 and the length of the maximal
 * subpart in *bad. */
static size_t utf8_sequence(const uint8_t *p, size_t avail, size_t *bad) {
    uint8_t lo, hi;
    size_t len = utf8_second_range(p[0], &lo, &hi);
    *bad = 1;
    if (len == 0 || avail < 2 || p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < len; i++) {
        *bad = i;
        if (i >= avail || (p[i] & 0xC0) != 0x80) return 0;
    }
    return len;
}

size_t sdx_utf8_valid_prefix(const char *s, size_t n) {
    const uint8_t *p = (const uint8_t *)s, *end = p + n;
    while (p < end) {
        /* ASCII runs 16 bytes at a time. */
        while ((size_t)(end - p) >= 16 &&
               !((sdx_load64le(p) | sdx_load64le(p + 8)) & 0x8080808080808080ull))
            p += 16;
        if (p == end) break;
        if (*p < 0x80) {
            p++;
            continue;
        }
        size_t bad, len = utf8_sequence(p, (size_t)(end - p), &bad);
        if (!len) return (size_t)(p - (const uint8_t *)s);
        p += len;
    }
    return n;
}

size_t sdx_utf8_invalid_len(const char *s, size_t n) {
    const uint8_t *p = (const uint8_t *)s;
    if (p[0] < 0x80) return 1;
    size_t bad, len = utf8_sequence(p, n, &bad);
    return len ? len : bad;
}

uint32_t sdx_utf8_decode(const char *s, size_t *len) {
    const uint8_t *p = (const uint8_t *)s;
    if (p[0] < 0x80) {
        *len = 1;
        return p[0];
    }
    if (p[0] < 0xE0) {
        *len = 2;
        return (uint32_t)(p[0] & 0x1F) << 6 | (p[1] & 0x3F);
    }
    if (p[0] < 0xF0) {
        *len = 3;
        return (uint32_t)(p[0] & 0x0F) << 12 | (uint32_t)(p[1] & 0x3F) << 6 | (p[2] & 0x3F);
    }
    *len = 4;
    return (uint32_t)(p[0] & 0x07) << 18 | (uint32_t)(p[1] & 0x3F) << 12 |
           (uint32_t)(p[2] & 0x3F) << 6 | (p[3] & 0x3F);
}

char *sdx_utf8_encode(char *dst, uint32_t cp) {
    uint8_t *d = (uint8_t *)dst;
    if (cp < 0x80) {
        d[0] = (uint8_t)cp;
        return dst + 1;
    }
    if (cp < 0x800) {
        d[0] = (uint8_t)(0xC0 | cp >> 6);
        d[1] = (uint8_t)(0x80 | (cp & 0x3F));
        return dst + 2;
    }
    if (cp < 0x10000) {
        d[0] = (uint8_t)(0xE0 | cp >> 12);
        d[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
        d[2] = (uint8_t)(0x80 | (cp & 0x3F));
        return dst + 3;
    }
    d[0] = (uint8_t)(0xF0 | cp >> 18);
    d[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
    d[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
    d[3] = (uint8_t)(0x80 | (cp & 0x3F));
    return dst + 4;
}

bool sdx_utf8_is_cut(const char *s, size_t n) {
    const unsigned char c = (unsigned char)s[0];
    if (c < 0xC2 || c > 0xF4 || n >= 4) return false;
    return sdx_utf8_invalid_len(s, n) == n;
}
