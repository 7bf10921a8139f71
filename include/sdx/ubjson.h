/*
 * sdx — UBJSON (Universal Binary JSON, Draft 12, ubjson.org) and its
 * BJData dialect (Binary JData, NeuroJSON, Draft 2 and later:
 * little-endian numbers, the markers u m M h B, N-dimensional arrays).
 *
 * STATUS (branch h/ubjson): exists and is tested (tests/ubjson: unit
 * tests, malformed input, corpus round trips, a fuzz target and its smoke
 * run, differential tests against py-ubjson and bjdata, py-ubjson's own
 * test vectors):
 *   - the writer, both dialects, typed containers and BJData
 *     N-dimensional arrays on request;
 *   - the pull reader (memory, stream, FILE*), BJData N-dimensional arrays
 *     read as nested arrays;
 *   - the tree parser (sdx_ubjson_parse: the common form of UBJSON
 *     straight into the document, anything else through the reader's
 *     events into the document builder);
 *   - the sdx command's formats ubjson (.ubjson .ubj) and bjdata (.bjdata
 *     .bjd .jdb), and sdx's UBJSON programs in the benchmark suite
 *     (verified; `bench/run.py --quick --filter ubjson`).
 * The writer's commonest calls and the reader's commonest values have
 * inline fast paths (as cbor.h's). Not there yet: BJData's structure-of-arrays
 * containers ('[' '$' '{', Draft 3) and column-major N-dimensional arrays (both read as
 * SDX_ERR_UNSUPPORTED).
 *
 * The streaming writer:
 *
 *   sdx_buf out;
 *   sdx_buf_init(&out, NULL);
 *   sdx_ubjson_writer w;
 *   sdx_ubjson_writer_init(&w, &out, NULL);
 *   sdx_ubjson_writer_begin_map(&w, 1);              // { # U 01
 *   sdx_ubjson_writer_key(&w, "id", 2);              // U 02 'i' 'd'
 *   sdx_ubjson_writer_int(&w, 42);                   // U 2a
 *   sdx_ubjson_writer_end(&w);                       // (counted: no '}')
 *   if (sdx_ubjson_writer_finish(&w) == SDX_OK)      // one check at the end
 *       fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), stdout);
 *   sdx_buf_destroy(&out);
 *
 * How UBJSON maps onto the event model (common.h); "BJData" marks what
 * only the BJData dialect has:
 *   Z null                   SDX_NULL
 *   N no-op                  never an event: readers skip it wherever a
 *                            value, a key or a container's end may come
 *   T true, F false          SDX_BOOL
 *   i int8, U uint8, I int16, l int32, L int64, and (BJData) u uint16,
 *   m uint32, M uint64       SDX_INT for every value that fits int64,
 *                            SDX_UINT above INT64_MAX (BJData M only)
 *   d float32                SDX_DOUBLE (converted exactly) with
 *                            SDX_EVENT_FLOAT32; written as d again
 *   D float64                SDX_DOUBLE
 *   h float16 (BJData)       SDX_DOUBLE with SDX_EVENT_FLOAT16. The writer
 *                            writes h only in typed h containers: a
 *                            FLOAT16 event is written as D, as MessagePack
 *                            does, because CBOR's preferred serialization
 *                            marks every double that fits a half so, and a
 *                            double read from CBOR should come back as D
 *   H high-precision number  SDX_RAW: the number's text, checked against
 *                            the JSON number grammar (RFC 8259); except
 *                            that an integer above INT64_MAX that fits
 *                            uint64, in canonical decimal text, is SDX_UINT
 *                            (the writer writes SDX_UINT that way, so a
 *                            uint64 survives MessagePack -> UBJSON ->
 *                            MessagePack). Raw number
 *                            text is what SDX_RAW is for (the JSON reader's
 *                            big numbers use it too), so H <-> JSON keeps
 *                            the exact digits with no mapping layer; a
 *                            format without such numbers rejects it
 *                            (SDX_ERR_UNSUPPORTED), as for any SDX_RAW
 *   C char                   SDX_STR of one byte (0 to 127). The writer
 *                            writes every one-byte ASCII string as C (its
 *                            smallest encoding, as py-ubjson and bjdata
 *                            do), so a char is written as C again with no
 *                            tag needed
 *   B byte (BJData)          SDX_INT (0 to 255), like U
 *   S string                 SDX_STR; an object key (which has no S
 *                            marker) is SDX_KEY
 *   [ ] array, { } object    SDX_ARRAY, SDX_MAP; v.count is the count of
 *                            a counted container ('#'), SDX_COUNT_UNKNOWN
 *                            for a plain one (ended by ']' or '}').
 *                            SDX_END after the last element
 *   strongly typed container ('$' type '#' count): the same events, and
 *                            the begin event has tag_kind SDX_TAG_UBJSON
 *                            and tag = the type marker, so that the
 *                            writer writes the container typed again
 *   [ $ U # n (UBJSON), [ $ B # n (BJData): an array of bytes, which is
 *                            how these formats carry binary data: one
 *                            SDX_BIN of the n bytes (a view into the
 *                            input), unless SDX_UBJSON_READ_BYTE_ARRAYS
 *                            asks for the array of integers. The writer
 *                            writes SDX_BIN this way, so MessagePack bin ->
 *                            UBJSON -> MessagePack keeps the bytes
 *   [ $ t # [ dims ] (BJData N-dimensional array, row-major): nested
 *                            SDX_ARRAYs, dims[0] arrays of dims[1] ... of
 *                            the elements; the innermost arrays' begin
 *                            events are tagged with t (so the writer writes
 *                            them typed: the same data, as nested typed
 *                            arrays rather than one N-dimensional header);
 *                            for t = B (bytes) each innermost array is one
 *                            SDX_BIN of its dims[last] bytes, as [$B#n is
 *                            (unless SDX_UBJSON_READ_BYTE_ARRAYS), so that
 *                            what the writer writes reads back the same
 *
 * Writing: integers in the smallest type that holds them (U for 0..255, i
 * for -128..-1, then I, l, L; BJData: U, u, m, M for nonnegative values, i,
 * I, l, L for negative ones); a UBJSON integer above INT64_MAX as H (its
 * decimal text), which is what Draft 12 says such numbers are. Doubles as D
 * (float64) unless asked otherwise (SDX_UBJSON_WRITE_FLOAT32_EXACT);
 * NaN and the infinities are written as IEEE values (BJData requires it;
 * Draft 12's "write them as null" loses them). Containers with a known count
 * are counted ('#'), with SDX_COUNT_UNKNOWN plain ('[' ... ']').
 */
#ifndef SDX_UBJSON_H
#define SDX_UBJSON_H

#ifndef SDX_NO_STDIO
#include <stdio.h>
#endif

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
enum sdx_ubjson_write_flag {
    /* Write BJData instead of UBJSON: little-endian numbers, the markers
     * u m M h B, byte arrays as [$B#. */
    SDX_UBJSON_WRITE_BJDATA = 1u << 0,
    /* Write a double as float32 (d) when that loses nothing (when the
     * float converts back to exactly the same double; for NaN the same
     * bits), otherwise as float64 (D). */
    SDX_UBJSON_WRITE_FLOAT32_EXACT = 1u << 1,
    /* Do not check that strings and keys are valid UTF-8 (by default
     * invalid UTF-8 is SDX_ERR_UTF8). */
    SDX_UBJSON_WRITE_NO_UTF8_CHECK = 1u << 2,
    /* Allow any number of top-level values, one after the other. Without it
     * exactly one value is written. */
    SDX_UBJSON_WRITE_SEQUENCE = 1u << 3
};

/* Writer options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_ubjson_write_opts {
    uint32_t flags;         /* sdx_ubjson_write_flag bits */
    const sdx_alloc *alloc; /* for nesting deeper than the inline stack;
                               NULL = sdx_alloc_default() */
} sdx_ubjson_write_opts;

/* Nesting levels held inside the writer before it allocates. */
#define SDX_UBJSON_WRITER_INLINE_DEPTH 32

/* One open container (private). */
typedef struct sdx_ubjson_frame {
    uint64_t left;  /* items still allowed (a map's keys and values both
                       count: twice its count); a plain container (no
                       count) counts down from 2^64 - 1, a plain map from
                       2^64 - 2 (src/core/wcount.h) */
    uint64_t vmask; /* a value may come without bookkeeping when
                       left & vmask is not zero: all ones in an untyped
                       array (and the root), 1 in an untyped map (a value
                       is due when left is odd), 0 in a typed container
                       and after an error */
    uint8_t kind;   /* root, array or map */
    uint8_t type;   /* element type marker of a typed container, else 0 */
    uint8_t kmask;  /* 1 in a map (a key is due when left is even and not
                       zero), 0 elsewhere and after an error */
} sdx_ubjson_frame;

/* The writer. All fields are private. It points into itself, so it must not
 * be copied or moved after sdx_ubjson_writer_init(). */
typedef struct sdx_ubjson_writer {
    sdx_buf *out;
    sdx_ubjson_frame *top;
    size_t (*utf8_valid)(const char *s, size_t n); /* the SIMD kernel */
    sdx_err err;
    uint32_t flags;
    uint32_t cap;
    sdx_ubjson_frame *frames; /* inline_frames or an allocation; the open
                                 containers are frames + 1 .. top */
    sdx_ubjson_frame *last;   /* frames + cap - 1: a container may open
                                 while top is below it */
    sdx_alloc alloc;
    sdx_ubjson_frame inline_frames[SDX_UBJSON_WRITER_INLINE_DEPTH];
} sdx_ubjson_writer;

/* Start writing UBJSON (or BJData, by the flags) into `out` (which the
 * caller owns and keeps alive until sdx_ubjson_writer_finish()). `opts`
 * NULL means defaults. Returns SDX_ERR_INVALID_ARG (also set as the sticky
 * error) for unknown flags, else SDX_OK. */
SDX_API sdx_err sdx_ubjson_writer_init(sdx_ubjson_writer *w, sdx_buf *out,
                                       const sdx_ubjson_write_opts *opts);

/* Scalars. Each returns the sticky error (SDX_OK while all is well). A
 * value is allowed at the top level (once, or any number of times with
 * SDX_UBJSON_WRITE_SEQUENCE), in an array, and in a map where a value is
 * due (SDX_ERR_USAGE where a key is due, or beyond a container's count).
 * Inside a strongly typed container the value is written without its
 * marker and must fit the container's type: an integer of another range or
 * a value of another kind is SDX_ERR_TYPE (see begin_typed_array).
 *
 * Integers: the smallest type (see the top of this file). */
SDX_API sdx_err (sdx_ubjson_writer_null)(sdx_ubjson_writer *w);
SDX_API sdx_err (sdx_ubjson_writer_bool)(sdx_ubjson_writer *w, bool v);
SDX_API sdx_err (sdx_ubjson_writer_int)(sdx_ubjson_writer *w, int64_t v);
/* An unsigned integer: above INT64_MAX as H in UBJSON, M in BJData. */
SDX_API sdx_err (sdx_ubjson_writer_uint)(sdx_ubjson_writer *w, uint64_t v);
/* A double: D, or d when SDX_UBJSON_WRITE_FLOAT32_EXACT and exact. */
SDX_API sdx_err (sdx_ubjson_writer_double)(sdx_ubjson_writer *w, double v);
/* A float: always d. */
SDX_API sdx_err sdx_ubjson_writer_float(sdx_ubjson_writer *w, float v);
/* A string: `len` bytes at `s` (NULL allowed when len is 0), as S, or as
 * C when it is one byte of 0 to 127 (the smallest encoding, as py-ubjson
 * writes it too). Invalid UTF-8 is SDX_ERR_UTF8 unless
 * SDX_UBJSON_WRITE_NO_UTF8_CHECK. */
SDX_API sdx_err (sdx_ubjson_writer_string)(sdx_ubjson_writer *w, const char *s, size_t len);
/* A char (C): `c` from 0 to 127, else SDX_ERR_INVALID_ARG. */
SDX_API sdx_err sdx_ubjson_writer_char(sdx_ubjson_writer *w, char c);
/* A high-precision number (H): `len` bytes of text that must be a JSON
 * number (RFC 8259 grammar), else SDX_ERR_INVALID_ARG. */
SDX_API sdx_err sdx_ubjson_writer_high_precision(sdx_ubjson_writer *w, const char *text,
                                                 size_t len);
/* Binary data: an array of bytes, [$U#n in UBJSON and [$B#n in BJData,
 * then the bytes (`data` may be NULL when len is 0). */
SDX_API sdx_err sdx_ubjson_writer_bin(sdx_ubjson_writer *w, const void *data, size_t len);

/* Containers. `count` is the number of elements (entries for a map) that
 * follow, or SDX_COUNT_UNKNOWN. A known count is written ('#', the
 * smallest integer) and checked: more items, or an end before it is met,
 * is SDX_ERR_USAGE; nothing is written at the end. An unknown count gives
 * a plain container, closed by ']' or '}' at the end. Nothing is ever
 * back-patched. */
SDX_API sdx_err (sdx_ubjson_writer_begin_array)(sdx_ubjson_writer *w, uint64_t count);
SDX_API sdx_err (sdx_ubjson_writer_begin_map)(sdx_ubjson_writer *w, uint64_t count);
/* Strongly typed containers ('$' type '#' count): every element (every
 * value of a map) is of the type `type`, written without its marker.
 * `type` is a value marker: UBJSON Z T F i U I l L d D C S H [ {; BJData
 * only the fixed-size ones i U I u l m L M h d D C B (its specification
 * forbids the others here). Any other marker is SDX_ERR_INVALID_ARG, and
 * so is SDX_COUNT_UNKNOWN (a typed container needs its count). Elements
 * must match: integers within the type's range for an integer type,
 * doubles for h d D (converted exactly, else SDX_ERR_RANGE), a one-byte
 * ASCII string for C, a string for S, a raw number for H, null for Z,
 * true for T, false for F, an array for [ and a map for {; anything else
 * is SDX_ERR_TYPE. */
SDX_API sdx_err sdx_ubjson_writer_begin_typed_array(sdx_ubjson_writer *w, char type,
                                                    uint64_t count);
SDX_API sdx_err sdx_ubjson_writer_begin_typed_map(sdx_ubjson_writer *w, char type,
                                                  uint64_t count);
/* BJData only (SDX_ERR_UNSUPPORTED in UBJSON): an N-dimensional array of
 * `ndim` dimensions (1 to 32) dims[0], dims[1], ... in row-major order, of
 * elements of the fixed-size type `type` (as for begin_typed_array), written
 * as [$type#[d0 d1 ...]. Its elements follow as that many scalars (the
 * product of the dimensions), flat, with no nested begin or end; one
 * sdx_ubjson_writer_end closes it (SDX_ERR_USAGE unless all came). A bad
 * type, no dimensions, or an element count beyond INT64_MAX is
 * SDX_ERR_INVALID_ARG. The reader reads it back as nested arrays. */
SDX_API sdx_err sdx_ubjson_writer_begin_nd_array(sdx_ubjson_writer *w, char type,
                                                 const uint64_t *dims, uint32_t ndim);
/* A map key; must come where a key is due (SDX_ERR_USAGE otherwise).
 * Invalid UTF-8 is SDX_ERR_UTF8 unless SDX_UBJSON_WRITE_NO_UTF8_CHECK. */
SDX_API sdx_err (sdx_ubjson_writer_key)(sdx_ubjson_writer *w, const char *s, size_t len);
/* Close the innermost container (SDX_ERR_USAGE if none is open, if its
 * count is not met, or after a map key without its value). */
SDX_API sdx_err (sdx_ubjson_writer_end)(sdx_ubjson_writer *w);

/* Write one event (see the table at the top of this file). SDX_ARRAY and
 * SDX_MAP with tag_kind
 * SDX_TAG_UBJSON and a known count are typed containers of that type (as
 * begin_typed_array); SDX_DOUBLE with SDX_EVENT_FLOAT32 is d when exact
 * (SDX_EVENT_FLOAT16 is not followed: D); SDX_RAW is H (its text
 * checked, SDX_ERR_INVALID_ARG if not a JSON number); SDX_NINT is
 * SDX_ERR_RANGE; other tags are ignored, and so are SDX_TAG events. A
 * value event where a map key is due (another format's integer or other
 * non-string key) is SDX_ERR_KEY: UBJSON's keys are strings. */
SDX_API sdx_err sdx_ubjson_writer_put(sdx_ubjson_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_ubjson_writer_sink(sdx_ubjson_writer *w);

/* Write the value `n` of a document (with its tags and everything inside
 * it): exactly what sdx_node_emit(n, sdx_ubjson_writer_sink(w)) writes, with the
 * same errors, but faster — the document is walked with direct calls into
 * the writer instead of an event per value. SDX_ERR_NOT_FOUND for the nil
 * node, SDX_ERR_NOMEM if the walk's stack cannot grow, else the writer's
 * sticky error. */
SDX_API sdx_err sdx_ubjson_writer_node(sdx_ubjson_writer *w, sdx_node n);

/* End the output: checks that a value was written and every container is
 * closed (SDX_ERR_USAGE otherwise), flushes a stream buffer, frees what the
 * writer allocated and returns the sticky error. Call it exactly once, also
 * after an error; the writer accepts nothing afterwards. */
SDX_API sdx_err sdx_ubjson_writer_finish(sdx_ubjson_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_ubjson_writer_error(const sdx_ubjson_writer *w) { return w->err; }

/* ------------------------------------------------------------------------ */
/* Writer: inline fast paths                                                 */
/* ------------------------------------------------------------------------ */

/* A call sdx_ubjson_writer_int(w, v) (and likewise null, bool, uint,
 * double, string, key, begin_array, begin_map and end) is a macro for the
 * inline function sdx_ubjson_writer_int_inline below, which behaves
 * exactly like the exported function: it writes the commonest values
 * itself, in the caller's code, when the innermost container takes them
 * without a type check (it is not strongly typed), the count allows them,
 * and the buffer has room for their largest encoding; everything else
 * (errors, typed containers, BJData's wider integers, float32 doubles,
 * empty or long strings, invalid UTF-8) goes to the exported function,
 * which checks and writes it. The exported functions are called as
 * (sdx_ubjson_writer_int)(w, v) or through their address, as with getc in
 * the C library. Everything named sdx_ubj_w_ here is private to the
 * library, which shares it with these functions. */

/* Frame kinds (sdx_ubjson_frame.kind). After an error the writer's
 * innermost frame allows no item (left, vmask and kmask 0), so every fast
 * path falls through to the exported function, which returns the sticky
 * error. */
enum { SDX_UBJ_W_ROOT, SDX_UBJ_W_ARRAY, SDX_UBJ_W_MAP };

/* Whether the next item of frame f may be written without bookkeeping: a
 * value where the frame is not typed and its count allows one (arrays) or
 * a value is due (maps: left odd), one test; a key where a map's key is
 * due (`key`). */
static inline int sdx_ubj_w_slot(const sdx_ubjson_frame *f, int key) {
    if (key) return f->left != 0 && (~f->left & f->kmask) != 0;
    return (f->left & f->vmask) != 0;
}

/* Where an item goes (sdx_hot_slot) when it may come without bookkeeping
 * (a value, or a key where `key`) and `need` bytes fit. */
static inline bool sdx_ubj_w_room(const sdx_ubjson_writer *w, size_t need, int key, sdx_hot_slot *s) {
    sdx_ubjson_frame *f = w->top;
    s->count = &f->left;
    s->next = f->left - 1;
    s->b = w->out;
    s->p = s->b->cur;
    return sdx_ubj_w_slot(f, key) && (size_t)(s->b->end - s->p) >= need;
}

/* A nonnegative UBJSON integer up to INT64_MAX in its smallest type (U I
 * l L, big-endian) at p; returns the end. */
static inline char *sdx_ubj_w_uint(char *p, uint64_t v) {
    if (v <= 0xff) {
        p[0] = 'U';
        p[1] = (char)(unsigned char)v;
        return p + 2;
    }
    if (v <= 0x7fff) {
        p[0] = 'I';
        sdx_hot_store_be(p + 1, v, 2);
        return p + 3;
    }
    if (v <= 0x7fffffff) {
        p[0] = 'l';
        sdx_hot_store_be(p + 1, v, 4);
        return p + 5;
    }
    p[0] = 'L';
    sdx_hot_store_be(p + 1, v, 8);
    return p + 9;
}

/* Any int64 in its smallest UBJSON type at p (0 to 255 in U, other
 * values in i I l L, as sdx_ubj_w_uint and the signed ranges give them);
 * returns the end. No branch on the size: the class c (1, 2, 4 or 8
 * bytes) is a sum of three compares of u (v, or -1 - v when negative),
 * the first against 255 or, for a negative value, 127. The 9 bytes from
 * p must be writable. */
static inline char *sdx_ubj_w_int(char *p, int64_t v) {
    const uint64_t neg = (uint64_t)(v >> 63), u = (uint64_t)v ^ neg;
    const unsigned n = (unsigned)(neg & 1);
    const unsigned c = (unsigned)(u > (UINT64_C(0xff) >> n)) + (unsigned)(u > 0x7fff) + (unsigned)(u > 0x7fffffff);
    /* the markers of classes 0-3, byte c: U (i when negative), I, l, L */
    const uint32_t marks = UINT32_C(0x4c6c4955) ^ (n * (uint32_t)('U' ^ 'i'));
    const unsigned len = 1u << c;
    p[0] = (char)(unsigned char)(marks >> (8 * c));
    sdx_hot_store_be_top(p + 1, (uint64_t)v, len);
    return p + 1 + len;
}

static inline sdx_err sdx_ubjson_writer_null_inline(sdx_ubjson_writer *w) {
    sdx_hot_slot at;
    if (!sdx_ubj_w_room(w, 1, 0, &at)) return (sdx_ubjson_writer_null)(w);
    *at.p = 'Z';
    return sdx_hot_slot_done(&at, at.p + 1);
}

static inline sdx_err sdx_ubjson_writer_bool_inline(sdx_ubjson_writer *w, bool v) {
    sdx_hot_slot at;
    if (!sdx_ubj_w_room(w, 1, 0, &at)) return (sdx_ubjson_writer_bool)(w, v);
    *at.p = v ? 'T' : 'F';
    return sdx_hot_slot_done(&at, at.p + 1);
}

/* Integers in their smallest type; in BJData (little-endian, unsigned
 * types) only those of one byte, -128 to 255, which both dialects write
 * alike. */
static inline sdx_err sdx_ubjson_writer_int_inline(sdx_ubjson_writer *w, int64_t v) {
    sdx_hot_slot at;
    if (((w->flags & SDX_UBJSON_WRITE_BJDATA) && (v < -128 || v > 255)) || !sdx_ubj_w_room(w, 9, 0, &at))
        return (sdx_ubjson_writer_int)(w, v);
    return sdx_hot_slot_done(&at, sdx_ubj_w_int(at.p, v));
}

static inline sdx_err sdx_ubjson_writer_uint_inline(sdx_ubjson_writer *w, uint64_t v) {
    if (v > INT64_MAX) return (sdx_ubjson_writer_uint)(w, v);
    return sdx_ubjson_writer_int_inline(w, (int64_t)v);
}

/* A double as D (float64, big-endian): UBJSON without
 * SDX_UBJSON_WRITE_FLOAT32_EXACT. */
static inline sdx_err sdx_ubjson_writer_double_inline(sdx_ubjson_writer *w, double v) {
    uint64_t bits;
    memcpy(&bits, &v, 8);
    sdx_hot_slot at;
    if ((w->flags & (SDX_UBJSON_WRITE_BJDATA | SDX_UBJSON_WRITE_FLOAT32_EXACT)) || !sdx_ubj_w_room(w, 9, 0, &at))
        return (sdx_ubjson_writer_double)(w, v);
    at.p[0] = 'D';
    sdx_hot_store_be(at.p + 1, bits, 8);
    return sdx_hot_slot_done(&at, at.p + 9);
}

/* A container of known count (UBJSON: up to INT32_MAX, BJData: up to 255,
 * which both dialects write alike) while the writer's frames have room.
 * The new frame is set up before the head is stored, so that those stores
 * need not be followed by reloads of the writer's fields. */
static inline int sdx_ubj_w_begin(sdx_ubjson_writer *w, uint64_t count, int map) {
    sdx_ubjson_frame *f = w->top;
    sdx_buf *b = w->out;
    char *p = b->cur;
    if (count > 0x7fffffff || ((w->flags & SDX_UBJSON_WRITE_BJDATA) && count > 0xff) ||
        f >= w->last || !sdx_ubj_w_slot(f, 0) || (size_t)(b->end - p) < 7)
        return 0;
    f->left--;
    f[1].left = map ? 2 * count : count;
    f[1].vmask = map ? 1 : UINT64_MAX;
    f[1].kind = (uint8_t)(map ? SDX_UBJ_W_MAP : SDX_UBJ_W_ARRAY);
    f[1].type = 0;
    f[1].kmask = (uint8_t)map;
    w->top = f + 1;
    p[0] = map ? '{' : '[';
    p[1] = '#';
    b->cur = sdx_ubj_w_uint(p + 2, count);
    return 1;
}

static inline sdx_err sdx_ubjson_writer_begin_array_inline(sdx_ubjson_writer *w, uint64_t count) {
    if (!sdx_ubj_w_begin(w, count, 0)) return (sdx_ubjson_writer_begin_array)(w, count);
    return SDX_OK;
}

static inline sdx_err sdx_ubjson_writer_begin_map_inline(sdx_ubjson_writer *w, uint64_t count) {
    if (!sdx_ubj_w_begin(w, count, 1)) return (sdx_ubjson_writer_begin_map)(w, count);
    return SDX_OK;
}

/* A counted container whose count is met: nothing to write. */
static inline sdx_err sdx_ubjson_writer_end_inline(sdx_ubjson_writer *w) {
    sdx_ubjson_frame *f = w->top;
    if (f->left != 0 || f->kind == SDX_UBJ_W_ROOT)
        return (sdx_ubjson_writer_end)(w);
    w->top = f - 1;
    return SDX_OK;
}

/* The longest string the inline path writes: its length fits U. */
#define SDX_UBJ_W_TEXT_MAX 128

/* A string or key of 1 to SDX_UBJ_W_TEXT_MAX bytes, valid UTF-8 (or any
 * bytes without UTF-8 checks), where the innermost container allows it
 * without bookkeeping and the buffer has room: a value as S U n and the bytes, or
 * C and the byte for one byte; a key (`key`, only where a key is due) as U
 * n and the bytes. The bytes are copied while they are tested for ASCII;
 * text with other bytes is then validated by the writer's UTF-8 kernel,
 * without copying it again. When that fails nothing counts as written
 * (the buffer's position stays) and the exported function reports it. */
static inline int sdx_ubj_w_text(sdx_ubjson_writer *w, const char *s, size_t n, int key) {
    sdx_hot_slot at;
    uint64_t mask = w->flags & SDX_UBJSON_WRITE_NO_UTF8_CHECK ? 0 : UINT64_C(0x8080808080808080);
    if (n - 1 >= SDX_UBJ_W_TEXT_MAX || !sdx_ubj_w_room(w, SDX_UBJ_W_TEXT_MAX + 3, key, &at)) return 0;
    char *p = at.p;
    if (!key && n == 1) {
        if ((unsigned char)s[0] > 127) return 0;
        p[0] = 'C';
        p[1] = s[0];
        p += 2;
    } else {
        if (!key) *p++ = 'S';
        p[0] = 'U';
        p[1] = (char)(unsigned char)n;
        if (!sdx_hot_copy_ascii(p + 2, s, n, mask) && w->utf8_valid(s, n) != n) return 0;
        p += 2 + n;
    }
    sdx_hot_slot_done(&at, p);
    return 1;
}

static inline sdx_err sdx_ubjson_writer_string_inline(sdx_ubjson_writer *w, const char *s,
                                                      size_t n) {
    if (!sdx_ubj_w_text(w, s, n, 0)) return (sdx_ubjson_writer_string)(w, s, n);
    return SDX_OK;
}

static inline sdx_err sdx_ubjson_writer_key_inline(sdx_ubjson_writer *w, const char *s, size_t n) {
    if (!sdx_ubj_w_text(w, s, n, 1)) return (sdx_ubjson_writer_key)(w, s, n);
    return SDX_OK;
}

#define sdx_ubjson_writer_string(w, s, n) sdx_ubjson_writer_string_inline(w, s, n)
#define sdx_ubjson_writer_key(w, s, n) sdx_ubjson_writer_key_inline(w, s, n)
#define sdx_ubjson_writer_null(w) sdx_ubjson_writer_null_inline(w)
#define sdx_ubjson_writer_bool(w, v) sdx_ubjson_writer_bool_inline(w, v)
#define sdx_ubjson_writer_int(w, v) sdx_ubjson_writer_int_inline(w, v)
#define sdx_ubjson_writer_uint(w, v) sdx_ubjson_writer_uint_inline(w, v)
#define sdx_ubjson_writer_double(w, v) sdx_ubjson_writer_double_inline(w, v)
#define sdx_ubjson_writer_begin_array(w, n) sdx_ubjson_writer_begin_array_inline(w, n)
#define sdx_ubjson_writer_begin_map(w, n) sdx_ubjson_writer_begin_map_inline(w, n)
#define sdx_ubjson_writer_end(w) sdx_ubjson_writer_end_inline(w)

/* ------------------------------------------------------------------------ */
/* Reading: options shared by the pull reader and the tree parser            */
/* ------------------------------------------------------------------------ */

/* Reader options (flags). With none set the input is exactly one UBJSON
 * value and every string must be valid UTF-8. */
enum sdx_ubjson_read_flag {
    /* Read BJData instead of UBJSON. */
    SDX_UBJSON_READ_BJDATA = 1u << 0,
    /* Do not check that strings and keys are valid UTF-8. */
    SDX_UBJSON_READ_NO_UTF8_CHECK = 1u << 1,
    /* Parser: stop after the first complete value (sdx_doc_consumed tells
     * where it ended). Reader: read a sequence of values, each at depth 0.
     * Without it, bytes after the value (other than no-ops) are
     * SDX_ERR_SYNTAX. */
    SDX_UBJSON_READ_STOP_AFTER_VALUE = 1u << 2,
    /* Read [$U# (BJData: [$B#) arrays as arrays of integers, not SDX_BIN. */
    SDX_UBJSON_READ_BYTE_ARRAYS = 1u << 3
};

/* Reader and parser options; a NULL pointer means all defaults. */
typedef struct sdx_ubjson_read_opts {
    uint32_t flags;          /* sdx_ubjson_read_flag bits */
    uint32_t max_depth;      /* nesting limit (SDX_ERR_DEPTH beyond it);
                                0 = SDX_UBJSON_DEFAULT_MAX_DEPTH */
    uint64_t max_empty;      /* the most elements typed containers of Z, T
                                or F (elements with no bytes of their own)
                                may declare, and the most arrays
                                N-dimensional arrays with a zero dimension
                                may hold, all of them together in one
                                top-level value (SDX_ERR_LIMIT beyond it):
                                so the events, and the parser's document,
                                of any input stay within max_empty values
                                more than its bytes allow;
                                0 = SDX_UBJSON_DEFAULT_MAX_EMPTY */
    const sdx_alloc *alloc;  /* NULL = sdx_alloc_default() */
} sdx_ubjson_read_opts;

#define SDX_UBJSON_DEFAULT_MAX_DEPTH 1024
#define SDX_UBJSON_DEFAULT_MAX_EMPTY 1000000u

/* Errors of both the reader and the parser, with the byte offset of the
 * first byte of the offending value, key or container header (line and
 * column are 0):
 *   SDX_ERR_TRUNCATED  the input ends inside a value, or (memory input) a
 *                      declared length or count needs more bytes than the
 *                      input has left (each element takes at least the
 *                      bytes of its type)
 *   SDX_ERR_SYNTAX     an unknown marker, a negative length or count, '$'
 *                      without '#', a type not allowed after '$', a char
 *                      above 127, an H that is not a JSON number, a ']'
 *                      or '}' that closes nothing or the wrong container,
 *                      bytes after the value
 *   SDX_ERR_UTF8       a string or key that is not valid UTF-8
 *   SDX_ERR_DEPTH      nesting deeper than max_depth
 *   SDX_ERR_LIMIT      typed containers of Z, T or F (and N-dimensional
 *                      arrays with a zero dimension) in one top-level
 *                      value above max_empty elements together
 *   SDX_ERR_UNSUPPORTED BJData structure-of-arrays and column-major arrays
 *   SDX_ERR_NOMEM, SDX_ERR_IO (streams) */

/* ------------------------------------------------------------------------ */
/* Tree parser                                                               */
/* ------------------------------------------------------------------------ */

/* Parse `len` bytes of UBJSON (BJData with SDX_UBJSON_READ_BJDATA) into a
 * new immutable document (free it with sdx_doc_free). Returns NULL on
 * failure with the error in *err (if not NULL). The document owns copies
 * of its strings, so the input may be freed afterwards. Values are those of
 * the events above (H as SDX_TYPE_RAW, C as a tagged STR, typed containers
 * tagged). */
SDX_API sdx_doc *sdx_ubjson_parse(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                                  sdx_error *err);

/* ------------------------------------------------------------------------ */
/* Incremental (pull) reader                                                 */
/* ------------------------------------------------------------------------ */

/* The reader (private). It does not allocate per element: strings and
 * binaries are views into the input (or, for a stream, into the reader's
 * buffer, which grows only as a value's bytes actually arrive, never to a
 * declared length up front). */
typedef struct sdx_ubjson_reader sdx_ubjson_reader;

/* Create a reader over `len` bytes in memory (not copied: keep them alive
 * while reading). Returns NULL only when allocating the reader fails. */
SDX_API sdx_ubjson_reader *sdx_ubjson_reader_new(const char *data, size_t len,
                                                 const sdx_ubjson_read_opts *opts);
/* Create a reader over a stream; `chunk` is the read size (0 = 64 KiB).
 * Returns NULL when allocating fails. */
SDX_API sdx_ubjson_reader *sdx_ubjson_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                        const sdx_ubjson_read_opts *opts);
#ifndef SDX_NO_STDIO
/* Create a reader over a FILE* (read with fread; not closed). */
SDX_API sdx_ubjson_reader *sdx_ubjson_reader_new_file(FILE *f, const sdx_ubjson_read_opts *opts);
#endif
/* Start a reader made by sdx_ubjson_reader_new over new input: as if it
 * were freed and made again with the same options, without allocating
 * (what it grew for deep nesting or long strings is freed). For many short
 * messages: one reader, no allocation per message. SDX_ERR_USAGE for a
 * reader of a stream or file (left as it was), SDX_ERR_INVALID_ARG for
 * NULL. */
SDX_API sdx_err sdx_ubjson_reader_reset(sdx_ubjson_reader *r, const char *data, size_t len);
/* Free a reader (NULL is a no-op). */
SDX_API void sdx_ubjson_reader_free(sdx_ubjson_reader *r);

/* Read the next event into *ev (see the table at the top of this file);
 * ev->depth is the nesting depth (0 for a top-level value; a container's
 * END has the depth of its begin). Strings are valid until the next call.
 * Returns true with an event; false at the end of the input or on an
 * error: then sdx_ubjson_reader_error() tells which. Errors are sticky.
 *
 * A call sdx_ubjson_reader_next(r, ev) is a macro for the inline fast path
 * sdx_ubjson_reader_next_inline below, which behaves exactly the same; the
 * exported function itself is called as (sdx_ubjson_reader_next)(r, ev) or
 * through its address, as with getc in the C library. */
SDX_API bool (sdx_ubjson_reader_next)(sdx_ubjson_reader *r, sdx_event *ev);

/* One open container of the reader (private): the elements (entries)
 * still due when counted, its kind (0 array, 1 map), its element type
 * marker when typed ('$'), whether counted ('#': it ends after `left`
 * elements, not at a marker), in a map whether a key comes next, and for
 * a BJData N-dimensional array its level (1-based). */
typedef struct sdx_ubjson_level {
    uint64_t left;
    uint8_t kind;
    uint8_t type;
    uint8_t counted;
    uint8_t key_due;
    uint8_t nd;
} sdx_ubjson_level;

/* The state the inline fast path reads and advances: the first member of
 * every reader. Private: only sdx_ubjson_reader_next_inline may touch it,
 * and its layout belongs to this version of the library (a program built
 * with these headers must run with the library built from them). */
typedef struct sdx_ubjson_reader_hot {
    const uint8_t *p;         /* next byte of the input window */
    const uint8_t *end;       /* end of the window */
    const uint8_t *base;      /* input offset base_offset is at base */
    uint64_t base_offset;
    sdx_ubjson_level *stack;  /* open containers: stack[0 .. depth) */
    uint32_t depth;
    uint32_t depth_limit;     /* the inline path runs at depths 1 to
                                 depth_limit and opens containers below it
                                 (the stack's room and max_depth); 0 while
                                 it must not run (the end, an error) */
    uint64_t ascii_mask;      /* the high bits, or 0 without UTF-8 checks */
    uint8_t bjdata;           /* little-endian numbers */
    uint8_t last_kind;        /* of the last event, for skip */
} sdx_ubjson_reader_hot;

/* The exported function into a copy of the event: the caller's event then
 * never has its address taken, and the compiler may keep it in registers. */
static inline bool sdx_ubj_hot_slow(sdx_ubjson_reader *r, sdx_event *ev) {
    sdx_event e;
    bool ok = (sdx_ubjson_reader_next)(r, &e);
    sdx_hot_copy(ev, &e);
    return ok;
}

/* A number of n bytes at p, big-endian (UBJSON) or little-endian (BJData). */
static inline uint64_t sdx_ubj_hot_load(const sdx_ubjson_reader_hot *s, const uint8_t *p, int n) {
    return s->bjdata ? sdx_hot_le(p, n) : sdx_hot_be(p, n);
}

/* What sdx_ubjson_reader_next(r, ev) expands to: the exported function with
 * the commonest values decoded inline, in the caller's code, inside a
 * container that is neither typed ('$') nor an N-dimensional array (depth
 * 1 and more): null, true, false, the integers i U I l L, float32 and
 * float64, strings and keys whose length is given as i or U when they are
 * ASCII up to 128 bytes (any bytes without UTF-8 checks), the end of a
 * container (its marker, or its count reached), and containers that are
 * plain or counted with i, U or I while the reader's stack has room (a
 * count the window cannot hold is the exported function's). It takes a
 * value only when 24 bytes, and all of the value's, are in the window;
 * everything else (the top level, no-ops, typed containers, other markers,
 * errors, streams at the window's end) it hands to the exported function,
 * which reports what is wrong. */
SDX_READER_HOT_FN bool sdx_ubjson_reader_next_inline(sdx_ubjson_reader *r, sdx_event *ev) {
    sdx_ubjson_reader_hot *s = (sdx_ubjson_reader_hot *)(void *)r;
    uint32_t d = s->depth;
    if (d == 0 || d > s->depth_limit) return sdx_ubj_hot_slow(r, ev);
    sdx_ubjson_level *L = &s->stack[d - 1];
    if (L->type | L->nd) return sdx_ubj_hot_slow(r, ev);
    const uint8_t *p = s->p;
    uint64_t n, v;
    int map;
    if (L->counted && L->left == 0 && (!L->kind || L->key_due))
        goto end; /* a counted container is complete */
    if ((size_t)(s->end - p) < 24) return sdx_ubj_hot_slow(r, ev);
    if (L->kind && L->key_due) {
        if (*p == '}' && !L->counted) {
            p++;
            goto end;
        }
        if (*p == 'U') n = p[1];
        else if (*p == 'i' && p[1] < 128) n = p[1];
        else return sdx_ubj_hot_slow(r, ev);
        p += 2;
        goto text;
    }
    switch (*p) {
    case 'Z':
        sdx_hot_head(ev, SDX_NULL, d);
        p += 1;
        break;
    case 'T':
    case 'F':
        sdx_hot_head(ev, SDX_BOOL, d);
        ev->v.b = *p == 'T';
        p += 1;
        break;
    case 'i':
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = (int8_t)p[1];
        p += 2;
        break;
    case 'U':
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = p[1];
        p += 2;
        break;
    case 'I':
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = (int16_t)(uint16_t)sdx_ubj_hot_load(s, p + 1, 2);
        p += 3;
        break;
    case 'l':
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = (int32_t)(uint32_t)sdx_ubj_hot_load(s, p + 1, 4);
        p += 5;
        break;
    case 'L':
        sdx_hot_head(ev, SDX_INT, d);
        ev->v.i = (int64_t)sdx_ubj_hot_load(s, p + 1, 8);
        p += 9;
        break;
    case 'D':
        sdx_hot_head(ev, SDX_DOUBLE, d);
        ev->v.u = sdx_ubj_hot_load(s, p + 1, 8);
        p += 9;
        break;
    case 'd': {
        /* a finite float32, widened exactly (NaN payloads and infinities
         * are the exported function's, which keeps their bits) */
        float f;
        uint32_t b = (uint32_t)sdx_ubj_hot_load(s, p + 1, 4);
        if ((b & 0x7f800000u) == 0x7f800000u) return sdx_ubj_hot_slow(r, ev);
        memcpy(&f, &b, 4);
        sdx_hot_head(ev, SDX_DOUBLE, d);
        ev->flags = SDX_EVENT_FLOAT32;
        ev->v.d = (double)f;
        p += 5;
        break;
    }
    case 'S':
        if (p[1] == 'U') n = p[2];
        else if (p[1] == 'i' && p[2] < 128) n = p[2];
        else return sdx_ubj_hot_slow(r, ev);
        p += 3;
        goto text;
    case '[':
    case '{':
        map = *p == '{';
        goto begin;
    case ']':
        if (L->kind || L->counted) return sdx_ubj_hot_slow(r, ev);
        p++;
        goto end;
    default: return sdx_ubj_hot_slow(r, ev);
    }
    if (L->kind) L->key_due = 1;
    else L->left -= L->counted;
    s->p = p;
    s->last_kind = ev->kind;
    return true;

text: {
    /* ASCII up to 128 bytes in the window (which holds 16 bytes from p);
     * other strings are the exported function's */
    if (!sdx_hot_ascii(p, (size_t)n, (size_t)(s->end - p), s->ascii_mask))
        return sdx_ubj_hot_slow(r, ev);
    if (L->kind && L->key_due) {
        sdx_hot_head(ev, SDX_KEY, d);
        L->key_due = 0;
        L->left -= L->counted;
    } else {
        sdx_hot_head(ev, SDX_STR, d);
        if (L->kind) L->key_due = 1;
        else L->left -= L->counted;
    }
    ev->v.str.ptr = (const char *)p;
    ev->v.str.len = (size_t)n;
    s->p = p + n;
    s->last_kind = ev->kind;
    return true;
}

/* A container, plain or with a count of i, U or I: every element takes a
 * byte or more (an entry three), so a count the window cannot hold is the
 * exported function's (an error for memory, more input for a stream). */
begin: {
    if (d >= s->depth_limit) return sdx_ubj_hot_slow(r, ev);
    size_t h = 1;
    uint8_t counted = 0;
    if (p[1] == '#') {
        if (p[2] == 'U') n = p[3], h = 4;
        else if (p[2] == 'i' && p[3] < 128) n = p[3], h = 4;
        else if (p[2] == 'I' && (v = sdx_ubj_hot_load(s, p + 3, 2)) < 0x8000) n = v, h = 5;
        else return sdx_ubj_hot_slow(r, ev);
        if (n > ((size_t)(s->end - p) - h) / (map ? 3u : 1u)) return sdx_ubj_hot_slow(r, ev);
        counted = 1;
    } else if (p[1] == '$') {
        return sdx_ubj_hot_slow(r, ev);
    } else {
        n = SDX_COUNT_UNKNOWN;
    }
    sdx_ubjson_level *c = L + 1;
    c->left = n;
    c->kind = (uint8_t)map;
    c->type = 0;
    c->counted = counted;
    c->key_due = (uint8_t)map;
    c->nd = 0;
    if (L->kind) L->key_due = 1;
    else L->left -= L->counted;
    sdx_hot_head(ev, map ? SDX_MAP : SDX_ARRAY, d);
    ev->v.count = n;
    s->depth = d + 1;
    s->p = p + h;
    s->last_kind = ev->kind;
    return true;
}

end:
    sdx_hot_head(ev, SDX_END, d - 1);
    s->depth = d - 1;
    s->p = p;
    s->last_kind = SDX_END;
    return true;
}

#define sdx_ubjson_reader_next(r, ev) sdx_ubjson_reader_next_inline(r, ev)

/* SDX_OK (after a clean end or while reading), or the error; *err (if not
 * NULL) gets the details: code, message and byte offset. */
SDX_API sdx_err sdx_ubjson_reader_error(const sdx_ubjson_reader *r, sdx_error *err);

/* Byte offset of the end of the last event read. */
SDX_API uint64_t sdx_ubjson_reader_offset(const sdx_ubjson_reader *r);

/* Skip the rest of the value whose begin event was just read (its END
 * included), or nothing after a scalar. Returns false on error. */
SDX_API bool sdx_ubjson_reader_skip(sdx_ubjson_reader *r);

/* The reader as a format-independent source (valid while `r` is). */
SDX_API sdx_source sdx_ubjson_reader_source(sdx_ubjson_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SDX_UBJSON_H */
