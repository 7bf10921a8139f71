/*
 * sdx — JSON (RFC 8259).
 *
 * The streaming writer:
 *
 *   sdx_buf out;
 *   sdx_buf_init(&out, NULL);
 *   sdx_json_writer w;
 *   sdx_json_writer_init(&w, &out, NULL);          // minified, strict
 *   sdx_json_writer_begin_map(&w, 2);
 *   sdx_json_writer_key(&w, "id", 2);
 *   sdx_json_writer_int(&w, 42);
 *   sdx_json_writer_key(&w, "tags", 4);
 *   sdx_json_writer_begin_array(&w, SDX_COUNT_UNKNOWN);
 *   sdx_json_writer_string(&w, "a\"b", 3);
 *   sdx_json_writer_end(&w);
 *   sdx_json_writer_end(&w);
 *   if (sdx_json_writer_finish(&w) == SDX_OK)      // one check at the end
 *       fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), stdout);
 *   sdx_buf_destroy(&out);
 *
 * Errors are sticky: the first one is kept, every later call does nothing
 * and returns it, and sdx_json_writer_finish() returns it.
 */
#ifndef SDX_JSON_H
#define SDX_JSON_H

#include <stdio.h>

#include "buf.h"
#include "common.h"
#include "doc.h"
#include "sink.h"
#include "source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */
/* ------------------------------------------------------------------------ */

/* Writer options (flags), all off by default. */
enum sdx_json_write_flag {
    /* Write '/' as "\/" (for embedding in HTML <script>). */
    SDX_JSON_WRITE_ESCAPE_SLASH = 1u << 0,
    /* Write every non-ASCII character as \uXXXX, characters above U+FFFF as
     * a UTF-16 surrogate pair, so the output is pure ASCII. */
    SDX_JSON_WRITE_ESCAPE_UNICODE = 1u << 1,
    /* Replace each ill-formed UTF-8 subsequence in a string or key by U+FFFD
     * (one per maximal subpart, as Unicode recommends) instead of failing
     * with SDX_ERR_UTF8. */
    SDX_JSON_WRITE_REPLACE_INVALID_UTF8 = 1u << 2,
    /* Write NaN and the infinities as null instead of failing with
     * SDX_ERR_RANGE. */
    SDX_JSON_WRITE_NAN_AS_NULL = 1u << 3,
    /* Write binary values as base64 strings (RFC 4648, padded) instead of
     * failing with SDX_ERR_UNSUPPORTED. */
    SDX_JSON_WRITE_BIN_BASE64 = 1u << 4,
    /* Allow any number of top-level values, each followed by a newline
     * (newline-delimited JSON). Without it exactly one value is written. */
    SDX_JSON_WRITE_SEQUENCE = 1u << 5,
    /* Where a map key is due, accept null, bool, integer and double values
     * (MessagePack and CBOR allow any key) and write their JSON text as the
     * key string: 1 -> "1", -2.5 -> "-2.5", true -> "true", null -> "null".
     * Without it they are SDX_ERR_KEY; other kinds always are. */
    SDX_JSON_WRITE_STRINGIFY_KEYS = 1u << 6,
    /* (1u << 7 is reserved.) Tagged values — MessagePack ext types, CBOR
     * tags and simple values — get their JSON forms from the mapping layer
     * (map.h), not from a writer flag. */
    /* Do not check that strings and keys are valid UTF-8: the caller
     * guarantees they are (text from a reader that checked it, or from a
     * language whose strings are Unicode: the Python package). Bytes
     * above 0x7f are copied as they are; invalid UTF-8 then reaches the
     * output unnoticed. Ignored with SDX_JSON_WRITE_ESCAPE_UNICODE, which
     * decodes every character. */
    SDX_JSON_WRITE_NO_UTF8_CHECK = 1u << 8
};

/* Writer options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_json_write_opts {
    uint32_t flags;          /* sdx_json_write_flag bits */
    uint32_t indent;         /* 0: minified; 1 to 16: pretty-printed with this
                                many spaces per level */
    const sdx_alloc *alloc;  /* for nesting deeper than the inline stack;
                                NULL = sdx_alloc_default() */
} sdx_json_write_opts;

/* Nesting levels held inside the writer before it allocates. */
#define SDX_JSON_WRITER_INLINE_DEPTH 32

/* One open container (private). */
typedef struct sdx_json_frame {
    uint64_t left;      /* elements (map: entries) still allowed, or SDX_COUNT_UNKNOWN */
    uint8_t kind;       /* root, array or map */
    uint8_t parent_pos; /* the writer's position when the container began */
} sdx_json_frame;

/* The writer. All fields are private. It points into itself, so it must not
 * be copied or moved after sdx_json_writer_init(). */
typedef struct sdx_json_writer {
    sdx_buf *out;
    sdx_json_frame *top;    /* innermost open container */
    size_t (*escape_copy)(char *dst, const char *src, size_t n, unsigned set);
    size_t (*escape_copy_first)(char *dst, const char *src, size_t n, unsigned set);
    size_t (*utf8_valid)(const char *s, size_t n);
    uint8_t pos;            /* what may come next */
    uint8_t fast;           /* 0 when every call must take the checked path */
    uint8_t esc_set;        /* bytes the escape scan stops at */
    sdx_err err;
    uint32_t flags;
    uint32_t indent;
    uint32_t depth;
    uint32_t cap;           /* frames available */
    sdx_json_frame *frames; /* inline_frames or an allocation */
    sdx_alloc alloc;
    sdx_json_frame inline_frames[SDX_JSON_WRITER_INLINE_DEPTH];
} sdx_json_writer;

/* Start writing JSON into `out` (which the caller owns and must keep alive
 * until sdx_json_writer_finish()). `opts` NULL means defaults. Returns
 * SDX_ERR_INVALID_ARG (and sets it as the sticky error) for an indent above
 * 16 or unknown flags, else SDX_OK. */
SDX_API sdx_err sdx_json_writer_init(sdx_json_writer *w, sdx_buf *out,
                                     const sdx_json_write_opts *opts);

/* Scalars. Each returns the sticky error (SDX_OK while all is well).
 * A value is allowed at the top level (once, or any number of times with
 * SDX_JSON_WRITE_SEQUENCE), in an array, or after a key; elsewhere it is
 * SDX_ERR_KEY (a value where a map key is due; null, bool and numbers
 * become the key with SDX_JSON_WRITE_STRINGIFY_KEYS) or SDX_ERR_USAGE. */
SDX_API sdx_err sdx_json_writer_null(sdx_json_writer *w);
SDX_API sdx_err sdx_json_writer_bool(sdx_json_writer *w, bool v);
SDX_API sdx_err sdx_json_writer_int(sdx_json_writer *w, int64_t v);
SDX_API sdx_err sdx_json_writer_uint(sdx_json_writer *w, uint64_t v);
/* Shortest text that reads back as exactly `v` (see sdx_dtoa_json layout:
 * 1.0, 0.1, 1e21, 5e-324); NaN and infinities are SDX_ERR_RANGE unless
 * SDX_JSON_WRITE_NAN_AS_NULL. */
SDX_API sdx_err sdx_json_writer_double(sdx_json_writer *w, double v);
/* A string of `len` bytes of UTF-8 (NUL bytes allowed; `s` may be NULL when
 * len is 0). Escapes '"', '\\' and control characters (\b \f \n \r \t, else
 * \u00XX); invalid UTF-8 is SDX_ERR_UTF8 unless
 * SDX_JSON_WRITE_REPLACE_INVALID_UTF8. */
SDX_API sdx_err (sdx_json_writer_string)(sdx_json_writer *w, const char *s, size_t len);
/* Binary data: SDX_ERR_UNSUPPORTED unless SDX_JSON_WRITE_BIN_BASE64. */
SDX_API sdx_err sdx_json_writer_bin(sdx_json_writer *w, const void *data, size_t len);

/* A number given as its text (an SDX_RAW event: e.g. an integer beyond 64
 * bits kept by a reader), written as is. Text that is not a number in the
 * RFC 8259 grammar is SDX_ERR_INVALID_ARG. */
SDX_API sdx_err sdx_json_writer_raw_number(sdx_json_writer *w, const char *s, size_t len);

/* Containers. `count` is the number of elements (entries for a map) that
 * will follow, checked (SDX_ERR_USAGE when exceeded or not met), or
 * SDX_COUNT_UNKNOWN; counts of 2^62 and more are taken as unknown. */
SDX_API sdx_err (sdx_json_writer_begin_array)(sdx_json_writer *w, uint64_t count);
SDX_API sdx_err (sdx_json_writer_begin_map)(sdx_json_writer *w, uint64_t count);
/* A map key; must come where a key is due (SDX_ERR_USAGE otherwise). */
SDX_API sdx_err (sdx_json_writer_key)(sdx_json_writer *w, const char *s, size_t len);
/* Close the innermost container (SDX_ERR_USAGE if none is open, or after a
 * key without its value). end_array / end_map also check its kind. */
SDX_API sdx_err (sdx_json_writer_end)(sdx_json_writer *w);
SDX_API sdx_err sdx_json_writer_end_array(sdx_json_writer *w);
SDX_API sdx_err sdx_json_writer_end_map(sdx_json_writer *w);

/* Write one event (see sdx_event). JSON has no tags: an event's tag is
 * ignored (the plain value is written) and SDX_TAG events write nothing,
 * except that a MessagePack ext value (SDX_BIN tagged SDX_TAG_MSGPACK_EXT)
 * is SDX_ERR_UNSUPPORTED, since its payload alone would lose its type.
 * SDX_NINT is written as its exact decimal text (-18446744073709551616 ..
 * -9223372036854775809), like an integer (also as a key with
 * SDX_JSON_WRITE_STRINGIFY_KEYS). To give tagged values their JSON forms
 * (dates, bignums, ext values, ...), put the mapping layer in front:
 * sdx_map_to_json (map.h). A non-KEY event where a key is due is
 * SDX_ERR_KEY, unless SDX_JSON_WRITE_STRINGIFY_KEYS allows it. */
SDX_API sdx_err sdx_json_writer_put(sdx_json_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_json_writer_sink(sdx_json_writer *w);

/* Write the value `n` of a document (with its tags and everything inside
 * it): exactly what sdx_node_emit(n, sdx_json_writer_sink(w)) writes, with the
 * same errors, but faster — minified into a memory buffer, the document is
 * written straight from its values; otherwise it is walked with direct
 * calls into the writer instead of an event per value. (After an error the
 * buffer holds the output before the refused value, and perhaps the first
 * bytes of that value, as after any writer error.) SDX_ERR_NOT_FOUND for
 * the nil node, SDX_ERR_NOMEM if the walk's stack cannot grow, else the
 * writer's sticky error. */
SDX_API sdx_err sdx_json_writer_node(sdx_json_writer *w, sdx_node n);

/* End the document: checks that a value was written and every container is
 * closed (SDX_ERR_USAGE otherwise), flushes a stream buffer, frees what the
 * writer allocated and returns the sticky error. Call it exactly once, also
 * after an error; the writer accepts nothing afterwards. */
SDX_API sdx_err sdx_json_writer_finish(sdx_json_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_json_writer_error(const sdx_json_writer *w) { return w->err; }

/* ------------------------------------------------------------------------ */
/* Writer: inline fast paths                                                 */
/* ------------------------------------------------------------------------ */

/* A call sdx_json_writer_string(w, s, n) (and likewise key, begin_array,
 * begin_map and end) is a macro for the inline function
 * sdx_json_writer_string_inline below, which behaves exactly like the
 * exported function: it writes the commonest items itself, in the
 * caller's code (minified output; a string inside a container that needs
 * no escape and is ASCII or valid UTF-8; a container wherever a value may
 * come, and its end inside another; room in the buffer), and hands
 * everything else (errors included) to the exported function, having
 * changed nothing. The exported functions are called as
 * (sdx_json_writer_string)(w, s, n) or through their address, as with getc
 * in the C library. Everything named sdx_jw_ here is private to the
 * library, which shares it with these functions. Numbers, null and bool
 * stay calls: inline as well they saved 0.4-1.4 % more (bench/README.md,
 * "Update, 2026-12-06"), and the integer printer would have to come into
 * this header. */

/* Where the writer is (sdx_json_writer.pos): what may come next. */
enum {
    SDX_JW_POS_ROOT,      /* a top-level value */
    SDX_JW_POS_DONE,      /* nothing: the document is complete */
    SDX_JW_POS_ARR_FIRST, /* first element of an array, or its end */
    SDX_JW_POS_ARR_NEXT,  /* ',' element, or the end */
    SDX_JW_POS_KEY_FIRST, /* first key of a map, or its end */
    SDX_JW_POS_KEY_NEXT,  /* ',' key, or the end */
    SDX_JW_POS_VALUE      /* the value after a key */
};

/* Frame kinds (sdx_json_frame.kind). */
enum { SDX_JW_FRAME_ROOT, SDX_JW_FRAME_ARRAY, SDX_JW_FRAME_MAP };

/* Positions as bits: where a value may come; where the inline paths take
 * a scalar or string (not at the top level, whose end the exported
 * functions handle); a key; an end. */
#define SDX_JW_BIT(pos) (1u << (pos))
#define SDX_JW_VALUE_POS (SDX_JW_BIT(SDX_JW_POS_ROOT) | SDX_JW_INNER_VALUE_POS)
#define SDX_JW_INNER_VALUE_POS \
    (SDX_JW_BIT(SDX_JW_POS_ARR_FIRST) | SDX_JW_BIT(SDX_JW_POS_ARR_NEXT) | SDX_JW_BIT(SDX_JW_POS_VALUE))
#define SDX_JW_KEY_POS (SDX_JW_BIT(SDX_JW_POS_KEY_FIRST) | SDX_JW_BIT(SDX_JW_POS_KEY_NEXT))
#define SDX_JW_END_POS (SDX_JW_BIT(SDX_JW_POS_ARR_FIRST) | SDX_JW_BIT(SDX_JW_POS_ARR_NEXT) | SDX_JW_KEY_POS)

/* The longest string the inline paths write (the writer's piece). */
#define SDX_JW_STRING_MAX 4096

/* Whether the innermost container f takes one more item at position
 * `pos` (a map's value was counted with its key); counts it when `take`.
 * An unknown count (SDX_COUNT_UNKNOWN, and any count of 2^62 or more)
 * starts at 2^64 - 1 and so never runs out, which saves a test on every
 * item; at the end, whatever is still at or above 2^62 was unknown (no
 * container has 2^62 items, so it cannot have dropped below). */
static inline int sdx_jw_count(sdx_json_frame *f, unsigned pos, int take) {
    if (pos == SDX_JW_POS_VALUE) return 1;
    if (f->left == 0) return 0;
    if (take) f->left--;
    return 1;
}

/* A new frame's `left` for a declared count. */
static inline uint64_t sdx_jw_frame_left(uint64_t count) {
    return count < (UINT64_C(1) << 62) ? count : SDX_COUNT_UNKNOWN;
}

/* At the end of a container: was its declared count met? */
static inline int sdx_jw_count_met(const sdx_json_frame *f) {
    return f->left == 0 || f->left >= (UINT64_C(1) << 62);
}

/* The position after a value written at `pos` (one of
 * SDX_JW_INNER_VALUE_POS). */
static inline uint8_t sdx_jw_after_value(unsigned pos) {
    return (uint8_t)(pos == SDX_JW_POS_VALUE ? SDX_JW_POS_KEY_NEXT : SDX_JW_POS_ARR_NEXT);
}

/* '"', the n bytes of s and '"' at p, when s needs no escape: the end,
 * or NULL with nothing published (the caller then hands the string to the
 * exported function, which writes it again, escaped).
 * The writer's kernel copies the text and stops at what needs an escape
 * or, unless the caller vouched for it, at text it did not find valid. */
static inline char *sdx_jw_quoted(const sdx_json_writer *w, char *p, const char *s, size_t n) {
    *p++ = '"';
    if (w->escape_copy_first(p, s, n, w->esc_set) != n) return NULL;
    p += n;
    *p = '"';
    return p + 1;
}

/* (w->top is read again after the kernel's call in the two below: held in
 * a register across the call it made JSON Write 2-4 % slower.) */
static inline sdx_err sdx_json_writer_string_inline(sdx_json_writer *w, const char *s, size_t n) {
    const unsigned pos = w->pos;
    sdx_buf *b = w->out;
    char *p = b->cur, *e;
    if (((w->fast & SDX_JW_INNER_VALUE_POS) >> pos & 1) && n <= SDX_JW_STRING_MAX &&
        (size_t)(b->end - p) >= n + 3 && sdx_jw_count(w->top, pos, 0)) {
        const size_t comma = pos == SDX_JW_POS_ARR_NEXT;
        *p = ',';
        if ((e = sdx_jw_quoted(w, p + comma, s, n)) != NULL) {
            sdx_jw_count(w->top, pos, 1);
            b->cur = e;
            w->pos = sdx_jw_after_value(pos);
            return SDX_OK;
        }
    }
    return (sdx_json_writer_string)(w, s, n);
}

static inline sdx_err sdx_json_writer_key_inline(sdx_json_writer *w, const char *s, size_t n) {
    const unsigned pos = w->pos;
    sdx_buf *b = w->out;
    char *p = b->cur, *e;
    if (((w->fast & SDX_JW_KEY_POS) >> pos & 1) && n <= SDX_JW_STRING_MAX && (size_t)(b->end - p) >= n + 4 &&
        w->top->left != 0) {
        const size_t comma = pos == SDX_JW_POS_KEY_NEXT;
        *p = ',';
        if ((e = sdx_jw_quoted(w, p + comma, s, n)) != NULL) {
            *e = ':';
            w->top->left--;
            b->cur = e + 1;
            w->pos = SDX_JW_POS_VALUE;
            return SDX_OK;
        }
    }
    return (sdx_json_writer_key)(w, s, n);
}

/* An array or map where a value may come, while the writer's frames have
 * room; `map` 0 or 1. Also the exported functions' fast path. */
static inline int sdx_jw_begin(sdx_json_writer *w, uint64_t count, int map) {
    const unsigned pos = w->pos;
    sdx_buf *b = w->out;
    char *p = b->cur;
    sdx_json_frame *f = w->top;
    if (!((w->fast & SDX_JW_VALUE_POS) >> pos & 1) || w->depth + 1 >= w->cap || b->end - p < 2 ||
        !sdx_jw_count(f, pos, 1))
        return 0;
    *p = ',';
    p += pos == SDX_JW_POS_ARR_NEXT;
    *p = map ? '{' : '[';
    b->cur = p + 1;
    w->depth++;
    f[1].left = sdx_jw_frame_left(count);
    f[1].kind = (uint8_t)(map ? SDX_JW_FRAME_MAP : SDX_JW_FRAME_ARRAY);
    f[1].parent_pos = (uint8_t)pos;
    w->top = f + 1;
    w->pos = (uint8_t)(map ? SDX_JW_POS_KEY_FIRST : SDX_JW_POS_ARR_FIRST);
    return 1;
}

static inline sdx_err sdx_json_writer_begin_array_inline(sdx_json_writer *w, uint64_t count) {
    if (!sdx_jw_begin(w, count, 0)) return (sdx_json_writer_begin_array)(w, count);
    return SDX_OK;
}

static inline sdx_err sdx_json_writer_begin_map_inline(sdx_json_writer *w, uint64_t count) {
    if (!sdx_jw_begin(w, count, 1)) return (sdx_json_writer_begin_map)(w, count);
    return SDX_OK;
}

/* The end of a container whose count is met (or unknown: 2^62 or more
 * left), inside another container. */
static inline sdx_err sdx_json_writer_end_inline(sdx_json_writer *w) {
    const unsigned pos = w->pos;
    sdx_buf *b = w->out;
    char *p = b->cur;
    sdx_json_frame *f = w->top;
    const unsigned parent = f->parent_pos;
    if (!((w->fast & SDX_JW_END_POS) >> pos & 1) || !sdx_jw_count_met(f) ||
        p == b->end || !((SDX_JW_INNER_VALUE_POS >> parent) & 1))
        return (sdx_json_writer_end)(w);
    *p = pos >= SDX_JW_POS_KEY_FIRST ? '}' : ']';
    b->cur = p + 1;
    w->top = f - 1;
    w->depth--;
    w->pos = sdx_jw_after_value(parent);
    return SDX_OK;
}

#define sdx_json_writer_string(w, s, n) sdx_json_writer_string_inline(w, s, n)
#define sdx_json_writer_key(w, s, n) sdx_json_writer_key_inline(w, s, n)
#define sdx_json_writer_begin_array(w, n) sdx_json_writer_begin_array_inline(w, n)
#define sdx_json_writer_begin_map(w, n) sdx_json_writer_begin_map_inline(w, n)
#define sdx_json_writer_end(w) sdx_json_writer_end_inline(w)


/* ------------------------------------------------------------------------ */
/* Reading: options shared by the pull reader and the tree parser            */
/* ------------------------------------------------------------------------ */

/* Reader options (flags). With none set, input is strict RFC 8259: exactly
 * one value, surrounded by optional whitespace. */
enum sdx_json_read_flag {
    /* Accept comments, // to the end of the line and / * ... * / , wherever
     * whitespace is allowed. */
    SDX_JSON_READ_COMMENTS = 1u << 0,
    /* Accept one comma after the last element of an array or map. */
    SDX_JSON_READ_TRAILING_COMMAS = 1u << 1,
    /* Accept the literals NaN, Infinity and -Infinity as doubles. */
    SDX_JSON_READ_NAN_INF = 1u << 2,
    /* Skip a UTF-8 byte-order mark (EF BB BF) at the start of the input. */
    SDX_JSON_READ_BOM = 1u << 3,
    /* Parser: stop after the first complete value; what follows is not
     * looked at, and sdx_doc_consumed() tells where it ended. Reader: read a
     * sequence of values separated by optional whitespace (newline-delimited
     * or concatenated JSON), each at depth 0. */
    SDX_JSON_READ_STOP_AFTER_VALUE = 1u << 4,
    /* Integers outside int64 and uint64 (and numbers whose double would be
     * infinite) are kept as their text, SDX_RAW / SDX_TYPE_RAW, instead of
     * being converted to the nearest double. */
    SDX_JSON_READ_BIGNUM_RAW = 1u << 5,
    /* Parser: copy the input into the document, so the caller may free it
     * as soon as the parser returns. Without it, strings that need no
     * unescaping point into the input, which must outlive the document. */
    SDX_JSON_READ_COPY_INPUT = 1u << 6
};

/* Reader and parser options; a NULL pointer means all defaults. */
typedef struct sdx_json_read_opts {
    uint32_t flags;         /* sdx_json_read_flag bits */
    uint32_t max_depth;     /* nesting limit (SDX_ERR_DEPTH beyond it);
                               0 = SDX_JSON_DEFAULT_MAX_DEPTH */
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
} sdx_json_read_opts;

#define SDX_JSON_DEFAULT_MAX_DEPTH 1024

/* ------------------------------------------------------------------------ */
/* Tree parser                                                               */
/* ------------------------------------------------------------------------ */

/* Parse `len` bytes of JSON into a new immutable document (free it with
 * sdx_doc_free). Returns NULL on failure with the error in *err (if not
 * NULL): code, message, byte offset, line and column of the first offending
 * byte. The input need not be NUL-terminated; unless
 * SDX_JSON_READ_COPY_INPUT is given it must outlive the document.
 *
 * Numbers: integers that fit int64 are SDX_TYPE_INT, larger ones up to
 * UINT64_MAX SDX_TYPE_UINT; everything else is the correctly rounded double
 * (or raw text with SDX_JSON_READ_BIGNUM_RAW); "-0" is the double -0.0, so
 * that its sign survives. Strings are validated as
 * UTF-8; \u escapes are decoded, surrogate pairs combined, and a lone
 * surrogate is an error. Nesting is limited without recursion.
 *
 * On x86-64 CPUs with AVX-512 VBMI2, a text dense in strings is parsed in
 * two stages (an index of its tokens, then the grammar over it), with the
 * same result and errors; the index is built in chunks in about 17 KB of
 * the caller's stack. */
SDX_API sdx_doc *sdx_json_parse(const char *data, size_t len,
                                const sdx_json_read_opts *opts, sdx_error *err);

/* The same, parsing in place: strings are unescaped inside `data`, which the
 * document then points into (it must outlive the document and is modified
 * even when parsing fails). SDX_JSON_READ_COPY_INPUT is ignored. */
SDX_API sdx_doc *sdx_json_parse_insitu(char *data, size_t len,
                                       const sdx_json_read_opts *opts, sdx_error *err);

/* ------------------------------------------------------------------------ */
/* Incremental (pull) reader                                                 */
/* ------------------------------------------------------------------------ */

/* The reader (opaque).
 *
 *   sdx_json_reader *r = sdx_json_reader_new(text, len, NULL);
 *   sdx_event ev;
 *   while (sdx_json_reader_next(r, &ev)) { ... one event at a time ... }
 *   sdx_error err;
 *   if (sdx_json_reader_error(r, &err) != SDX_OK) { ... err.msg, err.line ... }
 *   sdx_json_reader_free(r);
 *
 * It accepts exactly what sdx_json_parse() accepts with the same options
 * (except SDX_JSON_READ_STOP_AFTER_VALUE, see below) and fails with the same
 * error code and offset: the first error in document order. Invalid UTF-8
 * is SDX_ERR_UTF8 at the first byte of the first ill-formed sequence,
 * wherever it is; input that ends inside a value, or inside a character of
 * a string, is SDX_ERR_TRUNCATED at the input's length.
 *
 * Memory. Nothing is allocated per element. Strings without escapes point
 * into the input; strings with escapes are unescaped into one scratch area
 * that grows to the longest of them (over a stream, in place in the
 * reader's buffer). A stream is read `chunk` bytes at a time into a buffer
 * that holds a chunk and the token in progress: its size stays below
 * chunk + 1.5 x the longest token (string, number or literal), whatever
 * the input's size. Nesting costs one bit per level, inline up to 1024
 * levels, allocated beyond (max_depth above 1024). Every allocation goes
 * through opts->alloc. */
typedef struct sdx_json_reader sdx_json_reader;

/* Create a reader over `len` bytes in memory (not copied: keep them alive
 * while reading; events' strings point into them where no unescaping was
 * needed). The input need not be NUL-terminated. `opts` NULL means
 * defaults; SDX_JSON_READ_COPY_INPUT is ignored. `data` NULL with len > 0
 * gives a reader whose sticky error is SDX_ERR_INVALID_ARG. Returns NULL
 * only when allocating the reader fails. */
SDX_API sdx_json_reader *sdx_json_reader_new(const char *data, size_t len,
                                             const sdx_json_read_opts *opts);

/* Create a reader over a stream: `read` is called for up to `chunk` bytes
 * at a time (0 = 64 KiB) whenever the reader needs more input; a read error
 * ((size_t)-1, or a count above what was asked) is SDX_ERR_IO at the offset
 * read so far. `read` NULL gives a reader whose sticky error is
 * SDX_ERR_INVALID_ARG. Returns NULL only when allocating the reader or its
 * first buffer (`chunk` bytes) fails. */
SDX_API sdx_json_reader *sdx_json_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                    const sdx_json_read_opts *opts);

#ifndef SDX_NO_STDIO
/* Create a reader over a FILE* opened for reading (read with fread in
 * chunks of 64 KiB; not closed). `f` NULL: as `read` NULL above. */
SDX_API sdx_json_reader *sdx_json_reader_new_file(FILE *f, const sdx_json_read_opts *opts);
#endif

/* Start a reader made by sdx_json_reader_new over new input: as if it
 * were freed and made again with the same options, without allocating
 * (what it grew for deep nesting is freed, and its space for unescaped
 * strings when above 8 KiB; up to that it is kept). For many short
 * messages: one reader, no allocation per message. SDX_ERR_USAGE for a
 * reader of a stream or file (left as it was), SDX_ERR_INVALID_ARG for
 * NULL. */
SDX_API sdx_err sdx_json_reader_reset(sdx_json_reader *r, const char *data, size_t len);
/* Free a reader and everything it allocated (NULL is a no-op). Strings of
 * its events become invalid. */
SDX_API void sdx_json_reader_free(sdx_json_reader *r);

/* Read the next event into *ev: a scalar (SDX_NULL, SDX_BOOL, SDX_INT for
 * integers in int64, SDX_UINT above INT64_MAX, SDX_DOUBLE, SDX_STR, or
 * SDX_RAW with SDX_JSON_READ_BIGNUM_RAW), SDX_ARRAY / SDX_MAP (count
 * SDX_COUNT_UNKNOWN: JSON does not say), SDX_KEY, or SDX_END; untagged.
 * ev->depth is the nesting depth: 0 for a top-level value, one more for the
 * elements and keys of a container, and a container's END has the depth of
 * its begin. Strings are views valid until the next call on the reader.
 *
 * Returns true with an event; false at the end of the input (after the one
 * top-level value and the whitespace after it; with
 * SDX_JSON_READ_STOP_AFTER_VALUE after the last value of the sequence, which
 * may hold none) or on an error: then sdx_json_reader_error() tells which.
 * Errors are sticky: later calls return false.
 *
 * With SDX_JSON_READ_STOP_AFTER_VALUE the input is a sequence of values
 * separated by optional whitespace (newline-delimited or concatenated JSON),
 * each at depth 0; a number or literal must be followed by whitespace (or a
 * comment, when allowed) or the end of the input. */
SDX_API bool (sdx_json_reader_next)(sdx_json_reader *r, sdx_event *ev);

/* The state the inline fast path below reads and advances: the first
 * member of every reader. Private: only sdx_json_reader_next_inline may
 * touch it, and its layout belongs to this version of the library (a
 * program built with these headers must run with the library built from
 * them). */
typedef struct sdx_json_reader_hot {
    const char *cur;      /* just after the last event (NULL: see reader.c) */
    const char *lim;      /* end of the bytes known to be well-formed UTF-8 */
    uint64_t *stack;      /* bit level - 1 set: that level is a map */
    uint32_t depth;       /* open containers */
    uint32_t push_limit;  /* a container may open inline below this depth
                             (the depth limit and the stack's levels) */
    uint8_t state;        /* what may come next (SDX_JSON_HOT_*) */
    uint8_t doubles;      /* a counter from 0 to 3, up at each double,
                             down at each integer: from 2 on, numbers are
                             read by sdx_json_reader_token_ at once */
} sdx_json_reader_hot;

/* The reader's states inside a container (private; reader.c has the rest,
 * none of which has one of these bits). */
enum {
    SDX_JSON_HOT_MAP_COLON = 1, /* after a key: ':' and the member's value */
    SDX_JSON_HOT_MAP_NEXT = 2,  /* after a member: ',' or '}' */
    SDX_JSON_HOT_ARR_NEXT = 4,  /* after an element: ',' or ']' */
    SDX_JSON_HOT_MAP_FIRST = 8, /* after '{': a key or '}' */
    SDX_JSON_HOT_ARR_FIRST = 16, /* after '[': an element or ']' */
    SDX_JSON_HOT_AFTER_ROOT = 64 /* a top-level value is complete */
};

/* Private helpers of the inline path (and of the library's number
 * parser, whose speed depends on their being inlined everywhere, even in
 * its largest functions). */
#if defined(__GNUC__) || defined(__clang__)
#define SDX_JSON_HOT_FN static inline __attribute__((always_inline))
#else
#define SDX_JSON_HOT_FN static inline
#endif

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <emmintrin.h>
#define SDX_JSON_HOT_SSE2 1
#endif

/* The eight bytes at p as a little-endian number: one load. */
SDX_JSON_HOT_FN uint64_t sdx_hot_load64le(const char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* The value of eight decimal digits given as byte lanes 0..9, the lowest
 * address (the least significant byte of a little-endian load) holding the
 * most significant digit. Pairs, then quadruples, then the whole: each step
 * multiplies every lane by the weight of its right neighbour's digit count
 * and adds that neighbour (shifted down one lane); lane values stay below
 * the lane size (99 < 2^8, 9999 < 2^16, 10^8 < 2^32), so no carry crosses
 * lanes that are kept, and the masks drop the odd lanes, which hold partial
 * sums. (Eight digits at once, as in D. Lemire, "Number parsing at a
 * gigabyte per second", Software: Practice and Experience 51(8), 2021.) */
SDX_JSON_HOT_FN uint64_t sdx_hot_eight_digits(uint64_t t) {
    t = (t * 10 + (t >> 8)) & 0x00FF00FF00FF00FFu;
    t = (t * 100 + (t >> 16)) & 0x0000FFFF0000FFFFu;
    return (t * 10000 + (t >> 32)) & 0xFFFFFFFFu;
}

/* The count (0 to 8) of the decimal digits at the start of w, eight bytes
 * loaded little-endian. A byte is flagged when it is >= 0x80, above '9'
 * (it carries into the high bit when 0x46 is added) or below '0'
 * (subtracting '0' borrows); digits neither carry nor borrow, so the first
 * non-digit is flagged correctly. */
SDX_JSON_HOT_FN unsigned sdx_hot_digit_count(uint64_t w) {
    const uint64_t t = w - 0x30 * SDX_HOT_ONES8;
    const uint64_t stop = (w | (w + 0x46 * SDX_HOT_ONES8) | t) & (0x80 * SDX_HOT_ONES8);
    return stop ? sdx_hot_ctz64(stop) >> 3 : 8;
}

/* The value of the first n digits of w (n from sdx_hot_digit_count): their
 * lanes moved to the top (the zeros in front are leading zero digits), by
 * two shifts so that n = 0 needs no shift by 64. */
SDX_JSON_HOT_FN uint64_t sdx_hot_digit_value(uint64_t w, unsigned n) {
    const unsigned s = 32 - 4 * n;
    return sdx_hot_eight_digits(((w - 0x30 * SDX_HOT_ONES8) << s) << s);
}

/* Both for the eight bytes at p: the count in *n, the value returned. */
SDX_JSON_HOT_FN uint64_t sdx_hot_digits8(const char *p, unsigned *n) {
    const uint64_t w = sdx_hot_load64le(p);
    *n = sdx_hot_digit_count(w);
    return sdx_hot_digit_value(w, *n);
}

#if defined(SDX_JSON_HOT_SSE2)
/* The index of the first byte of the 16 at p that ends a string's plain
 * run ('"', '\\' or below 0x20), or 16; (x ^ 0x80) < 0xA0 as signed bytes
 * is x < 0x20 unsigned. */
SDX_JSON_HOT_FN unsigned sdx_hot_string_stop16(const char *p) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i ctl = _mm_cmplt_epi8(_mm_xor_si128(v, _mm_set1_epi8((char)0x80)),
                                       _mm_set1_epi8((char)0xA0));
    const __m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    const __m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    const unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(ctl, _mm_or_si128(q, b)));
    return sdx_hot_ctz64(m | 0x10000u);
}
#define SDX_JSON_HOT_STOP(p) sdx_hot_string_stop16(p)
#define SDX_JSON_HOT_STOP_N 16
#else
/* The index of the first byte of the eight at p that ends a string's plain
 * run ('"', '\\' or below 0x20), or 8. Each test flags a byte exactly up
 * to the first one it flags (a borrow may flag bytes after it), so the
 * lowest flag of the three together is exact. */
SDX_JSON_HOT_FN unsigned sdx_hot_string_stop8(const char *p) {
    const uint64_t v = sdx_hot_load64le(p);
    const uint64_t hi = 0x80 * SDX_HOT_ONES8;
    const uint64_t q = v ^ 0x22 * SDX_HOT_ONES8, b = v ^ 0x5C * SDX_HOT_ONES8;
    const uint64_t m = (((q - SDX_HOT_ONES8) & ~q) | ((b - SDX_HOT_ONES8) & ~b) |
                        ((v - 0x20 * SDX_HOT_ONES8) & ~v)) &
                       hi;
    return m ? sdx_hot_ctz64(m) >> 3 : 8;
}
#define SDX_JSON_HOT_STOP(p) sdx_hot_string_stop8(p)
#define SDX_JSON_HOT_STOP_N 8
#endif

/* The length of the plain run at the start of a string's content q (up to
 * its closing quote, a backslash or a control byte), or 4 x
 * SDX_JSON_HOT_STOP_N when it is at least that long: 64 bytes with SSE2,
 * else 32. */
SDX_JSON_HOT_FN unsigned sdx_hot_string_run(const char *q) {
    unsigned n = 0, k;
    for (int i = 0; i < 4; i++, n += SDX_JSON_HOT_STOP_N)
        if ((k = SDX_JSON_HOT_STOP(q + n)) < SDX_JSON_HOT_STOP_N) return n + k;
    return n;
}

#if defined(SDX_JSON_HOT_SSE2)
/* The index of the first byte of the 16 at p that is not JSON whitespace
 * (space, tab, line feed, carriage return); 16 if all are. */
SDX_JSON_HOT_FN unsigned sdx_hot_ws_run16(const char *p) {
    const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    const __m128i ws = _mm_or_si128(
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
        _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
    const unsigned m = ~(unsigned)_mm_movemask_epi8(ws) & 0xFFFFu;
    return sdx_hot_ctz64(m | 0x10000u);
}
#else
/* Bytes of eight loaded little-endian that are not zero: their high bit
 * (exact for every byte: no carry crosses one). */
SDX_JSON_HOT_FN uint64_t sdx_hot_nonzero8(uint64_t x) {
    const uint64_t low = 0x7F * SDX_HOT_ONES8;
    return (((x & low) + low) | x) & (0x80 * SDX_HOT_ONES8);
}

/* The index of the first byte of the eight at p that is not JSON
 * whitespace; 8 if all are. */
SDX_JSON_HOT_FN unsigned sdx_hot_ws_run8(const char *p) {
    const uint64_t x = sdx_hot_load64le(p);
    const uint64_t m = sdx_hot_nonzero8(x ^ 0x20 * SDX_HOT_ONES8) &
                       sdx_hot_nonzero8(x ^ 0x0A * SDX_HOT_ONES8) &
                       sdx_hot_nonzero8(x ^ 0x09 * SDX_HOT_ONES8) &
                       sdx_hot_nonzero8(x ^ 0x0D * SDX_HOT_ONES8);
    return m ? sdx_hot_ctz64(m) >> 3 : 8;
}
#endif

/* Past the JSON whitespace (space, line feed, tab, carriage return) that
 * starts at p, when it is shorter than 32 bytes (NULL: longer): a single
 * space (after a colon) at once, else 16 bytes at a time with SSE2, 8 at a
 * time elsewhere. */
SDX_JSON_HOT_FN const char *sdx_hot_skip_ws(const char *p) {
    if (*p == ' ' && (unsigned char)p[1] > ' ') return p + 1;
#if defined(SDX_JSON_HOT_SSE2)
    for (int i = 0; i < 2; i++, p += 16) {
        const unsigned k = sdx_hot_ws_run16(p);
        if (k < 16) return p + k;
    }
#else
    for (int i = 0; i < 4; i++, p += 8) {
        const unsigned k = sdx_hot_ws_run8(p);
        if (k < 8) return p + k;
    }
#endif
    return NULL;
}

/* The exported function into a copy of the event: the caller's event then
 * never has its address taken, and the compiler may keep it in registers. */
SDX_JSON_HOT_FN bool sdx_json_hot_slow(sdx_json_reader *r, sdx_event *ev) {
    sdx_event e;
    bool ok = (sdx_json_reader_next)(r, &e);
    sdx_hot_copy(ev, &e);
    return ok;
}

/* Private, for the inline path: the number or string (or key, when
 * `after` is SDX_JSON_HOT_MAP_COLON) that starts at p, where the reader's
 * state puts a value or key (p at least 128 bytes before the window's
 * validated end), read as the exported function reads it; `after` is the
 * state that follows. Into a copy of the event, as above. */
SDX_API bool sdx_json_reader_token_(sdx_json_reader *r, const char *p, unsigned after,
                                    sdx_event *ev);
SDX_JSON_HOT_FN bool sdx_json_hot_token(sdx_json_reader *r, const char *p, unsigned after,
                                      sdx_event *ev) {
    sdx_event e;
    bool ok = sdx_json_reader_token_(r, p, after, &e);
    sdx_hot_copy(ev, &e);
    return ok;
}

/* What sdx_json_reader_next(r, ev) expands to: the exported function with
 * the commonest tokens read inline, in the caller's code, inside a
 * container, when the reader's window holds 128 validated bytes from where
 * it stands: whitespace runs shorter than 32 bytes, ',' and ':', the
 * closing bracket of a container, keys and strings of up to 63 bytes
 * (31 without SSE2) without escapes (the window's bytes are well-formed
 * UTF-8 already), integers of up to 15 digits, true, false, null, and '[' and '{' while the
 * depth limit and the nesting stack allow. It commits nothing until it has
 * the event. Other numbers and strings go to the private function above,
 * everything else (the top level, errors, comments, the window's end) to
 * the exported function, from the same state: all give the same events,
 * offsets and errors. The reads stay inside the 128 bytes: two whitespace
 * runs of at most 31 bytes (the one before the event's first byte and the
 * one after a ',' or ':'), then at most 65 bytes of a token. */
SDX_JSON_HOT_FN bool sdx_json_reader_next_inline(sdx_json_reader *r, sdx_event *ev) {
    sdx_json_reader_hot *s = (sdx_json_reader_hot *)(void *)r;
    const char *p = s->cur;
    const unsigned st = s->state;
    const uint32_t d = s->depth;
    unsigned after;
    if (!(st & 31) || !p || s->lim - p < 128) goto slow;
    if ((unsigned char)*p <= ' ' && !(p = sdx_hot_skip_ws(p))) goto slow;
    if (st & SDX_JSON_HOT_MAP_COLON) {
        if (*p != ':') goto slow;
        p++;
        after = SDX_JSON_HOT_MAP_NEXT;
        goto value;
    }
    if (st & (SDX_JSON_HOT_MAP_NEXT | SDX_JSON_HOT_ARR_NEXT)) {
        const int map = (st & SDX_JSON_HOT_MAP_NEXT) != 0;
        if (*p == ',') {
            p++;
            if (map) goto key;
            after = SDX_JSON_HOT_ARR_NEXT;
            goto value;
        }
        if (*p == (map ? '}' : ']')) goto close;
        goto slow;
    }
    if (st & SDX_JSON_HOT_MAP_FIRST) {
        if (*p == '"') goto key_at;
        if (*p == '}') goto close;
        goto slow;
    }
    /* SDX_JSON_HOT_ARR_FIRST */
    if (*p == ']') goto close;
    after = SDX_JSON_HOT_ARR_NEXT;
    goto value_at;

key:
    if ((unsigned char)*p <= ' ' && !(p = sdx_hot_skip_ws(p))) goto slow;
    if (*p != '"') goto slow;
key_at:
    after = SDX_JSON_HOT_MAP_COLON;
    goto string;

value:
    if ((unsigned char)*p <= ' ' && !(p = sdx_hot_skip_ws(p))) goto slow;
value_at:
    switch (*p) {
    case '"':
        goto string;
    case '[':
    case '{': {
        const int map = *p == '{';
        if (d >= s->push_limit) goto slow;
        uint64_t *w = &s->stack[d >> 6];
        const uint64_t bit = (uint64_t)1 << (d & 63);
        *w = map ? *w | bit : *w & ~bit;
        sdx_hot_head(ev, map ? SDX_MAP : SDX_ARRAY, d);
        ev->v.count = SDX_COUNT_UNKNOWN;
        s->depth = d + 1;
        s->state = (uint8_t)(map ? SDX_JSON_HOT_MAP_FIRST : SDX_JSON_HOT_ARR_FIRST);
        s->cur = p + 1;
        return true;
    }
    case '-':
    case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9': {
        /* an integer of up to 15 digits with no leading zero; -0, longer
         * ones, fractions and exponents are the exported function's */
        if (s->doubles >= 2) goto token;
        const int neg = *p == '-';
        const char *q = p + neg;
        const uint64_t w = sdx_hot_load64le(q);
        unsigned n = sdx_hot_digit_count(w);
        uint64_t v;
        if (n < 8) {
            const char c = q[n];
            if (n == 0 || c == '.' || (c | 0x20) == 'e' || (*q == '0' && (n > 1 || neg)))
                goto token;
            v = sdx_hot_digit_value(w, n);
        } else {
            static const uint32_t pow10[8] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000};
            const uint64_t w2 = sdx_hot_load64le(q + 8);
            const unsigned m = sdx_hot_digit_count(w2);
            const char c = q[8 + m];
            if (m == 8 || c == '.' || (c | 0x20) == 'e' || *q == '0')
                goto token;
            v = sdx_hot_digit_value(w, 8) * pow10[m] + sdx_hot_digit_value(w2, m);
            n = 8 + m;
        }
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = neg ? -(int64_t)v : (int64_t)v;
        s->doubles = (uint8_t)(s->doubles - (s->doubles != 0));
        p = q + n;
        break;
    }
    case 't':
        if ((uint32_t)sdx_hot_load64le(p) != 0x65757274u) goto slow;
        sdx_hot_head(ev, SDX_BOOL, d);
        ev->v.b = true;
        p += 4;
        break;
    case 'f':
        if ((uint32_t)sdx_hot_load64le(p + 1) != 0x65736c61u) goto slow;
        sdx_hot_head(ev, SDX_BOOL, d);
        p += 5;
        break;
    case 'n':
        if ((uint32_t)sdx_hot_load64le(p) != 0x6c6c756eu) goto slow;
        sdx_hot_head(ev, SDX_NULL, d);
        p += 4;
        break;
    default:
        goto slow;
    }
    s->state = (uint8_t)after;
    s->cur = p;
    return true;

string: {
    const char *q = p + 1;
    const unsigned n = sdx_hot_string_run(q);
    if (n == 4 * SDX_JSON_HOT_STOP_N || q[n] != '"') goto token;
    sdx_hot_head(ev, after == SDX_JSON_HOT_MAP_COLON ? SDX_KEY : SDX_STR, d);
    ev->v.str.ptr = q;
    ev->v.str.len = n;
    s->state = (uint8_t)after;
    s->cur = q + n + 1;
    return true;
}

close: {
    const uint32_t e = d - 1;
    sdx_hot_head(ev, SDX_END, e);
    s->depth = e;
    s->state = (uint8_t)(e == 0 ? SDX_JSON_HOT_AFTER_ROOT
                         : (s->stack[(e - 1) >> 6] >> ((e - 1) & 63) & 1) ? SDX_JSON_HOT_MAP_NEXT
                                                                          : SDX_JSON_HOT_ARR_NEXT);
    s->cur = p + 1;
    return true;
}

slow:
    return sdx_json_hot_slow(r, ev);
token:
    return sdx_json_hot_token(r, p, after, ev);
}

#define sdx_json_reader_next(r, ev) sdx_json_reader_next_inline(r, ev)

/* SDX_OK (after a clean end or while reading), or the sticky error; *err
 * (if not NULL) gets the details: code, static message, byte offset, and
 * 1-based line and column (column in bytes; lines end at line feeds). */
SDX_API sdx_err sdx_json_reader_error(const sdx_json_reader *r, sdx_error *err);

/* Byte offset in the input just after the last event read (0 before the
 * first): for the last event of a value, where that value ends. Whitespace
 * after it is not counted, also once the reader has ended. */
SDX_API uint64_t sdx_json_reader_offset(const sdx_json_reader *r);

/* Skip what the last event began: after SDX_ARRAY or SDX_MAP, the rest of
 * the container (its END included); after SDX_KEY, the member's whole
 * value; after anything else, nothing. The skipped part is checked as
 * strictly as when read. Returns false on an error (then
 * sdx_json_reader_error() tells which), else true. */
SDX_API bool sdx_json_reader_skip(sdx_json_reader *r);

/* The reader as a format-independent source (valid while `r` is). */
SDX_API sdx_source sdx_json_reader_source(sdx_json_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SDX_JSON_H */
