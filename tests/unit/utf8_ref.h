/*
 * Test helpers: an independent UTF-8 reference (decode, then range checks;
 * maximal subparts from the set of all prefixes of well-formed sequences),
 * written differently from src/core/utf8.c on purpose.
 */
#ifndef SDX_UTF8_REF_H
#define SDX_UTF8_REF_H

#include <stdint.h>
#include <stdlib.h>

/* Reference: length of the well-formed sequence at p, or 0. */
static inline size_t ref_seq_len(const uint8_t *p, size_t n) {
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    uint8_t c = p[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if ((c & 0xE0) == 0xC0) len = 2, cp = c & 0x1Fu;
    else if ((c & 0xF0) == 0xE0) len = 3, cp = c & 0x0Fu;
    else if ((c & 0xF8) == 0xF0) len = 4, cp = c & 0x07u;
    else return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (p[i] & 0x3Fu);
    }
    if (cp < min_cp[len] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
    return len;
}

static inline size_t ref_valid_prefix(const uint8_t *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        size_t l = ref_seq_len(p + i, n - i);
        if (!l) return i;
        i += l;
    }
    return n;
}

/* Every proper prefix (1 to 3 bytes) of every well-formed multi-byte
 * sequence, as bitmaps, built by encoding every scalar value by hand. */
static uint8_t *prefix_bits[4];

static inline void ref_encode(uint32_t cp, uint8_t *o, size_t *len) {
    if (cp < 0x80) o[0] = (uint8_t)cp, *len = 1;
    else if (cp < 0x800) o[0] = (uint8_t)(0xC0 + cp / 64), o[1] = (uint8_t)(0x80 + cp % 64), *len = 2;
    else if (cp < 0x10000)
        o[0] = (uint8_t)(0xE0 + cp / 4096), o[1] = (uint8_t)(0x80 + cp / 64 % 64),
        o[2] = (uint8_t)(0x80 + cp % 64), *len = 3;
    else
        o[0] = (uint8_t)(0xF0 + cp / 262144), o[1] = (uint8_t)(0x80 + cp / 4096 % 64),
        o[2] = (uint8_t)(0x80 + cp / 64 % 64), o[3] = (uint8_t)(0x80 + cp % 64), *len = 4;
}

static inline void build_prefixes(void) {
    if (prefix_bits[1]) return;
    for (int k = 1; k <= 3; k++) prefix_bits[k] = calloc((size_t)1 << (8 * k - 3), 1);
    for (uint32_t cp = 0x80; cp <= 0x10FFFF; cp++) {
        if (cp >= 0xD800 && cp <= 0xDFFF) continue;
        uint8_t o[4];
        size_t len;
        ref_encode(cp, o, &len);
        uint32_t v = 0;
        for (size_t k = 1; k < len; k++) {
            v = v << 8 | o[k - 1];
            prefix_bits[k][v >> 3] |= (uint8_t)(1u << (v & 7));
        }
    }
}

static inline size_t ref_invalid_len(const uint8_t *p, size_t n) {
    build_prefixes();
    size_t best = 1;
    uint32_t v = 0;
    for (size_t k = 1; k <= 3 && k <= n; k++) {
        v = v << 8 | p[k - 1];
        if (prefix_bits[k][v >> 3] >> (v & 7) & 1) best = k;
        else break;
    }
    return best;
}

static inline void utf8_ref_free(void) {
    for (int k = 1; k <= 3; k++) free(prefix_bits[k]), prefix_bits[k] = NULL;
}

#endif /* SDX_UTF8_REF_H */
