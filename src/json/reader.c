/*
 * The incremental (pull) JSON reader: sdx_json_reader_*.
 *
 * Structure. sdx_json_reader_next() loads the cursor and the limit into
 * locals, jumps to the label of the reader's state (what may come next) and
 * runs the grammar with gotos until it has one event; the value position
 * dispatches on the first byte. Everything rare (escapes, errors, comments,
 * NaN and Infinity, tokens that run into the end of the window) is in
 * separate functions.
 *
 * The window. The reader sees its input through a window [buf, end) of
 * bytes in memory, of which [buf, lim) are known to be well-formed UTF-8;
 * the hot code never reads at or beyond lim. When a token or a run of
 * whitespace reaches lim, more() makes more bytes available: over memory it
 * validates the next block of the input (so validation runs just ahead of
 * reading, on bytes about to be read anyway, and a reader that stops early
 * never looks at the rest); over a stream it reads the next chunk into the
 * reader's buffer, first moving the unfinished token to the front, and
 * validates it (a UTF-8 sequence cut by the chunk's end waits for the next
 * chunk). Only at the real end of the input, or at the first ill-formed
 * UTF-8 sequence, does more() find nothing, and the token's reader then
 * reports the end of input or SDX_ERR_UTF8 at that byte. So UTF-8 errors,
 * like every other error, are reported in document order: the first
 * invalid byte acts as the end of the input, as in the tree parser.
 *
 * Memory. Nothing is allocated per element. Strings without escapes point
 * into the input (or the stream buffer); strings with escapes are unescaped
 * into one scratch area that grows to the longest of them (over a stream,
 * in place in the buffer, which the reader owns). The stream buffer holds a
 * chunk plus the token in progress: it grows only when moving that token to
 * the front leaves less than half a chunk of room, to the token's size plus
 * a chunk or half the token's size, whichever is more. So a long token
 * costs O(its length) in copies, and the buffer stays below chunk + 1.5 x
 * the longest token. Nesting is a stack of one bit per level
 * (map or array), inline up to 1024 levels and grown through the allocator
 * beyond, never on the C stack.
 */
#include <stddef.h>
#include <string.h>

#ifndef SDX_NO_STDIO
#include <stdio.h>
#endif

#include "core/alloc.h"
#include "core/platform.h"
#include "core/stream.h"
#include "core/utf8.h"
#include "json/lex.h"
#include "json/reader_internal.h"
#include "num/json_number.h"
#include "num/num.h"
#include "sdx/json.h"
#include "simd/inline.h"
#include "simd/simd.h"

/* Input in memory is validated this many bytes at a time. */
#define MEM_BLOCK ((size_t)64 * 1024)
/* Nesting levels whose bits live inside the reader. */
#define INLINE_LEVELS 1024

/* What may come next: the label next() starts at. The states inside
 * containers are single bits, tested one after another by how often they
 * come (see there); the others are rare. */
enum {
    ST_MAP_COLON = SDX_JSON_HOT_MAP_COLON, /* after a key: ':' and the member's value */
    ST_MAP_NEXT = SDX_JSON_HOT_MAP_NEXT,   /* after a member: ',' or '}' */
    ST_ARR_NEXT = SDX_JSON_HOT_ARR_NEXT,   /* after an element: ',' or ']' */
    ST_MAP_FIRST = SDX_JSON_HOT_MAP_FIRST, /* after '{': a key or '}' */
    ST_ARR_FIRST = SDX_JSON_HOT_ARR_FIRST, /* after '[': an element or ']' */
    ST_ROOT = 32,                          /* a top-level value */
    ST_AFTER_ROOT = SDX_JSON_HOT_AFTER_ROOT, /* a top-level value is complete: the end, or
                                                (sequences) the next one */
    ST_BOM = 96,        /* nothing read yet, SDX_JSON_READ_BOM given */
    ST_END = 128,       /* the input ended cleanly */
    ST_ERROR = 160      /* reading failed (r->err) */
};

/* Where a value is read, for what else may stand there and the message when
 * nothing fits. */
enum { AT_ROOT, AT_ARR_FIRST, AT_ARR, AT_MAP };

/* Line feeds counted up to a position of the window. */
typedef struct line_mark {
    const char *pos;     /* in [buf, end] */
    uint64_t lines;      /* line feeds before pos */
    uint64_t line_start; /* input offset just after the last of them (0: none) */
} line_mark;

struct sdx_json_reader {
    /* hot: cur (just after the last event: where next() goes on; NULL once
     * a stream's buffer dropped it, see last_off), lim (end of the
     * validated bytes), stack, depth, push_limit, state; the inline path of
     * json.h reads and advances them */
    sdx_json_reader_hot h;
    bool stream;
    bool eof;        /* no bytes after `end` will come (always, over memory) */
    uint32_t max_depth;
    uint32_t flags;  /* sdx_json_read_flag */
    unsigned numflags;
    const char *buf; /* start of the window: input offset base_off */
    const char *end; /* end of the bytes in the window */
    uint64_t base_off;
    uint64_t last_off; /* input offset after the last event, while cur is NULL */
    size_t (*scan)(const char *s, size_t n);  /* json_string_scan */
    size_t (*valid)(const char *s, size_t n); /* utf8_valid_prefix */
    uint64_t stack_levels;                    /* levels the stack holds */
    /* unescaped strings (over memory) */
    char *scratch;
    size_t scratch_cap;
    /* a stream */
    sdx_read_fn read;
    void *read_ctx;
    size_t chunk;
    char *sbuf;
    size_t sbuf_cap;
    /* Line positions. `lines` points to `line_own`: the clone hook advances
     * it through a const reader (a cache; it changes no result). */
    line_mark *lines;
    line_mark line_own;
    /* the first error */
    sdx_err err;
    const char *err_msg;
    uint64_t err_off, err_line, err_col;
    sdx_alloc alloc;
    uint64_t inline_stack[INLINE_LEVELS / 64];
};

/* ------------------------------------------------------------------------ */
/* Errors and positions                                                      */
/* ------------------------------------------------------------------------ */

/* Line feeds in [p, end). Pretty-printed text has one every few bytes, so
 * they are counted without branches: 16 bytes at a time into byte counters
 * with SSE2, else 8 at a time, from the high bit of each byte of
 * x ^ "\n\n\n\n\n\n\n\n" that is zero (exact for every byte, no carry between
 * bytes), summed by a multiply. */
static uint64_t count_lines(const char *p, const char *end) {
    uint64_t n = 0;
#if defined(SDX_INLINE_SSE2)
    const __m128i nl = _mm_set1_epi8('\n');
    while (end - p >= 16) {
        size_t blocks = (size_t)(end - p) / 16;
        if (blocks > 255) blocks = 255; /* byte counters */
        __m128i acc = _mm_setzero_si128();
        for (size_t i = 0; i < blocks; i++, p += 16)
            acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)p), nl));
        const __m128i sums = _mm_sad_epu8(acc, _mm_setzero_si128());
        n += (uint64_t)_mm_cvtsi128_si32(sums) +
             (uint64_t)_mm_cvtsi128_si32(_mm_srli_si128(sums, 8));
    }
#endif
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full;
    for (; end - p >= 8; p += 8) {
        const uint64_t t = sdx_load64le(p) ^ 0x0A0A0A0A0A0A0A0Aull;
        const uint64_t hits = ~(((t & low7) + low7) | t | low7);
        n += ((hits >> 7) * 0x0101010101010101ull) >> 56;
    }
    for (; p < end; p++) n += *p == '\n';
    return n;
}

/* Move the line mark forward to `to` (>= its position). */
static void advance_lines(line_mark *m, const char *buf, uint64_t base_off, const char *to) {
    const uint64_t n = count_lines(m->pos, to);
    if (n) {
        const char *q = to;
        while (*--q != '\n') {
        }
        m->lines += n;
        m->line_start = base_off + (uint64_t)(q + 1 - buf);
    }
    m->pos = to;
}

/* Keep the first error: code, message, and the position of `at` (a byte of
 * the window, or its end). */
static SDX_NOINLINE void set_error(sdx_json_reader *r, sdx_err code, const char *at,
                                   const char *msg) {
    r->h.state = ST_ERROR;
    if (r->err != SDX_OK) return;
    r->err = code;
    r->err_msg = msg;
    line_mark m = *r->lines;
    if (at < m.pos) at = m.pos; /* only an allocation failure in a string unescaped in place */
    r->err_off = r->base_off + (uint64_t)(at - r->buf);
    advance_lines(&m, r->buf, r->base_off, at);
    r->err_line = m.lines + 1;
    r->err_col = r->err_off - m.line_start + 1;
}

/* Reading stopped at lim and no more bytes come: the end of the input
 * inside a value, or the first ill-formed UTF-8 sequence. */
static SDX_NOINLINE void fail_at_lim(sdx_json_reader *r) {
    if (r->h.lim < r->end) set_error(r, SDX_ERR_UTF8, r->h.lim, "invalid UTF-8");
    else set_error(r, SDX_ERR_TRUNCATED, r->end, "unexpected end of input");
}

/* The same inside the text of a string or comment, where the input may also
 * end in the middle of a character: that is the end of input (the text could
 * go on), not invalid UTF-8. */
static bool tail_is_truncation(const sdx_json_reader *r) {
    return r->h.lim < r->end && r->eof && sdx_utf8_is_cut(r->h.lim, (size_t)(r->end - r->h.lim));
}

static SDX_NOINLINE void fail_at_lim_in_text(sdx_json_reader *r) {
    if (tail_is_truncation(r)) set_error(r, SDX_ERR_TRUNCATED, r->end, "unexpected end of input");
    else fail_at_lim(r);
}

/* ------------------------------------------------------------------------ */
/* The window                                                                */
/* ------------------------------------------------------------------------ */

/* Length of the well-formed sequence at p (p[0] >= 0x80) if it is complete
 * within avail bytes, else 0. */
static size_t utf8_seq_at(const char *p, size_t avail) {
    const unsigned char c = (unsigned char)p[0];
    const size_t len = c < 0xC2 ? 0 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF5 ? 4 : 0;
    if (!len || avail < len) return 0;
    return sdx_utf8_valid_prefix(p, len) == len ? len : 0;
}

/* Validate bytes after lim: one block over memory, all there are in a
 * stream's buffer. Returns whether lim moved. */
static bool validate_more(sdx_json_reader *r) {
    const char *lim = r->h.lim;
    const size_t avail = (size_t)(r->end - lim);
    if (!avail) return false;
    const size_t n = !r->stream && avail > MEM_BLOCK ? MEM_BLOCK : avail;
    size_t ok = r->valid(lim, n);
    /* a sequence the block's end cut is whole when the bytes after count */
    if (ok < n) ok += utf8_seq_at(lim + ok, avail - ok);
    r->h.lim = lim + ok;
    return ok > 0;
}

/* Stream: move [keep, end) to the front of the buffer, grow it if little
 * room is left, and read one chunk after it. Returns keep's new address
 * (the buffer's start), or NULL with the error set; the window has then
 * moved all the same, keep's byte to the buffer's start. */
static SDX_NOINLINE const char *refill(sdx_json_reader *r, const char *keep) {
    const size_t drop = (size_t)(keep - r->buf), used = (size_t)(r->end - keep);
    const size_t lim_off = (size_t)(r->h.lim - keep);
    /* the last event's end, if it is dropped, as an offset */
    if (r->h.cur && r->h.cur < keep) {
        r->last_off = r->base_off + (uint64_t)(r->h.cur - r->buf);
        r->h.cur = NULL;
    }
    const size_t cur_off = r->h.cur ? (size_t)(r->h.cur - keep) : 0;
    /* the line mark may lie beyond keep (see read_string_slow) */
    size_t mark_off = 0;
    if (r->lines->pos > keep) mark_off = (size_t)(r->lines->pos - keep);
    else advance_lines(r->lines, r->buf, r->base_off, keep);
    if (drop) memmove(r->sbuf, keep, used);
    r->base_off += drop;
    r->buf = r->sbuf;
    r->end = r->sbuf + used;
    r->h.lim = r->sbuf + lim_off;
    r->lines->pos = r->sbuf + mark_off;
    if (r->h.cur) r->h.cur = r->sbuf + cur_off;
    size_t room = r->sbuf_cap - used;
    const size_t min_room = r->chunk / 2 ? r->chunk / 2 : 1;
    if (room < min_room) {
        const size_t grow = r->chunk > used / 2 ? r->chunk : used / 2;
        if (grow > SIZE_MAX - used) {
            set_error(r, SDX_ERR_NOMEM, r->sbuf, "out of memory");
            return NULL;
        }
        const size_t cap = used + grow;
        char *nb = r->alloc.realloc(r->alloc.ctx, r->sbuf, r->sbuf_cap, cap);
        if (!nb) {
            set_error(r, SDX_ERR_NOMEM, r->sbuf, "out of memory");
            return NULL;
        }
        r->sbuf = nb;
        r->sbuf_cap = cap;
        r->buf = nb;
        r->end = nb + used;
        r->h.lim = nb + lim_off;
        r->lines->pos = nb + mark_off;
        if (r->h.cur) r->h.cur = nb + cur_off;
        room = cap - used;
    }
    const size_t want = room < r->chunk ? room : r->chunk;
    const size_t got = r->read(r->read_ctx, r->sbuf + used, want);
    if (got == (size_t)-1 || got > want) {
        set_error(r, SDX_ERR_IO, r->end, "read error");
        return NULL;
    }
    if (got == 0) r->eof = true;
    r->end += got;
    return r->sbuf;
}

/* Make more validated bytes available after lim, keeping [*keep, lim)
 * (*keep <= lim: the token in progress). Returns true if lim moved, false
 * when no more bytes come: the end of the input, an ill-formed UTF-8
 * sequence at lim, or an error (set). Either way *keep is updated to where
 * its byte is now: in a stream the window may have moved, and every other
 * pointer into it is stale. */
static SDX_NOINLINE bool more(sdx_json_reader *r, const char **keep) {
    if (r->err != SDX_OK) return false;
    for (;;) {
        if (validate_more(r)) return true;
        if (r->eof) return false;
        /* a stream: more bytes may complete a sequence cut at the end */
        if (r->h.lim < r->end && !sdx_utf8_is_cut(r->h.lim, (size_t)(r->end - r->h.lim))) return false;
        const char *k = refill(r, *keep);
        *keep = r->sbuf; /* moved there even when the read failed */
        if (!k) return false;
    }
}

/* more() for a token that starts at *tok and is being read at *at: both
 * follow the window. */
static bool more_in_token(sdx_json_reader *r, const char **tok, const char **at) {
    const size_t off = (size_t)(*at - *tok);
    const bool got = more(r, tok);
    *at = *tok + off;
    return got;
}

/* Skip whitespace from p == r->h.lim on, making more bytes available as
 * needed; returns the first other byte, or r->h.lim when none comes. */
static SDX_NOINLINE const char *skip_ws_more(sdx_json_reader *r, const char *p) {
    for (;;) {
        if (!more(r, &p)) return r->h.lim;
        p = sdx_json_skip_ws(p, r->h.lim);
        if (p < r->h.lim) return p;
    }
}

/* Make at least `need` validated bytes available at p if the input has
 * them; returns p's address afterwards. */
static const char *want_bytes(sdx_json_reader *r, const char *p, size_t need) {
    while ((size_t)(r->h.lim - p) < need && more(r, &p)) {
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Comments                                                                  */
/* ------------------------------------------------------------------------ */

/* At a '/' (p < r->h.lim) with SDX_JSON_READ_COMMENTS: skip comments and the
 * whitespace between and after them. Returns the first other byte, r->h.lim
 * when the input ends (after a line comment, or at an ill-formed byte), or
 * NULL with the error set. */
static SDX_NOINLINE const char *skip_comments(sdx_json_reader *r, const char *p) {
    while (p < r->h.lim && *p == '/') {
        p = want_bytes(r, p, 2);
        if (r->h.lim - p < 2) {
            fail_at_lim(r);
            return NULL;
        }
        if (p[1] == '/') {
            p += 2;
            for (;;) { /* to the line feed, which the whitespace skip takes */
                const char *nl = memchr(p, '\n', (size_t)(r->h.lim - p));
                if (nl) {
                    p = nl;
                    break;
                }
                p = r->h.lim;
                if (!more(r, &p)) {
                    if (r->err != SDX_OK) return NULL;
                    if (tail_is_truncation(r)) {
                        fail_at_lim_in_text(r);
                        return NULL;
                    }
                    /* a line comment may end the input; an invalid byte is
                     * reported where the caller stands */
                    return r->h.lim;
                }
            }
        } else if (p[1] == '*') {
            p += 2;
            for (;;) {
                const char *star = memchr(p, '*', (size_t)(r->h.lim - p));
                if (star && r->h.lim - star >= 2) {
                    if (star[1] == '/') {
                        p = star + 2;
                        break;
                    }
                    p = star + 1;
                    continue;
                }
                /* a '*' at the last byte may begin the end */
                p = star ? star : r->h.lim;
                if (!more(r, &p)) {
                    if (r->err == SDX_OK) fail_at_lim_in_text(r);
                    return NULL;
                }
            }
        } else {
            set_error(r, SDX_ERR_SYNTAX, p, "invalid comment");
            return NULL;
        }
        p = sdx_json_skip_ws(p, r->h.lim);
        if (p == r->h.lim) p = skip_ws_more(r, p);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Strings                                                                   */
/* ------------------------------------------------------------------------ */

/* Room for `need` bytes in the scratch area (over memory). */
static bool scratch_reserve(sdx_json_reader *r, size_t need) {
    if (need <= r->scratch_cap) return true;
    size_t cap = r->scratch_cap ? r->scratch_cap : 64;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *nb = r->alloc.realloc(r->alloc.ctx, r->scratch, r->scratch_cap, cap);
    if (!nb) return false;
    r->scratch = nb;
    r->scratch_cap = cap;
    return true;
}

/* The string whose opening quote is at q, whose body was scanned n bytes
 * without reaching its end: it holds an escape or a control character, or
 * runs into lim. Stores the (unescaped) text in ev->v.str and returns
 * the byte after the closing quote, or NULL with the error set. Over a
 * stream the window may move, and the text is unescaped in place. */
static SDX_NOINLINE const char *read_string_slow(sdx_json_reader *r, const char *q, size_t n,
                                                 sdx_event *ev) {
    const char *lim = r->h.lim;
    const char *src = q + 1 + n;
    bool escaped = false;
    size_t dlen = 0; /* unescaped bytes so far, once escaped */
    for (;;) {
        if (escaped && r->stream) r->lines->pos = src; /* beyond what was written */
        if (src == lim) {
            const bool got = more_in_token(r, &q, &src);
            lim = r->h.lim;
            if (!got) {
                fail_at_lim_in_text(r);
                return NULL;
            }
        } else {
            const unsigned char c = (unsigned char)*src;
            if (c == '"') break;
            if (c != '\\') {
                set_error(r, SDX_ERR_SYNTAX, src, "control character in string");
                return NULL;
            }
            if (!escaped) { /* the plain text so far starts the output */
                escaped = true;
                dlen = (size_t)(src - (q + 1));
                if (r->stream) {
                    /* Unescaping in place puts line feeds that were \n
                     * escapes into the window: count the real ones up to
                     * here (a string holds none raw) and keep the line mark
                     * ahead of what is written from now on. */
                    if (r->lines->pos < src) advance_lines(r->lines, r->buf, r->base_off, src);
                } else {
                    if (!scratch_reserve(r, dlen + 4)) {
                        set_error(r, SDX_ERR_NOMEM, q, "out of memory");
                        return NULL;
                    }
                    memcpy(r->scratch, q + 1, dlen);
                }
            } else if (!r->stream && !scratch_reserve(r, dlen + 4)) {
                set_error(r, SDX_ERR_NOMEM, q, "out of memory");
                return NULL;
            }
            char *base = r->stream ? r->sbuf + (q + 1 - r->buf) : r->scratch;
            char *d = base + dlen;
            sdx_json_lexerr e;
            const char *next = sdx_json_unescape_one(src, lim, &d, &e);
            if (!next) {
                if (e.code != SDX_ERR_TRUNCATED) {
                    set_error(r, e.code, e.at, e.msg);
                    return NULL;
                }
                /* the escape runs into lim: read it again with more bytes */
                const bool got = more_in_token(r, &q, &src);
                lim = r->h.lim;
                if (!got) {
                    fail_at_lim(r);
                    return NULL;
                }
                continue;
            }
            dlen = (size_t)(d - base);
            src = next;
            if (src < lim && *src == '\\') continue; /* escapes in a row: no run between */
        }
        /* the plain run from src */
        const size_t m = r->scan(src, (size_t)(lim - src));
        if (escaped) {
            if (r->stream) {
                memmove(r->sbuf + (q + 1 - r->buf) + dlen, src, m);
            } else {
                if (!scratch_reserve(r, dlen + m + 4)) {
                    set_error(r, SDX_ERR_NOMEM, q, "out of memory");
                    return NULL;
                }
                memcpy(r->scratch + dlen, src, m);
            }
            dlen += m;
        }
        src += m;
    }
    if (!escaped) {
        ev->v.str.ptr = q + 1;
        ev->v.str.len = (size_t)(src - (q + 1));
    } else {
        ev->v.str.ptr = r->stream ? r->sbuf + (q + 1 - r->buf) : r->scratch;
        ev->v.str.len = dlen;
    }
    return src + 1;
}

/* The string whose opening quote is at p (p < lim) into ev->v.str;
 * returns the byte after the closing quote, or NULL with the error set. The
 * first 32 bytes are scanned inline, 16 at a time (most keys and values are
 * shorter, and a call through the kernel table costs more than the scan);
 * longer strings go on with the kernel. */
static SDX_ALWAYS_INLINE const char *read_string(sdx_json_reader *r, const char *p,
                                                 const char *lim, sdx_event *ev) {
    const char *s = p + 1;
    const size_t avail = (size_t)(lim - s);
    size_t n;
    if (SDX_LIKELY(avail >= 32)) {
        n = sdx_inline_string_stop16(s);
        if (n == 16) {
            n = 16 + sdx_inline_string_stop16(s + 16);
            if (n == 32) n = 32 + r->scan(s + 32, avail - 32);
        }
    } else {
        n = r->scan(s, avail);
    }
    if (SDX_LIKELY(n < avail && s[n] == '"')) {
        ev->v.str.ptr = s;
        ev->v.str.len = n;
        return s + n + 1;
    }
    return read_string_slow(r, p, n, ev);
}

/* ------------------------------------------------------------------------ */
/* Numbers and literals                                                      */
/* ------------------------------------------------------------------------ */

/* The event kind for each sdx_num_kind but SDX_NUM_BIG. */
static const uint8_t num_kind[3] = {SDX_INT, SDX_UINT, SDX_DOUBLE};

static double double_from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* The literal `word` (n bytes) at p; returns its end, or NULL with the
 * error set. */
static SDX_NOINLINE const char *read_literal(sdx_json_reader *r, const char *p, const char *word,
                                             size_t n) {
    for (;;) {
        sdx_json_lexerr e;
        if (sdx_json_match_word(p, r->h.lim, word, n, &e)) return p + n;
        if (e.code != SDX_ERR_TRUNCATED) {
            set_error(r, e.code, e.at, e.msg);
            return NULL;
        }
        if (!more(r, &p)) {
            fail_at_lim(r);
            return NULL;
        }
    }
}

/* NaN, Infinity or -Infinity at p (p < lim) with SDX_JSON_READ_NAN_INF. */
static SDX_NOINLINE const char *read_nan_inf(sdx_json_reader *r, const char *p, sdx_event *ev) {
    const bool neg = *p == '-';
    const char *w = p + neg;
    uint64_t bits;
    if (*w == 'N' && !neg) {
        w = read_literal(r, w, "NaN", 3);
        bits = 0x7FF8000000000000ull;
    } else {
        w = read_literal(r, w, "Infinity", 8);
        bits = neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull;
    }
    if (!w) return NULL;
    ev->kind = SDX_DOUBLE;
    ev->v.d = double_from_bits(bits);
    return w;
}

/* The number at p whose text reached lim or did not parse: with more bytes
 * if it may go on, else its value or the error. */
static SDX_NOINLINE const char *read_number_slow(sdx_json_reader *r, const char *p,
                                                 sdx_event *ev) {
    for (;;) {
        const char *lim = r->h.lim;
        sdx_num num;
        const char *err_at = NULL;
        const char *q = sdx_json_number(p, lim, r->numflags, &num, &err_at);
        if (!q && (!err_at || err_at < p)) err_at = p;
        if (q ? q == lim : err_at >= lim) {
            /* it may go on: a number is complete only before a byte that
             * cannot continue it, or at the end of the input */
            if (!q) {
                if (!more(r, &p) && r->err == SDX_OK) fail_at_lim(r);
                if (r->err != SDX_OK) return NULL;
                continue;
            }
            if (more_in_token(r, &p, &q)) continue;
            if (r->err != SDX_OK) return NULL;
            lim = r->h.lim;
        }
        if (!q) {
            if ((r->flags & SDX_JSON_READ_NAN_INF) && p + 1 < lim && p[1] == 'I')
                return read_nan_inf(r, p, ev);
            set_error(r, SDX_ERR_SYNTAX, err_at, "invalid number");
            return NULL;
        }
        if (SDX_LIKELY(num.kind != SDX_NUM_BIG)) {
            ev->kind = num_kind[num.kind];
            ev->v.u = num.v.u; /* the same 8 bytes for int64, uint64 and double */
        } else {
            ev->kind = SDX_RAW;
            ev->v.str.ptr = p;
            ev->v.str.len = (size_t)(q - p);
        }
        return q;
    }
}

/* The number at p (p < lim) into *ev; returns its end, or NULL with the
 * error set. The common forms are read inline (num/json_number.h). */
static SDX_ALWAYS_INLINE const char *read_number(sdx_json_reader *r, const char *p,
                                                 const char *lim, sdx_event *ev) {
    _Static_assert(SDX_UINT == SDX_INT + SDX_NUM_UINT && SDX_DOUBLE == SDX_INT + SDX_NUM_DOUBLE,
                   "event kinds in the order of sdx_num_kind");
    unsigned kind;
    uint64_t bits;
    const char *q = sdx_json_number_fast(p, lim, &kind, &bits);
    if (SDX_LIKELY(q != NULL)) {
        ev->kind = (uint8_t)(SDX_INT + kind);
        ev->v.u = bits;
        return q;
    }
    return read_number_slow(r, p, ev);
}

/* ------------------------------------------------------------------------ */
/* Nesting                                                                   */
/* ------------------------------------------------------------------------ */

/* Whether nesting level `level` (1 = the outermost container) is a map. */
static inline bool level_is_map(const sdx_json_reader *r, uint32_t level) {
    return (r->h.stack[(level - 1) >> 6] >> ((level - 1) & 63)) & 1;
}

/* The depth below which json.h's inline path may open a container: the
 * depth limit, and the levels the stack holds. */
static void set_push_limit(sdx_json_reader *r) {
    r->h.push_limit = r->stack_levels < r->max_depth ? (uint32_t)r->stack_levels : r->max_depth;
}

/* Double the stack's levels (but not beyond the limit, in whole words). */
static SDX_NOINLINE bool grow_stack(sdx_json_reader *r, const char *at) {
    const uint64_t limit = ((uint64_t)r->max_depth + 63) / 64 * 64;
    uint64_t levels = r->stack_levels * 2;
    if (levels > limit) levels = limit;
    const size_t old_size = (size_t)(r->stack_levels / 8), size = (size_t)(levels / 8);
    uint64_t *ns = sdx_grow_inline(&r->alloc, r->h.stack, r->inline_stack, old_size, old_size, size);
    if (!ns) {
        set_error(r, SDX_ERR_NOMEM, at, "out of memory");
        return false;
    }
    r->h.stack = ns;
    r->stack_levels = levels;
    set_push_limit(r);
    return true;
}

/* Open a container (its bracket at `at`) one level down. */
static SDX_ALWAYS_INLINE bool push(sdx_json_reader *r, const char *at, bool map) {
    if (SDX_UNLIKELY(r->h.depth >= r->max_depth)) {
        set_error(r, SDX_ERR_DEPTH, at, "nesting too deep");
        return false;
    }
    const uint32_t level = r->h.depth + 1;
    if (SDX_UNLIKELY(level > r->stack_levels) && !grow_stack(r, at)) return false;
    uint64_t *w = &r->h.stack[(level - 1) >> 6];
    const uint64_t bit = (uint64_t)1 << ((level - 1) & 63);
    *w = map ? *w | bit : *w & ~bit;
    r->h.depth = level;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Events                                                                    */
/* ------------------------------------------------------------------------ */

SDX_API bool (sdx_json_reader_next)(sdx_json_reader *r, sdx_event *ev) {
    const char *p = r->h.cur;
    const char *lim = r->h.lim;
    uint8_t after; /* the state after the value about to be read */
    int at;        /* where that value stands (AT_*) */

    ev->tag_kind = SDX_TAG_NONE;
    ev->flags = 0;
    ev->tag = 0;
    /* Bit tests, not a switch: the state depends on the data, so the
     * indirect jump of a switch is often mispredicted, while a chain of
     * conditional branches is predicted well from the history of recent
     * branches (GCC turns a chain of == tests on one value into a switch). */
    {
        const uint8_t st = r->h.state;
        if (st & ST_MAP_COLON) goto map_colon;
        if (st & ST_MAP_NEXT) goto map_next;
        if (st & ST_ARR_NEXT) goto arr_next;
        if (st & ST_MAP_FIRST) goto map_first;
        if (st & ST_ARR_FIRST) goto arr_first;
        switch (st) {
        case ST_ROOT: goto root;
        case ST_AFTER_ROOT: goto after_root;
        case ST_BOM: goto bom;
        default: return false; /* ST_END, ST_ERROR */
        }
    }

/* One event is ready: remember where it ended and what comes next. */
#define EMIT(next_state)                                                     \
    do {                                                                     \
        r->h.state = (next_state);                                             \
        r->h.cur = p;                                                          \
        return true;                                                         \
    } while (0)

/* Skip whitespace; when the input ends, go to `exhausted` (p == lim). */
#define SKIP_WS(exhausted)                                                   \
    do {                                                                     \
        if (SDX_UNLIKELY(p == lim || (unsigned char)*p <= ' ')) {            \
            if (p < lim && *p == ' ' && p + 1 < lim && (unsigned char)p[1] > ' ') \
                p++;                                                         \
            else {                                                           \
                p = sdx_json_skip_ws(p, lim);                                \
                if (SDX_UNLIKELY(p == lim)) {                                \
                    p = skip_ws_more(r, p);                                  \
                    lim = r->h.lim;                                            \
                    if (p == lim) goto exhausted;                            \
                }                                                            \
            }                                                                \
        }                                                                    \
    } while (0)

/* At an unexpected byte: skip comments and go back to `label`, or fail. */
#define COMMENT_OR_FAIL(label, msg)                                          \
    do {                                                                     \
        if (*p == '/' && (r->flags & SDX_JSON_READ_COMMENTS)) {              \
            p = skip_comments(r, p);                                         \
            if (!p) goto fail;                                               \
            lim = r->h.lim;                                                    \
            if (p == lim) goto at_lim;                                       \
            goto label;                                                      \
        }                                                                    \
        set_error(r, SDX_ERR_SYNTAX, p, msg);                                \
        goto fail;                                                           \
    } while (0)

    /* ---- arrays ---- */
arr_first:
    SKIP_WS(at_lim);
    after = ST_ARR_NEXT;
    at = AT_ARR_FIRST;
    goto value;
arr_next:
    SKIP_WS(at_lim);
    if (SDX_LIKELY(*p == ',')) {
        p++;
        SKIP_WS(at_lim);
        after = ST_ARR_NEXT;
        at = AT_ARR;
        goto value;
    }
    if (*p == ']') goto close;
    COMMENT_OR_FAIL(arr_next, "expected ',' or ']'");

    /* ---- maps ---- */
map_first:
    SKIP_WS(at_lim);
    if (SDX_LIKELY(*p == '"')) goto key;
    if (*p == '}') goto close;
    COMMENT_OR_FAIL(map_first, "expected a string key or '}'");
map_next:
    SKIP_WS(at_lim);
    if (SDX_LIKELY(*p == ',')) {
        p++;
        SKIP_WS(at_lim);
        goto map_key;
    }
    if (*p == '}') goto close;
    COMMENT_OR_FAIL(map_next, "expected ',' or '}'");
map_key:
    if (SDX_LIKELY(*p == '"')) goto key;
    if (*p == '}' && (r->flags & SDX_JSON_READ_TRAILING_COMMAS)) goto close;
    COMMENT_OR_FAIL(map_key, "expected a string key");
key:
    ev->depth = r->h.depth;
    p = read_string(r, p, lim, ev);
    if (SDX_UNLIKELY(!p)) goto fail;
    ev->kind = SDX_KEY;
    EMIT(ST_MAP_COLON);
map_colon:
    SKIP_WS(at_lim);
    if (SDX_UNLIKELY(*p != ':')) COMMENT_OR_FAIL(map_colon, "expected ':'");
    p++;
    SKIP_WS(at_lim);
    after = ST_MAP_NEXT;
    at = AT_MAP;
    goto value;

    /* ---- the top level ---- */
bom:
    p = want_bytes(r, p, 3);
    lim = r->h.lim;
    if (r->err != SDX_OK) goto fail;
    if (lim - p >= 3 && (unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
        (unsigned char)p[2] == 0xBF)
        p += 3;
root:
    SKIP_WS(root_exhausted);
    after = ST_AFTER_ROOT;
    at = AT_ROOT;
    goto value;
root_exhausted:
    /* a sequence may end wherever a value may begin */
    if (r->flags & SDX_JSON_READ_STOP_AFTER_VALUE) goto input_end;
    goto at_lim;
after_root:
    if (r->flags & SDX_JSON_READ_STOP_AFTER_VALUE) {
        /* the next value of a sequence; a number or literal must end at a
         * delimiter (whitespace, or a comment when they are allowed) */
        const uint64_t value_end = sdx_json_reader_offset(r);
        const bool scalar = p[-1] != '"' && p[-1] != ']' && p[-1] != '}';
        SKIP_WS(input_end);
        if (scalar && r->base_off + (uint64_t)(p - r->buf) == value_end &&
            !(*p == '/' && (r->flags & SDX_JSON_READ_COMMENTS))) {
            set_error(r, SDX_ERR_SYNTAX, p, "unexpected byte after the value");
            goto fail;
        }
        goto root;
    }
trailer:
    SKIP_WS(input_end);
    if (*p == '/' && (r->flags & SDX_JSON_READ_COMMENTS)) {
        p = skip_comments(r, p);
        if (!p) goto fail;
        lim = r->h.lim;
        if (p == lim) goto input_end;
        goto trailer;
    }
    set_error(r, SDX_ERR_SYNTAX, p, "unexpected content after the value");
    goto fail;
input_end:
    /* nothing more comes where the input may end */
    if (r->err != SDX_OK) goto fail;
    if (r->h.lim < r->end) goto at_lim; /* an ill-formed UTF-8 sequence */
    r->h.state = ST_END;
    return false;

    /* ---- a value ---- */
value:
    ev->depth = r->h.depth;
    switch ((unsigned char)*p) {
    case '"':
        p = read_string(r, p, lim, ev);
        if (SDX_UNLIKELY(!p)) goto fail;
        ev->kind = SDX_STR;
        EMIT(after);
    case '[':
        if (SDX_UNLIKELY(!push(r, p, false))) goto fail;
        p++;
        ev->kind = SDX_ARRAY;
        ev->v.count = SDX_COUNT_UNKNOWN;
        EMIT(ST_ARR_FIRST);
    case '{':
        if (SDX_UNLIKELY(!push(r, p, true))) goto fail;
        p++;
        ev->kind = SDX_MAP;
        ev->v.count = SDX_COUNT_UNKNOWN;
        EMIT(ST_MAP_FIRST);
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        p = read_number(r, p, lim, ev);
        if (SDX_UNLIKELY(!p)) goto fail;
        EMIT(after);
    case 't':
        if (SDX_LIKELY(lim - p >= 4 && sdx_load32le(p) == SDX_JSON_WORD4('t', 'r', 'u', 'e')))
            p += 4;
        else if (!(p = read_literal(r, p, "true", 4))) goto fail;
        ev->kind = SDX_BOOL;
        ev->v.b = true;
        EMIT(after);
    case 'f':
        if (SDX_LIKELY(lim - p >= 5 && sdx_load32le(p + 1) == SDX_JSON_WORD4('a', 'l', 's', 'e')))
            p += 5;
        else if (!(p = read_literal(r, p, "false", 5))) goto fail;
        ev->kind = SDX_BOOL;
        ev->v.b = false;
        EMIT(after);
    case 'n':
        if (SDX_LIKELY(lim - p >= 4 && sdx_load32le(p) == SDX_JSON_WORD4('n', 'u', 'l', 'l')))
            p += 4;
        else if (!(p = read_literal(r, p, "null", 4))) goto fail;
        ev->kind = SDX_NULL;
        ev->v.u = 0;
        EMIT(after);
    default:
        break;
    }
    /* not the start of a value: an array's end, NaN or Infinity, a comment */
    if (*p == ']' &&
        (at == AT_ARR_FIRST || (at == AT_ARR && (r->flags & SDX_JSON_READ_TRAILING_COMMAS))))
        goto close;
    if ((r->flags & SDX_JSON_READ_NAN_INF) && (*p == 'N' || *p == 'I')) {
        p = read_nan_inf(r, p, ev);
        if (!p) goto fail;
        EMIT(after);
    }
    if (*p == '/' && (r->flags & SDX_JSON_READ_COMMENTS)) {
        p = skip_comments(r, p);
        if (!p) goto fail;
        lim = r->h.lim;
        if (p == lim) {
            if (at == AT_ROOT) goto root_exhausted;
            goto at_lim;
        }
        goto value;
    }
    set_error(r, SDX_ERR_SYNTAX, p,
              at == AT_ARR_FIRST ? "expected a value or ']'" : "expected a value");
    goto fail;

    /* ---- the end of a container (p at its bracket) ---- */
close:
    p++;
    {
        const uint32_t d = --r->h.depth;
        ev->kind = SDX_END;
        ev->depth = d;
        EMIT(d == 0 ? ST_AFTER_ROOT : level_is_map(r, d) ? ST_MAP_NEXT : ST_ARR_NEXT);
    }

at_lim:
    fail_at_lim(r);
fail:
    r->h.state = ST_ERROR;
    return false;

#undef EMIT
#undef SKIP_WS
#undef COMMENT_OR_FAIL
}

/* json.h's inline path at a number or string it does not read itself
 * (a double, a long integer, a long string, escapes): what the value and
 * key positions of sdx_json_reader_next do with it. */
SDX_API bool sdx_json_reader_token_(sdx_json_reader *r, const char *p, unsigned after,
                                    sdx_event *ev) {
    ev->tag_kind = SDX_TAG_NONE;
    ev->flags = 0;
    ev->tag = 0;
    ev->depth = r->h.depth;
    const bool str = *p == '"';
    p = str ? read_string(r, p, r->h.lim, ev) : read_number(r, p, r->h.lim, ev);
    if (SDX_UNLIKELY(!p)) {
        r->h.state = ST_ERROR;
        return false;
    }
    if (str) {
        ev->kind = after == ST_MAP_COLON ? SDX_KEY : SDX_STR;
    } else {
        /* numbers in a row are often of one kind: a run of doubles skips
         * the inline path's integer attempt */
        uint8_t n = r->h.doubles;
        r->h.doubles = ev->kind == SDX_DOUBLE ? (uint8_t)(n + (n < 3)) : (uint8_t)(n - (n != 0));
    }
    r->h.state = (uint8_t)after;
    r->h.cur = p;
    return true;
}

/* ------------------------------------------------------------------------ */
/* Creating and freeing                                                      */
/* ------------------------------------------------------------------------ */

/* The reader at r zeroed (its inline stack is left as it is), with the
 * options applied and no input yet. */
static void reader_init(sdx_json_reader *r, const sdx_json_read_opts *opts, const sdx_alloc *a) {
    /* the stack's entries are written before they are read (a reset
     * reader's hold the last input's levels; a new one's are zeroed) */
    sdx_zero_small(r, offsetof(sdx_json_reader, inline_stack));
    r->alloc = *a;
    r->flags = opts ? opts->flags : 0;
    r->max_depth = opts && opts->max_depth ? opts->max_depth : SDX_JSON_DEFAULT_MAX_DEPTH;
    r->numflags = (r->flags & SDX_JSON_READ_BIGNUM_RAW) ? SDX_NUM_BIG_RAW : 0;
    r->h.state = (r->flags & SDX_JSON_READ_BOM) ? ST_BOM : ST_ROOT;
    r->h.stack = r->inline_stack;
    r->stack_levels = INLINE_LEVELS;
    set_push_limit(r);
    r->scratch = NULL;
    r->sbuf = NULL;
    r->read = NULL;
    r->read_ctx = NULL;
    r->err = SDX_OK;
    r->err_msg = NULL;
    r->lines = &r->line_own;
    const sdx_simd_kernels *k = sdx_simd_active();
    r->scan = k->json_string_scan;
    r->valid = k->utf8_valid_prefix;
}

/* A reader with the options applied and no input yet. */
static sdx_json_reader *reader_alloc(const sdx_json_read_opts *opts) {
    const sdx_alloc *a;
    sdx_json_reader *r = sdx_reader_malloc(opts ? opts->alloc : NULL, sizeof *r, &a);
    if (!r) return NULL;
    memset(r->inline_stack, 0, sizeof r->inline_stack);
    reader_init(r, opts, a);
    return r;
}

/* Point the window at [data, data + len). */
static void window_init(sdx_json_reader *r, const char *data, size_t len) {
    r->buf = r->h.cur = r->h.lim = data;
    r->end = data + len;
    r->line_own.pos = data;
    r->line_own.lines = 0;
    r->line_own.line_start = 0;
}

/* The input of a reader over memory. */
static void memory_input(sdx_json_reader *r, const char *data, size_t len) {
    r->eof = true;
    if (!data) {
        window_init(r, "", 0);
        if (len) set_error(r, SDX_ERR_INVALID_ARG, r->buf, "no input");
        return;
    }
    window_init(r, data, len);
    validate_more(r);
}

SDX_API sdx_json_reader *sdx_json_reader_new(const char *data, size_t len,
                                             const sdx_json_read_opts *opts) {
    sdx_json_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    memory_input(r, data, len);
    return r;
}

/* The space for unescaped strings that sdx_json_reader_reset keeps. */
#define SCRATCH_KEEP 8192

/* Everything r allocated but r itself (no call for what it did not
 * allocate: a reset reader over short messages usually has nothing). */
static void free_parts(sdx_json_reader *r) {
    const sdx_alloc a = r->alloc;
    if (r->h.stack != r->inline_stack) a.free(a.ctx, r->h.stack);
    if (r->scratch) a.free(a.ctx, r->scratch);
    if (r->sbuf) a.free(a.ctx, r->sbuf);
}

SDX_API sdx_err sdx_json_reader_reset(sdx_json_reader *r, const char *data, size_t len) {
    if (!r) return SDX_ERR_INVALID_ARG;
    if (r->stream) return SDX_ERR_USAGE;
    const sdx_json_read_opts o = {.flags = r->flags, .max_depth = r->max_depth};
    const sdx_alloc a = r->alloc;
    /* the space for unescaped strings is kept up to SCRATCH_KEEP bytes
     * (else every message with an escape would allocate it again); above,
     * free_parts gives it back */
    char *scratch = NULL;
    size_t scratch_cap = 0;
    if (r->scratch_cap <= SCRATCH_KEEP) {
        scratch = r->scratch;
        scratch_cap = r->scratch_cap;
        r->scratch = NULL;
    }
    free_parts(r);
    reader_init(r, &o, &a);
    r->scratch = scratch;
    r->scratch_cap = scratch_cap;
    memory_input(r, data, len);
    return SDX_OK;
}

SDX_API sdx_json_reader *sdx_json_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                    const sdx_json_read_opts *opts) {
    sdx_json_reader *r = reader_alloc(opts);
    if (!r) return NULL;
    void *sbuf = sdx_stream_store(&r->alloc, r, &chunk);
    if (!sbuf) return NULL; /* r is freed */
    r->sbuf = sbuf;
    r->stream = true;
    r->sbuf_cap = chunk;
    r->chunk = chunk;
    r->read = read;
    r->read_ctx = ctx;
    window_init(r, r->sbuf, 0);
    if (!read) set_error(r, SDX_ERR_INVALID_ARG, r->buf, "no read function");
    return r;
}

#ifndef SDX_NO_STDIO
SDX_API sdx_json_reader *sdx_json_reader_new_file(FILE *f, const sdx_json_read_opts *opts) {
    return sdx_json_reader_new_stream(f ? sdx_file_read : NULL, f, 0, opts);
}
#endif

SDX_API void sdx_json_reader_free(sdx_json_reader *r) {
    if (!r) return;
    const sdx_alloc a = r->alloc;
    free_parts(r);
    a.free(a.ctx, r);
}

/* ------------------------------------------------------------------------ */
/* Queries, skipping, the source interface                                   */
/* ------------------------------------------------------------------------ */

SDX_API sdx_err sdx_json_reader_error(const sdx_json_reader *r, sdx_error *err) {
    if (err) {
        if (r->err != SDX_OK) {
            err->code = r->err;
            err->offset = (size_t)r->err_off;
            err->line = (size_t)r->err_line;
            err->column = (size_t)r->err_col;
            err->msg = r->err_msg;
        } else {
            err->code = SDX_OK;
            err->offset = 0;
            err->line = 0;
            err->column = 0;
            err->msg = sdx_strerror(SDX_OK);
        }
    }
    return r->err;
}

SDX_API uint64_t sdx_json_reader_offset(const sdx_json_reader *r) {
    return r->h.cur ? r->base_off + (uint64_t)(r->h.cur - r->buf) : r->last_off;
}

SDX_API bool sdx_json_reader_skip(sdx_json_reader *r) {
    sdx_event ev;
    uint32_t target; /* the depth of the END that finishes the skip */
    switch (r->h.state) {
    case ST_ARR_FIRST:
    case ST_MAP_FIRST: /* just after a begin event */
        target = r->h.depth - 1;
        break;
    case ST_MAP_COLON: /* just after a key: its value */
        if (!sdx_json_reader_next(r, &ev)) return false;
        if (ev.kind != SDX_ARRAY && ev.kind != SDX_MAP) return true;
        target = ev.depth;
        break;
    case ST_ERROR:
        return false;
    default:
        return true;
    }
    while (sdx_json_reader_next(r, &ev))
        if (ev.kind == SDX_END && ev.depth == target) return true;
    return false;
}

static bool source_next(void *ctx, sdx_event *ev) { return sdx_json_reader_next(ctx, ev); }

static sdx_err source_error(const void *ctx, sdx_error *err) {
    return sdx_json_reader_error(ctx, err);
}

static uint64_t source_offset(const void *ctx) { return sdx_json_reader_offset(ctx); }

static const sdx_source_vt source_vt = {source_next, source_error, source_offset};

SDX_API sdx_source sdx_json_reader_source(sdx_json_reader *r) {
    sdx_source src = {&source_vt, r};
    return src;
}

/* ------------------------------------------------------------------------ */
/* The truncation hook (reader_internal.h)                                   */
/* ------------------------------------------------------------------------ */

/* The end of the validated bytes of [buf, cut) when [buf, lim) (lim > cut)
 * is well-formed: cut, or the start of a sequence the cut splits. */
static const char *boundary_before(const char *buf, const char *cut) {
    const char *p = cut;
    for (int k = 0; k < 3 && p > buf && ((unsigned char)p[-1] & 0xC0) == 0x80; k++) p--;
    if (p > buf && (unsigned char)p[-1] >= 0xC0) {
        const unsigned char c = (unsigned char)p[-1];
        const size_t len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        if ((size_t)(cut - (p - 1)) < len) return p - 1;
    }
    return cut;
}

sdx_json_reader *sdx_json_reader_clone_truncated(const sdx_json_reader *r, size_t cut) {
    if (r->stream || cut > (size_t)(r->end - r->buf) || cut < (size_t)(r->h.cur - r->buf))
        return NULL;
    /* the copies count lines from r's last event on */
    advance_lines(r->lines, r->buf, r->base_off, r->h.cur);
    sdx_json_reader *c = r->alloc.malloc(r->alloc.ctx, sizeof *c);
    if (!c) return NULL;
    *c = *r;
    c->lines = &c->line_own;
    c->line_own = *r->lines;
    c->scratch = NULL;
    c->scratch_cap = 0;
    if (r->h.stack != r->inline_stack) {
        const size_t size = (size_t)(r->stack_levels / 8);
        c->h.stack = r->alloc.malloc(r->alloc.ctx, size);
        if (!c->h.stack) {
            r->alloc.free(r->alloc.ctx, c);
            return NULL;
        }
        memcpy(c->h.stack, r->h.stack, size);
    } else {
        c->h.stack = c->inline_stack;
    }
    c->end = r->buf + cut;
    if (c->h.lim > c->end) c->h.lim = boundary_before(c->buf, c->end);
    return c;
}
