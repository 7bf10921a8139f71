/*
 * sdx — MessagePack (the msgpack specification, 2017 revision: str/bin
 * split, ext types and the timestamp extension).
 *
 * The streaming writer:
 *
 *   sdx_buf out;
 *   sdx_buf_init(&out, NULL);
 *   sdx_msgpack_writer w;
 *   sdx_msgpack_writer_init(&w, &out, NULL);
 *   sdx_msgpack_writer_begin_map(&w, 2);
 *   sdx_msgpack_writer_key(&w, "id", 2);
 *   sdx_msgpack_writer_int(&w, 42);                    // 0x2a: positive fixint
 *   sdx_msgpack_writer_key(&w, "at", 2);
 *   sdx_msgpack_writer_timestamp(&w, 1514862245, 0);   // d6 ff 5a 4a f6 a5
 *   sdx_msgpack_writer_end(&w);
 *   if (sdx_msgpack_writer_finish(&w) == SDX_OK)       // one check at the end
 *       fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), stdout);
 *   sdx_buf_destroy(&out);
 *
 * How MessagePack maps onto the event model (common.h):
 *   nil, bool                SDX_NULL, SDX_BOOL
 *   int and uint families    SDX_INT for every value that fits int64,
 *                            SDX_UINT above INT64_MAX
 *   float 64                 SDX_DOUBLE
 *   float 32                 SDX_DOUBLE (converted exactly) with
 *                            SDX_EVENT_FLOAT32 in ev->flags; the writer
 *                            writes such an event as float 32 again (when
 *                            the value converts exactly, which it always
 *                            does for one that was read)
 *   str                      SDX_STR; SDX_KEY when it is a map key
 *   bin                      SDX_BIN
 *   ext (fixext 1-16, ext 8/16/32), the timestamp extension included
 *                            SDX_BIN with tag_kind SDX_TAG_MSGPACK_EXT and
 *                            tag = the type as a two's complement int8
 *                            (UINT64_MAX for the timestamp type -1); the
 *                            payload is the value's bytes
 *   array, map               SDX_ARRAY, SDX_MAP with v.count = the declared
 *                            count; SDX_END after the last element
 * Map keys may be of any type: a str key is an SDX_KEY event, any other key
 * an ordinary event in key position (converting such a map to JSON is an
 * error unless SDX_JSON_WRITE_STRINGIFY_KEYS is given; see json.h).
 *
 * In a document (doc.h) an ext value is a BIN value with a tag
 * (sdx_node_tag gives SDX_TAG_MSGPACK_EXT and the type), and a float 32 is a
 * DOUBLE value with SDX_VAL_FLOAT32 set; a MessagePack document written
 * back with sdx_node_emit into the MessagePack writer gives back exactly the
 * bytes it was parsed from whenever those used the smallest encodings.
 */
#ifndef SDX_MSGPACK_H
#define SDX_MSGPACK_H

#ifndef SDX_NO_STDIO
#include <stdio.h>
#endif
#include <string.h>

#include "buf.h"
#include "common.h"
#include "doc.h"
#include "sink.h"
#include "source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The extension type of the timestamp extension. */
#define SDX_MSGPACK_EXT_TIMESTAMP (-1)

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */
/* ------------------------------------------------------------------------ */

/* Writer options (flags), all off by default. */
enum sdx_msgpack_write_flag {
    /* Write every double (sdx_msgpack_writer_double and SDX_DOUBLE events)
     * as float 32, rounded to the nearest float (ties to even; values beyond
     * the float range become infinities, NaN stays NaN). Lossy. */
    SDX_MSGPACK_WRITE_FLOAT32 = 1u << 0,
    /* Write a double as float 32 when that loses nothing: when the float
     * converts back to exactly the same double (for NaN: the same bits),
     * otherwise as float 64. Ignored when SDX_MSGPACK_WRITE_FLOAT32 is set. */
    SDX_MSGPACK_WRITE_FLOAT32_EXACT = 1u << 1,
    /* Do not check that strings and keys are valid UTF-8 (by default
     * invalid UTF-8 is SDX_ERR_UTF8). Binary values are never checked. */
    SDX_MSGPACK_WRITE_NO_UTF8_CHECK = 1u << 2,
    /* Allow any number of top-level values, written one after the other (a
     * MessagePack stream). Without it exactly one value is written. */
    SDX_MSGPACK_WRITE_SEQUENCE = 1u << 3
};

/* Writer options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_msgpack_write_opts {
    uint32_t flags;         /* sdx_msgpack_write_flag bits */
    const sdx_alloc *alloc; /* for nesting deeper than the inline stack;
                               NULL = sdx_alloc_default() */
} sdx_msgpack_write_opts;

/* Nesting levels held inside the writer before it allocates. */
#define SDX_MSGPACK_WRITER_INLINE_DEPTH 32

/* One open container (private). */
typedef struct sdx_msgpack_frame {
    uint64_t left;   /* items (a map's keys and values) still allowed, at or
                        above 2^63 for an unknown count, counting down from
                        there: kept here while a container inside this one
                        is open; the innermost container's is the writer's
                        `left` */
    uint64_t header; /* unknown count: total output offset of its header */
    uint8_t kind;    /* root, array or map */
    uint8_t pinned;  /* unknown count: this container holds the buffer pin */
} sdx_msgpack_frame;

/* The writer. All fields are private. It points into itself, so it must not
 * be copied or moved after sdx_msgpack_writer_init(). */
typedef struct sdx_msgpack_writer {
    sdx_buf *out;
    uint64_t left;          /* items the innermost open container still
                               allows (its frame's `left`, kept here so that
                               a value counts itself without loading `top`);
                               0 once an error is set */
    sdx_msgpack_frame *top; /* innermost open container; a frame that allows
                               nothing once an error is set */
    size_t (*utf8_valid)(const char *s, size_t n);
    uint64_t ascii_mask;    /* the high bits, or 0 when UTF-8 is not checked */
    sdx_err err;
    uint32_t flags;
    uint32_t cap;           /* frames available */
    uint32_t short_avx512;  /* short strings take the AVX-512 path (init) */
    sdx_msgpack_frame *frames; /* inline_frames or an allocation; the open
                               containers are frames + 1 .. top */
    sdx_msgpack_frame *last;   /* frames + cap - 1: a container may open
                               inline while top is below it */
    sdx_alloc alloc;
    sdx_msgpack_frame inline_frames[SDX_MSGPACK_WRITER_INLINE_DEPTH];
} sdx_msgpack_writer;

/* Start writing MessagePack into `out` (which the caller owns and must keep
 * alive until sdx_msgpack_writer_finish()). `opts` NULL means defaults.
 * Returns SDX_ERR_INVALID_ARG (and sets it as the sticky error) for unknown
 * flags, else SDX_OK. */
SDX_API sdx_err sdx_msgpack_writer_init(sdx_msgpack_writer *w, sdx_buf *out,
                                        const sdx_msgpack_write_opts *opts);

/* Scalars, each in its smallest encoding. Each returns the sticky error
 * (SDX_OK while all is well). A value is allowed at the top level (once, or
 * any number of times with SDX_MSGPACK_WRITE_SEQUENCE), in an array, and in
 * a map both as a key (MessagePack keys may be of any type) and as a value;
 * more values than a container's declared count is SDX_ERR_USAGE.
 *
 * Integers: nonnegative values are written in the unsigned family (positive
 * fixint, uint 8/16/32/64), negative ones in the signed family (negative
 * fixint, int 8/16/32/64), as most encoders do. */
SDX_API sdx_err (sdx_msgpack_writer_null)(sdx_msgpack_writer *w);
SDX_API sdx_err (sdx_msgpack_writer_bool)(sdx_msgpack_writer *w, bool v);
SDX_API sdx_err (sdx_msgpack_writer_int)(sdx_msgpack_writer *w, int64_t v);
SDX_API sdx_err (sdx_msgpack_writer_uint)(sdx_msgpack_writer *w, uint64_t v);
/* A double: float 64, or float 32 as the flags say. */
SDX_API sdx_err (sdx_msgpack_writer_double)(sdx_msgpack_writer *w, double v);
/* A float: always float 32. */
SDX_API sdx_err sdx_msgpack_writer_float(sdx_msgpack_writer *w, float v);
/* A str of `len` bytes (fixstr, str 8/16/32; `s` may be NULL when len is 0).
 * Invalid UTF-8 is SDX_ERR_UTF8 unless SDX_MSGPACK_WRITE_NO_UTF8_CHECK;
 * more than 2^32 - 1 bytes is SDX_ERR_UNSUPPORTED. */
SDX_API sdx_err sdx_msgpack_writer_string(sdx_msgpack_writer *w, const char *s, size_t len);
/* A bin of `len` bytes (bin 8/16/32); more than 2^32 - 1 bytes is
 * SDX_ERR_UNSUPPORTED. */
SDX_API sdx_err sdx_msgpack_writer_bin(sdx_msgpack_writer *w, const void *data, size_t len);
/* An extension value of type `type` with `len` bytes of payload (fixext 1,
 * 2, 4, 8, 16 for those sizes, else ext 8/16/32). More than 2^32 - 1 bytes
 * is SDX_ERR_UNSUPPORTED. Type -1 is the timestamp extension: a payload that
 * is not a valid timestamp (4, 8 or 12 bytes, nanoseconds below 10^9) is
 * SDX_ERR_INVALID_ARG. */
SDX_API sdx_err sdx_msgpack_writer_ext(sdx_msgpack_writer *w, int8_t type, const void *data,
                                       size_t len);
/* A timestamp (extension type -1): `seconds` since 1970-01-01T00:00:00Z
 * (negative before) plus `nanoseconds` (0 to 999999999, else
 * SDX_ERR_INVALID_ARG), in the smallest of its three forms: timestamp 32
 * when nanoseconds is 0 and seconds fits 32 bits unsigned, timestamp 64
 * when seconds fits 34 bits unsigned, else timestamp 96. */
SDX_API sdx_err sdx_msgpack_writer_timestamp(sdx_msgpack_writer *w, int64_t seconds,
                                             uint32_t nanoseconds);

/* Containers. `count` is the number of elements (entries for a map) that
 * will follow, checked (SDX_ERR_USAGE when exceeded or not met; above
 * 2^32 - 1 it is SDX_ERR_UNSUPPORTED), or SDX_COUNT_UNKNOWN.
 *
 * Unknown counts: the writer writes a one-byte header, counts the elements
 * and at the end replaces the header by the smallest one that fits,
 * moving the content up by 2 or 4 bytes when 16 or more elements need an
 * array 16/32 or map 16/32 header. Until then the container's bytes stay in
 * the output buffer: a stream buffer holds everything from the outermost
 * open unknown-count header on (sdx_buf_pin), so memory grows with such a
 * container; a fixed buffer of exactly the final output size suffices. */
SDX_API sdx_err (sdx_msgpack_writer_begin_array)(sdx_msgpack_writer *w, uint64_t count);
SDX_API sdx_err (sdx_msgpack_writer_begin_map)(sdx_msgpack_writer *w, uint64_t count);
/* A str map key; must come where a key is due (SDX_ERR_USAGE otherwise).
 * Keys of other types are written with the scalar and container functions
 * in key position. */
SDX_API sdx_err sdx_msgpack_writer_key(sdx_msgpack_writer *w, const char *s, size_t len);
/* Close the innermost container (SDX_ERR_USAGE if none is open, if its
 * declared count is not met, or after a map key without its value). */
SDX_API sdx_err (sdx_msgpack_writer_end)(sdx_msgpack_writer *w);

/* Write one event (see sdx_event and the table at the top of this file).
 * SDX_BIN with tag_kind SDX_TAG_MSGPACK_EXT is an ext value (a tag that is
 * not an int8 is SDX_ERR_INVALID_ARG); SDX_DOUBLE with SDX_EVENT_FLOAT32 is
 * float 32 when it converts exactly (else float 64); every other tag,
 * including an ext tag on another kind, is ignored (the plain value is
 * written), and so are SDX_TAG events (further tags of CBOR items).
 * SDX_RAW is SDX_ERR_UNSUPPORTED; SDX_NINT (an integer below INT64_MIN,
 * which no MessagePack integer holds) is SDX_ERR_RANGE. */
SDX_API sdx_err sdx_msgpack_writer_put(sdx_msgpack_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_msgpack_writer_sink(sdx_msgpack_writer *w);

/* Write the value `n` of a document (with its tags and everything inside
 * it): exactly what sdx_node_emit(n, sdx_msgpack_writer_sink(w)) writes, with the
 * same errors, but faster — the document is walked with direct calls into
 * the writer instead of an event per value. SDX_ERR_NOT_FOUND for the nil
 * node, SDX_ERR_NOMEM if the walk's stack cannot grow, else the writer's
 * sticky error. */
SDX_API sdx_err sdx_msgpack_writer_node(sdx_msgpack_writer *w, sdx_node n);

/* End the output: checks that a value was written and every container is
 * closed (SDX_ERR_USAGE otherwise), flushes a stream buffer, frees what the
 * writer allocated and returns the sticky error. Call it exactly once, also
 * after an error; the writer accepts nothing afterwards. */
SDX_API sdx_err sdx_msgpack_writer_finish(sdx_msgpack_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_msgpack_writer_error(const sdx_msgpack_writer *w) { return w->err; }

/* ------------------------------------------------------------------------ */
/* Writer: inline fast paths                                                 */
/* ------------------------------------------------------------------------ */

/* A call sdx_msgpack_writer_int(w, v) (and likewise null, bool, uint,
 * double, begin_array, begin_map and end) is a macro for the
 * inline function sdx_msgpack_writer_int_inline below, which behaves
 * exactly like the exported function: it writes the commonest values
 * itself, in the caller's code, when the innermost container allows them
 * and the buffer has room for their largest encoding, and hands everything
 * else (errors included) to the exported function. The exported functions
 * are called as (sdx_msgpack_writer_int)(w, v) or through their address, as
 * with getc in the C library. Everything named sdx_mp_w_ here is private to
 * the library, which shares it with these functions. Strings and keys
 * always take the exported functions: inlining them as well measured slower
 * in the Write benchmark (generated data, size 4: a larger recursive
 * caller). */

/* Frame kinds (sdx_msgpack_frame.kind). The frame a writer points at after
 * an error allows nothing, so every fast path falls through to the
 * exported function, which returns the sticky error. */
enum { SDX_MP_FRAME_ROOT, SDX_MP_FRAME_ARRAY, SDX_MP_FRAME_MAP, SDX_MP_FRAME_DEAD };

/* The smallest encodings: each stores at p and returns the end. */
static inline char *sdx_mp_w_uint(char *p, uint64_t v) {
    if (v < 0x80) {
        p[0] = (char)v;
        return p + 1;
    }
    if (v <= 0xff) {
        p[0] = (char)0xcc;
        p[1] = (char)v;
        return p + 2;
    }
    if (v <= 0xffff) {
        p[0] = (char)0xcd;
        sdx_hot_store_be(p + 1, v, 2);
        return p + 3;
    }
    if (v <= 0xffffffffu) {
        p[0] = (char)0xce;
        sdx_hot_store_be(p + 1, v, 4);
        return p + 5;
    }
    p[0] = (char)0xcf;
    sdx_hot_store_be(p + 1, v, 8);
    return p + 9;
}

static inline char *sdx_mp_w_int(char *p, int64_t v) {
    if (v >= 0) return sdx_mp_w_uint(p, (uint64_t)v);
    if (v >= -32) {
        p[0] = (char)(unsigned char)v;
        return p + 1;
    }
    if (v >= INT8_MIN) {
        p[0] = (char)0xd0;
        p[1] = (char)(unsigned char)v;
        return p + 2;
    }
    if (v >= INT16_MIN) {
        p[0] = (char)0xd1;
        sdx_hot_store_be(p + 1, (uint64_t)v, 2);
        return p + 3;
    }
    if (v >= INT32_MIN) {
        p[0] = (char)0xd2;
        sdx_hot_store_be(p + 1, (uint64_t)v, 4);
        return p + 5;
    }
    p[0] = (char)0xd3;
    sdx_hot_store_be(p + 1, (uint64_t)v, 8);
    return p + 9;
}

static inline char *sdx_mp_w_f64(char *p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    p[0] = (char)0xcb;
    sdx_hot_store_be(p + 1, bits, 8);
    return p + 9;
}

/* The 8/16/32-bit header of a str, bin or ext (n < 2^32): the three type
 * bytes follow one another (str 0xd9-0xdb, bin 0xc4-0xc6, ext 0xc7-0xc9). */
static inline char *sdx_mp_w_sized_head(char *p, size_t n, unsigned type8) {
    if (n <= 0xff) {
        p[0] = (char)type8;
        p[1] = (char)n;
        return p + 2;
    }
    if (n <= 0xffff) {
        p[0] = (char)(type8 + 1);
        sdx_hot_store_be(p + 1, n, 2);
        return p + 3;
    }
    p[0] = (char)(type8 + 2);
    sdx_hot_store_be(p + 1, n, 4);
    return p + 5;
}

/* The header of a str: fixstr, str 8/16/32 (n < 2^32). */
static inline char *sdx_mp_w_str_head(char *p, size_t n) {
    if (n < 32) {
        p[0] = (char)(0xa0 | n);
        return p + 1;
    }
    return sdx_mp_w_sized_head(p, n, 0xd9);
}

/* Array or map header for a known count (< 2^32). */
static inline char *sdx_mp_w_container(char *p, uint64_t n, int map) {
    if (n < 16) {
        p[0] = (char)((map ? 0x80 : 0x90) | n);
        return p + 1;
    }
    if (n <= 0xffff) {
        p[0] = (char)(map ? 0xde : 0xdc);
        sdx_hot_store_be(p + 1, n, 2);
        return p + 3;
    }
    p[0] = (char)(map ? 0xdf : 0xdd);
    sdx_hot_store_be(p + 1, n, 4);
    return p + 5;
}

/* Where a value of `need` bytes goes (sdx_hot_slot) when the innermost
 * container allows a value and the buffer has room. */
static inline bool sdx_mp_w_room(sdx_msgpack_writer *w, size_t need, sdx_hot_slot *s) {
    const uint64_t left = w->left;
    s->count = &w->left;
    s->next = left - 1;
    s->b = w->out;
    s->p = s->b->cur;
    return left != 0 && (size_t)(s->b->end - s->p) >= need;
}

static inline sdx_err sdx_msgpack_writer_null_inline(sdx_msgpack_writer *w) {
    sdx_hot_slot s;
    if (!sdx_mp_w_room(w, 1, &s)) return (sdx_msgpack_writer_null)(w);
    *s.p = (char)0xc0;
    return sdx_hot_slot_done(&s, s.p + 1);
}

static inline sdx_err sdx_msgpack_writer_bool_inline(sdx_msgpack_writer *w, bool v) {
    sdx_hot_slot s;
    if (!sdx_mp_w_room(w, 1, &s)) return (sdx_msgpack_writer_bool)(w, v);
    *s.p = (char)(v ? 0xc3 : 0xc2);
    return sdx_hot_slot_done(&s, s.p + 1);
}

static inline sdx_err sdx_msgpack_writer_int_inline(sdx_msgpack_writer *w, int64_t v) {
    sdx_hot_slot s;
    if (!sdx_mp_w_room(w, 9, &s)) return (sdx_msgpack_writer_int)(w, v);
    return sdx_hot_slot_done(&s, sdx_mp_w_int(s.p, v));
}

static inline sdx_err sdx_msgpack_writer_uint_inline(sdx_msgpack_writer *w, uint64_t v) {
    sdx_hot_slot s;
    if (!sdx_mp_w_room(w, 9, &s)) return (sdx_msgpack_writer_uint)(w, v);
    return sdx_hot_slot_done(&s, sdx_mp_w_uint(s.p, v));
}

static inline sdx_err sdx_msgpack_writer_double_inline(sdx_msgpack_writer *w, double v) {
    sdx_hot_slot s;
    if ((w->flags & (SDX_MSGPACK_WRITE_FLOAT32 | SDX_MSGPACK_WRITE_FLOAT32_EXACT)) ||
        !sdx_mp_w_room(w, 9, &s))
        return (sdx_msgpack_writer_double)(w, v);
    return sdx_hot_slot_done(&s, sdx_mp_w_f64(s.p, v));
}

/* A container of known count while the writer's frames have room. The new
 * frame is set up before the header is stored, so that those stores need
 * not be followed by reloads of the writer's fields. */
static inline int sdx_mp_w_begin(sdx_msgpack_writer *w, uint64_t count, int map) {
    sdx_msgpack_frame *f = w->top;
    sdx_buf *b = w->out;
    char *p = b->cur;
    /* w->left first: after an error (left 0) f is a frame outside frames[],
     * which is never compared with w->last */
    if (w->left == 0 || count > 0xffffffffu || f >= w->last || (size_t)(b->end - p) < 5) return 0;
    f->left = w->left - 1; /* this container's, kept while the new one is open */
    w->left = map ? 2 * count : count;
    f[1].kind = (uint8_t)(map ? SDX_MP_FRAME_MAP : SDX_MP_FRAME_ARRAY);
    f[1].pinned = 0;
    w->top = f + 1;
    b->cur = sdx_mp_w_container(p, count, map);
    return 1;
}

static inline sdx_err sdx_msgpack_writer_begin_array_inline(sdx_msgpack_writer *w,
                                                            uint64_t count) {
    if (!sdx_mp_w_begin(w, count, 0)) return (sdx_msgpack_writer_begin_array)(w, count);
    return SDX_OK;
}

static inline sdx_err sdx_msgpack_writer_begin_map_inline(sdx_msgpack_writer *w,
                                                          uint64_t count) {
    if (!sdx_mp_w_begin(w, count, 1)) return (sdx_msgpack_writer_begin_map)(w, count);
    return SDX_OK;
}

/* A known count used up: nothing to write. */
static inline int sdx_mp_w_end(sdx_msgpack_writer *w) {
    sdx_msgpack_frame *f = w->top;
    if (w->left != 0 || (f->kind != SDX_MP_FRAME_ARRAY && f->kind != SDX_MP_FRAME_MAP)) return 0;
    w->top = f - 1;
    w->left = f[-1].left;
    return 1;
}

static inline sdx_err sdx_msgpack_writer_end_inline(sdx_msgpack_writer *w) {
    if (!sdx_mp_w_end(w)) return (sdx_msgpack_writer_end)(w);
    return SDX_OK;
}

#define sdx_msgpack_writer_null(w) sdx_msgpack_writer_null_inline(w)
#define sdx_msgpack_writer_bool(w, v) sdx_msgpack_writer_bool_inline(w, v)
#define sdx_msgpack_writer_int(w, v) sdx_msgpack_writer_int_inline(w, v)
#define sdx_msgpack_writer_uint(w, v) sdx_msgpack_writer_uint_inline(w, v)
#define sdx_msgpack_writer_double(w, v) sdx_msgpack_writer_double_inline(w, v)
#define sdx_msgpack_writer_begin_array(w, n) sdx_msgpack_writer_begin_array_inline(w, n)
#define sdx_msgpack_writer_begin_map(w, n) sdx_msgpack_writer_begin_map_inline(w, n)
#define sdx_msgpack_writer_end(w) sdx_msgpack_writer_end_inline(w)

/* ------------------------------------------------------------------------ */
/* Timestamps                                                                */
/* ------------------------------------------------------------------------ */

/* Decode the payload of a timestamp extension value (type -1: 4, 8 or 12
 * bytes). Returns false, storing nothing, when the payload is not a valid
 * timestamp (another length, or nanoseconds of 10^9 or more). */
SDX_API bool sdx_msgpack_timestamp_decode(const void *data, size_t len, int64_t *seconds,
                                          uint32_t *nanoseconds);

/* ------------------------------------------------------------------------ */
/* Reading: options shared by the pull reader and the tree parser            */
/* ------------------------------------------------------------------------ */

/* Reader options (flags). With none set the input is exactly one value and
 * every str must be valid UTF-8. */
enum sdx_msgpack_read_flag {
    /* Do not check that str values and keys are valid UTF-8 (by default
     * invalid UTF-8 is SDX_ERR_UTF8). */
    SDX_MSGPACK_READ_NO_UTF8_CHECK = 1u << 0,
    /* Parser: stop after the first complete value; what follows is not
     * looked at, and sdx_doc_consumed() tells where it ended. Reader: read a
     * sequence of values (a MessagePack stream), each at depth 0. Without
     * it, bytes after the one value are SDX_ERR_SYNTAX. */
    SDX_MSGPACK_READ_STOP_AFTER_VALUE = 1u << 1,
    /* Parser: copy the input into the document, so the caller may free it
     * as soon as the parser returns. Without it, strings and binaries point
     * into the input, which must outlive the document. */
    SDX_MSGPACK_READ_COPY_INPUT = 1u << 2
};

/* Reader and parser options; a NULL pointer means all defaults. */
typedef struct sdx_msgpack_read_opts {
    uint32_t flags;         /* sdx_msgpack_read_flag bits */
    uint32_t max_depth;     /* nesting limit (SDX_ERR_DEPTH beyond it);
                               0 = SDX_MSGPACK_DEFAULT_MAX_DEPTH */
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
} sdx_msgpack_read_opts;

#define SDX_MSGPACK_DEFAULT_MAX_DEPTH 1024

/* Errors of both the reader and the parser, with the byte offset of the
 * first byte of the offending value (line and column are 0):
 *   SDX_ERR_TRUNCATED  the input ends inside a value, or a declared length
 *                      or count needs more bytes than the input has left
 *   SDX_ERR_SYNTAX     the reserved type byte 0xc1, a timestamp that is not
 *                      valid, bytes after the value
 *   SDX_ERR_UTF8       a str that is not valid UTF-8
 *   SDX_ERR_DEPTH      nesting deeper than max_depth
 *   SDX_ERR_NOMEM, SDX_ERR_IO (streams) */

/* ------------------------------------------------------------------------ */
/* Tree parser                                                               */
/* ------------------------------------------------------------------------ */

/* Parse `len` bytes of MessagePack into a new immutable document (free it
 * with sdx_doc_free). Returns NULL on failure with the error in *err (if
 * not NULL). Unless SDX_MSGPACK_READ_COPY_INPUT is given, strings and
 * binaries point into the input, which must outlive the document.
 *
 * Values: integers that fit int64 are SDX_TYPE_INT, larger ones
 * SDX_TYPE_UINT; float 32 is a DOUBLE with SDX_VAL_FLOAT32 set; ext values
 * are BIN values tagged SDX_TAG_MSGPACK_EXT; map keys keep their type.
 * Every declared length and count is checked against the bytes left before
 * anything is reserved; nesting is limited without recursion. */
SDX_API sdx_doc *sdx_msgpack_parse(const char *data, size_t len,
                                   const sdx_msgpack_read_opts *opts, sdx_error *err);

/* ------------------------------------------------------------------------ */
/* Incremental (pull) reader                                                 */
/* ------------------------------------------------------------------------ */

/* The reader (private). It does not allocate per element: strings and
 * binaries are views into the input; a stream is read in chunks of a fixed
 * size, and a value that straddles two chunks is gathered in the reader's
 * buffer, which grows only as that value's bytes actually arrive (never to
 * a declared length up front). */
typedef struct sdx_msgpack_reader sdx_msgpack_reader;

/* Create a reader over `len` bytes in memory (not copied: keep them alive
 * while reading; events' strings point into them). Returns NULL only when
 * allocating the reader fails. */
SDX_API sdx_msgpack_reader *sdx_msgpack_reader_new(const char *data, size_t len,
                                                   const sdx_msgpack_read_opts *opts);
/* Create a reader over a stream; `chunk` is the read size (0 = 64 KiB). */
SDX_API sdx_msgpack_reader *sdx_msgpack_reader_new_stream(sdx_read_fn read, void *ctx,
                                                          size_t chunk,
                                                          const sdx_msgpack_read_opts *opts);
#ifndef SDX_NO_STDIO
/* Create a reader over a FILE* (read with fread; not closed). */
SDX_API sdx_msgpack_reader *sdx_msgpack_reader_new_file(FILE *f,
                                                        const sdx_msgpack_read_opts *opts);
#endif
/* Start a reader made by sdx_msgpack_reader_new over new input: as if it
 * were freed and made again with the same options, without allocating
 * (what it grew for deep nesting or long strings is freed). For many short
 * messages: one reader, no allocation per message. SDX_ERR_USAGE for a
 * reader of a stream or file (left as it was), SDX_ERR_INVALID_ARG for
 * NULL. */
SDX_API sdx_err sdx_msgpack_reader_reset(sdx_msgpack_reader *r, const char *data, size_t len);
/* Free a reader (NULL is a no-op). */
SDX_API void sdx_msgpack_reader_free(sdx_msgpack_reader *r);

/* Read the next event into *ev (see the table at the top of this file);
 * ev->depth is the nesting depth (0 for the top-level value; a container's
 * END has the depth of its begin, its elements one more). Returns true with
 * an event; false at the end of the input (after the one top-level value,
 * or the last one of a sequence) or on an error: then
 * sdx_msgpack_reader_error() tells which. Errors are sticky.
 *
 * A call sdx_msgpack_reader_next(r, ev) is a macro for the inline fast path
 * sdx_msgpack_reader_next_inline below, which behaves exactly the same; the
 * exported function itself is called as (sdx_msgpack_reader_next)(r, ev) or
 * through its address, as with getc in the C library. */
SDX_API bool (sdx_msgpack_reader_next)(sdx_msgpack_reader *r, sdx_event *ev);

/* The state the inline fast path reads and advances: the first member of
 * every reader. Private: only sdx_msgpack_reader_next_inline may touch it,
 * and its layout belongs to this version of the library (a program built
 * with these headers must run with the library built from them, as for the
 * writer's struct). */
typedef struct sdx_msgpack_reader_hot {
    const uint8_t *p;         /* next byte of the input window */
    const uint8_t *end;       /* end of the window */
    uint64_t left;            /* items still due at the innermost level
                                 (a map's keys and values), bit 63 set in a
                                 map; 0 when the level is complete */
    uint64_t *stack;          /* the levels outside it, by depth */
    uint32_t depth;           /* the innermost level */
    uint32_t depth_limit;     /* a container may open inline below this */
    uint64_t ascii_mask;      /* the high bits, or 0 without UTF-8 checks */
    size_t (*utf8_valid)(const char *, size_t); /* the SIMD table's UTF-8
                                 kernel (the valid prefix's length) */
    const uint8_t *begin_p;   /* the window position and depth after the */
    uint32_t begin_depth;     /* last ARRAY or MAP event */
} sdx_msgpack_reader_hot;

/* The exported function into a copy of the event: the caller's event then
 * never has its address taken, and the compiler may keep it in registers. */
static inline bool sdx_mp_hot_slow(sdx_msgpack_reader *r, sdx_event *ev) {
    sdx_event e;
    bool ok = (sdx_msgpack_reader_next)(r, &e);
    sdx_hot_copy(ev, &e);
    return ok;
}

/* Case labels of the switch below (undefined after it). */
#define SDX_MP_HOT_C4(x) case (x): case (x) + 1: case (x) + 2: case (x) + 3
#define SDX_MP_HOT_C16(x) \
    SDX_MP_HOT_C4(x): SDX_MP_HOT_C4((x) + 4): SDX_MP_HOT_C4((x) + 8): SDX_MP_HOT_C4((x) + 12)
#define SDX_MP_HOT_SCALAR(byte, kind, value, size) \
    case byte:                                     \
        sdx_hot_head(ev, kind, d);                 \
        ev->v.u = (value);                         \
        p += (size);                               \
        break;

/* What sdx_msgpack_reader_next(r, ev) expands to: the exported function
 * with the commonest items decoded inline, in the caller's code: END,
 * positive and negative fixint, nil, bool, float 64, the int and uint
 * families, fixstr, str 8 and str 16 that are valid UTF-8 (any bytes
 * without UTF-8 checks), and fixarray and fixmap while the reader's stack
 * has room. It takes an item only when all its bytes, and 19 bytes in
 * all (a head of up to 3 bytes and the 16 bytes sdx_hot_text reads), are
 * in the window; everything else (other kinds, errors, streams at the
 * window's end, the end of the input) it hands to the exported function. */
SDX_READER_HOT_FN bool sdx_msgpack_reader_next_inline(sdx_msgpack_reader *r, sdx_event *ev) {
    sdx_msgpack_reader_hot *s = (sdx_msgpack_reader_hot *)(void *)r;
    const uint64_t map_bit = (uint64_t)1 << 63;
    uint64_t left = s->left;
    uint32_t d = s->depth;
    const uint8_t *p = s->p;
    uint64_t n, v;
    size_t h;
    if ((left & ~map_bit) == 0) { /* the innermost container is complete */
        if (d == 0) return sdx_mp_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_END, d - 1);
        s->left = s->stack[d - 1];
        s->depth = d - 1;
        return true;
    }
    if ((size_t)(s->end - p) < 19) return sdx_mp_hot_slow(r, ev);
    switch (*p) {
    SDX_MP_HOT_C16(0x00): SDX_MP_HOT_C16(0x10): SDX_MP_HOT_C16(0x20): SDX_MP_HOT_C16(0x30):
    SDX_MP_HOT_C16(0x40): SDX_MP_HOT_C16(0x50): SDX_MP_HOT_C16(0x60): SDX_MP_HOT_C16(0x70):
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = *p;
        p += 1;
        break;
    SDX_MP_HOT_C16(0xe0): SDX_MP_HOT_C16(0xf0):
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = (int8_t)*p;
        p += 1;
        break;
    SDX_MP_HOT_C16(0x80):
        n = *p & 0x0fu;
        if (n > ((size_t)(s->end - p) - 1) / 2) return sdx_mp_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_MAP, d);
        ev->v.count = n;
        n = 2 * n | map_bit;
        goto begin;
    SDX_MP_HOT_C16(0x90):
        n = *p & 0x0fu;
        if (n > (size_t)(s->end - p) - 1) return sdx_mp_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_ARRAY, d);
        ev->v.count = n;
        goto begin;
    SDX_MP_HOT_C16(0xa0): SDX_MP_HOT_C16(0xb0):
        n = *p & 0x1fu;
        h = 1;
        goto str;
    case 0xd9:
        n = p[1];
        h = 2;
        goto str;
    case 0xda:
        n = sdx_hot_be(p + 1, 2);
        h = 3;
        goto str;
    SDX_MP_HOT_SCALAR(0xc0, SDX_NULL, 0, 1)
    SDX_MP_HOT_SCALAR(0xc2, SDX_BOOL, 0, 1)
    SDX_MP_HOT_SCALAR(0xc3, SDX_BOOL, 1, 1)
    SDX_MP_HOT_SCALAR(0xcb, SDX_DOUBLE, sdx_hot_be(p + 1, 8), 9)
    SDX_MP_HOT_SCALAR(0xcc, SDX_INT, p[1], 2)
    SDX_MP_HOT_SCALAR(0xcd, SDX_INT, sdx_hot_be(p + 1, 2), 3)
    SDX_MP_HOT_SCALAR(0xce, SDX_INT, sdx_hot_be(p + 1, 4), 5)
    SDX_MP_HOT_SCALAR(0xd0, SDX_INT, (uint64_t)(int64_t)(int8_t)p[1], 2)
    SDX_MP_HOT_SCALAR(0xd1, SDX_INT, (uint64_t)(int64_t)(int16_t)sdx_hot_be(p + 1, 2), 3)
    SDX_MP_HOT_SCALAR(0xd2, SDX_INT, (uint64_t)(int64_t)(int32_t)sdx_hot_be(p + 1, 4), 5)
    SDX_MP_HOT_SCALAR(0xd3, SDX_INT, sdx_hot_be(p + 1, 8), 9)
    case 0xcf:
        v = sdx_hot_be(p + 1, 8);
        sdx_hot_head(ev, v > INT64_MAX ? SDX_UINT : SDX_INT, d);
        ev->v.u = v;
        p += 9;
        break;
    default: return sdx_mp_hot_slow(r, ev);
    }
    s->left = left - 1;
    s->p = p;
    return true;

str: {
    /* a string past the window is the exported function's, which reads
     * on or reports the truncation */
    const uint8_t *q = p + h;
    if (!sdx_hot_text(q, (size_t)n, (size_t)(s->end - q), s->ascii_mask, s->utf8_valid))
        return sdx_mp_hot_slow(r, ev);
    sdx_hot_head(ev, (left >> 63) && !(left & 1) ? SDX_KEY : SDX_STR, d);
    ev->v.str.ptr = (const char *)q;
    ev->v.str.len = (size_t)n;
    s->left = left - 1;
    s->p = q + n;
    return true;
}

/* A container: at the stack's end or the limit the exported function's; a
 * count the window cannot hold (each item takes a byte or more) too: an
 * error for memory, more input for a stream. */
begin:
    if (d >= s->depth_limit) return sdx_mp_hot_slow(r, ev);
    s->stack[d] = left - 1;
    s->left = n;
    s->depth = d + 1;
    s->p = s->begin_p = p + 1;
    s->begin_depth = d + 1;
    return true;
}

#undef SDX_MP_HOT_C4
#undef SDX_MP_HOT_C16
#undef SDX_MP_HOT_SCALAR

#define sdx_msgpack_reader_next(r, ev) sdx_msgpack_reader_next_inline(r, ev)

/* SDX_OK (after a clean end or while reading), or the error; *err (if not
 * NULL) gets the details: code, message and byte offset. */
SDX_API sdx_err sdx_msgpack_reader_error(const sdx_msgpack_reader *r, sdx_error *err);

/* Byte offset of the end of the last event read. */
SDX_API uint64_t sdx_msgpack_reader_offset(const sdx_msgpack_reader *r);

/* Skip the rest of the value whose begin event was just read (its END
 * included), or nothing after a scalar. Returns false on error. */
SDX_API bool sdx_msgpack_reader_skip(sdx_msgpack_reader *r);

/* The reader as a format-independent source (valid while `r` is). */
SDX_API sdx_source sdx_msgpack_reader_source(sdx_msgpack_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SDX_MSGPACK_H */
