/*
 * The JSON tree parser: sdx_json_parse and sdx_json_parse_insitu.
 *
 * One pass over the text fills the document's value array (struct sdx_doc,
 * src/core/doc_internal.h) directly, in document order, without events.
 * On CPUs with AVX-512 VBMI2, texts dense in strings are parsed in two
 * stages instead, into the same value array ("Two stages", below); what
 * follows describes the one-pass parser, which also reports every error.
 *
 * Structure. One function, parse_text(), holds the hot state in locals (the
 * cursor, the end, the next free slot, the innermost open container and its
 * element count) and moves between the states of the grammar with gotos: a
 * value starts with tests on its first byte's class; arrays and maps have one
 * label per position (first element, element, after an element, key, colon,
 * member value, after a member). Everything rare (escapes, errors, comments,
 * NaN and Infinity, growing the array) is in separate functions.
 *
 * Open containers without recursion or a separate stack: while a container
 * is open, its slot counts its elements in its length bits and holds in its
 * payload the distance back to its parent's slot and in bits 8-15 the
 * parent's type (0 at the root); closing it writes its span there and goes
 * on in the parent without looking at the parent's slot. The stack of open
 * containers is so a chain through the value array, which needs no
 * allocation of its own and is limited by opts->max_depth. The hot loop
 * keeps few values in registers (GCC spills the rest in a function this
 * size): the cursor, the limit, the next slot, the array's end and the open
 * container; the depth is counted in the parser's state.
 *
 * Bounds. The input need not be padded or NUL-terminated, so every read is
 * checked against `lim`; tokens of unknown length (strings, whitespace) are
 * scanned 32 bytes inline (src/simd/inline.h) and go on with the SIMD kernel
 * (json_string_scan) when longer.
 *
 * UTF-8. The whole input is validated once up front with the SIMD kernel;
 * parsing then stops at the first invalid byte as if the input ended there
 * (`lim`), and reaching it is reported as SDX_ERR_UTF8 at that offset. So
 * errors are reported in document order: a syntax error before the invalid
 * byte wins. With SDX_JSON_READ_STOP_AFTER_VALUE only the first value is
 * looked at, so instead each string (and comment) is validated on its own.
 *
 * Memory. The value array is allocated once from an estimate of the slot
 * count (the first 4 KiB's, scaled, or the exact bound len / 2 + 2 for
 * small inputs) and grows by an estimate from the rate so far
 * (sdx_doc_grow_vals), never beyond that bound. Strings without escapes
 * point into the input. Strings with escapes are unescaped into blocks of
 * a sixteenth of the text (4 to 64 KiB) and more, a new one when a string
 * does not fit in what is left of the last (with what it has so far moved
 * over), so that their memory follows the escaped strings rather than the
 * input's size; in place for
 * sdx_json_parse_insitu and SDX_JSON_READ_COPY_INPUT
 * (which copies the input into the document first and then parses the copy
 * in place).
 */
#include <stdatomic.h>
#include <string.h>

#include "core/doc_internal.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "json/lex.h"
#include "json/parse_internal.h"
#include "num/json_number.h"
#include "num/num.h"
#include "sdx/json.h"
#include "simd/inline.h"
#include "simd/simd.h"

/* The two-stage parse ("Two stages" below): x86-64 with GCC or clang. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(SDX_NO_JSON_INDEX)
#define SDX_JSON_INDEX 1
#include <immintrin.h>
#define SDX_TARGET_AVX512_VBMI2 __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,pclmul,bmi,bmi2,popcnt")))
#endif

/* ------------------------------------------------------------------------ */
/* Parser state outside the hot loop                                         */
/* ------------------------------------------------------------------------ */

typedef struct parser {
    const char *text; /* the text parsed: the input, its copy, or the caller's buffer */
    const char *lim;  /* parsing stops here: the end, or the first invalid UTF-8 byte */
    const char *end;  /* text + len */
    char *wtext;      /* text, writable (insitu or copy), else NULL */
    char *sbuf;       /* next free byte of the unescape block; NULL until needed */
    char *send;       /* the end of the unescape block */
    size_t sblocks;   /* bytes of the unescape blocks so far */
    const sdx_simd_kernels *k;
    sdx_doc *doc;
    uint32_t flags;        /* sdx_json_read_flag */
    unsigned numflags;     /* for sdx_json_number */
    bool utf8_per_string;  /* validate strings and comments one by one */
    uint32_t depth_left;   /* containers that may still open */
    /* the first error */
    sdx_err code;
    const char *err_at;
    const char *msg;
    /* in place: the string being unescaped when the error happened,
     * [str_begin, str_dst) holds its unescaped part */
    const char *str_begin, *str_dst;
} parser;

/* ------------------------------------------------------------------------ */
/* Errors                                                                    */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE void set_error(parser *ps, sdx_err code, const char *at, const char *msg) {
    if (ps->code != SDX_OK) return;
    ps->code = code;
    ps->err_at = at;
    ps->msg = msg;
}

/* Parsing reached `lim`: the end of the input inside a value, or the first
 * invalid UTF-8 byte. */
static SDX_NOINLINE void error_at_lim(parser *ps) {
    if (ps->lim < ps->end) set_error(ps, SDX_ERR_UTF8, ps->lim, "invalid UTF-8");
    else set_error(ps, SDX_ERR_TRUNCATED, ps->end, "unexpected end of input");
}

/* The same inside the text of a string or comment, where the input may also
 * end in the middle of a character: that is the end of input (the text
 * could go on), not invalid UTF-8. The pull reader has the same rule. */
static SDX_NOINLINE void error_at_lim_in_text(parser *ps) {
    if (ps->lim < ps->end && sdx_utf8_is_cut(ps->lim, (size_t)(ps->end - ps->lim)))
        set_error(ps, SDX_ERR_TRUNCATED, ps->end, "unexpected end of input");
    else
        error_at_lim(ps);
}

/* Whether the bytes at p (p < end) start an ill-formed UTF-8 sequence. */
static bool bad_utf8_at(const char *p, const char *end) {
    if ((unsigned char)*p < 0x80) return false;
    size_t n = (size_t)(end - p) < 4 ? (size_t)(end - p) : 4;
    return sdx_utf8_valid_prefix(p, n) == 0;
}

/* A byte that cannot come here: SDX_ERR_UTF8 if it starts an ill-formed
 * sequence (only possible when strings are validated one by one), else
 * SDX_ERR_SYNTAX with `msg`; at lim, the end-of-input error. */
static SDX_NOINLINE void error_unexpected(parser *ps, const char *p, const char *msg) {
    if (p >= ps->lim) error_at_lim(ps);
    else if (bad_utf8_at(p, ps->end)) set_error(ps, SDX_ERR_UTF8, p, "invalid UTF-8");
    else set_error(ps, SDX_ERR_SYNTAX, p, msg);
}

/* When strings are validated one by one: validate text s[0, n) of a string
 * or comment before anything after it is looked at, so that errors come in
 * document order. A character cut by the end of the input is left for the
 * caller's end-of-input error. */
static SDX_NOINLINE bool check_utf8(parser *ps, const char *s, size_t n) {
    size_t ok = ps->k->utf8_valid_prefix(s, n);
    if (SDX_LIKELY(ok == n)) return true;
    if (s + n == ps->end && sdx_utf8_is_cut(s + ok, n - ok)) return true;
    set_error(ps, SDX_ERR_UTF8, s + ok, "invalid UTF-8");
    return false;
}

/* ------------------------------------------------------------------------ */
/* Line and column                                                           */
/* ------------------------------------------------------------------------ */

/* Count the line feeds of t[from, to) into *lines and the position after
 * the last one into *line_start. */
static void count_lines(const char *t, size_t from, size_t to, size_t *lines, size_t *line_start) {
    const char *p = t + from, *e = t + to;
    while (p < e) {
        const char *nl = memchr(p, '\n', (size_t)(e - p));
        if (!nl) break;
        ++*lines;
        *line_start = (size_t)(nl + 1 - t);
        p = nl + 1;
    }
}

/* 1-based line and column (in bytes) of byte `off` of the original text.
 * `skip` lists regions [from, to) sorted and disjoint, to leave out: when
 * the text was unescaped in place, the strings' unescaped bytes (which may
 * now hold line feeds that were \n escapes) are not the original text; no
 * line feed was there originally, as raw control characters end a string. */
typedef struct {
    const sdx_val *vals, *vals_end; /* the slots filled so far */
    const char *base;               /* the text the slots point into */
    size_t cur_from, cur_to;        /* the string being unescaped, if any */
} skip_regions;

static void locate(const char *t, size_t off, const skip_regions *skip, size_t *line,
                   size_t *col) {
    size_t lines = 0, line_start = 0, pos = 0;
    if (skip) {
        for (const sdx_val *v = skip->vals; v < skip->vals_end && pos < off; v++) {
            if (SDX_VAL_TYPE(v) != SDX_TYPE_STR || SDX_VAL_LEN(v) == 0) continue;
            size_t from = (size_t)(v->v.s - skip->base), to = from + (size_t)SDX_VAL_LEN(v);
            if (from >= off) break;
            count_lines(t, pos, from, &lines, &line_start);
            pos = to < off ? to : off;
        }
        if (skip->cur_to > skip->cur_from && skip->cur_from >= pos && skip->cur_from < off) {
            count_lines(t, pos, skip->cur_from, &lines, &line_start);
            pos = skip->cur_to < off ? skip->cur_to : off;
        }
    }
    count_lines(t, pos, off, &lines, &line_start);
    *line = lines + 1;
    *col = off - line_start + 1;
}

/* ------------------------------------------------------------------------ */
/* Whitespace and comments                                                   */
/* ------------------------------------------------------------------------ */

/* At a '/' with SDX_JSON_READ_COMMENTS: skip comments and whitespace;
 * returns the first other byte or lim, or NULL with the error set. */
static SDX_NOINLINE const char *skip_comments(parser *ps, const char *p) {
    const char *lim = ps->lim;
    while (p < lim && *p == '/') {
        if (lim - p < 2) {
            error_at_lim(ps);
            return NULL;
        }
        const char *body = p + 2, *q;
        if (p[1] == '/') {
            q = memchr(body, '\n', (size_t)(lim - body));
            if (!q) q = lim; /* a line comment may end the input */
            if (ps->utf8_per_string && !check_utf8(ps, body, (size_t)(q - body))) return NULL;
            if (q == lim && lim < ps->end) {
                error_at_lim_in_text(ps);
                return NULL;
            }
            p = q;
        } else if (p[1] == '*') {
            q = body;
            for (;;) {
                q = memchr(q, '*', (size_t)(lim - q));
                if (!q || lim - q < 2) {
                    if (ps->utf8_per_string && !check_utf8(ps, body, (size_t)(lim - body)))
                        return NULL;
                    error_at_lim_in_text(ps);
                    return NULL;
                }
                if (q[1] == '/') break;
                q++;
            }
            if (ps->utf8_per_string && !check_utf8(ps, body, (size_t)(q - body))) return NULL;
            p = q + 2;
        } else {
            set_error(ps, SDX_ERR_SYNTAX, p, "invalid comment");
            return NULL;
        }
        p = sdx_json_skip_ws(p, lim);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Strings                                                                   */
/* ------------------------------------------------------------------------ */

/* An escape or literal went wrong: the end of the input (or the invalid
 * UTF-8 byte parsing stopped at), or the error found. */
static SDX_NOINLINE void lex_error(parser *ps, const sdx_json_lexerr *e) {
    if (e->code == SDX_ERR_TRUNCATED) error_at_lim(ps);
    else if (e->code == SDX_ERR_SYNTAX) error_unexpected(ps, e->at, e->msg);
    else set_error(ps, e->code, e->at, e->msg);
}

/* The smallest unescape block: strings with escapes are unescaped into
 * blocks of at least a sixteenth of the text, between these two sizes,
 * each one allocated when a string does not fit in what is left of the
 * last (so that a small text with a few escapes is not charged a large
 * block). */
#define UNESCAPE_BLOCK_MIN 4096
#define UNESCAPE_BLOCK 65536

/* Room for `want` more bytes after dst in the unescape block, for the
 * string being unescaped from start: when the block has not, a new one,
 * with the string so far moved into it. Its size is the largest of the
 * smallest block (a sixteenth of the text, from UNESCAPE_BLOCK_MIN to
 * UNESCAPE_BLOCK), all the blocks so far (so that they grow geometrically:
 * a few blocks, whatever the strings) and twice the string so far and
 * `want`, but never more than the string can still need: its bytes so far
 * and `rest`, what is left of the input (after the first block that is
 * also what every string from here on needs at most). False (with the
 * error set) on failure. */
static SDX_NOINLINE bool unescape_room(parser *ps, char **start, char **dst, size_t want, size_t rest,
                                       const char *at) {
    if (*dst && (size_t)(ps->send - *dst) >= want) return true;
    const size_t have = (size_t)(*dst - *start);
    size_t size = have > (SIZE_MAX - want) / 2 ? SIZE_MAX : 2 * have + want;
    size_t least = (size_t)(ps->end - ps->text) / 16;
    if (least < UNESCAPE_BLOCK_MIN) least = UNESCAPE_BLOCK_MIN;
    if (least > UNESCAPE_BLOCK) least = UNESCAPE_BLOCK;
    if (size < least) size = least;
    if (size < ps->sblocks) size = ps->sblocks;
    if (size > have + rest + want) size = have + rest + want;
    char *b = sdx_doc_block_alloc(ps->doc, size);
    if (!b) {
        set_error(ps, SDX_ERR_NOMEM, at, "out of memory");
        return false;
    }
    if (have) memcpy(b, *start, have);
    ps->sblocks += size;
    *start = b;
    *dst = b + have;
    ps->send = b + size;
    return true;
}

/* The string body at s stopped at s[n] (or n == lim - s) on something other
 * than its closing quote: an escape to decode, a control character, or the
 * end. On success fills *out and returns the byte after the closing quote;
 * else NULL with the error set. */
static SDX_NOINLINE const char *read_string_slow(parser *ps, const char *s, size_t n,
                                                  sdx_val *out) {
    const char *lim = ps->lim;
    const char *src = s + n;
    /* strings validated one by one: each run of plain text is checked
     * before whatever ends it is looked at */
    if (ps->utf8_per_string && !check_utf8(ps, s, n)) return NULL;
    if (src >= lim) {
        error_at_lim_in_text(ps);
        return NULL;
    }
    if ((unsigned char)*src < 0x20) {
        set_error(ps, SDX_ERR_SYNTAX, src, "control character in string");
        return NULL;
    }
    /* *src == '\\': unescape, into the block or in place */
    char *start, *dst;
    const bool in_place = ps->wtext != NULL;
    if (in_place) {
        start = ps->wtext + (s - ps->text);
        dst = start + n;
    } else {
        /* the plain part and one escape's bytes (at most 4: the unescaped
         * text is never longer than its source) */
        start = dst = ps->sbuf;
        if (!unescape_room(ps, &start, &dst, n + 4, (size_t)(lim - src), s)) return NULL;
        memcpy(dst, s, n);
        dst += n;
    }
    for (;;) {
        sdx_json_lexerr e;
        if (!in_place && (size_t)(ps->send - dst) < 4 &&
            !unescape_room(ps, &start, &dst, 4, (size_t)(lim - src), src))
            break;
        src = sdx_json_unescape_one(src, lim, &dst, &e);
        if (!src) {
            lex_error(ps, &e);
            break;
        }
        if (src < lim && *src == '\\') continue; /* escapes in a row: no run between */
        const size_t avail = (size_t)(lim - src);
        size_t m;
        if (in_place) {
            m = ps->k->json_string_scan(src, avail);
            if (ps->utf8_per_string && !check_utf8(ps, src, m)) break;
            memmove(dst, src, m);
            dst += m;
        } else {
            /* copied into the room the block has, and on into a new block
             * when it runs out before the string's next stop */
            m = 0;
            bool room = true;
            for (;;) {
                const size_t left = (size_t)(ps->send - dst);
                const size_t take = avail - m < left ? avail - m : left;
                const size_t got = ps->k->json_escape_copy(dst, src + m, take, 0);
                dst += got;
                m += got;
                if (got < take || m == avail) break;
                if (!(room = unescape_room(ps, &start, &dst, 1, avail - m, src + m))) break;
            }
            if (!room) break;
            if (ps->utf8_per_string && !check_utf8(ps, src, m)) break;
        }
        src += m;
        if (m == avail) {
            error_at_lim_in_text(ps);
            break;
        }
        const unsigned char c = (unsigned char)*src;
        if (c == '"') {
            out->tag = SDX_TYPE_STR | (uint64_t)(dst - start) << 16;
            out->v.s = start;
            if (!in_place) ps->sbuf = dst;
            return src + 1;
        }
        if (c != '\\') {
            set_error(ps, SDX_ERR_SYNTAX, src, "control character in string");
            break;
        }
    }
    if (in_place) {
        ps->str_begin = start;
        ps->str_dst = dst;
    }
    return NULL;
}

/* The string whose opening quote is at p into *out; returns the byte after
 * the closing quote, or NULL with the error set. The first 32 bytes are
 * scanned inline, 16 at a time (most keys and values are shorter, and a
 * call through the kernel table costs more than the scan); longer strings go
 * on with the kernel. */
static SDX_ALWAYS_INLINE const char *read_string(parser *ps, const char *p, const char *lim,
                                                 sdx_val *out) {
    const char *s = p + 1;
    const size_t avail = (size_t)(lim - s);
    size_t n;
    if (SDX_LIKELY(avail >= 32)) {
        n = sdx_inline_string_stop16(s);
        if (n == 16) {
            n = 16 + sdx_inline_string_stop16(s + 16);
            if (n == 32) n = 32 + ps->k->json_string_scan(s + 32, avail - 32);
        }
    } else {
        n = ps->k->json_string_scan(s, avail);
    }
    if (SDX_LIKELY(n < avail && s[n] == '"')) {
        if (SDX_UNLIKELY(ps->utf8_per_string) && !check_utf8(ps, s, n)) return NULL;
        /* SDX_VAL_NOESC also says that 16 bytes may be read from s (doc.h):
         * not for a string this close to the end of the input */
        out->tag = SDX_TYPE_STR | (avail >= 16 ? SDX_VAL_NOESC : 0) | (uint64_t)n << 16;
        out->v.s = s;
        return s + n + 1;
    }
    return read_string_slow(ps, s, n, out);
}

/* ------------------------------------------------------------------------ */
/* Numbers and literals                                                      */
/* ------------------------------------------------------------------------ */

/* The slot type for each sdx_num_kind but SDX_NUM_BIG. */
static const uint8_t num_type[3] = {SDX_TYPE_INT, SDX_TYPE_UINT, SDX_TYPE_DOUBLE};

static double double_from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* Whether the text at p is `word` (n bytes); if not, the error. */
static SDX_NOINLINE bool match_word(parser *ps, const char *p, const char *word, size_t n) {
    sdx_json_lexerr e;
    if (sdx_json_match_word(p, ps->lim, word, n, &e)) return true;
    lex_error(ps, &e);
    return false;
}

/* NaN, Infinity or -Infinity at p with SDX_JSON_READ_NAN_INF. */
static SDX_NOINLINE const char *read_nan_inf(parser *ps, const char *p, sdx_val *out) {
    bool neg = *p == '-';
    const char *w = p + neg;
    uint64_t bits;
    size_t n;
    if (w < ps->lim && *w == 'N' && !neg) {
        if (!match_word(ps, w, "NaN", 3)) return NULL;
        bits = 0x7FF8000000000000ull;
        n = 3;
    } else {
        if (!match_word(ps, w, "Infinity", 8)) return NULL;
        bits = neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull;
        n = 8;
    }
    out->tag = SDX_TYPE_DOUBLE;
    out->v.d = double_from_bits(bits);
    return w + n;
}

/* sdx_json_number found no number at p: -Infinity, or the error. */
static SDX_NOINLINE const char *number_error(parser *ps, const char *p, const char *err_at,
                                             sdx_val *out) {
    if ((ps->flags & SDX_JSON_READ_NAN_INF) && p + 1 < ps->lim && p[1] == 'I')
        return read_nan_inf(ps, p, out);
    if (!err_at || err_at < p) err_at = p;
    if (err_at >= ps->lim) error_at_lim(ps);
    else error_unexpected(ps, err_at, "invalid number");
    return NULL;
}

/* The number at p, which the fast path did not take, into *out; returns
 * its end, or NULL with the error set. */
static SDX_NOINLINE const char *read_number_slow(parser *ps, const char *p, const char *lim,
                                                 sdx_val *out) {
    sdx_num num;
    const char *err_at = NULL;
    const char *q = sdx_json_number(p, lim, ps->numflags, &num, &err_at);
    if (SDX_UNLIKELY(!q)) return number_error(ps, p, err_at, out);
    if (SDX_LIKELY(num.kind != SDX_NUM_BIG)) {
        out->tag = num_type[num.kind];
        out->v.u = num.v.u; /* the same 8 bytes for int64, uint64 and double */
    } else {
        out->tag = SDX_TYPE_RAW | (uint64_t)(q - p) << 16;
        out->v.s = p;
    }
    return q;
}

/* The number at p into *out; returns its end, or NULL with the error set. */
static SDX_ALWAYS_INLINE const char *read_number(parser *ps, const char *p, const char *lim,
                                                 sdx_val *out) {
    _Static_assert(SDX_TYPE_UINT == SDX_TYPE_INT + SDX_NUM_UINT &&
                       SDX_TYPE_DOUBLE == SDX_TYPE_INT + SDX_NUM_DOUBLE,
                   "slot types in the order of sdx_num_kind");
    unsigned kind;
    uint64_t bits;
    const char *q = sdx_json_number_fast(p, lim, &kind, &bits);
    if (SDX_LIKELY(q != NULL)) {
        out->tag = SDX_TYPE_INT + kind;
        out->v.u = bits;
        return q;
    }
    return read_number_slow(ps, p, lim, out);
}

#define WORD4(a, b, c, d) \
    ((uint32_t)(unsigned char)(a) | (uint32_t)(unsigned char)(b) << 8 | \
     (uint32_t)(unsigned char)(c) << 16 | (uint32_t)(unsigned char)(d) << 24)

static inline uint32_t load4le(const char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
#ifdef SDX_BIG_ENDIAN
    v = __builtin_bswap32(v);
#endif
    return v;
}

/* A default case of a value switch: NaN / Infinity, or the error. */
static SDX_NOINLINE const char *read_other_value(parser *ps, const char *p, sdx_val *out) {
    if ((ps->flags & SDX_JSON_READ_NAN_INF) && (*p == 'N' || *p == 'I'))
        return read_nan_inf(ps, p, out);
    error_unexpected(ps, p, "expected a value");
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* The value array                                                           */
/* ------------------------------------------------------------------------ */

/* Slots a text of len bytes can need at most: every slot takes at least
 * two bytes (a scalar and the comma or bracket after it, a container's two
 * brackets, a key's two quotes), the root scalar one. */
static size_t max_slots(size_t len) { return len / 2 + 2; }

/* The first guess: the exact bound for small inputs; else the slots of
 * the first 4 KiB scaled to the whole text, with a quarter more, so that
 * the array rarely has to grow (growing copies it) and yet holds not much
 * more than the document needs. A text's slots are about its commas,
 * colons and opening brackets (one slot after each, and the root): those
 * of the sample are counted. Where the two-stage parse runs, its stage 1
 * tells which bytes are inside strings at no extra cost, and only the
 * marks outside strings count; elsewhere a byte loop counts them all,
 * the ones inside strings too, which only adds to the margin (telling
 * them apart byte by byte costs about 1.5 ns a byte: 6 us of a 5 us parse
 * of an 8 KiB text). */
#define SLOT_SAMPLE 4096

/* The sample's counts: returns the quotes among text[0, n) (for the
 * choice of the two-stage parse) and stores its commas, colons and opening
 * brackets in *marks ('[' and '{' differ only in bit 0x20). In blocks of
 * 128 bytes with a byte-sized count each, a loop compilers turn into
 * byte-lane SIMD compares (a size_t count widened every byte to 64-bit
 * lanes: 1.5 us for the 4 KiB). */
static size_t sample_counts(const char *text, size_t n, size_t *marks) {
    size_t q = 0, m = 0, i = 0;
    for (; i + 128 <= n; i += 128) {
        unsigned char block = 0, qblock = 0;
        for (size_t j = 0; j < 128; j++) {
            const unsigned char c = (unsigned char)text[i + j];
            block += (unsigned char)((c == ',') | (c == ':') | ((c | 0x20) == '{'));
            qblock += (unsigned char)(c == '"');
        }
        m += block;
        q += qblock;
    }
    for (; i < n; i++) {
        const unsigned char c = (unsigned char)text[i];
        m += (c == ',') | (c == ':') | ((c | 0x20) == '{');
        q += c == '"';
    }
    *marks = m;
    return q;
}

#ifdef SDX_JSON_INDEX
SDX_TARGET_AVX512_VBMI2 static size_t sample_counts_indexed(const char *text, size_t n, size_t *marks);
#endif

/* The estimate above. `quotes` is not NULL where the text may take the
 * two-stage parse (plain JSON, valid UTF-8, a CPU with its instructions):
 * then the quotes of the sample (the first min(len, 4 KiB) bytes) go to
 * *quotes, and stage 1 counts the sample's marks outside strings only
 * (sample_counts_indexed); other texts (read with options, where comments
 * may hold quotes) keep the byte loop. */
static size_t initial_slots(const char *text, size_t len, size_t *quotes) {
    if (len <= SLOT_SAMPLE && !quotes) return max_slots(len);
    const size_t n = len < SLOT_SAMPLE ? len : SLOT_SAMPLE;
    size_t marks, q;
#ifdef SDX_JSON_INDEX
    q = quotes ? sample_counts_indexed(text, n, &marks) : sample_counts(text, n, &marks);
#else
    q = sample_counts(text, n, &marks);
#endif
    if (quotes) *quotes = q;
    if (len <= SLOT_SAMPLE) return max_slots(len);
    const size_t est = (len / SLOT_SAMPLE + 1) * (marks + 1);
    const size_t want = est + est / 4 + 64;
    return want < max_slots(len) ? want : max_slots(len);
}

/* Grow the value array so that `need` more slots fit after `used`, the
 * text before `at` having given them (sdx_doc_grow_vals); updates
 * doc->vals and doc->vals_cap. False (with the error set) on failure. */
static SDX_NOINLINE bool grow_vals(parser *ps, size_t used, size_t need, const char *at) {
    if (sdx_doc_grow_vals(ps->doc, used, need, (size_t)(at - ps->text), (size_t)(ps->end - at),
                          max_slots((size_t)(ps->end - ps->text))))
        return true;
    set_error(ps, SDX_ERR_NOMEM, at, "out of memory");
    return false;
}

/* ------------------------------------------------------------------------ */
/* The parser                                                                */
/* ------------------------------------------------------------------------ */

/* Whether a byte may follow a number or a literal at the top level with
 * SDX_JSON_READ_STOP_AFTER_VALUE: whitespace, or a comment when they are
 * allowed (as the pull reader requires between the values of a sequence). */
static bool is_delimiter(const parser *ps, unsigned char c) {
    return sdx_json_is_ws(c) || (c == '/' && (ps->flags & SDX_JSON_READ_COMMENTS));
}

/* The kind of value each first byte starts (0: none), for VALUE_SWITCH. */
enum { VC_STR = 1, VC_NUM = 2, VC_OBJ = 4, VC_ARR = 8, VC_TRUE = 16, VC_FALSE = 32, VC_NULL = 64 };
static const uint8_t value_class[256] = {
    ['"'] = VC_STR, ['-'] = VC_NUM, ['0'] = VC_NUM, ['1'] = VC_NUM, ['2'] = VC_NUM,
    ['3'] = VC_NUM, ['4'] = VC_NUM, ['5'] = VC_NUM, ['6'] = VC_NUM, ['7'] = VC_NUM,
    ['8'] = VC_NUM, ['9'] = VC_NUM, ['{'] = VC_OBJ, ['['] = VC_ARR, ['t'] = VC_TRUE,
    ['f'] = VC_FALSE, ['n'] = VC_NULL,
};

/* The value array's steps that the one-pass parser and the two stages
 * share, over their locals: val (the next free slot), val_end, ctn (the
 * innermost open container), doc, ps and p. */

/* Make room for n slots at val (the array may move); `fail` on failure,
 * with the error set. */
#define VALS_RESERVE(n, fail)                                                      \
    do {                                                                           \
        if (SDX_UNLIKELY((size_t)(val_end - val) < (n))) {                         \
            const size_t used_ = (size_t)(val - doc->vals);                        \
            const size_t ctn_i_ = (size_t)(ctn - doc->vals);                       \
            if (!grow_vals(ps, used_, (n), p)) goto fail;                          \
            val = doc->vals + used_;                                               \
            val_end = doc->vals + doc->vals_cap;                                   \
            ctn = doc->vals + ctn_i_;                                              \
        }                                                                          \
    } while (0)

/* Open a container of `type` at val inside a parent of `parent_type` (0 at
 * the root, where ctn is the slot itself), or run `too_deep` at the depth
 * limit. The slot keeps the way back to the parent until it closes. */
#define VALS_OPEN(type, parent_type, too_deep)                                     \
    do {                                                                           \
        if (SDX_UNLIKELY(ps->depth_left == 0)) too_deep;                           \
        ps->depth_left--;                                                          \
        val->tag = (type) | (uint64_t)(parent_type) << 8;                          \
        val->v.u = (uint64_t)(val - ctn);                                          \
        ctn = val++;                                                               \
    } while (0)

/* Close the innermost container, then go on at arr_next or obj_next in the
 * parent, or at doc_end after the root. */
#define VALS_CLOSE()                                                               \
    do {                                                                           \
        const uint64_t open_tag_ = ctn->tag, back_ = ctn->v.u;                     \
        ctn->tag = open_tag_ & ~(uint64_t)0xff00;                                  \
        ctn->v.u = (uint64_t)(val - ctn);                                          \
        ps->depth_left++;                                                          \
        ctn -= back_;                                                              \
        if ((open_tag_ & 0xff00) == SDX_TYPE_ARRAY << 8) goto arr_next;            \
        if (SDX_LIKELY((open_tag_ & 0xff00) == SDX_TYPE_MAP << 8)) goto obj_next;  \
        goto doc_end;                                                              \
    } while (0)

/* Parse ps->text from p (after a BOM) into ps->doc, whose value array is
 * allocated; true on success (doc->nvals and doc->consumed set). */
static bool parse_text(parser *ps, const char *p, uint32_t max_depth) {
    const char *const lim = ps->lim;
    const uint32_t flags = ps->flags;
    sdx_doc *const doc = ps->doc;
    sdx_val *val = doc->vals;                  /* the next free slot */
    sdx_val *val_end = val + doc->vals_cap;
    sdx_val *ctn = val;                        /* the innermost open container
                                                  (the root's slot until one opens) */
    bool root_scalar = false;
    ps->depth_left = max_depth;

#define RESERVE(n) VALS_RESERVE(n, fail)

/* Skip whitespace; at lim, the end-of-input error. */
#define SKIP_WS()                                                                  \
    do {                                                                           \
        if (SDX_UNLIKELY(p == lim || (unsigned char)*p <= ' ')) {                  \
            if (p < lim && *p == ' ' && p + 1 < lim && (unsigned char)p[1] > ' ')  \
                p++;                                                               \
            else {                                                                 \
                p = sdx_json_skip_ws(p, lim);                                               \
                if (SDX_UNLIKELY(p == lim)) goto at_lim;                           \
            }                                                                      \
        }                                                                          \
    } while (0)

/* At an unexpected byte: skip comments and go back to `label`, or fail. */
#define COMMENT_OR_FAIL(label, msg)                                                \
    do {                                                                           \
        if (*p == '/' && (flags & SDX_JSON_READ_COMMENTS)) {                       \
            p = skip_comments(ps, p);                                              \
            if (!p) goto fail;                                                     \
            if (p == lim) goto at_lim;                                             \
            goto label;                                                            \
        }                                                                          \
        error_unexpected(ps, p, msg);                                              \
        goto fail;                                                                 \
    } while (0)

/* The literal `word` (n bytes, the last four of them w4 as load4le reads
 * them) at p into *val as a `type` slot with payload `pl`, then `after`. */
#define LITERAL(word, n, w4, type, pl, after)                                      \
    do {                                                                           \
        if (SDX_UNLIKELY(lim - p < (n) || load4le(p + (n) - 4) != (w4))) {        \
            match_word(ps, p, word, n);                                            \
            goto fail;                                                             \
        }                                                                          \
        val->tag = (type);                                                         \
        val->v.u = (pl);                                                           \
        val++;                                                                     \
        p += (n);                                                                  \
        goto after;                                                                \
    } while (0)

/* A scalar value at p into *val, then `after`; containers jump to their
 * begin labels for the context `in` (root, arr or obj); other bytes to
 * `other`. Bit tests on the first byte's class, in the order of how common
 * the values are, not a switch: on data that mixes them, a switch's
 * indirect jump is often mispredicted where conditional branches are
 * predicted from the recent history (and GCC turns a chain of == tests on
 * one value into a switch, which bit tests avoid). */
#define VALUE_SWITCH(after, other, in)                                             \
    do {                                                                           \
        const unsigned vc_ = value_class[(unsigned char)*p];                       \
        if (vc_ & VC_STR) {                                                        \
            p = read_string(ps, p, lim, val);                                      \
            if (SDX_UNLIKELY(!p)) goto fail;                                       \
            val++;                                                                 \
            goto after;                                                            \
        }                                                                          \
        if (vc_ & VC_NUM) {                                                        \
            p = read_number(ps, p, lim, val);                                      \
            if (SDX_UNLIKELY(!p)) goto fail;                                       \
            val++;                                                                 \
            goto after;                                                            \
        }                                                                          \
        if (vc_ & VC_OBJ) goto obj_begin_##in;                                     \
        if (vc_ & VC_ARR) goto arr_begin_##in;                                     \
        if (vc_ & VC_NULL) LITERAL("null", 4, WORD4('n', 'u', 'l', 'l'), SDX_TYPE_NULL, 0, after); \
        if (vc_ & VC_TRUE) LITERAL("true", 4, WORD4('t', 'r', 'u', 'e'), SDX_TYPE_BOOL, 1, after); \
        if (vc_ & VC_FALSE) LITERAL("false", 5, WORD4('a', 'l', 's', 'e'), SDX_TYPE_BOOL, 0, after); \
        goto other;                                                                \
    } while (0)

/* Open a container of `type` at val (p at its bracket) inside a parent of
 * `parent_type` (0 at the root, where ctn is the slot itself). The slot
 * keeps the way back to the parent until it closes. */
#define OPEN(type, parent_type)                                                    \
    do {                                                                           \
        VALS_OPEN(type, parent_type, {                                             \
            set_error(ps, SDX_ERR_DEPTH, p, "nesting too deep");                   \
            goto fail;                                                             \
        });                                                                        \
        p++;                                                                       \
    } while (0)

/* Close the innermost container (p at its bracket), then go on in the
 * parent or finish. */
#define CLOSE()                                                                    \
    do {                                                                           \
        p++;                                                                       \
        VALS_CLOSE();                                                              \
    } while (0)

    /* ---- the root ---- */
root:
    SKIP_WS();
    RESERVE(1);
    VALUE_SWITCH(root_done, root_other, root);
root_other:
    if ((flags & SDX_JSON_READ_NAN_INF) && (*p == 'N' || *p == 'I')) {
        p = read_other_value(ps, p, val);
        if (!p) goto fail;
        val++;
        goto root_done;
    }
    COMMENT_OR_FAIL(root, "expected a value");
root_done:
    /* a number or literal at the top level must end at a delimiter */
    root_scalar = SDX_VAL_TYPE(doc->vals) != SDX_TYPE_STR;
    goto doc_end;

    /* ---- arrays ---- */
arr_begin_root:
    OPEN(SDX_TYPE_ARRAY, 0);
    goto arr_first;
arr_begin_arr:
    OPEN(SDX_TYPE_ARRAY, SDX_TYPE_ARRAY);
    goto arr_first;
arr_begin_obj:
    OPEN(SDX_TYPE_ARRAY, SDX_TYPE_MAP);
arr_first:
    SKIP_WS();
    if (*p == ']') goto arr_end;
arr_val:
    RESERVE(1);
    VALUE_SWITCH(arr_next, arr_other, arr);
arr_other:
    if (*p == ']' && (SDX_VAL_LEN(ctn) == 0 || (flags & SDX_JSON_READ_TRAILING_COMMAS))) goto arr_end;
    if ((flags & SDX_JSON_READ_NAN_INF) && (*p == 'N' || *p == 'I')) {
        p = read_other_value(ps, p, val);
        if (!p) goto fail;
        val++;
        goto arr_next;
    }
    COMMENT_OR_FAIL(arr_val, SDX_VAL_LEN(ctn) == 0 ? "expected a value or ']'" : "expected a value");
arr_next:
    ctn->tag += (uint64_t)1 << 16; /* one more element */
arr_after:
    SKIP_WS();
    if (SDX_LIKELY(*p == ',')) {
        p++;
        SKIP_WS();
        goto arr_val;
    }
    if (*p == ']') goto arr_end;
    COMMENT_OR_FAIL(arr_after, "expected ',' or ']'");
arr_end:
    CLOSE();

    /* ---- maps ---- */
obj_begin_root:
    OPEN(SDX_TYPE_MAP, 0);
    goto obj_first;
obj_begin_arr:
    OPEN(SDX_TYPE_MAP, SDX_TYPE_ARRAY);
    goto obj_first;
obj_begin_obj:
    OPEN(SDX_TYPE_MAP, SDX_TYPE_MAP);
obj_first:
    SKIP_WS();
    if (*p == '}') goto obj_end;
obj_key:
    RESERVE(2);
    if (SDX_LIKELY(*p == '"')) {
        p = read_string(ps, p, lim, val);
        if (SDX_UNLIKELY(!p)) goto fail;
        val++;
    } else {
        if (*p == '}' && (SDX_VAL_LEN(ctn) == 0 || (flags & SDX_JSON_READ_TRAILING_COMMAS))) goto obj_end;
        COMMENT_OR_FAIL(obj_key, SDX_VAL_LEN(ctn) == 0 ? "expected a string key or '}'"
                                              : "expected a string key");
    }
obj_colon:
    SKIP_WS();
    if (SDX_UNLIKELY(*p != ':')) COMMENT_OR_FAIL(obj_colon, "expected ':'");
    p++;
    SKIP_WS();
obj_val:
    VALUE_SWITCH(obj_next, obj_other, obj);
obj_other:
    if ((flags & SDX_JSON_READ_NAN_INF) && (*p == 'N' || *p == 'I')) {
        p = read_other_value(ps, p, val);
        if (!p) goto fail;
        val++;
        goto obj_next;
    }
    COMMENT_OR_FAIL(obj_val, "expected a value");
obj_next:
    ctn->tag += (uint64_t)1 << 16; /* one more element */
obj_after:
    SKIP_WS();
    if (SDX_LIKELY(*p == ',')) {
        p++;
        SKIP_WS();
        goto obj_key;
    }
    if (*p == '}') goto obj_end;
    COMMENT_OR_FAIL(obj_after, "expected ',' or '}'");
obj_end:
    CLOSE();

    /* ---- after the root value ---- */
doc_end:
    if (flags & SDX_JSON_READ_STOP_AFTER_VALUE) {
        if (root_scalar && p < lim && !is_delimiter(ps, (unsigned char)*p)) {
            error_unexpected(ps, p, "unexpected byte after the value");
            goto fail;
        }
        doc->consumed = (size_t)(p - ps->text);
    } else {
        for (;;) {
            if (p < lim && sdx_json_is_ws((unsigned char)*p)) p = sdx_json_skip_ws(p, lim);
            if (p < lim && *p == '/' && (flags & SDX_JSON_READ_COMMENTS)) {
                p = skip_comments(ps, p);
                if (!p) goto fail;
                continue;
            }
            break;
        }
        if (p < lim) {
            error_unexpected(ps, p, "unexpected content after the value");
            goto fail;
        }
        if (lim < ps->end) goto at_lim;
        doc->consumed = (size_t)(ps->end - ps->text);
    }
    doc->nvals = (size_t)(val - doc->vals);
    return true;

at_lim:
    error_at_lim(ps);
fail:
    doc->nvals = (size_t)(val - doc->vals);
    return false;

#undef RESERVE
#undef SKIP_WS
#undef COMMENT_OR_FAIL
#undef VALUE_SWITCH
#undef LITERAL
#undef OPEN
#undef CLOSE
}

/* ------------------------------------------------------------------------ */
/* Test hooks (json/parse_internal.h)                                        */
/* ------------------------------------------------------------------------ */

static atomic_int forced_path;   /* sdx_json_path */
static atomic_ulong declines;    /* parses the two-stage path gave up */

void sdx__json_parse_force_path(sdx_json_path path) {
    atomic_store_explicit(&forced_path, (int)path, memory_order_relaxed);
}

/* Whether the two stages run with the kernel table k (the CPU and the
 * active level; see "Two stages"). */
static bool two_stage_cpu(const sdx_simd_kernels *k) {
#ifdef SDX_JSON_INDEX
    return k->level == SDX_SIMD_AVX512 && sdx_simd_avx512_vbmi2();
#else
    (void)k;
    return false;
#endif
}

bool sdx__json_parse_two_stage_available(void) {
    return two_stage_cpu(sdx_simd_active());
}

unsigned long sdx__json_parse_declines(void) {
    return atomic_load_explicit(&declines, memory_order_relaxed);
}

/* ------------------------------------------------------------------------ */
/* Two stages: structural indexing, then the grammar over the index          */
/* ------------------------------------------------------------------------ */

/* On CPUs with AVX-512 VBMI2 and PCLMULQDQ (x86-64, GCC or clang), texts
 * dense in strings are parsed in two stages, the design of Langdale and
 * Lemire ("Parsing Gigabytes of JSON per Second", VLDB Journal 28, 2019),
 * written here from the paper's description:
 *
 * Stage 1 (index_chunk) looks at 64 bytes at a time and writes out the
 * offsets of the tokens' first bytes ("entries"): the quotes that open and
 * close strings, the structural characters {}[]:, outside strings, the
 * first byte of every other run outside strings and whitespace (a number,
 * a literal, or something invalid), and, inside strings, every escaping
 * backslash and control byte. The classes come from a table lookup on
 * each byte's two nibbles (the AND of the two entries has one bit per
 * class, the paper's section 3.1.2) and compares; the escaped bytes from
 * a loop over the backslashes (rare), not the paper's carry arithmetic;
 * the bytes inside strings from a prefix XOR of the delimiting quotes (one
 * carry-less multiplication by all ones, section 3.1.1); the offsets by
 * compressing the block's byte positions with the entry mask
 * (vpcompressb) and widening them, which bench/micro/json_index_bench.c
 * measured at a third of the paper's one-trailing-zero-count-per-entry loop
 * on this project's machine. It runs in chunks of IDX_CHUNK bytes into a
 * buffer on the stack, so the entries stay in cache and the document needs
 * no memory for them.
 *
 * Stage 2 (parse_indexed) is the one-pass parser's grammar and value array
 * over the entries: a string is its opening quote's entry up to the next
 * entry (its closing quote, or an escape handed to read_string_slow, after
 * which the entries inside the string are skipped); a number or literal is
 * read from its entry as in the one-pass parser and must end at
 * whitespace or a structural character; nothing between entries needs a
 * look. It takes the default options only (and BOM, BIGNUM_RAW), a text
 * that is valid UTF-8 throughout and not parsed in place, and it accepts
 * exactly the texts the one-pass parser accepts, into the same document.
 * Anything else it declines: at the first unexpected entry (any error, the
 * depth limit, memory) it gives up, and the one-pass parser parses the
 * text from the start, so every error, with its offset, line, column and
 * message, is the one-pass parser's. tests/unit/test_json_parse.c
 * (`two_stage_*`) and fuzz_json compare the two on every input.
 *
 * When. Stage 1 costs per byte and stage 2 saves per string (the
 * one-pass parser's scan for the closing quote, whose branch on the
 * string's length mispredicts on strings of mixed lengths, and its
 * whitespace runs): on twitter.json 10 % of a Tree test, on canada.json
 * (numbers, no strings) 11 % more. So the text's first 4 KiB decide:
 * two stages when they hold at least IDX_MIN_QUOTES quotes, in a text of
 * IDX_MIN_LEN bytes or more (bench/README.md, "Update, 2026-12-03
 * (evening)", has the measurements behind both). */
#ifdef SDX_JSON_INDEX
#define IDX_CHUNK 4096
#define IDX_MIN_QUOTES 224 /* in the first 4 KiB (or as many per byte) */
#define IDX_MIN_LEN 64      /* shorter texts: one pass (the stages' setup costs more) */

/* Stage 1's position and its state between blocks. */
typedef struct {
    const char *text; /* offsets are from here */
    size_t pos, end;  /* the next block starts at text + pos; the text ends at end */
    uint64_t escaped;   /* bit 0: the next block's first byte is escaped */
    uint64_t in_string; /* all ones when the last block ended inside a string */
    uint64_t scalar;    /* bit 0: the last block ended inside a scalar's run */
} json_index;

/* The strings of one 64-byte block, from its quote and backslash masks
 * and the carries of the block before (*escaped: bit 0 set when the first
 * byte is escaped; *in_string: all ones when a string is open): the
 * quotes that open and close strings (*quotes), the backslashes that
 * start escapes (*starts), and, returned, the bytes inside strings (an
 * opening quote is inside, a closing one is not). Updates both carries.
 * The escaped bytes come from a loop over the backslashes (rare), the
 * bytes inside from a prefix XOR of the quotes (one carry-less
 * multiplication by all ones, the paper's section 3.1.1). */
SDX_TARGET_AVX512_VBMI2 static inline __attribute__((always_inline)) uint64_t
idx_strings(uint64_t quote, uint64_t backslash, uint64_t *escaped_carry, uint64_t *in_string, uint64_t *quotes,
            uint64_t *starts) {
    /* escaped bytes: each one after a backslash that is not itself
     * escaped; `starts` are those backslashes */
    uint64_t escaped = *escaped_carry, st = 0;
    *escaped_carry = 0;
    if (SDX_UNLIKELY(backslash | escaped)) {
        uint64_t b = backslash & ~escaped;
        while (b) {
            const unsigned i = (unsigned)__builtin_ctzll(b);
            st |= (uint64_t)1 << i;
            if (i == 63) {
                *escaped_carry = 1;
                break;
            }
            escaped |= (uint64_t)2 << i;
            b &= ~((uint64_t)3 << i);
        }
    }
    *starts = st;
    *quotes = quote & ~escaped;
    const uint64_t inside = (uint64_t)_mm_cvtsi128_si64(_mm_clmulepi64_si128(
                                _mm_set_epi64x(0, (long long)*quotes), _mm_set1_epi8((char)0xFF), 0)) ^
                            *in_string;
    *in_string = (uint64_t)((int64_t)inside >> 63);
    return inside;
}

/* initial_slots' count on a CPU that runs the two-stage parse: returns
 * the quotes among text[0, n), as sample_counts does, and stores in
 * *marks the commas, colons and opening brackets outside strings, which
 * come closer to the slots the sample's values take. (Counted inside
 * strings too, the text of the generated data sets doubled the guess:
 * ext3 got 2.1 times the slots it needs, 1.81 bytes of slots per input
 * byte; outside strings 1.6 times, 1.39.) 64 bytes at a time. */
SDX_TARGET_AVX512_VBMI2 static size_t sample_counts_indexed(const char *text, size_t n, size_t *marks) {
    uint64_t escaped = 0, in_string = 0;
    size_t q = 0, m = 0;
    for (size_t i = 0; i < n; i += 64) {
        const uint64_t valid = n - i >= 64 ? ~(uint64_t)0 : _bzhi_u64(~(uint64_t)0, (unsigned)(n - i));
        const __m512i v = _mm512_maskz_loadu_epi8(valid, text + i);
        const uint64_t quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
        const uint64_t backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
        uint64_t quotes, starts;
        const uint64_t inside = idx_strings(quote, backslash, &escaped, &in_string, &quotes, &starts);
        const __m512i folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20)); /* '[' -> '{' */
        const uint64_t mark = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(',')) |
                              _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8(':')) |
                              _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{'));
        q += (size_t)_mm_popcnt_u64(quote);
        m += (size_t)_mm_popcnt_u64(mark & ~inside);
    }
    *marks = m;
    return q;
}

/* Stage 1 over the next IDX_CHUNK bytes (or what is left): their entries'
 * offsets into out (room for IDX_CHUNK + 64: up to 63 are written past the
 * count), in order; returns their count. The last block is read with a
 * masked load (the bytes past the end are neither read nor counted). */
SDX_TARGET_AVX512_VBMI2 static size_t index_chunk(json_index *ix, uint32_t *out) {
    /* the classes by nibble, one bit each: 1 ',' (0x2C), 2 ':' (0x3A), 4
     * the brackets (0x5B 0x5D 0x7B 0x7D), 8 ' ' (0x20), 16 '\t' '\n' '\r'
     * (0x09 0x0A 0x0D); a byte is in a class when both its nibbles' entries
     * have the bit (bytes >= 0x80 look up 0 for their low nibble) */
    const __m512i lo_table = _mm512_broadcast_i32x4(
        _mm_setr_epi8(8, 0, 0, 0, 0, 0, 0, 0, 0, 16, 2 | 16, 4, 1, 4 | 16, 0, 0));
    const __m512i hi_table =
        _mm512_broadcast_i32x4(_mm_setr_epi8(16, 0, 1 | 8, 2, 0, 4, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0));
    const __m512i iota = _mm512_set_epi8(
        63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45, 44, 43, 42, 41,
        40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18,
        17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    size_t k = 0;
    const size_t stop = ix->end - ix->pos > IDX_CHUNK ? ix->pos + IDX_CHUNK : ix->end;
    for (; ix->pos < stop; ix->pos += 64) {
        const size_t left = ix->end - ix->pos;
        uint64_t valid = ~(uint64_t)0;
        __m512i v;
        if (left >= 64) {
            v = _mm512_loadu_si512(ix->text + ix->pos);
        } else {
            valid = ((uint64_t)1 << left) - 1;
            v = _mm512_maskz_loadu_epi8(valid, ix->text + ix->pos);
        }
        const __m512i lo = _mm512_shuffle_epi8(lo_table, v);
        const __m512i hi = _mm512_shuffle_epi8(
            hi_table, _mm512_and_si512(_mm512_srli_epi16(v, 4), _mm512_set1_epi8(15)));
        const __m512i cls = _mm512_and_si512(lo, hi);
        const uint64_t structural = _mm512_test_epi8_mask(cls, _mm512_set1_epi8(7));
        const uint64_t space = _mm512_test_epi8_mask(cls, _mm512_set1_epi8(24));
        const uint64_t quote = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
        const uint64_t backslash = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\\'));
        const uint64_t control = _mm512_cmplt_epu8_mask(v, _mm512_set1_epi8(0x20));
        uint64_t quotes, starts;
        const uint64_t inside = idx_strings(quote, backslash, &ix->escaped, &ix->in_string, &quotes, &starts);
        /* runs of other bytes outside strings: their first bytes */
        const uint64_t other = ~(quote | structural | space) & ~inside;
        const uint64_t scalar_starts = other & ~(other << 1 | ix->scalar);
        ix->scalar = other >> 63;
        const uint64_t e =
            (quotes | (structural & ~inside) | scalar_starts | ((starts | control) & inside)) & valid;
        /* the entries' positions in the block, packed into the low bytes,
         * widened to offsets 16 at a time */
        const size_t n = (size_t)__builtin_popcountll(e);
        const __m512i pos = _mm512_maskz_compress_epi8(e, iota);
        const __m512i base = _mm512_set1_epi32((int)ix->pos);
        uint32_t *o = out + k;
        _mm512_storeu_si512(o, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(_mm512_castsi512_si128(pos))));
        if (n > 16) {
            _mm512_storeu_si512(o + 16, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(
                                                                   _mm512_extracti32x4_epi32(pos, 1))));
            if (n > 32) {
                _mm512_storeu_si512(o + 32, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(
                                                                       _mm512_extracti32x4_epi32(pos, 2))));
                _mm512_storeu_si512(o + 48, _mm512_add_epi32(base, _mm512_cvtepu8_epi32(
                                                                       _mm512_extracti32x4_epi32(pos, 3))));
            }
        }
        k += n;
    }
    if (ix->pos > ix->end) ix->pos = ix->end;
    return k;
}

#define IDX_END UINT32_MAX /* after the entries of a chunk */
static const uint32_t idx_end_entry = IDX_END;

typedef struct {
    json_index ix;
    uint32_t buf[IDX_CHUNK + 80];
} json_index_buf;

/* The next chunk's entries, followed by IDX_END; NULL when the input has
 * no more. */
static SDX_NOINLINE const uint32_t *idx_refill(json_index_buf *b) {
    while (b->ix.pos < b->ix.end) {
        const size_t k = index_chunk(&b->ix, b->buf);
        if (k) {
            b->buf[k] = IDX_END;
            return b->buf;
        }
    }
    return NULL;
}

/* Bytes after which a number or literal may end. */
static const uint8_t idx_delim[256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, [','] = 1, [':'] = 1,
    ['['] = 1, [']'] = 1, ['{'] = 1, ['}'] = 1,
};

/* Stage 2: parse ps->text from `start` (after a BOM) over stage 1's
 * entries into ps->doc, whose value array is allocated. 1 on success
 * (doc->nvals and doc->consumed set); 0 when it declines (see above). */
static SDX_NOINLINE int parse_indexed(parser *ps, const char *start, uint32_t max_depth) {
    const char *const text = ps->text, *const lim = ps->lim;
    sdx_doc *const doc = ps->doc;
    sdx_val *val = doc->vals;
    sdx_val *val_end = val + doc->vals_cap;
    sdx_val *ctn = val;
    json_index_buf ib;
    ib.ix.text = text;
    ib.ix.pos = (size_t)(start - text);
    ib.ix.end = (size_t)(lim - text);
    ib.ix.escaped = ib.ix.in_string = ib.ix.scalar = 0;
    ib.buf[0] = IDX_END;
    const uint32_t *cur = ib.buf;
    const char *p = start, *o;
    ps->depth_left = max_depth;

#define NEXT(on_end)                                                               \
    do {                                                                           \
        uint32_t e_ = *cur++;                                                      \
        if (SDX_UNLIKELY(e_ == IDX_END)) {                                         \
            cur = idx_refill(&ib);                                                 \
            if (!cur) goto on_end;                                                 \
            e_ = *cur++;                                                           \
        }                                                                          \
        p = text + e_;                                                             \
    } while (0)

#define RESERVE(n) VALS_RESERVE(n, decline)

/* the string whose opening quote is at p into *val */
#define STRING()                                                                   \
    do {                                                                           \
        o = p;                                                                     \
        NEXT(decline);                                                             \
        if (SDX_LIKELY(*p == '"')) {                                               \
            const size_t n_ = (size_t)(p - o - 1);                                 \
            val->tag = SDX_TYPE_STR | ((size_t)(lim - o - 1) >= 16 ? SDX_VAL_NOESC : 0) | \
                       (uint64_t)n_ << 16;                                         \
            val->v.s = o + 1;                                                      \
        } else {                                                                   \
            const char *q_ = read_string_slow(ps, o + 1, (size_t)(p - o - 1), val); \
            if (!q_) goto decline;                                                 \
            const uint32_t qo_ = (uint32_t)(q_ - text);                            \
            for (;;) { /* past the entries inside the string */                    \
                while (*cur < qo_) cur++;                                          \
                if (*cur != IDX_END) break;                                        \
                if (!(cur = idx_refill(&ib))) {                                    \
                    cur = &idx_end_entry; /* the next NEXT finds the end */        \
                    break;                                                         \
                }                                                                  \
            }                                                                      \
        }                                                                          \
        val++;                                                                     \
    } while (0)

#define IDX_LITERAL(w4, off, n, type, pl, after)                                   \
    do {                                                                           \
        if (SDX_UNLIKELY(lim - p < (n) || load4le(p + (off)) != (w4) ||           \
                         (lim - p > (n) && !idx_delim[(unsigned char)p[n]])))      \
            goto decline;                                                          \
        val->tag = (type);                                                         \
        val->v.u = (pl);                                                           \
        val++;                                                                     \
        goto after;                                                                \
    } while (0)

#define IDX_VALUE(after, in)                                                       \
    do {                                                                           \
        const unsigned vc_ = value_class[(unsigned char)*p];                       \
        if (vc_ & VC_STR) {                                                        \
            STRING();                                                              \
            goto after;                                                            \
        }                                                                          \
        if (vc_ & VC_NUM) {                                                        \
            const char *q_ = read_number(ps, p, lim, val);                         \
            if (SDX_UNLIKELY(!q_) || (q_ < lim && !idx_delim[(unsigned char)*q_])) \
                goto decline;                                                      \
            val++;                                                                 \
            goto after;                                                            \
        }                                                                          \
        if (vc_ & VC_OBJ) goto obj_begin_##in;                                     \
        if (vc_ & VC_ARR) goto arr_begin_##in;                                     \
        if (vc_ & VC_NULL) IDX_LITERAL(WORD4('n', 'u', 'l', 'l'), 0, 4, SDX_TYPE_NULL, 0, after); \
        if (vc_ & VC_TRUE) IDX_LITERAL(WORD4('t', 'r', 'u', 'e'), 0, 4, SDX_TYPE_BOOL, 1, after); \
        if (vc_ & VC_FALSE) IDX_LITERAL(WORD4('a', 'l', 's', 'e'), 1, 5, SDX_TYPE_BOOL, 0, after); \
        goto decline;                                                              \
    } while (0)

#define IDX_OPEN(type, parent_type) VALS_OPEN(type, parent_type, goto decline)

    NEXT(decline);
    RESERVE(1);
    IDX_VALUE(root_done, root);
root_done:
    goto doc_end;

arr_begin_root:
    IDX_OPEN(SDX_TYPE_ARRAY, 0);
    goto arr_first;
arr_begin_arr:
    IDX_OPEN(SDX_TYPE_ARRAY, SDX_TYPE_ARRAY);
    goto arr_first;
arr_begin_obj:
    IDX_OPEN(SDX_TYPE_ARRAY, SDX_TYPE_MAP);
arr_first:
    NEXT(decline);
    if (*p == ']') goto arr_end;
arr_val:
    RESERVE(1);
    IDX_VALUE(arr_next, arr);
arr_next:
    ctn->tag += (uint64_t)1 << 16;
    NEXT(decline);
    if (SDX_LIKELY(*p == ',')) {
        NEXT(decline);
        goto arr_val;
    }
    if (*p != ']') goto decline;
arr_end:
    VALS_CLOSE();

obj_begin_root:
    IDX_OPEN(SDX_TYPE_MAP, 0);
    goto obj_first;
obj_begin_arr:
    IDX_OPEN(SDX_TYPE_MAP, SDX_TYPE_ARRAY);
    goto obj_first;
obj_begin_obj:
    IDX_OPEN(SDX_TYPE_MAP, SDX_TYPE_MAP);
obj_first:
    NEXT(decline);
    if (*p == '}') goto obj_end;
obj_key:
    RESERVE(2);
    if (SDX_UNLIKELY(*p != '"')) goto decline;
    STRING();
    NEXT(decline);
    if (SDX_UNLIKELY(*p != ':')) goto decline;
    NEXT(decline);
    IDX_VALUE(obj_next, obj);
obj_next:
    ctn->tag += (uint64_t)1 << 16;
    NEXT(decline);
    if (SDX_LIKELY(*p == ',')) {
        NEXT(decline);
        goto obj_key;
    }
    if (*p != '}') goto decline;
obj_end:
    VALS_CLOSE();

doc_end:
    NEXT(done);
    goto decline; /* something after the root value */
done:
    doc->consumed = (size_t)(ps->end - ps->text);
    doc->nvals = (size_t)(val - doc->vals);
    return 1;
decline:
    return 0;

#undef NEXT
#undef RESERVE
#undef STRING
#undef IDX_LITERAL
#undef IDX_VALUE
#undef IDX_OPEN
}

/* parse_indexed, and when it declines, the parser's state reset for the
 * one-pass parser (which then starts over). */
static SDX_NOINLINE bool two_stage(parser *ps, const char *p, uint32_t max_depth) {
    if (parse_indexed(ps, p, max_depth)) return true;
    atomic_fetch_add_explicit(&declines, 1, memory_order_relaxed);
    ps->code = SDX_OK;
    ps->err_at = ps->msg = NULL;
    ps->str_begin = ps->str_dst = NULL;
    ps->sbuf = ps->send = NULL;
    ps->sblocks = 0;
    ps->doc->nvals = 0;
    return false;
}
#endif /* SDX_JSON_INDEX */

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

static void fill_error(sdx_error *err, sdx_err code, size_t off, size_t line, size_t col,
                       const char *msg) {
    if (!err) return;
    err->code = code;
    err->offset = off;
    err->line = line;
    err->column = col;
    err->msg = msg;
}

/* Parse `len` bytes at `data`; `wdata` is the same bytes, writable, when
 * parsing in place (else NULL). */
static sdx_doc *parse(const char *data, char *wdata, size_t len, const sdx_json_read_opts *opts,
                      sdx_error *err) {
    const uint32_t flags = opts ? opts->flags : 0;
    const uint32_t max_depth =
        opts && opts->max_depth ? opts->max_depth : SDX_JSON_DEFAULT_MAX_DEPTH;
    const sdx_alloc *alloc = opts && opts->alloc ? opts->alloc : sdx_alloc_default();
    if (!data && len) {
        fill_error(err, SDX_ERR_INVALID_ARG, 0, 1, 1, "no input");
        return NULL;
    }
    if (len > SDX_VAL_LEN_MAX) {
        fill_error(err, SDX_ERR_LIMIT, 0, 1, 1, "input too large");
        return NULL;
    }
    if (!data) data = "";

    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.flags = flags;
    ps.numflags = (flags & SDX_JSON_READ_BIGNUM_RAW) ? SDX_NUM_BIG_RAW : 0;
    ps.k = sdx_simd_active();
    ps.utf8_per_string = (flags & SDX_JSON_READ_STOP_AFTER_VALUE) != 0;

    sdx_doc *doc = sdx_doc_alloc(alloc);
    if (!doc) {
        fill_error(err, SDX_ERR_NOMEM, 0, 1, 1, "out of memory");
        return NULL;
    }
    ps.doc = doc;
    const char *orig = data;
    bool ok = false;
    if (!wdata && (flags & SDX_JSON_READ_COPY_INPUT) && len) {
        wdata = sdx_doc_block_alloc(doc, len);
        if (!wdata) {
            set_error(&ps, SDX_ERR_NOMEM, data, "out of memory");
            ps.text = data;
            goto done;
        }
        memcpy(wdata, data, len);
        data = wdata;
    }
    ps.text = data;
    ps.wtext = wdata;
    ps.end = data + len;
    ps.lim = ps.utf8_per_string ? ps.end : data + ps.k->utf8_valid_prefix(data, len);

#ifdef SDX_JSON_INDEX
    /* the two-stage parse: whether it may take this text (see "Two
     * stages"); the sample's quotes decide, unless a test forces a path */
    const int path = atomic_load_explicit(&forced_path, memory_order_relaxed);
    const bool two_stage_ok = !wdata && ps.lim == ps.end && len <= UINT32_MAX - 128 &&
                              !(flags & ~(uint32_t)(SDX_JSON_READ_BOM | SDX_JSON_READ_BIGNUM_RAW)) &&
                              (path == SDX_JSON_PATH_TWO_STAGE ||
                               (path == SDX_JSON_PATH_AUTO && len >= IDX_MIN_LEN)) &&
                              two_stage_cpu(ps.k);
    size_t quotes = 0;
    const size_t guess = initial_slots(data, len, two_stage_ok ? &quotes : NULL);
#else
    const size_t guess = initial_slots(data, len, NULL);
#endif
    const size_t cap = sdx_doc_first_slots(doc, SDX_DOC_RATE_JSON, guess, len, max_slots(len));
    doc->vals = alloc->malloc(alloc->ctx, cap * sizeof(sdx_val));
    if (!doc->vals) {
        set_error(&ps, SDX_ERR_NOMEM, data, "out of memory");
        goto done;
    }
    doc->vals_cap = cap;

    const char *p = data;
    if ((flags & SDX_JSON_READ_BOM) && len >= 3 && (unsigned char)p[0] == 0xEF &&
        (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF && ps.lim - p >= 3)
        p += 3;
#ifdef SDX_JSON_INDEX
    if (two_stage_ok && (path == SDX_JSON_PATH_TWO_STAGE ||
                         quotes * SLOT_SAMPLE >= (size_t)IDX_MIN_QUOTES * (len < SLOT_SAMPLE ? len : SLOT_SAMPLE))) {
        if (two_stage(&ps, p, max_depth)) {
            ok = true;
            goto done;
        }
    }
#endif
    ok = parse_text(&ps, p, max_depth);

done:
    if (ok) {
        sdx_doc_note_rate(doc, SDX_DOC_RATE_JSON, len);
        doc->err = SDX_OK;
        fill_error(err, SDX_OK, 0, 0, 0, sdx_strerror(SDX_OK));
        return doc;
    }
    const size_t off = (size_t)(ps.err_at - ps.text);
    size_t line, col;
    if (ps.wtext && orig != ps.text) {
        /* the copy was modified; the caller's input was not */
        locate(orig, off, NULL, &line, &col);
    } else if (ps.wtext) {
        skip_regions skip = {doc->vals, doc->vals ? doc->vals + doc->nvals : NULL, ps.text, 0, 0};
        if (ps.str_dst) {
            skip.cur_from = (size_t)(ps.str_begin - ps.text);
            skip.cur_to = (size_t)(ps.str_dst - ps.text);
        }
        locate(ps.text, off, &skip, &line, &col);
    } else {
        locate(ps.text, off, NULL, &line, &col);
    }
    fill_error(err, ps.code, off, line, col, ps.msg);
    sdx_doc_free(doc);
    return NULL;
}

SDX_API sdx_doc *sdx_json_parse(const char *data, size_t len, const sdx_json_read_opts *opts,
                                sdx_error *err) {
    return parse(data, NULL, len, opts, err);
}

SDX_API sdx_doc *sdx_json_parse_insitu(char *data, size_t len, const sdx_json_read_opts *opts,
                                       sdx_error *err) {
    return parse(data, data, len, opts, err);
}
