/*
 * Internal: pieces of JSON lexing shared by the tree parser (parse.c) and
 * the pull reader (reader.c): escape sequences in strings (RFC 8259
 * section 7) and the literals true, false and null.
 *
 * The functions report a problem through an sdx_json_lexerr instead of
 * touching a parser's state, so each reader maps it to its own error
 * handling. Running into `lim` (the end of the available input) is
 * SDX_ERR_TRUNCATED with `at` == lim: the tree parser reports it as the end
 * of input (or the invalid UTF-8 byte it stopped at), the pull reader
 * fetches more input first so that it only happens at the real end.
 */
#ifndef SDX_JSON_LEX_H
#define SDX_JSON_LEX_H

#include <stdint.h>

#include "core/platform.h"
#include "sdx/common.h"
#include "simd/inline.h"

typedef struct sdx_json_lexerr {
    sdx_err code;
    const char *at; /* the offending byte (lim for SDX_ERR_TRUNCATED) */
    const char *msg;
} sdx_json_lexerr;

static inline void sdx_json_lexerr_set(sdx_json_lexerr *e, sdx_err code, const char *at,
                                       const char *msg) {
    e->code = code;
    e->at = at;
    e->msg = msg;
}

/* Hex digit values plus one; 0 for other bytes. */
static const unsigned char sdx_json_hex_plus1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,
    ['7'] = 8,  ['8'] = 9,  ['9'] = 10, ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14,
    ['E'] = 15, ['F'] = 16, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15,
    ['f'] = 16,
};

/* The single-character escapes: the byte each stands for, 0 if invalid. */
static const char sdx_json_escape_char[256] = {
    ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b',
    ['f'] = '\f', ['n'] = '\n', ['r'] = '\r', ['t'] = '\t',
};

/* The 4 hex digits at d (d + 4 <= lim or not): the value into *v and true,
 * or false with the error (a non-hex digit, or the end of input after only
 * hex digits). */
static inline bool sdx_json_hex4(const char *d, const char *lim, uint32_t *v,
                                 sdx_json_lexerr *e) {
    uint32_t x = 0;
    for (unsigned i = 0; i < 4; i++) {
        if (d + i >= lim) {
            sdx_json_lexerr_set(e, SDX_ERR_TRUNCATED, lim, "unexpected end of input");
            return false;
        }
        unsigned h = sdx_json_hex_plus1[(unsigned char)d[i]];
        if (!h) {
            sdx_json_lexerr_set(e, SDX_ERR_SYNTAX, d + i, "invalid \\u escape");
            return false;
        }
        x = x << 4 | (h - 1);
    }
    *v = x;
    return true;
}

/* The \u escape at src (src[0] == '\\', src[1] == 'u') and, for a high
 * surrogate, the low one that must follow: the code point into *cp; returns
 * the byte after the escape(s), or NULL with *e set. A lone surrogate is
 * SDX_ERR_UTF8 at the first escape. */
static SDX_NOINLINE const char *sdx_json_read_u_escape(const char *src, const char *lim,
                                                      uint32_t *cp, sdx_json_lexerr *e) {
    uint32_t hi, lo;
    if (!sdx_json_hex4(src + 2, lim, &hi, e)) return NULL;
    if (SDX_LIKELY(hi < 0xD800 || hi > 0xDFFF)) {
        *cp = hi;
        return src + 6;
    }
    if (hi >= 0xDC00) {
        sdx_json_lexerr_set(e, SDX_ERR_UTF8, src, "lone surrogate in \\u escape");
        return NULL;
    }
    /* a high surrogate: a \u escape of a low one must follow */
    const char *lo_esc = src + 6;
    if (lo_esc >= lim || (lo_esc[0] == '\\' && lo_esc + 1 >= lim)) {
        sdx_json_lexerr_set(e, SDX_ERR_TRUNCATED, lim, "unexpected end of input");
        return NULL;
    }
    if (lo_esc[0] != '\\' || lo_esc[1] != 'u') {
        sdx_json_lexerr_set(e, SDX_ERR_UTF8, src, "lone surrogate in \\u escape");
        return NULL;
    }
    if (!sdx_json_hex4(lo_esc + 2, lim, &lo, e)) return NULL;
    if (lo < 0xDC00 || lo > 0xDFFF) {
        sdx_json_lexerr_set(e, SDX_ERR_UTF8, src, "lone surrogate in \\u escape");
        return NULL;
    }
    *cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
    return lo_esc + 6;
}

/* The 4 hex digits at d, which must be readable: their value, or a value
 * above 0xFFFF when one of them is not a hex digit (the four lookups
 * without a test between them; sdx_json_hex4 tells the error). */
static SDX_ALWAYS_INLINE uint32_t sdx_json_hex4_unchecked(const char *d) {
    const uint32_t a = sdx_json_hex_plus1[(unsigned char)d[0]] - 1u,
                   b = sdx_json_hex_plus1[(unsigned char)d[1]] - 1u,
                   c = sdx_json_hex_plus1[(unsigned char)d[2]] - 1u,
                   f = sdx_json_hex_plus1[(unsigned char)d[3]] - 1u;
    /* a non-digit is 0 - 1: all ones, which the test below sees */
    return (a | b | c | f) > 15 ? 0x110000u : a << 12 | b << 8 | c << 4 | f;
}

/* The code point of the \u escape at src (src[0] == '\\', src[1] == 'u')
 * with the bytes it reads there: a code point outside the surrogates, or a
 * surrogate pair; with the byte after it in *next. Anything else (a lone
 * surrogate, a non-hex digit, fewer than 6 or 12 bytes before lim) gives
 * 0x110000, for sdx_json_read_u_escape to tell its error. */
static SDX_ALWAYS_INLINE uint32_t sdx_json_u_escape_fast(const char *src, const char *lim,
                                                       const char **next) {
    if (SDX_UNLIKELY(lim - src < 6)) return 0x110000u;
    const uint32_t hi = sdx_json_hex4_unchecked(src + 2);
    *next = src + 6;
    if (SDX_LIKELY(hi - 0xD800u >= 0x800u)) return hi; /* not a surrogate (or 0x110000) */
    if (hi >= 0xDC00u || lim - src < 12 || src[6] != '\\' || src[7] != 'u') return 0x110000u;
    const uint32_t lo = sdx_json_hex4_unchecked(src + 8);
    if (lo - 0xDC00u >= 0x400u) return 0x110000u;
    *next = src + 12;
    return 0x10000u + ((hi - 0xD800u) << 10) + (lo - 0xDC00u);
}

/* The escape at src (src[0] == '\\'): its bytes to *dst (at most 4, never
 * more than the escape's own length, and only after the escape is read, so
 * dst may trail src in the same buffer); returns the byte after it, or NULL
 * with *e set. A \u escape is read inline (sdx_json_u_escape_fast: text in
 * another script is often all escapes, one after another); the function
 * for its errors is called only when that fails. */
static inline const char *sdx_json_unescape_one(const char *src, const char *lim, char **dst,
                                                sdx_json_lexerr *e) {
    if (SDX_UNLIKELY(lim - src < 2)) {
        sdx_json_lexerr_set(e, SDX_ERR_TRUNCATED, lim, "unexpected end of input");
        return NULL;
    }
    const unsigned char c = (unsigned char)src[1];
    if (c != 'u') {
        const char x = sdx_json_escape_char[c];
        if (SDX_UNLIKELY(!x)) {
            sdx_json_lexerr_set(e, SDX_ERR_SYNTAX, src + 1, "invalid escape");
            return NULL;
        }
        *(*dst)++ = x;
        return src + 2;
    }
    const char *next = src;
    uint32_t cp = sdx_json_u_escape_fast(src, lim, &next);
    if (SDX_UNLIKELY(cp > 0x10FFFFu) && !(next = sdx_json_read_u_escape(src, lim, &cp, e))) return NULL;
    char *o = *dst;
    if (cp < 0x80) {
        o[0] = (char)cp;
        *dst = o + 1;
    } else if (cp < 0x800) {
        o[0] = (char)(0xC0 | cp >> 6);
        o[1] = (char)(0x80 | (cp & 0x3F));
        *dst = o + 2;
    } else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12);
        o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        *dst = o + 3;
    } else {
        o[0] = (char)(0xF0 | cp >> 18);
        o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
        o[2] = (char)(0x80 | (cp >> 6 & 0x3F));
        o[3] = (char)(0x80 | (cp & 0x3F));
        *dst = o + 4;
    }
    return next;
}

/* Four characters as the little-endian word sdx_load32le() reads from
 * them: a literal's bytes compared in one step. */
#define SDX_JSON_WORD4(a, b, c, d)                                          \
    ((uint32_t)(unsigned char)(a) | (uint32_t)(unsigned char)(b) << 8 |     \
     (uint32_t)(unsigned char)(c) << 16 | (uint32_t)(unsigned char)(d) << 24)

/* Whether the text at p (up to lim) is the literal `word` of n bytes; if
 * not, *e gets the first byte that differs, or SDX_ERR_TRUNCATED when the
 * input ends inside a prefix of the word. */
static inline bool sdx_json_match_word(const char *p, const char *lim, const char *word,
                                       size_t n, sdx_json_lexerr *e) {
    for (size_t i = 0; i < n; i++) {
        if (p + i >= lim) {
            sdx_json_lexerr_set(e, SDX_ERR_TRUNCATED, lim, "unexpected end of input");
            return false;
        }
        if (p[i] != word[i]) {
            sdx_json_lexerr_set(e, SDX_ERR_SYNTAX, p + i, "invalid literal");
            return false;
        }
    }
    return true;
}

/* JSON whitespace (RFC 8259 section 2): space, tab, line feed, carriage
 * return. */
static inline bool sdx_json_is_ws(unsigned char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Skip whitespace from p; returns the first other byte, or lim. In
 * pretty-printed text a run is a line break and an indentation of up to a
 * few dozen spaces, so the first 32 bytes are looked at without a branch
 * between their two halves (whether a run ends in the first or the second
 * one is hard to predict), then 16 at a time. */
static SDX_ALWAYS_INLINE const char *sdx_json_skip_ws(const char *p, const char *lim) {
    if ((size_t)(lim - p) >= 32) {
        const unsigned a = sdx_inline_ws_run16(p), b = sdx_inline_ws_run16(p + 16);
        const unsigned n = a < 16 ? a : 16 + b;
        p += n;
        if (SDX_LIKELY(n < 32)) return p;
    }
    while ((size_t)(lim - p) >= 16) {
        const unsigned n = sdx_inline_ws_run16(p);
        p += n;
        if (n < 16) return p;
    }
    while (p < lim && sdx_json_is_ws((unsigned char)*p)) p++;
    return p;
}

#endif /* SDX_JSON_LEX_H */
