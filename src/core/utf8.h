/*
 * Internal: UTF-8 validation, decoding and encoding (RFC 3629; the
 * well-formed byte sequences of Unicode 15, table 3-7).
 */
#ifndef SDX_UTF8_H
#define SDX_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/platform.h"
#include "sdx/common.h"

/* Length of the longest prefix of s[0, n) that is well-formed UTF-8 and ends
 * at a character boundary: n if the whole input is valid, otherwise the
 * offset of the first byte of the first ill-formed sequence. */
size_t sdx_utf8_valid_prefix(const char *s, size_t n);

/* At an offset where sdx_utf8_valid_prefix() stopped, the length (1 to 3) of
 * the maximal subpart of an ill-formed sequence: the bytes that one U+FFFD
 * replaces under the Unicode "substitution of maximal subparts" practice
 * (Unicode 15, section 3.9). n must be at least 1. */
size_t sdx_utf8_invalid_len(const char *s, size_t n);

/* Whether s[0, n) (n >= 1) is a proper prefix of a well-formed sequence: a
 * lead byte and fewer continuation bytes than it needs, all in range. Input
 * that ends so has been cut inside a character, which readers report as the
 * end of input rather than as invalid UTF-8. */
bool sdx_utf8_is_cut(const char *s, size_t n);

/* Decode one well-formed sequence at s (the caller has validated it); stores
 * its length (1 to 4) in *len and returns the code point. */
uint32_t sdx_utf8_decode(const char *s, size_t *len);

/* Encode code point cp (at most 0x10FFFF, not a surrogate) at dst; returns
 * the end (1 to 4 bytes written). */
char *sdx_utf8_encode(char *dst, uint32_t cp);

/* The shift-based UTF-8 automaton of utf8_dfa.c: per byte value, the next
 * state (a multiple of 6) from each state, 6 bits per state. */
extern const uint64_t sdx_utf8_dfa[256];

/* The automaton from state `st` over the 8 bytes of w (little-endian). */
static SDX_ALWAYS_INLINE uint64_t sdx_utf8_dfa_word(uint64_t st, uint64_t w) {
    for (int i = 0; i < 8; i++) st = sdx_utf8_dfa[(w >> (8 * i)) & 0xff] >> (st & 63);
    return st;
}

/* Whether s[0, n) is valid UTF-8, by the automaton (for strings up to
 * SDX_UTF8_DFA_MAX bytes; any length works). */
bool sdx_utf8_valid_dfa(const char *s, size_t n);

/* Strings up to this length that are not plain ASCII are validated by the
 * automaton, longer ones by the SIMD kernel. */
#define SDX_UTF8_DFA_MAX 64

/* Whether s[0, n) is valid UTF-8 once a word test has found a byte above
 * 0x7f in it. */
static SDX_ALWAYS_INLINE bool sdx_utf8_non_ascii_ok(size_t (*valid)(const char *, size_t),
                                                     const char *s, size_t n) {
    if (n <= SDX_UTF8_DFA_MAX) return sdx_utf8_valid_dfa(s, n);
    return valid(s, n) == n;
}

/* Whether s[0, n) is valid UTF-8. Strings up to SDX_UTF8_DFA_MAX bytes
 * are tested for ASCII inline with word loads, and if they are not ASCII
 * validated by the automaton; longer ones by the kernel `valid` (the SIMD
 * table's utf8_valid_prefix). */
static SDX_ALWAYS_INLINE bool sdx_utf8_ok(size_t (*valid)(const char *, size_t), const char *s,
                                            size_t n) {
    if (n <= 16) {
        uint64_t a, b;
        if (n >= 8) {
            memcpy(&a, s, 8);
            memcpy(&b, s + n - 8, 8);
        } else if (n >= 4) {
            uint32_t x, y;
            memcpy(&x, s, 4);
            memcpy(&y, s + n - 4, 4);
            a = x;
            b = y;
        } else {
            a = n ? (uint64_t)(uint8_t)s[0] | (uint64_t)(uint8_t)s[n / 2] << 8 |
                        (uint64_t)(uint8_t)s[n - 1] << 16
                  : 0;
            b = 0;
        }
        if (!((a | b) & 0x8080808080808080ull)) return true;
        return sdx_utf8_valid_dfa(s, n);
    }
    if (n <= SDX_UTF8_DFA_MAX) {
        uint64_t acc = 0, x;
        for (size_t i = 0; i + 8 <= n; i += 8) {
            memcpy(&x, s + i, 8);
            acc |= x;
        }
        memcpy(&x, s + n - 8, 8);
        if (!((acc | x) & 0x8080808080808080ull)) return true;
        return sdx_utf8_valid_dfa(s, n);
    }
    return valid(s, n) == n;
}

/* sdx_utf8_ok for a string inside an input of which `avail` bytes are
 * readable from s (avail >= n), for the tree parsers. Where 16 bytes from
 * s are readable, a string of up to 16 bytes is tested for ASCII without a
 * branch on its length, as the readers' inline paths test it: both words
 * at s, each under a mask of the string's bytes (the bytes past the
 * string are read and masked off). The lengths of real and generated
 * strings vary, and sdx_utf8_ok's branches on them mispredict about once
 * a string (bench/README.md, "Update, 2026-12-05"). As in sdx_utf8_ok, a
 * string that is not plain ASCII goes to the automaton, a longer one to
 * the kernel. */
static SDX_ALWAYS_INLINE bool sdx_utf8_ok_in(size_t (*valid)(const char *, size_t), const char *s,
                                               size_t n, size_t avail) {
    if (n <= 16 && avail >= 16) /* sdx_hot_ascii (sdx/common.h): no branch on n up to 16 */
        return SDX_LIKELY(sdx_hot_ascii((const uint8_t *)s, n, avail, 0x8080808080808080ull)) ||
               sdx_utf8_valid_dfa(s, n);
    return sdx_utf8_ok(valid, s, n);
}

#endif /* SDX_UTF8_H */
