/*
 * The streaming JSON writer (RFC 8259).
 *
 * Every value has a fast path for the common case — minified output, no
 * error, enough room in the buffer — that checks the writer's position with
 * one table bit, reserves the worst case once and writes without further
 * checks. Everything else (pretty printing, errors, misuse, a full fixed
 * buffer, a value larger than the room left) takes a checked slow path that
 * reserves exactly what it writes, so that a fixed buffer overflows only when
 * the output really does not fit. Strings, keys and containers also have
 * an inline path in json.h, in the caller's code, which hands whatever it
 * does not take to the exported functions below.
 */
#include <string.h>

#include "core/base64.h"
#include "core/alloc.h"
#include "core/buf_room.h"
#include "core/platform.h"
#include "core/utf8.h"
#include "json/escape.h"
#include "num/num.h"
#include "sdx/json.h"
#include "simd/simd.h"

/* Where the writer is: what may come next (json.h, shared with the inline
 * fast paths there). */
enum {
    POS_ROOT = SDX_JW_POS_ROOT,
    POS_DONE = SDX_JW_POS_DONE,
    POS_ARR_FIRST = SDX_JW_POS_ARR_FIRST,
    POS_ARR_NEXT = SDX_JW_POS_ARR_NEXT,
    POS_KEY_FIRST = SDX_JW_POS_KEY_FIRST,
    POS_KEY_NEXT = SDX_JW_POS_KEY_NEXT,
    POS_VALUE = SDX_JW_POS_VALUE
};

enum { FRAME_ROOT = SDX_JW_FRAME_ROOT, FRAME_ARRAY = SDX_JW_FRAME_ARRAY, FRAME_MAP = SDX_JW_FRAME_MAP };

#define VALUE_POS SDX_JW_VALUE_POS
#define KEY_POS SDX_JW_KEY_POS
#define FAST_ON 0xFF

/* Input bytes of a string handled per buffer reservation. Bounds the chunk a
 * stream buffer needs for a huge string. */
#define STRING_PIECE SDX_JW_STRING_MAX

/* Position after a value written in position `pos`. */
static const uint8_t pos_after_value[] = {
    [POS_ROOT] = POS_DONE,         [POS_DONE] = POS_DONE,         [POS_ARR_FIRST] = POS_ARR_NEXT,
    [POS_ARR_NEXT] = POS_ARR_NEXT, [POS_KEY_FIRST] = POS_KEY_NEXT, [POS_KEY_NEXT] = POS_KEY_NEXT,
    [POS_VALUE] = POS_KEY_NEXT,
};

static sdx_err fail(sdx_json_writer *w, sdx_err err) {
    if (!w->err) w->err = err;
    w->fast = 0;
    return w->err;
}

static sdx_err fail_buf(sdx_json_writer *w) {
    return fail(w, w->out->err ? w->out->err : SDX_ERR_NOMEM);
}

sdx_err sdx_json_writer_init(sdx_json_writer *w, sdx_buf *out, const sdx_json_write_opts *opts) {
    static const sdx_json_write_opts defaults = {0, 0, NULL};
    if (!opts) opts = &defaults;
    const uint32_t known = SDX_JSON_WRITE_ESCAPE_SLASH | SDX_JSON_WRITE_ESCAPE_UNICODE |
                           SDX_JSON_WRITE_REPLACE_INVALID_UTF8 | SDX_JSON_WRITE_NAN_AS_NULL |
                           SDX_JSON_WRITE_BIN_BASE64 | SDX_JSON_WRITE_SEQUENCE |
                           SDX_JSON_WRITE_STRINGIFY_KEYS | SDX_JSON_WRITE_NO_UTF8_CHECK;
    w->out = out;
    w->err = SDX_OK;
    w->flags = opts->flags;
    w->indent = opts->indent;
    w->alloc = *(opts->alloc ? opts->alloc : sdx_alloc_default());
    w->frames = w->inline_frames;
    w->cap = SDX_JSON_WRITER_INLINE_DEPTH;
    w->depth = 0;
    w->top = w->frames;
    w->top->left = SDX_COUNT_UNKNOWN;
    w->top->kind = FRAME_ROOT;
    w->top->parent_pos = POS_ROOT;
    w->pos = POS_ROOT;
    const sdx_simd_kernels *kernels = sdx_simd_active();
    w->utf8_valid = kernels->utf8_valid_prefix;
    /* Bytes above 0x7f stop the escape scan to be checked as UTF-8, or
     * escaped as \uXXXX; neither when the caller vouches for the text.
     * Text that is only checked takes the kernel that validates it while
     * it copies (json_escape_copy_utf8: it stops only at a byte it could
     * not validate, which string_body then checks as before). */
    const int check_high = !(w->flags & SDX_JSON_WRITE_NO_UTF8_CHECK) || (w->flags & SDX_JSON_WRITE_ESCAPE_UNICODE);
    w->escape_copy = kernels->json_escape_copy;
    w->escape_copy_first = check_high && !(w->flags & SDX_JSON_WRITE_ESCAPE_UNICODE)
                               ? kernels->json_escape_copy_utf8
                               : kernels->json_escape_copy;
    w->esc_set = (uint8_t)((check_high ? SDX_ESC_HIGH : 0) | (w->flags & SDX_JSON_WRITE_ESCAPE_SLASH ? SDX_ESC_SLASH : 0));
    w->fast = w->indent ? 0 : FAST_ON;
    if ((opts->flags & ~known) || opts->indent > 16) return fail(w, SDX_ERR_INVALID_ARG);
    return SDX_OK;
}

/* ------------------------------------------------------------------------ */
/* Bookkeeping shared by every value                                        */
/* ------------------------------------------------------------------------ */

/* Count one element of the innermost container against its declared count
 * (sdx_jw_count, json.h); 0 when the count is already used up. */
static SDX_ALWAYS_INLINE int count_take(sdx_json_writer *w, unsigned pos) {
    return sdx_jw_count(w->top, pos, 1);
}

/* After a top-level value: done, or ready for the next one in a sequence. */
static SDX_NOINLINE sdx_err root_done(sdx_json_writer *w) {
    if (w->flags & SDX_JSON_WRITE_SEQUENCE) {
        w->pos = POS_ROOT;
        if (sdx_buf_write(w->out, "\n", 1)) return fail_buf(w);
    }
    return w->err;
}

static SDX_ALWAYS_INLINE sdx_err value_done(sdx_json_writer *w) {
    unsigned pos = w->pos;
    w->pos = pos_after_value[pos];
    if (SDX_UNLIKELY(pos == POS_ROOT)) return root_done(w);
    return SDX_OK;
}

/* Fast path: where to write a value of at most `need` bytes, after its comma;
 * NULL (with nothing changed) when the checked path must handle it. */
static SDX_ALWAYS_INLINE char *value_fast(sdx_json_writer *w, size_t need) {
    unsigned pos = w->pos;
    if (SDX_UNLIKELY(!((w->fast & VALUE_POS) >> pos & 1))) return NULL;
    size_t comma = pos == POS_ARR_NEXT;
    char *p = w->out->cur;
    if (SDX_UNLIKELY((size_t)(w->out->end - p) < need + comma)) return NULL;
    if (SDX_UNLIKELY(!count_take(w, pos))) return NULL;
    *p = ',';
    return p + comma;
}

static int put_bytes(sdx_json_writer *w, const char *s, size_t n) {
    if (sdx_buf_write(w->out, s, n)) {
        fail_buf(w);
        return 0;
    }
    return 1;
}

/* Pretty printing: an optional ',', a newline and `levels` indents. */
static int newline_indent(sdx_json_writer *w, int comma, uint32_t levels) {
    char head[2] = {',', '\n'};
    if (!put_bytes(w, head + !comma, 1 + (size_t)comma)) return 0;
    uint64_t spaces = (uint64_t)levels * w->indent;
    while (spaces) {
        size_t n = spaces < 256 ? (size_t)spaces : 256;
        char *p = sdx_buf_reserve(w->out, n);
        if (!p) {
            fail_buf(w);
            return 0;
        }
        memset(p, ' ', n);
        w->out->cur = p + n;
        spaces -= n;
    }
    return 1;
}

/* Checked path: verify that a value may come now and write what precedes
 * it. Returns 0 with the sticky error set otherwise. */
static SDX_NOINLINE int value_prefix(sdx_json_writer *w) {
    if (w->err) return 0;
    unsigned pos = w->pos;
    if (!(VALUE_POS >> pos & 1)) {
        fail(w, KEY_POS >> pos & 1 ? SDX_ERR_KEY : SDX_ERR_USAGE);
        return 0;
    }
    if (!count_take(w, pos)) {
        fail(w, SDX_ERR_USAGE);
        return 0;
    }
    if (pos == POS_ARR_FIRST || pos == POS_ARR_NEXT) {
        if (w->indent) return newline_indent(w, pos == POS_ARR_NEXT, w->depth);
        if (pos == POS_ARR_NEXT) return put_bytes(w, ",", 1);
    }
    return 1;
}

/* Checked path for a value already formatted in text[0, n). */
static SDX_NOINLINE sdx_err value_slow(sdx_json_writer *w, const char *text, size_t n) {
    if (!value_prefix(w) || !put_bytes(w, text, n)) return w->err;
    return value_done(w);
}

static SDX_NOINLINE sdx_err key_slow(sdx_json_writer *w, const char *s, size_t n);

/* Checked path for a scalar formatted as text[0, n): where a key is due and
 * SDX_JSON_WRITE_STRINGIFY_KEYS is set, the text becomes the key. */
static SDX_NOINLINE sdx_err scalar_slow(sdx_json_writer *w, const char *text, size_t n) {
    if (!w->err && (w->flags & SDX_JSON_WRITE_STRINGIFY_KEYS) && (KEY_POS >> w->pos & 1))
        return key_slow(w, text, n);
    return value_slow(w, text, n);
}

/* ------------------------------------------------------------------------ */
/* Scalars                                                                   */
/* ------------------------------------------------------------------------ */

static SDX_ALWAYS_INLINE sdx_err literal(sdx_json_writer *w, const char *text, size_t n) {
    char *p = value_fast(w, 8);
    if (SDX_UNLIKELY(!p)) return scalar_slow(w, text, n);
    memcpy(p, text, 8); /* the literals are padded to 8 bytes */
    w->out->cur = p + n;
    return value_done(w);
}

sdx_err sdx_json_writer_null(sdx_json_writer *w) { return literal(w, "null\0\0\0", 4); }

sdx_err sdx_json_writer_bool(sdx_json_writer *w, bool v) {
    return v ? literal(w, "true\0\0\0", 4) : literal(w, "false\0\0", 5);
}

static SDX_NOINLINE sdx_err int_slow(sdx_json_writer *w, int64_t v) {
    char text[SDX_ITOA_RESERVE];
    return scalar_slow(w, text, (size_t)(sdx_i64_to_dec(text, v) - text));
}

sdx_err sdx_json_writer_int(sdx_json_writer *w, int64_t v) {
    char *p = value_fast(w, SDX_ITOA_RESERVE);
    if (SDX_UNLIKELY(!p)) return int_slow(w, v);
    w->out->cur = sdx_i64_to_dec(p, v);
    return value_done(w);
}

static SDX_NOINLINE sdx_err uint_slow(sdx_json_writer *w, uint64_t v) {
    char text[SDX_ITOA_RESERVE];
    return scalar_slow(w, text, (size_t)(sdx_u64_to_dec(text, v) - text));
}

sdx_err sdx_json_writer_uint(sdx_json_writer *w, uint64_t v) {
    char *p = value_fast(w, SDX_ITOA_RESERVE);
    if (SDX_UNLIKELY(!p)) return uint_slow(w, v);
    w->out->cur = sdx_u64_to_dec(p, v);
    return value_done(w);
}

static SDX_NOINLINE sdx_err nonfinite(sdx_json_writer *w) {
    if (w->err) return w->err;
    if (!(w->flags & SDX_JSON_WRITE_NAN_AS_NULL)) return fail(w, SDX_ERR_RANGE);
    return sdx_json_writer_null(w);
}

sdx_err sdx_json_writer_double(sdx_json_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    if (SDX_UNLIKELY((bits >> 52 & 0x7FF) == 0x7FF)) return nonfinite(w);
    char *p = value_fast(w, SDX_DTOA_RESERVE);
    if (SDX_UNLIKELY(!p)) {
        char text[SDX_DTOA_RESERVE];
        return scalar_slow(w, text, (size_t)(sdx_dtoa_json(text, v) - text));
    }
    w->out->cur = sdx_dtoa_json(p, v);
    return value_done(w);
}

/* ------------------------------------------------------------------------ */
/* Strings                                                                   */
/* ------------------------------------------------------------------------ */

/* \uXXXX for one UTF-16 code unit. */
static size_t escape_u16(char *e, uint32_t u) {
    e[0] = '\\';
    e[1] = 'u';
    e[2] = sdx_json_hex_digits[u >> 12 & 15];
    e[3] = sdx_json_hex_digits[u >> 8 & 15];
    e[4] = sdx_json_hex_digits[u >> 4 & 15];
    e[5] = sdx_json_hex_digits[u & 15];
    return 6;
}

/* The escape of the non-ASCII character at s (SDX_JSON_WRITE_ESCAPE_UNICODE):
 * one \uXXXX, or a surrogate pair above U+FFFF. Stores the bytes consumed in
 * *used; 0 for invalid UTF-8 that may not be replaced. */
static size_t escape_non_ascii(sdx_json_writer *w, char *e, const char *s, size_t n, size_t *used) {
    uint32_t cp;
    if (sdx_utf8_valid_prefix(s, n < 4 ? n : 4) == 0) {
        if (!(w->flags & SDX_JSON_WRITE_REPLACE_INVALID_UTF8)) return 0;
        *used = sdx_utf8_invalid_len(s, n);
        cp = 0xFFFD;
    } else {
        cp = sdx_utf8_decode(s, used);
    }
    if (cp < 0x10000) return escape_u16(e, cp);
    cp -= 0x10000;
    escape_u16(e, 0xD800 + (cp >> 10));
    return 6 + escape_u16(e + 6, 0xDC00 + (cp & 0x3FF));
}

/* p, or where the buffer moved it, with room for `need` bytes there;
 * NULL with the sticky error set when it cannot grow. */
static SDX_ALWAYS_INLINE char *body_room(sdx_json_writer *w, char *p, size_t need) {
    if (SDX_UNLIKELY((size_t)(w->out->end - p) < need) && !(p = sdx_buf_room_slow(w->out, p, need)))
        fail_buf(w);
    return p;
}

/* Write the escaped body of s[0, n) at p and make sure `tail` more bytes fit
 * after it. Returns the end of the body, or NULL with the sticky error set.
 * Each reservation is at most what the rest of the string will certainly
 * take (every input byte gives at least one output byte), so a fixed buffer
 * only overflows when the string really does not fit.
 *
 * UTF-8 is checked lazily: the first scan (escape_copy_first) stops at the
 * first non-ASCII byte, or, with the kernel that validates while it copies
 * (json_escape_copy_utf8), at the first one it could not validate; the
 * rest of the string is then validated in one pass, and the scan continues
 * without stopping at non-ASCII bytes up to the end of the valid part.
 *
 * `at_stop` 1 says that the caller's scan already stopped at s[0] (n > 0),
 * which saves a kernel call that would stop there again at once. */
static SDX_NOINLINE char *string_body(sdx_json_writer *w, char *p, const char *s, size_t n,
                                      size_t tail, int at_stop) {
    const unsigned set = w->esc_set;
    const unsigned set_valid = set & ~(unsigned)SDX_ESC_HIGH;
    const int escape_unicode = (w->flags & SDX_JSON_WRITE_ESCAPE_UNICODE) != 0;
    if (SDX_UNLIKELY(!s && !n)) s = ""; /* json.h allows NULL with n 0 (a document's empty string) */
    const char *valid_end = s; /* [s, valid_end) is known to be valid UTF-8 */
    for (;;) {
        if (!at_stop) {
            size_t piece = n < STRING_PIECE ? n : STRING_PIECE;
            if (!(p = body_room(w, p, piece + tail))) return NULL;
            size_t k;
            if (s < valid_end && !escape_unicode) {
                if ((size_t)(valid_end - s) < piece) piece = (size_t)(valid_end - s);
                k = w->escape_copy(p, s, piece, set_valid);
            } else {
                k = w->escape_copy_first(p, s, piece, set);
            }
            p += k;
            s += k;
            n -= k;
            if (k == piece) {
                if (n == 0) return p;
                continue;
            }
        }
        at_stop = 0;
        /* s[0] needs attention. */
        uint8_t c = (uint8_t)*s;
        char esc[12];
        size_t elen, used = 1;
        if (c < 0x80) {
            /* written in place: through esc, the copy's wide loads of bytes
             * just stored one by one could not be forwarded from the store
             * buffer and waited for them (half of this function's time on
             * text that escapes often) */
            elen = sdx_json_escape_ascii_len(c);
            if (!(p = body_room(w, p, elen + tail))) return NULL;
            p += sdx_json_escape_ascii(p, c);
            s++;
            if (--n == 0) return p;
            continue;
        }
        if (!escape_unicode) {
            size_t valid = w->utf8_valid(s, n);
            if (valid) {
                valid_end = s + valid;
                continue;
            }
            if (!(w->flags & SDX_JSON_WRITE_REPLACE_INVALID_UTF8)) {
                fail(w, SDX_ERR_UTF8);
                return NULL;
            }
            memcpy(esc, "\xEF\xBF\xBD", 3); /* U+FFFD */
            elen = 3;
            used = sdx_utf8_invalid_len(s, n);
        } else if (!(elen = escape_non_ascii(w, esc, s, n, &used))) {
            fail(w, SDX_ERR_UTF8);
            return NULL;
        }
        if (!(p = body_room(w, p, elen + tail))) return NULL;
        memcpy(p, esc, elen);
        p += elen;
        s += used;
        n -= used;
        if (n == 0) return p;
    }
}

/* The common case inline: a string of at most STRING_PIECE bytes, with room
 * for it and its tail already reserved, copied in one kernel call when it
 * needs no escape and is ASCII (or valid UTF-8, with json_escape_copy_utf8);
 * anything else continues in string_body. */
static SDX_ALWAYS_INLINE char *string_fast(sdx_json_writer *w, char *p, const char *s, size_t n,
                                           size_t tail) {
    size_t k = w->escape_copy_first(p, s, n, w->esc_set);
    if (SDX_LIKELY(k == n)) return p + n;
    return string_body(w, p + k, s + k, n - k, tail, 1);
}

/* '"' body tail, with the tail ("\"", "\":" or "\": ") written at the end. */
static int write_quoted(sdx_json_writer *w, const char *s, size_t n, const char *tail, size_t tlen) {
    char *p = sdx_buf_reserve(w->out, 1 + tlen);
    if (!p) {
        fail_buf(w);
        return 0;
    }
    *p++ = '"';
    if (!(p = string_body(w, p, s, n, tlen, 0))) return 0;
    memcpy(p, tail, tlen);
    w->out->cur = p + tlen;
    return 1;
}

static SDX_NOINLINE sdx_err string_slow(sdx_json_writer *w, const char *s, size_t n) {
    if (!value_prefix(w) || !write_quoted(w, s, n, "\"", 1)) return w->err;
    return value_done(w);
}

sdx_err (sdx_json_writer_string)(sdx_json_writer *w, const char *s, size_t n) {
    char *p;
    if (SDX_LIKELY(n <= STRING_PIECE) && (p = value_fast(w, n + 2))) {
        *p++ = '"';
        if (!(p = string_fast(w, p, s, n, 1))) return w->err;
        *p++ = '"';
        w->out->cur = p;
        return value_done(w);
    }
    return string_slow(w, s, n);
}

static SDX_NOINLINE sdx_err key_slow(sdx_json_writer *w, const char *s, size_t n) {
    if (w->err) return w->err;
    unsigned pos = w->pos;
    if (!(KEY_POS >> pos & 1) || !count_take(w, pos)) return fail(w, SDX_ERR_USAGE);
    int ok;
    if (w->indent)
        ok = newline_indent(w, pos == POS_KEY_NEXT, w->depth) && write_quoted(w, s, n, "\": ", 3);
    else
        ok = (pos == POS_KEY_FIRST || put_bytes(w, ",", 1)) && write_quoted(w, s, n, "\":", 2);
    if (!ok) return w->err;
    w->pos = POS_VALUE;
    return SDX_OK;
}

sdx_err (sdx_json_writer_key)(sdx_json_writer *w, const char *s, size_t n) {
    unsigned pos = w->pos;
    if (SDX_LIKELY((w->fast & KEY_POS) >> pos & 1) && SDX_LIKELY(n <= STRING_PIECE)) {
        size_t comma = pos == POS_KEY_NEXT;
        char *p = w->out->cur;
        if (SDX_LIKELY((size_t)(w->out->end - p) >= comma + n + 3) && count_take(w, pos)) {
            *p = ',';
            p += comma;
            *p++ = '"';
            if (!(p = string_fast(w, p, s, n, 2))) return w->err;
            p[0] = '"';
            p[1] = ':';
            w->out->cur = p + 2;
            w->pos = POS_VALUE;
            return SDX_OK;
        }
    }
    return key_slow(w, s, n);
}

/* A base64 string value (RFC 4648, padded). */
static sdx_err base64_value(sdx_json_writer *w, const void *data, size_t n) {
    if (!value_prefix(w) || !put_bytes(w, "\"", 1)) return w->err;
    const char *s = (const char *)data;
    while (n) {
        size_t piece = n < 3 * 1024 ? n : 3 * 1024;
        char *p = sdx_buf_reserve(w->out, sdx_base64_len(piece));
        if (!p) return fail_buf(w);
        w->out->cur = sdx_base64_encode(p, s, piece);
        s += piece;
        n -= piece;
    }
    if (!put_bytes(w, "\"", 1)) return w->err;
    return value_done(w);
}

sdx_err sdx_json_writer_bin(sdx_json_writer *w, const void *data, size_t n) {
    if (w->err) return w->err;
    if (!(w->flags & SDX_JSON_WRITE_BIN_BASE64)) return fail(w, SDX_ERR_UNSUPPORTED);
    return base64_value(w, data, n);
}

/* ------------------------------------------------------------------------ */
/* Containers                                                                */
/* ------------------------------------------------------------------------ */

static SDX_NOINLINE int grow_frames(sdx_json_writer *w) {
    sdx_err e = SDX_OK;
    sdx_json_frame *f = sdx_grow_frames(&w->alloc, w->frames, w->inline_frames, &w->cap, sizeof *f, &e);
    if (!f) {
        fail(w, e);
        return 0;
    }
    w->frames = f;
    w->top = f + w->depth;
    return 1;
}

static SDX_ALWAYS_INLINE sdx_err push_frame(sdx_json_writer *w, uint64_t count, uint8_t kind,
                                            uint8_t parent_pos) {
    w->depth++;
    sdx_json_frame *f = ++w->top;
    f->left = sdx_jw_frame_left(count);
    f->kind = kind;
    f->parent_pos = parent_pos;
    w->pos = kind == FRAME_MAP ? POS_KEY_FIRST : POS_ARR_FIRST;
    return SDX_OK;
}

static SDX_NOINLINE sdx_err begin_slow(sdx_json_writer *w, uint64_t count, uint8_t kind) {
    uint8_t parent_pos = w->pos;
    if (!value_prefix(w) || !put_bytes(w, kind == FRAME_MAP ? "{" : "[", 1)) return w->err;
    if (w->depth + 1 >= w->cap && !grow_frames(w)) return w->err;
    return push_frame(w, count, kind, parent_pos);
}

/* Fast path (json.h's, shared with the inline path); everything unusual
 * (including a full nesting stack) is left to begin_slow, as a tail call,
 * so that this path saves no registers. */
static SDX_ALWAYS_INLINE sdx_err begin(sdx_json_writer *w, uint64_t count, uint8_t kind) {
    if (SDX_LIKELY(sdx_jw_begin(w, count, kind == FRAME_MAP))) return SDX_OK;
    return begin_slow(w, count, kind);
}

sdx_err (sdx_json_writer_begin_array)(sdx_json_writer *w, uint64_t count) {
    return begin(w, count, FRAME_ARRAY);
}

sdx_err (sdx_json_writer_begin_map)(sdx_json_writer *w, uint64_t count) {
    return begin(w, count, FRAME_MAP);
}

static SDX_NOINLINE sdx_err end_slow(sdx_json_writer *w, int kind) {
    if (w->err) return w->err;
    sdx_json_frame *f = w->top;
    unsigned pos = w->pos;
    if (f->kind == FRAME_ROOT || (kind != FRAME_ROOT && f->kind != kind) || pos == POS_VALUE || !sdx_jw_count_met(f))
        return fail(w, SDX_ERR_USAGE);
    int empty = pos == POS_ARR_FIRST || pos == POS_KEY_FIRST;
    if (w->indent && !empty && !newline_indent(w, 0, w->depth - 1)) return w->err;
    if (!put_bytes(w, f->kind == FRAME_MAP ? "}" : "]", 1)) return w->err;
    w->pos = f->parent_pos;
    w->top--;
    w->depth--;
    return value_done(w);
}

/* Where an end may come: inside an array or where a map key is due. */
#define END_POS SDX_JW_END_POS

/* Fast path for closing a container; `kind` FRAME_ROOT means either kind. */
static SDX_ALWAYS_INLINE sdx_err end_container(sdx_json_writer *w, int kind) {
    sdx_json_frame *f = w->top;
    unsigned pos = w->pos;
    char *p = w->out->cur;
    if (SDX_UNLIKELY(!((w->fast & END_POS) >> pos & 1) || !sdx_jw_count_met(f) || p == w->out->end ||
                     (kind != FRAME_ROOT && f->kind != kind)))
        return end_slow(w, kind);
    *p = pos >= POS_KEY_FIRST ? '}' : ']';
    w->out->cur = p + 1;
    w->pos = f->parent_pos;
    w->top = f - 1;
    w->depth--;
    return value_done(w);
}

sdx_err (sdx_json_writer_end)(sdx_json_writer *w) { return end_container(w, FRAME_ROOT); }
sdx_err sdx_json_writer_end_array(sdx_json_writer *w) { return end_container(w, FRAME_ARRAY); }
sdx_err sdx_json_writer_end_map(sdx_json_writer *w) { return end_container(w, FRAME_MAP); }

/* Whether s[0, n) is a number in the RFC 8259 grammar:
 * -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int is_json_number(const char *s, size_t n) {
    const char *p = s, *e = s + n;
#define DIGITS(min_one)                                             \
    do {                                                            \
        const char *d0 = p;                                         \
        while (p < e && (unsigned)(*p - '0') < 10) p++;             \
        if ((min_one) && p == d0) return 0;                         \
    } while (0)
    if (p < e && *p == '-') p++;
    if (p < e && *p == '0') p++;
    else DIGITS(1);
    if (p < e && *p == '.') { p++; DIGITS(1); }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        DIGITS(1);
    }
#undef DIGITS
    return p == e;
}

sdx_err sdx_json_writer_raw_number(sdx_json_writer *w, const char *s, size_t n) {
    if (w->err) return w->err;
    if (!s || !is_json_number(s, n)) return fail(w, SDX_ERR_INVALID_ARG);
    return value_slow(w, s, n);
}

/* ------------------------------------------------------------------------ */
/* Events, sink, finish                                                      */
/* ------------------------------------------------------------------------ */

/* An integer below INT64_MIN (SDX_NINT: -1 - n) as its exact decimal text. */
static SDX_NOINLINE sdx_err nint_value(sdx_json_writer *w, uint64_t n) {
    char text[SDX_ITOA_RESERVE + 2];
    text[0] = '-';
    if (n == UINT64_MAX) { /* -2^64: n + 1 does not fit */
        memcpy(text + 1, "18446744073709551616", 20);
        return scalar_slow(w, text, 21);
    }
    return scalar_slow(w, text, (size_t)(sdx_u64_to_dec(text + 1, n + 1) - text));
}

sdx_err sdx_json_writer_put(sdx_json_writer *w, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: return sdx_json_writer_null(w);
    case SDX_BOOL: return sdx_json_writer_bool(w, ev->v.b);
    case SDX_INT: return sdx_json_writer_int(w, ev->v.i);
    case SDX_UINT: return sdx_json_writer_uint(w, ev->v.u);
    case SDX_DOUBLE: return sdx_json_writer_double(w, ev->v.d);
    case SDX_STR: return sdx_json_writer_string(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_BIN:
        /* An ext value is not a binary: writing its payload alone would
         * lose its type. The mapping layer (map.h) gives it a JSON form. */
        if (SDX_UNLIKELY(ev->tag_kind == SDX_TAG_MSGPACK_EXT)) {
            if (w->err) return w->err;
            return fail(w, SDX_ERR_UNSUPPORTED);
        }
        return sdx_json_writer_bin(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_ARRAY: return sdx_json_writer_begin_array(w, ev->v.count);
    case SDX_MAP: return sdx_json_writer_begin_map(w, ev->v.count);
    case SDX_KEY: return sdx_json_writer_key(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_END: return sdx_json_writer_end(w);
    case SDX_RAW: return sdx_json_writer_raw_number(w, ev->v.str.ptr, ev->v.str.len);
    case SDX_NINT: return nint_value(w, ev->v.u);
    case SDX_TAG: return w->err; /* JSON has no tags (map.h gives them a form) */
    }
    if (w->err) return w->err;
    return fail(w, SDX_ERR_INVALID_ARG);
}

/* sdx_json_writer_node: the document walk of core/node_walk.h with this
 * writer's calls (the same calls sdx_json_writer_put makes for each kind). */
#define NODE_WALK_WRITER sdx_json_writer
#define NODE_WALK_OWN
#define NODE_WALK_BIN(w, s, n) sdx_json_writer_bin(w, s, n)
#include "core/node_walk.h"

/* The document's own walk for the common case: minified output (the writer
 * on its fast path), a growable memory buffer, and a value made only of
 * untagged null, bool, int, uint, finite double (or any double with
 * SDX_JSON_WRITE_NAN_AS_NULL), string, array and map with string keys.
 * The value array is read in order, as walk_node reads it, but the JSON is
 * written straight into the buffer: a comma after every value (a
 * container's closing bracket replaces its last one), no per-value call
 * and no writer state until the end. Anything else (a tag, binary, raw number
 * text, an integer below INT64_MIN, a key that is not a string, a double
 * that is not finite, a string the writer refuses) rewinds the buffer to
 * where the value began, leaves the writer as it was and returns 0:
 * walk_node then writes the value with the writer's calls, with exactly
 * their output and errors. Strings take the writer's own string code. */
#define NODE_FAST_DEPTH 32
#define NODE_FAST_ROOM 40 /* a comma, a scalar (SDX_DTOA_RESERVE) and a bracket */

struct node_fast_frame {
    const sdx_val *end; /* the slot after the container's last descendant */
    uint8_t map;
};

/* Copy the n bytes of a string marked SDX_VAL_NOESC, with room for 16 at
 * p: up to 16 in one 16-byte move (the mark says 16 bytes may be read from
 * s, doc.h; the bytes beyond n are overwritten by what follows), with no
 * branch on a length that is often random; more in 16-byte pieces, the
 * last one ending at n (overlapping the one before). Inline copies, as a
 * call to memcpy costs more than a short string, and some memcpy
 * implementations are slow to start on a few hundred bytes. */
static SDX_ALWAYS_INLINE void node_fast_copy(char *p, const char *s, size_t n) {
    char t[16];
    if (n <= 16) {
        memcpy(t, s, 16);
        memcpy(p, t, 16);
        return;
    }
    for (size_t i = 0; i + 16 < n; i += 16) {
        memcpy(t, s + i, 16);
        memcpy(p + i, t, 16);
    }
    memcpy(t, s + n - 16, 16);
    memcpy(p + n - 16, t, 16);
}

/* The string s[0, n) at p, quoted, followed by `tail` (1 or 2 bytes: '"'
 * or '":'); room for node_fast_room_for(n, raw) bytes at p is reserved.
 * `raw`: the string needs no escape and no check (SDX_VAL_NOESC, and
 * neither '/' nor non-ASCII text is escaped), so it is copied as it is.
 * NULL with the writer's error set when the string is refused. */
static SDX_ALWAYS_INLINE char *node_fast_string(sdx_json_writer *w, char *p, const char *s,
                                                size_t n, int raw, const char *tail,
                                                size_t tlen) {
    *p++ = '"';
    if (raw) {
        node_fast_copy(p, s, n);
        p += n;
    } else {
        /* room for two bytes after the body: the tail is stored as two */
        p = n <= STRING_PIECE ? string_fast(w, p, s, n, 2) : string_body(w, p, s, n, 2, 0);
        if (!p) return NULL;
    }
    memcpy(p, tail, 2);
    return p + tlen;
}

/* The room node_fast_string needs: a comma, the quotes, the tail, and the
 * string (the first piece of a string the kernels write piece by piece). */
static SDX_ALWAYS_INLINE size_t node_fast_room_for(size_t n, int raw) {
    return (raw || n < STRING_PIECE ? n : STRING_PIECE) + 4;
}

/* 1: written; 0: nothing written, walk_node's to do; -1: the writer's error. */
static int node_fast(sdx_json_writer *w, sdx_node n) {
    unsigned pos = w->pos;
    sdx_json_frame *wf = w->top;
    sdx_buf *b = w->out;
    if (!((w->fast & VALUE_POS) >> pos & 1) || (pos != POS_VALUE && wf->left == 0) ||
        b->mode != SDX_BUF_MEMORY || sdx_val_tags_start(n.doc, n.val) != n.val)
        return 0;
    const size_t start = (size_t)(b->cur - b->start);
    const int nan_null = (w->flags & SDX_JSON_WRITE_NAN_AS_NULL) != 0;
    /* SDX_VAL_NOESC where it lets a string be copied as it is */
    const uint64_t noesc = (w->esc_set & SDX_ESC_SLASH) || (w->flags & SDX_JSON_WRITE_ESCAPE_UNICODE)
                               ? 0
                               : SDX_VAL_NOESC;
    struct node_fast_frame inline_frames[NODE_FAST_DEPTH], *frames = inline_frames;
    sdx_stack st;
    sdx_stack_init(&st, inline_frames, NODE_FAST_DEPTH, sizeof *frames,
                   n.doc ? &n.doc->alloc : sdx_alloc_default());
    size_t depth = 0;
    /* the innermost container's end and kind, in registers (the root's
     * end and "not a map" at depth 0); frames[] holds the outer ones */
    const sdx_val *v = n.val, *cend = sdx_val_next(n.val);
    unsigned map = 0;
    int rc = 0;
    char *p = b->cur;
    /* the whole output at once, where it can be told: a document's root as
     * long as the text it was parsed from (which minified JSON output of a
     * JSON input does not exceed by much), instead of growing in steps */
    size_t want = NODE_FAST_ROOM;
    if (n.doc && n.val == n.doc->vals && sdx_doc_consumed(n.doc) < SIZE_MAX / 2)
        want += (size_t)sdx_doc_consumed(n.doc);
    NODE_WALK_NEED(b, p, want, out);
    if (pos == POS_ARR_NEXT) *p++ = ',';
    /* Every value is followed by a comma, and a container's closing
     * bracket takes the place of its last element's: no "first element"
     * state and no branch on it. The comma after the whole value is taken
     * back at the end. */
    for (;;) {
        /* room for the value (NODE_FAST_ROOM), in a map after its key */
        if (map) {
            /* a key, then its value */
            if (SDX_VAL_TYPE(v) != SDX_TYPE_STR) goto out;
            size_t kn = (size_t)SDX_VAL_LEN(v);
            int raw = (v->tag & noesc) != 0;
            NODE_WALK_NEED(b, p, node_fast_room_for(kn, raw) + NODE_FAST_ROOM, out);
            if (!(p = node_fast_string(w, p, v->v.s, kn, raw, "\":", 2))) goto refused;
            if (!raw) NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out); /* it may have grown */
            v++;
        } else {
            NODE_WALK_NEED(b, p, NODE_FAST_ROOM, out);
        }
        /* tests, not a switch (NODE_WALK_BIT, core/node_walk.h) */
        const unsigned t = SDX_VAL_TYPE(v);
        const uint32_t bit = NODE_WALK_BIT(t);
        if (t == SDX_TYPE_STR) {
            size_t sn = (size_t)SDX_VAL_LEN(v);
            int raw = (v->tag & noesc) != 0;
            NODE_WALK_NEED(b, p, node_fast_room_for(sn, raw), out);
            if (!(p = node_fast_string(w, p, v->v.s, sn, raw, "\",", 2))) goto refused;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_INT)) {
            p = sdx_i64_to_dec(p, v->v.i);
            *p++ = ',';
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_DOUBLE)) {
            if (SDX_UNLIKELY((v->v.u >> 52 & 0x7FF) == 0x7FF)) {
                if (!nan_null) goto out;
                memcpy(p, "null", 4);
                p += 4;
            } else {
                p = sdx_dtoa_json(p, v->v.d);
            }
            *p++ = ',';
        } else if (bit & (NODE_WALK_BIT(SDX_TYPE_ARRAY) | NODE_WALK_BIT(SDX_TYPE_MAP))) {
            unsigned is_map = t == SDX_TYPE_MAP;
            if (SDX_VAL_LEN(v) == 0) { /* [] or {}: a span of one */
                memcpy(p, is_map ? "{}," : "[],", 3);
                p += 3;
            } else {
                if (depth == st.cap) {
                    if (!sdx_stack_grow(&st)) goto out;
                    frames = st.items;
                }
                frames[depth].end = cend;
                frames[depth].map = (uint8_t)map;
                depth++;
                cend = v + v->v.u;
                map = is_map;
                *p++ = is_map ? '{' : '[';
                v++;
                continue; /* not empty: no end here */
            }
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_BOOL)) {
            memcpy(p, v->v.u ? "true," : "false,", 6);
            p += 6 - (v->v.u != 0);
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_NULL)) {
            memcpy(p, "null,", 5);
            p += 5;
        } else if (bit & NODE_WALK_BIT(SDX_TYPE_UINT)) {
            p = sdx_u64_to_dec(p, v->v.u);
            *p++ = ',';
        } else {
            goto out; /* a tag, BIN, RAW, NINT (or a corrupted slot) */
        }
        v++;
        while (v == cend) {
            if (!depth) goto done;
            NODE_WALK_NEED(b, p, 1, out);
            p[-1] = map ? '}' : ']';
            *p++ = ',';
            depth--;
            cend = frames[depth].end;
            map = frames[depth].map;
        }
    }
done:
    p--; /* the comma after the value */
    rc = 1;
    goto out;
refused:
    /* a string the writer refuses (invalid UTF-8): unless the buffer failed,
     * the writer is put back as it was, and walk_node writes everything
     * again and fails at the same string, leaving what the writer's calls
     * leave */
    if (!b->err) {
        w->err = SDX_OK;
        w->fast = FAST_ON;
    }
out:
    sdx_stack_free(&st);
    rc = node_walk_end(b, rc, p, start);
    if (rc > 0 && pos != POS_VALUE) wf->left--; /* count_take, checked above */
    if (rc < 0) fail_buf(w); /* the buffer could not grow: the writer's error */
    return rc;
}

sdx_err sdx_json_writer_node(sdx_json_writer *w, sdx_node n) {
    if (w->fast == FAST_ON && SDX_VAL_TYPE(n.val) != SDX_TYPE_NONE) {
        int rc = node_fast(w, n);
        if (rc > 0) return value_done(w);
        if (rc < 0) return w->err;
    }
    return walk_node(w, n);
}

sdx_err sdx_json_writer_finish(sdx_json_writer *w) {
    if (!w->err) {
        if (w->depth != 0 || (w->pos == POS_ROOT && !(w->flags & SDX_JSON_WRITE_SEQUENCE)))
            fail(w, SDX_ERR_USAGE);
        else if (sdx_buf_flush(w->out))
            fail_buf(w);
    }
    if (w->frames != w->inline_frames) w->alloc.free(w->alloc.ctx, w->frames);
    w->frames = w->top = w->inline_frames;
    w->cap = SDX_JSON_WRITER_INLINE_DEPTH;
    w->depth = 0;
    /* Nothing more is accepted: every later value fails with SDX_ERR_USAGE. */
    w->pos = POS_DONE;
    w->flags &= ~(uint32_t)SDX_JSON_WRITE_SEQUENCE;
    w->fast = 0;
    return w->err;
}

static sdx_err sink_put(void *ctx, const sdx_event *ev) {
    return sdx_json_writer_put((sdx_json_writer *)ctx, ev);
}

static sdx_err sink_finish(void *ctx) { return sdx_json_writer_finish((sdx_json_writer *)ctx); }

static const sdx_sink_vt json_sink_vt = {sink_put, sink_finish};

sdx_sink sdx_json_writer_sink(sdx_json_writer *w) {
    sdx_sink s = {&json_sink_vt, w};
    return s;
}
