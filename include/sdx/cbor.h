/*
 * sdx — CBOR (RFC 8949, Concise Binary Object Representation) and CBOR
 * sequences (RFC 8742).
 *
 * The streaming writer:
 *
 *   sdx_buf out;
 *   sdx_buf_init(&out, NULL);
 *   sdx_cbor_writer w;
 *   sdx_cbor_writer_init(&w, &out, NULL);
 *   sdx_cbor_writer_begin_map(&w, 2);
 *   sdx_cbor_writer_key(&w, "id", 2);
 *   sdx_cbor_writer_int(&w, 42);                 // 18 2a
 *   sdx_cbor_writer_key(&w, "at", 2);
 *   sdx_cbor_writer_tag(&w, 1);                  // c1: epoch-based date/time
 *   sdx_cbor_writer_double(&w, 1363896240.5);    // fb 41d4 52d9 ec20 0000
 *   sdx_cbor_writer_end(&w);
 *   if (sdx_cbor_writer_finish(&w) == SDX_OK)    // one check at the end
 *       fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), stdout);
 *   sdx_buf_destroy(&out);
 *
 * How CBOR maps onto the event model (common.h):
 *   major type 0 (unsigned)  SDX_INT up to INT64_MAX, SDX_UINT above
 *   major type 1 (negative)  SDX_INT down to INT64_MIN, SDX_NINT below
 *                            (v.u = n for the value -1 - n)
 *   major type 2 (bytes)     SDX_BIN
 *   major type 3 (text)      SDX_STR; SDX_KEY when it is a map key
 *   indefinite-length bytes and text
 *                            one SDX_BIN / SDX_STR / SDX_KEY: the chunks
 *                            joined in the reader's scratch buffer (see
 *                            max_string below for the reason and the bound);
 *                            with SDX_CBOR_READ_CHUNKS flagged
 *                            SDX_EVENT_INDEFINITE, its chunks' lengths
 *                            from sdx_cbor_reader_chunks()
 *   major type 4, 5          SDX_ARRAY, SDX_MAP with v.count = the declared
 *                            count, or SDX_COUNT_UNKNOWN for an
 *                            indefinite-length one; SDX_END after the last
 *                            element (for an indefinite one: at its break)
 *   major type 6 (tag)       the item's event carries its innermost tag as
 *                            tag_kind SDX_TAG_CBOR and tag = the number;
 *                            further tags on the same item (61(18([...])))
 *                            come before it as SDX_TAG events, outermost
 *                            first (common.h)
 *   false, true, null        SDX_BOOL, SDX_NULL
 *   undefined                SDX_NULL with tag_kind SDX_TAG_CBOR_SIMPLE and
 *                            tag 23
 *   simple values 0-19, 32-255
 *                            SDX_NULL with tag_kind SDX_TAG_CBOR_SIMPLE and
 *                            tag = the value (a CBOR tag on a simple value
 *                            then travels as an SDX_TAG event before it)
 *   float16, float32, float64
 *                            SDX_DOUBLE (converted exactly), with
 *                            SDX_EVENT_FLOAT16 / SDX_EVENT_FLOAT32 in
 *                            ev->flags for the narrower two
 * Map keys may be of any type: a text key is an SDX_KEY event, any other
 * key an ordinary event in key position.
 *
 * Tags are delivered as they are: what a tag means (bignums, date-times,
 * decimal fractions, embedded CBOR, the self-described CBOR tag 55799) is
 * the business of the mapping layer between formats, not of this reader or
 * writer. In a document (doc.h) a tagged value keeps all its tags
 * (sdx_node_tags), an integer below INT64_MIN is SDX_TYPE_NINT, and a
 * float16 or float32 is a DOUBLE with SDX_VAL_FLOAT16 / SDX_VAL_FLOAT32 set.
 */
#ifndef SDX_CBOR_H
#define SDX_CBOR_H

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

/* Tag numbers sdx knows by name (RFC 8949 section 3.4). */
#define SDX_CBOR_TAG_DATETIME_STRING 0 /* RFC 3339 text */
#define SDX_CBOR_TAG_DATETIME_EPOCH 1  /* seconds since 1970 */
#define SDX_CBOR_TAG_BIGNUM_POS 2      /* unsigned bignum: byte string */
#define SDX_CBOR_TAG_BIGNUM_NEG 3      /* negative bignum: -1 - n */
#define SDX_CBOR_TAG_DECIMAL 4         /* decimal fraction [e, m] */
#define SDX_CBOR_TAG_BIGFLOAT 5        /* bigfloat [e, m] */
#define SDX_CBOR_TAG_EMBEDDED 24       /* encoded CBOR data item */
#define SDX_CBOR_TAG_SELF_DESCRIBE 55799 /* self-described CBOR: d9 d9 f7 */

/* The simple value undefined (f7). */
#define SDX_CBOR_SIMPLE_UNDEFINED 23

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */
/* ------------------------------------------------------------------------ */

/* Writer options (flags), all off by default. By default the writer uses
 * preferred serialization (RFC 8949 section 4.1): every head in its
 * shortest form, every float in the shortest of float16, float32 and
 * float64 that keeps its value exactly, NaN as f9 7e 00. */
enum sdx_cbor_write_flag {
    /* Write every double as float64 (no preferred serialization of
     * floats; NaN keeps its bits). Not with SDX_CBOR_WRITE_DETERMINISTIC. */
    SDX_CBOR_WRITE_FLOAT64 = 1u << 0,
    /* Do not check that text strings and keys are valid UTF-8 (by default
     * invalid UTF-8 is SDX_ERR_UTF8). Byte strings are never checked. */
    SDX_CBOR_WRITE_NO_UTF8_CHECK = 1u << 1,
    /* Allow any number of top-level items, written one after the other (a
     * CBOR sequence, RFC 8742). Without it exactly one item is written. */
    SDX_CBOR_WRITE_SEQUENCE = 1u << 2,
    /* Containers begun with SDX_COUNT_UNKNOWN get a definite-length head,
     * back-patched at their end (see begin_array), instead of the
     * indefinite-length head and break of the default. */
    SDX_CBOR_WRITE_DEFINITE = 1u << 3,
    /* Core Deterministic Encoding (RFC 8949 section 4.2.1): preferred
     * serialization, definite lengths only (implies
     * SDX_CBOR_WRITE_DEFINITE), and the entries of every map sorted by the
     * bytewise lexicographic order of their keys' encodings; two keys with
     * the same encoding are SDX_ERR_KEY. A map's bytes are held in the
     * output buffer until its end, then sorted in place (one scratch copy of
     * the map's content; no allocation per entry). Bignums are written in
     * their preferred serialization (section 3.4.3): a byte string tagged 2
     * or 3 loses its leading zero bytes, and one whose value fits major
     * type 0 or 1 (8 bytes or fewer) is written as that integer instead,
     * without the tag. */
    SDX_CBOR_WRITE_DETERMINISTIC = 1u << 4,
    /* Start the output with the self-described CBOR tag 55799 (d9 d9 f7,
     * RFC 8949 section 3.4.6) on the first item. */
    SDX_CBOR_WRITE_SELF_DESCRIBE = 1u << 5
};

/* Writer options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_cbor_write_opts {
    uint32_t flags;         /* sdx_cbor_write_flag bits */
    const sdx_alloc *alloc; /* for nesting deeper than the inline stack and
                               for sorting maps; NULL = sdx_alloc_default() */
} sdx_cbor_write_opts;

/* Nesting levels held inside the writer before it allocates. */
#define SDX_CBOR_WRITER_INLINE_DEPTH 32

/* One open container (private). */
typedef struct sdx_cbor_frame {
    uint64_t left;      /* items (a map's keys and values) still allowed; at
                           or above 2^63 for an unknown count, counting down
                           from there: kept here while a container inside
                           this one is open; the innermost container's is
                           the writer's `left` */
    uint64_t header;    /* total output offset of the container's head */
    size_t first_entry; /* sorted map: its first entry in the writer's list */
    uint8_t kind;       /* root, array or map */
    uint8_t mode;       /* definite, indefinite or back-patched head (with
                           a flag bit when the enclosing container has
                           slow bits: its end then takes the checked path,
                           which restores the writer's `slow`) */
    uint8_t slow;       /* bits: a sorted map, a tag waiting for its item
                           (the innermost container's also in the writer's
                           `slow`) */
    uint8_t pinned;     /* this container holds the buffer pin */
} sdx_cbor_frame;

/* One entry of a map being sorted (private): total output offsets of its
 * key, its value and its end. */
typedef struct sdx_cbor_entry {
    uint64_t key, value, end;
} sdx_cbor_entry;

/* The writer. All fields are private. It points into itself, so it must not
 * be copied or moved after sdx_cbor_writer_init(). */
typedef struct sdx_cbor_writer {
    sdx_buf *out;
    uint64_t left;        /* items the innermost open container still
                             allows (its frame's `left`, kept here so that
                             an item counts itself without loading `top`);
                             0 once an error is set */
    sdx_cbor_frame *top;  /* innermost open container; a frame that allows
                             nothing once an error is set */
    uint8_t slow;         /* top->slow, copied here for the same reason */
    size_t (*utf8_valid)(const char *s, size_t n);
    sdx_err err;
    uint32_t flags;
    uint32_t cap;               /* frames available */
    sdx_cbor_frame *frames;     /* inline_frames or an allocation; the open
                                   containers are frames + 1 .. top */
    sdx_cbor_frame *last;       /* frames + cap - 1: a container may open
                                   while top is below it */
    sdx_cbor_entry *entries;    /* deterministic maps: their entries */
    size_t nentries, entries_cap;
    char *scratch;              /* deterministic maps: sorting space */
    size_t scratch_cap;
    sdx_alloc alloc;
    /* deterministic mode: the total output offset just after the head of
     * a bignum tag (2 or 3), UINT64_MAX for none, and that tag */
    uint64_t big_end;
    uint64_t big_tag;
    sdx_cbor_frame inline_frames[SDX_CBOR_WRITER_INLINE_DEPTH];
} sdx_cbor_writer;

/* Start writing CBOR into `out` (which the caller owns and must keep alive
 * until sdx_cbor_writer_finish()). `opts` NULL means defaults. Returns
 * SDX_ERR_INVALID_ARG (and sets it as the sticky error) for unknown flags
 * or SDX_CBOR_WRITE_FLOAT64 with SDX_CBOR_WRITE_DETERMINISTIC, else SDX_OK
 * (or the buffer's error when the self-described tag does not fit). */
SDX_API sdx_err sdx_cbor_writer_init(sdx_cbor_writer *w, sdx_buf *out,
                                     const sdx_cbor_write_opts *opts);

/* Scalars, each in its preferred (shortest) encoding. Each returns the
 * sticky error (SDX_OK while all is well). An item is allowed at the top
 * level (once, or any number of times with SDX_CBOR_WRITE_SEQUENCE), in an
 * array, and in a map both as a key (CBOR keys may be of any type) and as a
 * value; more items than a container's declared count is SDX_ERR_USAGE. */
SDX_API sdx_err (sdx_cbor_writer_null)(sdx_cbor_writer *w);
SDX_API sdx_err sdx_cbor_writer_undefined(sdx_cbor_writer *w);
SDX_API sdx_err (sdx_cbor_writer_bool)(sdx_cbor_writer *w, bool v);
/* Integers: nonnegative values as major type 0, negative ones as major
 * type 1. sdx_cbor_writer_nint writes -1 - n (major type 1 with argument
 * n), which reaches down to -2^64. */
SDX_API sdx_err (sdx_cbor_writer_int)(sdx_cbor_writer *w, int64_t v);
SDX_API sdx_err (sdx_cbor_writer_uint)(sdx_cbor_writer *w, uint64_t v);
SDX_API sdx_err sdx_cbor_writer_nint(sdx_cbor_writer *w, uint64_t n);
/* A double in the shortest of float16, float32 and float64 that keeps it
 * exactly (NaN as f9 7e 00), or always float64 with
 * SDX_CBOR_WRITE_FLOAT64. */
SDX_API sdx_err (sdx_cbor_writer_double)(sdx_cbor_writer *w, double v);
/* A float: as a double of the same value. */
SDX_API sdx_err sdx_cbor_writer_float(sdx_cbor_writer *w, float v);
/* A float16 given by its bits, written as they are (f9 and two bytes),
 * whatever the flags: for values that must stay half precision. */
SDX_API sdx_err sdx_cbor_writer_half(sdx_cbor_writer *w, uint16_t bits);
/* A text string of `len` bytes (`s` may be NULL when len is 0). Invalid
 * UTF-8 is SDX_ERR_UTF8 unless SDX_CBOR_WRITE_NO_UTF8_CHECK. */
SDX_API sdx_err (sdx_cbor_writer_string)(sdx_cbor_writer *w, const char *s, size_t len);
/* A byte string of `len` bytes (`data` may be NULL when len is 0). */
SDX_API sdx_err sdx_cbor_writer_bytes(sdx_cbor_writer *w, const void *data, size_t len);
/* A simple value (major type 7): 0 to 23 in one byte (20 to 23 are false,
 * true, null and undefined), 32 to 255 in two; 24 to 31 have no
 * well-formed encoding: SDX_ERR_INVALID_ARG. */
SDX_API sdx_err sdx_cbor_writer_simple(sdx_cbor_writer *w, uint8_t v);
/* A tag (major type 6) on the next item, which may be any item, a
 * container or another tag included. Does not count as an item; an end,
 * finish or key-less position without the tagged item following is
 * SDX_ERR_USAGE. */
SDX_API sdx_err sdx_cbor_writer_tag(sdx_cbor_writer *w, uint64_t tag);

/* Containers. `count` is the number of elements (entries for a map) that
 * will follow, checked (SDX_ERR_USAGE when exceeded or not met), or
 * SDX_COUNT_UNKNOWN.
 *
 * Unknown counts: by default an indefinite-length head (9f / bf) and a
 * break (ff) at the end, the natural CBOR form that streams in constant
 * memory. With SDX_CBOR_WRITE_DEFINITE (or DETERMINISTIC) the writer writes
 * a one-byte head, counts the elements and at the end replaces the head by
 * the smallest definite one, moving the content up when it is longer (24
 * elements or more). Until then the container's bytes stay in the output
 * buffer: a stream buffer holds everything from the outermost such head on
 * (sdx_buf_pin), so memory grows with the container. */
SDX_API sdx_err (sdx_cbor_writer_begin_array)(sdx_cbor_writer *w, uint64_t count);
SDX_API sdx_err (sdx_cbor_writer_begin_map)(sdx_cbor_writer *w, uint64_t count);
/* A text string map key; must come where a key is due (SDX_ERR_USAGE
 * otherwise). Keys of other types are written with the scalar and container
 * functions in key position. */
SDX_API sdx_err (sdx_cbor_writer_key)(sdx_cbor_writer *w, const char *s, size_t len);
/* Close the innermost container (SDX_ERR_USAGE if none is open, if its
 * declared count is not met, after a map key without its value or after a
 * tag without its item). In a deterministic map: sorts its entries, and
 * two equal keys are SDX_ERR_KEY. */
SDX_API sdx_err (sdx_cbor_writer_end)(sdx_cbor_writer *w);

/* Write one event (see sdx_event and the table at the top of this file).
 * An event's tag of kind SDX_TAG_CBOR is written as a tag before the item,
 * an SDX_TAG event of that kind as a tag on the next item; SDX_NULL with
 * SDX_TAG_CBOR_SIMPLE is that simple value (23: undefined; 24 to 31 and
 * above 255: SDX_ERR_INVALID_ARG); SDX_NINT is major type 1. Tags of other
 * kinds (MessagePack ext types, BSON types) and SDX_TAG events of other
 * kinds are ignored: the plain value is written. SDX_DOUBLE is written as
 * sdx_cbor_writer_double writes it, whatever its float flags. SDX_RAW is
 * SDX_ERR_UNSUPPORTED. */
SDX_API sdx_err sdx_cbor_writer_put(sdx_cbor_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_cbor_writer_sink(sdx_cbor_writer *w);

/* Write the value `n` of a document (with its tags and everything inside
 * it): exactly what sdx_node_emit(n, sdx_cbor_writer_sink(w)) writes, with the
 * same errors, but faster — the document is walked with direct calls into
 * the writer instead of an event per value. SDX_ERR_NOT_FOUND for the nil
 * node, SDX_ERR_NOMEM if the walk's stack cannot grow, else the writer's
 * sticky error. */
SDX_API sdx_err sdx_cbor_writer_node(sdx_cbor_writer *w, sdx_node n);

/* End the output: checks that an item was written (without
 * SDX_CBOR_WRITE_SEQUENCE), that every container is closed and no tag
 * waits for its item (SDX_ERR_USAGE otherwise), flushes a stream buffer,
 * frees what the writer allocated and returns the sticky error. Call it
 * exactly once, also after an error; the writer accepts nothing
 * afterwards. */
SDX_API sdx_err sdx_cbor_writer_finish(sdx_cbor_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_cbor_writer_error(const sdx_cbor_writer *w) { return w->err; }

/* ------------------------------------------------------------------------ */
/* Writer: inline fast paths                                                 */
/* ------------------------------------------------------------------------ */

/* A call sdx_cbor_writer_int(w, v) (and likewise null, bool, uint, double,
 * string, key, begin_array, begin_map and end) is a macro for the inline function
 * sdx_cbor_writer_int_inline below, which behaves exactly like the
 * exported function: it writes the commonest items itself, in the caller's
 * code, when the innermost container allows them without bookkeeping (no
 * sorted map, no tag waiting) and the buffer has room for their largest
 * encoding, and hands everything else (errors included) to the exported
 * function. The exported functions are called as
 * (sdx_cbor_writer_int)(w, v) or through their address, as with getc in
 * the C library. Everything named sdx_cb_w_ here is private to the
 * library, which shares it with these functions. */

/* Frame kinds (sdx_cbor_frame.kind) and the definite mode. The frame a
 * writer points at after an error allows nothing, so every fast path falls
 * through to the exported function, which returns the sticky error. */
enum { SDX_CB_W_ROOT, SDX_CB_W_ARRAY, SDX_CB_W_MAP, SDX_CB_W_DEAD };
enum { SDX_CB_W_DEFINITE = 0 };

/* A head of major type `major` (its top three bits) with argument `arg` in
 * its shortest form (RFC 8949 section 4.1) at p; returns the end. */
static inline char *sdx_cb_w_head(char *p, unsigned major, uint64_t arg) {
    if (arg < 24) {
        p[0] = (char)(unsigned char)(major | arg);
        return p + 1;
    }
    if (arg <= 0xff) {
        p[0] = (char)(unsigned char)(major | 24);
        p[1] = (char)(unsigned char)arg;
        return p + 2;
    }
    if (arg <= 0xffff) {
        p[0] = (char)(unsigned char)(major | 25);
        sdx_hot_store_be(p + 1, arg, 2);
        return p + 3;
    }
    if (arg <= 0xffffffffu) {
        p[0] = (char)(unsigned char)(major | 26);
        sdx_hot_store_be(p + 1, arg, 4);
        return p + 5;
    }
    p[0] = (char)(unsigned char)(major | 27);
    sdx_hot_store_be(p + 1, arg, 8);
    return p + 9;
}

/* Where an item of `need` bytes goes (sdx_hot_slot) when the innermost
 * container allows one without bookkeeping and the buffer has room. */
static inline bool sdx_cb_w_room(sdx_cbor_writer *w, size_t need, sdx_hot_slot *s) {
    const uint64_t left = w->left;
    s->count = &w->left;
    s->next = left - 1;
    s->b = w->out;
    s->p = s->b->cur;
    return left != 0 && !w->slow && (size_t)(s->b->end - s->p) >= need;
}

static inline sdx_err sdx_cbor_writer_null_inline(sdx_cbor_writer *w) {
    sdx_hot_slot s;
    if (!sdx_cb_w_room(w, 1, &s)) return (sdx_cbor_writer_null)(w);
    *s.p = (char)0xf6;
    return sdx_hot_slot_done(&s, s.p + 1);
}

static inline sdx_err sdx_cbor_writer_bool_inline(sdx_cbor_writer *w, bool v) {
    sdx_hot_slot s;
    if (!sdx_cb_w_room(w, 1, &s)) return (sdx_cbor_writer_bool)(w, v);
    *s.p = (char)(v ? 0xf5 : 0xf4);
    return sdx_hot_slot_done(&s, s.p + 1);
}

static inline sdx_err sdx_cbor_writer_int_inline(sdx_cbor_writer *w, int64_t v) {
    sdx_hot_slot s;
    if (!sdx_cb_w_room(w, 9, &s)) return (sdx_cbor_writer_int)(w, v);
    /* -1 - v for a negative v is ~v in two's complement (section 3.1) */
    uint64_t sign = (uint64_t)(v >> 63);
    return sdx_hot_slot_done(&s, sdx_cb_w_head(s.p, (unsigned)(sign & 0x20), (uint64_t)v ^ sign));
}

static inline sdx_err sdx_cbor_writer_uint_inline(sdx_cbor_writer *w, uint64_t v) {
    sdx_hot_slot s;
    if (!sdx_cb_w_room(w, 9, &s)) return (sdx_cbor_writer_uint)(w, v);
    return sdx_hot_slot_done(&s, sdx_cb_w_head(s.p, 0x00, v));
}

/* Whether the double with these bits is float64 in preferred serialization
 * (section 4.1), told cheaply: a finite double with any of the low 29 bits
 * of its significand set has more significant bits than a float32 (let
 * alone a float16) keeps. False for everything else, which may be shorter
 * (values a float32 might hold exactly; infinities; NaNs, written as
 * f9 7e 00). The library's document walk makes the same test. */
static inline bool sdx_cb_w_f64_only(uint64_t bits) {
    return (bits & 0x1fffffffu) != 0 &&
           (bits & UINT64_C(0x7ff0000000000000)) != UINT64_C(0x7ff0000000000000);
}

/* A double as float64 when the shorter widths cannot hold it
 * (sdx_cb_w_f64_only); everything else takes the exported function. */
static inline sdx_err sdx_cbor_writer_double_inline(sdx_cbor_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    sdx_hot_slot s;
    if (!sdx_cb_w_room(w, 9, &s) ||
        (!(w->flags & SDX_CBOR_WRITE_FLOAT64) && !sdx_cb_w_f64_only(bits)))
        return (sdx_cbor_writer_double)(w, v);
    s.p[0] = (char)0xfb;
    sdx_hot_store_be(s.p + 1, bits, 8);
    return sdx_hot_slot_done(&s, s.p + 9);
}

/* A container of known count while the writer's frames have room (a map
 * of a deterministic writer is sorted: the exported function's). The new
 * frame is set up before the head is stored, so that those stores need
 * not be followed by reloads of the writer's fields. */
static inline int sdx_cb_w_begin(sdx_cbor_writer *w, uint64_t count, int map) {
    sdx_cbor_frame *f = w->top;
    sdx_buf *b = w->out;
    char *p = b->cur;
    /* w->left first: after an error f is a frame outside frames[], which
     * is never compared with w->last */
    if (w->left == 0 || count >= (UINT64_C(1) << 61) || f >= w->last || w->slow ||
        (size_t)(b->end - p) < 9 || (map && (w->flags & SDX_CBOR_WRITE_DETERMINISTIC)))
        return 0;
    f->left = w->left - 1; /* this container's, kept while the new one is open */
    w->left = map ? 2 * count : count;
    f[1].kind = (uint8_t)(map ? SDX_CB_W_MAP : SDX_CB_W_ARRAY);
    f[1].mode = SDX_CB_W_DEFINITE;
    f[1].slow = 0;
    f[1].pinned = 0;
    w->top = f + 1;
    b->cur = sdx_cb_w_head(p, map ? 0xa0 : 0x80, count);
    return 1;
}

static inline sdx_err sdx_cbor_writer_begin_array_inline(sdx_cbor_writer *w, uint64_t count) {
    if (!sdx_cb_w_begin(w, count, 0)) return (sdx_cbor_writer_begin_array)(w, count);
    return SDX_OK;
}

static inline sdx_err sdx_cbor_writer_begin_map_inline(sdx_cbor_writer *w, uint64_t count) {
    if (!sdx_cb_w_begin(w, count, 1)) return (sdx_cbor_writer_begin_map)(w, count);
    return SDX_OK;
}

/* A definite count used up: nothing to write. */
static inline int sdx_cb_w_end(sdx_cbor_writer *w) {
    sdx_cbor_frame *f = w->top;
    if (w->left != 0 || w->slow || f->mode != SDX_CB_W_DEFINITE ||
        (f->kind != SDX_CB_W_ARRAY && f->kind != SDX_CB_W_MAP))
        return 0;
    /* the parent's slow bits are 0 (w->slow is 0 already): a container
     * opened inside a frame with slow bits has a mode other than definite */
    w->top = f - 1;
    w->left = f[-1].left;
    return 1;
}

static inline sdx_err sdx_cbor_writer_end_inline(sdx_cbor_writer *w) {
    if (!sdx_cb_w_end(w)) return (sdx_cbor_writer_end)(w);
    return SDX_OK;
}

/* Copy n bytes (s may be NULL when n is 0): up to 16 bytes as two
 * overlapping fixed-size copies, which compile to a few loads and stores
 * instead of a call. */
static inline void sdx_cb_w_copy(char *p, const char *s, size_t n) {
    if (n >= 8 && n <= 16) {
        memcpy(p, s, 8);
        memcpy(p + n - 8, s + n - 8, 8);
    } else if (n >= 4 && n < 8) {
        memcpy(p, s, 4);
        memcpy(p + n - 4, s + n - 4, 4);
    } else if (n > 0 && n < 4) {
        p[0] = s[0];
        p[n / 2] = s[n / 2];
        p[n - 1] = s[n - 1];
    } else if (n) {
        memcpy(p, s, n);
    }
}

/* A text string of at most 64 bytes, ASCII (or any bytes without UTF-8
 * checks), where the innermost container allows an item without
 * bookkeeping and the buffer has room; `key`: only where a map key is due. */
static inline int sdx_cb_w_text(sdx_cbor_writer *w, const char *s, size_t n, int key) {
    sdx_hot_slot at;
    if (n > 64 || !sdx_cb_w_room(w, 66, &at) ||
        (key && (w->top->kind != SDX_CB_W_MAP || (w->left & 1))) || (n && !s))
        return 0;
    const uint64_t high = w->flags & SDX_CBOR_WRITE_NO_UTF8_CHECK ? 0 : UINT64_C(0x8080808080808080);
    /* head and bytes are stored before the ASCII test: on failure the
     * buffer's position stays, and the exported function writes them */
    char *p = sdx_cb_w_head(at.p, 0x60, n);
    if (!sdx_hot_copy_ascii(p, s, n, high)) return 0;
    sdx_hot_slot_done(&at, p + n);
    return 1;
}

static inline sdx_err sdx_cbor_writer_string_inline(sdx_cbor_writer *w, const char *s, size_t n) {
    if (!sdx_cb_w_text(w, s, n, 0)) return (sdx_cbor_writer_string)(w, s, n);
    return SDX_OK;
}

static inline sdx_err sdx_cbor_writer_key_inline(sdx_cbor_writer *w, const char *s, size_t n) {
    if (!sdx_cb_w_text(w, s, n, 1)) return (sdx_cbor_writer_key)(w, s, n);
    return SDX_OK;
}

#define sdx_cbor_writer_string(w, s, n) sdx_cbor_writer_string_inline(w, s, n)
#define sdx_cbor_writer_key(w, s, n) sdx_cbor_writer_key_inline(w, s, n)
#define sdx_cbor_writer_null(w) sdx_cbor_writer_null_inline(w)
#define sdx_cbor_writer_bool(w, v) sdx_cbor_writer_bool_inline(w, v)
#define sdx_cbor_writer_int(w, v) sdx_cbor_writer_int_inline(w, v)
#define sdx_cbor_writer_uint(w, v) sdx_cbor_writer_uint_inline(w, v)
#define sdx_cbor_writer_double(w, v) sdx_cbor_writer_double_inline(w, v)
#define sdx_cbor_writer_begin_array(w, n) sdx_cbor_writer_begin_array_inline(w, n)
#define sdx_cbor_writer_begin_map(w, n) sdx_cbor_writer_begin_map_inline(w, n)
#define sdx_cbor_writer_end(w) sdx_cbor_writer_end_inline(w)

/* ------------------------------------------------------------------------ */
/* Reading: options shared by the pull reader and the tree parser            */
/* ------------------------------------------------------------------------ */

/* Reader options (flags). With none set the input is exactly one
 * well-formed item (RFC 8949 section 5.1 and Appendix F) and every text
 * string must be valid UTF-8 (section 5.3.1). */
enum sdx_cbor_read_flag {
    /* Do not check that text strings and keys are valid UTF-8 (by default
     * invalid UTF-8 is SDX_ERR_UTF8). */
    SDX_CBOR_READ_NO_UTF8_CHECK = 1u << 0,
    /* Parser: stop after the first complete item; what follows is not
     * looked at, and sdx_doc_consumed() tells where it ended. Reader: read
     * a CBOR sequence (RFC 8742), each item at depth 0. Without it, bytes
     * after the one item are SDX_ERR_SYNTAX. */
    SDX_CBOR_READ_STOP_AFTER_VALUE = 1u << 1,
    /* Parser: copy the input into the document, so the caller may free it
     * as soon as the parser returns. Without it, definite-length strings
     * point into the input, which must outlive the document. */
    SDX_CBOR_READ_COPY_INPUT = 1u << 2,
    /* Two keys of one map that are the same value are SDX_ERR_KEY (RFC 8949
     * section 5.6), at the map's end, with the offset of the later key.
     * Keys are compared by their preferred encodings, so 1 written as 01
     * and as 18 01 are the same key, and so are a string or container of
     * indefinite length and its definite-length equal ((_ "a", "b") and
     * "ab", [_ 1] and [1]); keys that are containers compare element by
     * element, in their order (maps as keys are not sorted). */
    SDX_CBOR_READ_REJECT_DUPLICATE_KEYS = 1u << 3,
    /* Validate Core Deterministic Encoding (RFC 8949 section 4.2.1):
     * every head in its shortest form, no indefinite-length item, every
     * float in the shortest of the three widths that keeps it, and every
     * map's keys in strictly increasing bytewise order of their encodings
     * (so also no duplicates), and every bignum (tag 2 or 3) in preferred
     * serialization (section 3.4.3: no leading zero byte, and not a value
     * that major type 0 or 1 holds). A violation is SDX_ERR_SYNTAX at the
     * item (for a bignum, at its tag). */
    SDX_CBOR_READ_DETERMINISTIC = 1u << 4,
    /* Reader: keep what an indefinite-length string looked like, for
     * consumers that show it (diagnostic notation, RFC 8949 section 8.1:
     * (_ h'01', h'02')). Its event (still the one joined string) gets
     * SDX_EVENT_INDEFINITE, and sdx_cbor_reader_chunks() gives the lengths
     * of its chunks. Each chunk's entry in that list (sizeof(size_t)
     * bytes) counts towards max_string as well as its bytes. The parser
     * ignores this flag. */
    SDX_CBOR_READ_CHUNKS = 1u << 5
};

/* Reader and parser options; a NULL pointer means all defaults. */
typedef struct sdx_cbor_read_opts {
    uint32_t flags;         /* sdx_cbor_read_flag bits */
    uint32_t max_depth;     /* nesting limit of arrays and maps (SDX_ERR_DEPTH
                               beyond it); 0 = SDX_CBOR_DEFAULT_MAX_DEPTH */
    uint32_t max_tags;      /* tags on one item (SDX_ERR_LIMIT beyond it);
                               0 = SDX_CBOR_DEFAULT_MAX_TAGS */
    size_t max_string;      /* bytes of one indefinite-length string once its
                               chunks are joined (SDX_ERR_LIMIT beyond it);
                               0 = SDX_CBOR_DEFAULT_MAX_STRING */
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
} sdx_cbor_read_opts;

#define SDX_CBOR_DEFAULT_MAX_DEPTH 1024
#define SDX_CBOR_DEFAULT_MAX_TAGS 64
/* Why a bound on joined strings: an indefinite-length string is delivered
 * as one string (an event carries one view of bytes, and consumers of
 * every other format expect strings whole), so its chunks are copied one
 * after the other into the reader's scratch buffer. A definite string is a
 * view into the input and needs no memory, but the chunks of an
 * indefinite one can go on without end in a stream: the bound keeps a
 * hostile stream from making the reader allocate without limit. */
#define SDX_CBOR_DEFAULT_MAX_STRING ((size_t)64 << 20)

/* Errors of both the reader and the parser, with the byte offset of the
 * first byte of the offending item (line and column are 0). The error is
 * the first one a reading in order meets (RFC 8949 Appendix F), the same
 * for memory and stream input: a count that the bytes left cannot meet
 * is not reported before a syntax error that comes earlier (a1 ff is a
 * break in a definite-length map, at byte 1).
 *   SDX_ERR_TRUNCATED  the input ends inside an item, or a declared length
 *                      or count needs more bytes than the input has left;
 *                      the offset is that of the innermost item the input
 *                      ends inside (a head cut short, a string, an array
 *                      or map missing items or its break, a tag missing
 *                      its content)
 *   SDX_ERR_SYNTAX     not well-formed (RFC 8949 section 5.1, Appendix F):
 *                      additional information 28-30, an indefinite length
 *                      on major types 0, 1, 6 or simple values, a break
 *                      outside an indefinite-length item or where a map
 *                      value is due, a chunk of an indefinite-length
 *                      string that is not a definite string of the same
 *                      major type, a two-byte simple value below 32; bytes
 *                      after the item; a violation of deterministic
 *                      encoding (SDX_CBOR_READ_DETERMINISTIC)
 *   SDX_ERR_UTF8       a text string that is not valid UTF-8 (each chunk
 *                      of an indefinite-length one on its own)
 *   SDX_ERR_DEPTH      nesting deeper than max_depth
 *   SDX_ERR_LIMIT      more than max_tags tags on one item, a joined
 *                      string longer than max_string, a stream's
 *                      definite string longer than memory can address
 *   SDX_ERR_KEY        a duplicate key (SDX_CBOR_READ_REJECT_DUPLICATE_KEYS)
 *   SDX_ERR_NOMEM, SDX_ERR_IO (streams) */

/* ------------------------------------------------------------------------ */
/* Tree parser                                                               */
/* ------------------------------------------------------------------------ */

/* Parse `len` bytes of CBOR into a new immutable document (free it with
 * sdx_doc_free). Returns NULL on failure with the error in *err (if not
 * NULL). Unless SDX_CBOR_READ_COPY_INPUT is given, definite-length strings
 * point into the input, which must outlive the document (joined
 * indefinite-length strings are copied into the document).
 *
 * Values: integers that fit int64 are SDX_TYPE_INT, larger ones
 * SDX_TYPE_UINT, smaller ones SDX_TYPE_NINT; float16 and float32 are
 * DOUBLE values with SDX_VAL_FLOAT16 / SDX_VAL_FLOAT32; tags are tag slots
 * (all of an item's, outermost first); simple values and undefined are NULL
 * values tagged SDX_TAG_CBOR_SIMPLE; map keys keep their type. Every
 * declared length and count is checked against the bytes left before
 * anything is reserved; nesting is limited without recursion. */
SDX_API sdx_doc *sdx_cbor_parse(const char *data, size_t len, const sdx_cbor_read_opts *opts,
                                sdx_error *err);

/* ------------------------------------------------------------------------ */
/* Incremental (pull) reader                                                 */
/* ------------------------------------------------------------------------ */

/* The reader (opaque). It does not allocate per element: definite-length
 * strings are views into the input; a stream is read in chunks of a fixed
 * size, and an item that straddles two chunks is gathered in the reader's
 * buffer, which grows only as that item's bytes actually arrive (never to
 * a declared length up front); indefinite-length strings are joined in a
 * scratch buffer bounded by max_string. */
typedef struct sdx_cbor_reader sdx_cbor_reader;

/* Create a reader over `len` bytes in memory (not copied: keep them alive
 * while reading; events' strings point into them). Returns NULL only when
 * allocating the reader fails. */
SDX_API sdx_cbor_reader *sdx_cbor_reader_new(const char *data, size_t len,
                                             const sdx_cbor_read_opts *opts);
/* Create a reader over a stream; `chunk` is the read size (0 = 64 KiB). */
SDX_API sdx_cbor_reader *sdx_cbor_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                    const sdx_cbor_read_opts *opts);
#ifndef SDX_NO_STDIO
/* Create a reader over a FILE* (read with fread; not closed). */
SDX_API sdx_cbor_reader *sdx_cbor_reader_new_file(FILE *f, const sdx_cbor_read_opts *opts);
#endif
/* Start a reader made by sdx_cbor_reader_new over new input: as if it
 * were freed and made again with the same options, without allocating
 * (what it grew for deep nesting or long strings is freed). For many short
 * messages: one reader, no allocation per message. SDX_ERR_USAGE for a
 * reader of a stream or file (left as it was), SDX_ERR_INVALID_ARG for
 * NULL. */
SDX_API sdx_err sdx_cbor_reader_reset(sdx_cbor_reader *r, const char *data, size_t len);
/* Free a reader (NULL is a no-op). */
SDX_API void sdx_cbor_reader_free(sdx_cbor_reader *r);

/* Read the next event into *ev (see the table at the top of this file);
 * ev->depth is the nesting depth (0 for a top-level item; a container's
 * END has the depth of its begin, its elements one more; an SDX_TAG event
 * the depth of the item it tags). Returns true with an event; false at the
 * end of the input (after the one top-level item, or the last one of a
 * sequence) or on an error: then sdx_cbor_reader_error() tells which.
 * Errors are sticky.
 *
 * A call sdx_cbor_reader_next(r, ev) is a macro for the inline fast path
 * sdx_cbor_reader_next_inline below, which behaves exactly the same; the
 * exported function itself is called as (sdx_cbor_reader_next)(r, ev) or
 * through its address, as with getc in the C library. */
SDX_API bool (sdx_cbor_reader_next)(sdx_cbor_reader *r, sdx_event *ev);

/* Level kinds (sdx_cbor_level.kind; private). */
enum { SDX_CB_LEVEL_ROOT, SDX_CB_LEVEL_ARRAY, SDX_CB_LEVEL_MAP };

/* One open level of the reader (private): the root (level 0) or a
 * container. `left` counts the items still due (a map's keys and values
 * both), or for an indefinite-length container counts down from 2^62. */
typedef struct sdx_cbor_level {
    uint64_t left;
    uint64_t start;   /* the container's first byte (where a truncation
                         inside it is reported) */
    size_t keys;      /* checked maps: its first key in the key list */
    size_t key_start; /* a key being captured: its start in the key buffer */
    uint64_t key_at;  /* ... and its input offset */
    uint8_t kind;     /* SDX_CB_LEVEL_ROOT, _ARRAY or _MAP */
    uint8_t indef;
    uint8_t capturing; /* a key of this map is being captured */
    uint8_t capped;    /* a stream's count of 2^62 or more: `left` counts
                          part of it */
} sdx_cbor_level;

/* The state the inline fast path reads and advances: the first member of
 * every reader. Private: only sdx_cbor_reader_next_inline may touch it, and
 * its layout belongs to this version of the library (a program built with
 * these headers must run with the library built from them, as for the
 * writer's struct). */
typedef struct sdx_cbor_reader_hot {
    const uint8_t *p;         /* next byte of the input window */
    const uint8_t *end;       /* end of the window */
    const uint8_t *base;      /* offset 0 of the window is input offset */
    uint64_t base_offset;     /* base_offset */
    sdx_cbor_level *stack;    /* levels 0 .. depth */
    uint64_t left;            /* the innermost level's `left`, bit 63 set
                                 in a map (SDX_CB_HOT_MAP): what the
                                 inline path counts down, one load at a
                                 fixed place; while the inline path may
                                 run the level's own `left` is stale (the
                                 exported function takes this one back
                                 first) */
    uint32_t depth;           /* the innermost level */
    uint32_t depth_limit;     /* the inline path runs at depths 1 to
                                 depth_limit - 1 (containers may open
                                 there); 0 while it must not run at all
                                 (key checks, a tag read, the end, an
                                 error) */
    uint64_t ascii_mask;      /* the high bits, or 0 without UTF-8 checks */
    size_t (*utf8_valid)(const char *, size_t); /* the SIMD table's UTF-8
                                 kernel (the valid prefix's length) */
    const uint8_t *begin_p;   /* the window position and depth after the */
    uint32_t begin_depth;     /* last inline ARRAY or MAP event */
    const uint8_t *last_p;    /* the window position after the exported
                                 function's last event; NULL after an
                                 inline END */
} sdx_cbor_reader_hot;

/* Bit 63 of sdx_cbor_reader_hot.left: the innermost level is a map (no
 * count reaches it: a count is checked against the input, or counts down
 * from 2^62 at most). */
#define SDX_CB_HOT_MAP (UINT64_C(1) << 63)

/* sdx_cbor_reader_hot.left for level L when it becomes the innermost. */
static inline uint64_t sdx_cb_hot_left(const sdx_cbor_level *L) {
    return L->left | (L->kind == SDX_CB_LEVEL_MAP ? SDX_CB_HOT_MAP : 0);
}

/* The exported function into a copy of the event: the caller's event then
 * never has its address taken, and the compiler may keep it in registers. */
static inline bool sdx_cb_hot_slow(sdx_cbor_reader *r, sdx_event *ev) {
    sdx_event e;
    bool ok = (sdx_cbor_reader_next)(r, &e);
    sdx_hot_copy(ev, &e);
    return ok;
}

/* Case labels of the switch below (undefined after it). */
#define SDX_CB_HOT_C4(x) case (x): case (x) + 1: case (x) + 2: case (x) + 3
#define SDX_CB_HOT_C8(x) SDX_CB_HOT_C4(x): SDX_CB_HOT_C4((x) + 4)
#define SDX_CB_HOT_C24(x) SDX_CB_HOT_C8(x): SDX_CB_HOT_C8((x) + 8): SDX_CB_HOT_C8((x) + 16)
#define SDX_CB_HOT_SCALAR(byte, kind, value, size) \
    case byte:                                     \
        sdx_hot_head(ev, kind, d);                 \
        ev->v.u = (value);                         \
        p += (size);                               \
        break;

/* What sdx_cbor_reader_next(r, ev) expands to: the exported function with
 * the commonest items decoded inline, in the caller's code, inside a
 * container (depth 1 and more): the END of a definite-length container,
 * integers of major types 0 and 1 (every argument size), false, true,
 * null, float64, text strings with a length of up to 16 bits that are
 * valid UTF-8 (any bytes without UTF-8 checks), and arrays and maps with
 * counts in the head or one byte while the reader's stack has room. It
 * takes an item only when all its bytes, and 19 bytes in all (a head of
 * up to 3 bytes and the 16 bytes sdx_hot_text reads), are in the window;
 * everything else (the top level, tags, other kinds, errors, key checks,
 * streams at the window's end) it hands to the exported function. */
SDX_READER_HOT_FN bool sdx_cbor_reader_next_inline(sdx_cbor_reader *r, sdx_event *ev) {
    sdx_cbor_reader_hot *s = (sdx_cbor_reader_hot *)(void *)r;
    uint32_t d = s->depth;
    if (d == 0 || d >= s->depth_limit) return sdx_cb_hot_slow(r, ev);
    uint64_t left = s->left;
    const uint8_t *p = s->p;
    uint64_t n, v;
    size_t h;
    int map;
    if (left << 1 == 0) { /* a definite-length container is complete (the map bit aside) */
        const sdx_cbor_level *L = &s->stack[d];
        if (L->capped) return sdx_cb_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_END, d - 1);
        s->left = sdx_cb_hot_left(L - 1);
        s->depth = d - 1;
        s->last_p = NULL;
        return true;
    }
    if ((size_t)(s->end - p) < 19) return sdx_cb_hot_slow(r, ev);
    switch (*p) {
    SDX_CB_HOT_C24(0x00):
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = *p;
        p += 1;
        break;
    SDX_CB_HOT_C24(0x20):
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = -1 - (int64_t)(*p - 0x20);
        p += 1;
        break;
    SDX_CB_HOT_SCALAR(0x18, SDX_INT, p[1], 2)
    SDX_CB_HOT_SCALAR(0x19, SDX_INT, sdx_hot_be(p + 1, 2), 3)
    SDX_CB_HOT_SCALAR(0x1a, SDX_INT, sdx_hot_be(p + 1, 4), 5)
    SDX_CB_HOT_SCALAR(0x38, SDX_INT, (uint64_t)(-1 - (int64_t)p[1]), 2)
    SDX_CB_HOT_SCALAR(0x39, SDX_INT, (uint64_t)(-1 - (int64_t)sdx_hot_be(p + 1, 2)), 3)
    SDX_CB_HOT_SCALAR(0x3a, SDX_INT, (uint64_t)(-1 - (int64_t)sdx_hot_be(p + 1, 4)), 5)
    SDX_CB_HOT_SCALAR(0xf4, SDX_BOOL, 0, 1)
    SDX_CB_HOT_SCALAR(0xf5, SDX_BOOL, 1, 1)
    SDX_CB_HOT_SCALAR(0xf6, SDX_NULL, 0, 1)
    SDX_CB_HOT_SCALAR(0xfb, SDX_DOUBLE, sdx_hot_be(p + 1, 8), 9)
    case 0x1b:
        v = sdx_hot_be(p + 1, 8);
        sdx_hot_head(ev, v > INT64_MAX ? SDX_UINT : SDX_INT, d);
        ev->v.u = v;
        p += 9;
        break;
    case 0x3b: /* -1 - v, below INT64_MIN as SDX_NINT with v */
        v = sdx_hot_be(p + 1, 8);
        sdx_hot_head(ev, v > INT64_MAX ? SDX_NINT : SDX_INT, d);
        ev->v.u = v > INT64_MAX ? v : (uint64_t)(-1 - (int64_t)v);
        p += 9;
        break;
    SDX_CB_HOT_C24(0x60):
        n = *p & 31u;
        h = 1;
        goto str;
    case 0x78:
        n = p[1];
        h = 2;
        goto str;
    case 0x79:
        n = sdx_hot_be(p + 1, 2);
        h = 3;
        goto str;
    SDX_CB_HOT_C24(0x80): /* arrays (major type 4) and maps (5): the */
    SDX_CB_HOT_C24(0xa0): /* low bit of the major type tells them apart */
        n = *p & 31u;
        h = 1;
        map = *p >> 5 & 1;
        goto begin;
    case 0x98:
    case 0xb8:
        n = p[1];
        h = 2;
        map = *p >> 5 & 1;
        goto begin;
    default: return sdx_cb_hot_slow(r, ev);
    }
    s->left = left - 1;
    s->p = p;
    return true;

str: {
    /* a string past the window is the exported function's, which reads
     * on or reports the truncation */
    const uint8_t *q = p + h;
    if (!sdx_hot_text(q, (size_t)n, (size_t)(s->end - q), s->ascii_mask, s->utf8_valid))
        return sdx_cb_hot_slow(r, ev);
    sdx_hot_head(ev, (left >> 63) && !(left & 1) ? SDX_KEY : SDX_STR, d);
    ev->v.str.ptr = (const char *)q;
    ev->v.str.len = (size_t)n;
    s->left = left - 1;
    s->p = q + n;
    return true;
}

/* A container: a count the window cannot hold (each item takes a byte or
 * more) is the exported function's: an error for memory, more input for a
 * stream. */
begin: {
    if (n > ((size_t)(s->end - p) - h) >> map) return sdx_cb_hot_slow(r, ev);
    sdx_cbor_level *L = &s->stack[d], *c = L + 1;
    c->start = s->base_offset + (uint64_t)(p - s->base);
    c->kind = (uint8_t)(SDX_CB_LEVEL_ARRAY + map); /* map 0 or 1 */
    c->indef = 0;
    c->capturing = 0;
    c->capped = 0;
    L->left = (left - 1) & ~SDX_CB_HOT_MAP;
    s->left = n << map | (uint64_t)map << 63;
    sdx_hot_head(ev, map ? SDX_MAP : SDX_ARRAY, d);
    ev->v.count = n;
    s->depth = d + 1;
    s->p = s->begin_p = p + h;
    s->begin_depth = d + 1;
    return true;
}
}

#undef SDX_CB_HOT_C4
#undef SDX_CB_HOT_C8
#undef SDX_CB_HOT_C24
#undef SDX_CB_HOT_SCALAR

#define sdx_cbor_reader_next(r, ev) sdx_cbor_reader_next_inline(r, ev)

/* SDX_OK (after a clean end or while reading), or the error; *err (if not
 * NULL) gets the details: code, message and byte offset. */
SDX_API sdx_err sdx_cbor_reader_error(const sdx_cbor_reader *r, sdx_error *err);

/* Byte offset of the end of the last event read. */
SDX_API uint64_t sdx_cbor_reader_offset(const sdx_cbor_reader *r);

/* The chunks of the string event just read, when it came from an
 * indefinite-length string and the reader has SDX_CBOR_READ_CHUNKS: sets *n
 * to their number (0 for a string without chunks, 5f ff) and returns their
 * lengths in order (they add up to the event's v.str.len; NULL when *n is
 * 0; the reader owns the array, valid until the next call on the reader).
 * For any other event,
 * or without the flag, sets *n to 0 and returns NULL. */
SDX_API const size_t *sdx_cbor_reader_chunks(const sdx_cbor_reader *r, size_t *n);

/* Skip the rest of the item whose first event was just read: after a
 * begin event the rest of the container (its END included), after an
 * SDX_TAG event the whole tagged item, after a scalar nothing. Returns
 * false on error. */
SDX_API bool sdx_cbor_reader_skip(sdx_cbor_reader *r);

/* The reader as a format-independent source (valid while `r` is). */
SDX_API sdx_source sdx_cbor_reader_source(sdx_cbor_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SDX_CBOR_H */
