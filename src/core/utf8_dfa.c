/*
 * UTF-8 validation of short strings with a shift-based DFA.
 *
 * The automaton accepts exactly the well-formed sequences of Unicode 15,
 * table 3-7 (see src/core/utf8.c). Its nine states are stored as multiples
 * of 6 (0, 6, ..., 48); the table holds, for every byte value, one 64-bit
 * row whose bits [6 * i, 6 * i + 6) are the state reached from state i on
 * that byte. A step is then one load, whose address depends only on the
 * byte, and one shift by the current state: the chain from byte to byte is
 * a single shift, with no branch. (The technique is Per Vognsen's
 * "shift-based DFA", 2020.)
 *
 * The SIMD kernels need a call, constants and several data-dependent
 * branches per string; for strings of a few dozen bytes this loop is as
 * fast and leaves the branch predictor alone.
 */
#include "core/utf8.h"

/* States: ACC between characters (the only accepting one), ERR (absorbing),
 * CONT1/2/3 with that many continuation bytes still due (80..BF), and the
 * states after the leads whose second byte has a narrower range: E0 (A0..BF),
 * ED (80..9F), F0 (90..BF), F4 (80..8F). */
enum { ACC, ERR, CONT1, CONT2, AFTER_E0, AFTER_ED, CONT3, AFTER_F0, AFTER_F4 };

/* A row: the next state from each of the nine states. */
#define ROW(acc, cont1, cont2, e0, ed, cont3, f0, f4)                                            \
    ((uint64_t)(6 * (acc)) | (uint64_t)(6 * ERR) << 6 | (uint64_t)(6 * (cont1)) << 12 |          \
     (uint64_t)(6 * (cont2)) << 18 | (uint64_t)(6 * (e0)) << 24 | (uint64_t)(6 * (ed)) << 30 |    \
     (uint64_t)(6 * (cont3)) << 36 | (uint64_t)(6 * (f0)) << 42 | (uint64_t)(6 * (f4)) << 48)

/* A lead byte: from ACC to `to`, an error anywhere else. */
#define LEAD(to) ROW(to, ERR, ERR, ERR, ERR, ERR, ERR, ERR)

#define R_ASCII LEAD(ACC)
#define R_BAD LEAD(ERR) /* C0, C1, F5..FF */
/* continuation bytes by range: 80..8F, 90..9F, A0..BF */
#define R_80 ROW(ERR, ACC, CONT1, ERR, CONT1, CONT2, ERR, CONT2)
#define R_90 ROW(ERR, ACC, CONT1, ERR, CONT1, CONT2, CONT2, ERR)
#define R_A0 ROW(ERR, ACC, CONT1, CONT1, ERR, CONT2, CONT2, ERR)

#define X2(r) r, r
#define X4(r) X2(r), X2(r)
#define X8(r) X4(r), X4(r)
#define X16(r) X8(r), X8(r)

const uint64_t sdx_utf8_dfa[256] = {
    X16(R_ASCII), X16(R_ASCII), X16(R_ASCII), X16(R_ASCII), /* 00..3F */
    X16(R_ASCII), X16(R_ASCII), X16(R_ASCII), X16(R_ASCII), /* 40..7F */
    X16(R_80), X16(R_90), X16(R_A0), X16(R_A0),             /* 80..BF */
    X2(R_BAD), X2(LEAD(CONT1)), X4(LEAD(CONT1)), X8(LEAD(CONT1)), /* C0..CF */
    X16(LEAD(CONT1)),                                       /* D0..DF */
    LEAD(AFTER_E0), X8(LEAD(CONT2)), X4(LEAD(CONT2)),       /* E0..EC */
    LEAD(AFTER_ED), X2(LEAD(CONT2)),                        /* ED..EF */
    LEAD(AFTER_F0), X2(LEAD(CONT3)), LEAD(CONT3), LEAD(AFTER_F4), /* F0..F4 */
    X8(R_BAD), X2(R_BAD), R_BAD,                            /* F5..FF */
};

bool sdx_utf8_valid_dfa(const char *s, size_t n) {
    uint64_t st = ACC;
    size_t i = 0;
    if (n >= 8) {
        for (; i + 8 <= n; i += 8) st = sdx_utf8_dfa_word(st, sdx_load64le(s + i));
        /* the last bytes: the 8 ending at s + n, those already seen shifted
         * out (zeros, which are ASCII, come in behind) */
        if (i < n) st = sdx_utf8_dfa_word(st, sdx_load64le(s + n - 8) >> (8 * (8 - (n - i))));
    } else {
        for (; i < n; i++) st = sdx_utf8_dfa[(uint8_t)s[i]] >> (st & 63);
    }
    return (st & 63) == ACC;
}
