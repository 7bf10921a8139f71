/*
 * Internal: the parts of the UTF-8 validation kernels (utf8_valid_prefix in
 * sse2.c, avx2.c, avx512.c, neon.c) that do not depend on the instruction
 * set: the lookup tables, the rule that turns "a block has an error" into
 * the exact prefix length, and a few small loads.
 *
 * The lookup algorithm
 * --------------------
 * John Keiser and Daniel Lemire, "Validating UTF-8 In Less Than One
 * Instruction Per Byte", Software: Practice and Experience 51(5), 2021
 * (arXiv:2010.03090). Every rule of Unicode table 3-7 is a rule about two
 * adjacent bytes (prev1 = s[i-1], cur = s[i]), except one: how many
 * continuation bytes follow a lead. For the pair rules, each byte position
 * looks up three 16-entry tables, by the high nibble of prev1, the low
 * nibble of prev1 and the high nibble of cur, and ANDs the three results.
 * Every bit of the result stands for one kind of bad pair; a bit survives
 * the AND exactly when prev1's high nibble, prev1's low nibble and cur's
 * high nibble are each in that kind's set, so each kind must be a product
 * of three nibble sets, and a kind that is not is split over two bits or
 * shares a bit with another kind whose union is again a product.
 *
 * The kinds, and how they were chosen (prev1 -> cur; "cont" is 80..BF):
 *
 *   bit  name        pair                      prev1 hi  prev1 lo    cur hi
 *   0    LEAD_NOCONT C0..FF -> not cont        C..F      any         0..7,C..F
 *   1    ASCII_CONT  00..7F -> cont            0..7      any         8..B
 *   2    E0_LOW      E0 -> 80..9F  (overlong)  E         0           8,9
 *   3    ED_HIGH     ED -> A0..BF  (surrogate) E         D           A,B
 *   4    F0_LOW      F0 -> 80..8F  (overlong)  F         0,5..F      8
 *                    F5..FF -> 80..8F
 *   5    F4_HIGH     F4 -> 90..BF  (>10FFFF)   F         4..F        9..B
 *                    F5..FF -> 90..BF
 *   6    C0C1_CONT   C0,C1 -> cont (overlong)  C         0,1         8..B
 *   7    CONT_CONT   cont -> cont              8..B      any         8..B
 *
 * A lead F5..FF followed by a continuation is never valid; "F5..FF -> cont"
 * is a product set (F, 5..F, 8..B) but would need a bit of its own, so it is
 * split by cur's high nibble and each half joins a kind with the same
 * prev1 high nibble and cur nibble set: F0_LOW becomes (F, {0,5..F}, 8) and
 * F4_HIGH becomes (F, {4..F}, {9,A,B}); both stay products. The leads C0,
 * C1 and F5..FF followed by a non-continuation fall under LEAD_NOCONT. Every
 * other pair is allowed by table 3-7 (a continuation may be followed by
 * anything as far as the pair is concerned) except cont -> cont, which is
 * allowed only in the third and fourth byte of a sequence: bit 7 marks
 * every cont -> cont pair, and the count rule below decides.
 *
 * The tables are the kinds' bits collected per nibble:
 *
 *   prev1 high nibble: 0..7 ASCII_CONT; 8..B CONT_CONT;
 *                      C LEAD_NOCONT|C0C1_CONT; D LEAD_NOCONT;
 *                      E LEAD_NOCONT|E0_LOW|ED_HIGH;
 *                      F LEAD_NOCONT|F0_LOW|F4_HIGH
 *   prev1 low nibble:  bits 0, 1, 7 everywhere (their kinds take any low
 *                      nibble); plus E0_LOW at 0; ED_HIGH at D; F0_LOW at 0
 *                      and 5..F; F4_HIGH at 4..F; C0C1_CONT at 0, 1
 *   cur high nibble:   0..7 and C..F LEAD_NOCONT; 8 ASCII_CONT|E0_LOW|
 *                      F0_LOW|C0C1_CONT|CONT_CONT; 9 ASCII_CONT|E0_LOW|
 *                      F4_HIGH|C0C1_CONT|CONT_CONT; A and B ASCII_CONT|
 *                      ED_HIGH|F4_HIGH|C0C1_CONT|CONT_CONT
 *
 * tests/unit/test_simd.c checks all 65,536 pairs against a definition built
 * from the encodings of every scalar value.
 *
 * The count rule: in a valid string, s[i-1] and s[i] are both
 * continuations exactly when s[i] is the third or fourth byte of a
 * sequence, that is when s[i-2] is a lead of 3 or 4 bytes (>= E0) or s[i-3]
 * a lead of 4 bytes (>= F0). So with must = 0x80 at those positions and 0
 * elsewhere, a position is in error when (lookup ^ must) != 0: a pair
 * error in bits 0-6, or bit 7 (cont -> cont) disagreeing with must. A lead
 * followed by too few continuations shows as LEAD_NOCONT or as must without
 * CONT_CONT; by too many, as CONT_CONT without must.
 *
 * At the start of the input the bytes before s[0] count as ASCII (zeros),
 * so a leading continuation is ASCII_CONT. After the end, zeros again: a
 * sequence cut short by the end gives an error at the first zero, so a
 * kernel that pads its last block with at least one zero needs no separate
 * end check; one that does not checks sdx_utf8_ends_incomplete().
 *
 * From "error in this block" to the exact prefix length
 * -----------------------------------------------------
 * A kernel checks blocks in order; when the check of the block starting at
 * i fails, every position before i has passed (so s[0, i) is valid up to a
 * sequence that may be cut at i), and the first ill-formed sequence starts
 * at or before the failing position. sdx_utf8_finish() backs up from i to
 * the start of the sequence that i cuts (at most 3 bytes) and lets the
 * scalar reference, sdx_utf8_valid_prefix(), find the exact offset from
 * there: a short scan, as the error is at most a block away.
 */
#ifndef SDX_SIMD_UTF8_KERNEL_H
#define SDX_SIMD_UTF8_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/platform.h"
#include "core/utf8.h"

/* The error kinds (bits of a lookup result). */
#define SDX_U8_LEAD_NOCONT 0x01
#define SDX_U8_ASCII_CONT 0x02
#define SDX_U8_E0_LOW 0x04
#define SDX_U8_ED_HIGH 0x08
#define SDX_U8_F0_LOW 0x10
#define SDX_U8_F4_HIGH 0x20
#define SDX_U8_C0C1_CONT 0x40
#define SDX_U8_CONT_CONT 0x80

/* The three tables, 16 comma-separated entries each (one per nibble
 * value), for array initializers. */
#define SDX_U8_TABLE_PREV_HIGH                                   \
    SDX_U8_ASCII_CONT,                                   /* 0 */ \
    SDX_U8_ASCII_CONT,                                   /* 1 */ \
    SDX_U8_ASCII_CONT,                                   /* 2 */ \
    SDX_U8_ASCII_CONT,                                   /* 3 */ \
    SDX_U8_ASCII_CONT,                                   /* 4 */ \
    SDX_U8_ASCII_CONT,                                   /* 5 */ \
    SDX_U8_ASCII_CONT,                                   /* 6 */ \
    SDX_U8_ASCII_CONT,                                   /* 7 */ \
    SDX_U8_CONT_CONT,                                    /* 8 */ \
    SDX_U8_CONT_CONT,                                    /* 9 */ \
    SDX_U8_CONT_CONT,                                    /* A */ \
    SDX_U8_CONT_CONT,                                    /* B */ \
    SDX_U8_LEAD_NOCONT | SDX_U8_C0C1_CONT,               /* C */ \
    SDX_U8_LEAD_NOCONT,                                  /* D */ \
    SDX_U8_LEAD_NOCONT | SDX_U8_E0_LOW | SDX_U8_ED_HIGH, /* E */ \
    SDX_U8_LEAD_NOCONT | SDX_U8_F0_LOW | SDX_U8_F4_HIGH  /* F */

/* the kinds that take any low nibble of prev1 */
#define SDX_U8_ANY_ (SDX_U8_LEAD_NOCONT | SDX_U8_ASCII_CONT | SDX_U8_CONT_CONT)
#define SDX_U8_TABLE_PREV_LOW                                               \
    SDX_U8_ANY_ | SDX_U8_E0_LOW | SDX_U8_F0_LOW | SDX_U8_C0C1_CONT, /* 0 */ \
    SDX_U8_ANY_ | SDX_U8_C0C1_CONT,                                 /* 1 */ \
    SDX_U8_ANY_,                                                    /* 2 */ \
    SDX_U8_ANY_,                                                    /* 3 */ \
    SDX_U8_ANY_ | SDX_U8_F4_HIGH,                                   /* 4 */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* 5 */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* 6 */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* 7 */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* 8 */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* 9 */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* A */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* B */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* C */ \
    SDX_U8_ANY_ | SDX_U8_ED_HIGH | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,  /* D */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH,                   /* E */ \
    SDX_U8_ANY_ | SDX_U8_F0_LOW | SDX_U8_F4_HIGH                    /* F */

/* the kinds that take any continuation as cur */
#define SDX_U8_CONT_ALL_ (SDX_U8_ASCII_CONT | SDX_U8_C0C1_CONT | SDX_U8_CONT_CONT)
#define SDX_U8_TABLE_CUR_HIGH                                   \
    SDX_U8_LEAD_NOCONT,                                 /* 0 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 1 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 2 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 3 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 4 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 5 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 6 */ \
    SDX_U8_LEAD_NOCONT,                                 /* 7 */ \
    SDX_U8_CONT_ALL_ | SDX_U8_E0_LOW | SDX_U8_F0_LOW,   /* 8 */ \
    SDX_U8_CONT_ALL_ | SDX_U8_E0_LOW | SDX_U8_F4_HIGH,  /* 9 */ \
    SDX_U8_CONT_ALL_ | SDX_U8_ED_HIGH | SDX_U8_F4_HIGH, /* A */ \
    SDX_U8_CONT_ALL_ | SDX_U8_ED_HIGH | SDX_U8_F4_HIGH, /* B */ \
    SDX_U8_LEAD_NOCONT,                                 /* C */ \
    SDX_U8_LEAD_NOCONT,                                 /* D */ \
    SDX_U8_LEAD_NOCONT,                                 /* E */ \
    SDX_U8_LEAD_NOCONT                                  /* F */

/* The start of the sequence that position i (0 <= i <= n) falls in, given
 * that s[0, i) passed the checks: i itself if a sequence ends just before
 * it, else the position of the lead (1 to 3 bytes back) of the sequence
 * that i cuts. */
static inline size_t sdx_utf8_back_to_lead(const char *s, size_t i) {
    const unsigned char *p = (const unsigned char *)s;
    if (i >= 1 && p[i - 1] >= 0xC0) return i - 1;
    if (i >= 2 && p[i - 2] >= 0xE0) return i - 2;
    if (i >= 3 && p[i - 3] >= 0xF0) return i - 3;
    return i;
}

/* The prefix length, when the block at i has an error (or the input ends
 * in a cut sequence and i == n): s[0, i) has passed the checks. */
static inline size_t sdx_utf8_finish(const char *s, size_t n, size_t i) {
    i = sdx_utf8_back_to_lead(s, i);
    return i + sdx_utf8_valid_prefix(s + i, n - i);
}

/* Whether s[0, i) (which passed the checks; i >= 3) ends inside a sequence. */
static inline int sdx_utf8_ends_incomplete(const char *s, size_t i) {
    const unsigned char *p = (const unsigned char *)s + i;
    return (p[-1] >= 0xC0) | (p[-2] >= 0xE0) | (p[-3] >= 0xF0);
}

/* s[0, n) for n < 16 as two little-endian words (bytes 0-7 in lo, 8-15 in
 * hi) with zeros after the end; reads nothing outside s[0, n). */
static inline void sdx_utf8_load_short(const char *s, size_t n, uint64_t *lo, uint64_t *hi) {
    uint64_t a = 0, b = 0;
    if (n >= 8) {
        a = sdx_load64le(s);
        /* bytes n-8 .. n-1, moved down to bytes 8 .. n-1 */
        if (n > 8) b = sdx_load64le(s + n - 8) >> (8 * (16 - n));
    } else if (n >= 4) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
#ifdef SDX_BIG_ENDIAN
        x = __builtin_bswap32(x);
        y = __builtin_bswap32(y);
#endif
        a = x | ((uint64_t)y >> (8 * (8 - n))) << 32;
    } else if (n > 0) {
        const unsigned char *p = (const unsigned char *)s;
        a = p[0] | (uint64_t)p[n >> 1] << (8 * (n >> 1)) | (uint64_t)p[n - 1] << (8 * (n - 1));
    }
    *lo = a;
    *hi = b;
}

#endif /* SDX_SIMD_UTF8_KERNEL_H */
