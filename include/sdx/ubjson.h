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
 *   - the tree parser (sdx_ubjson_parse: the reader's events into the
 *     document builder);
 *   - the sdx command's formats ubjson (.ubjson .ubj) and bjdata (.bjdata
 *     .bjd .jdb), and sdx's UBJSON programs in the benchmark suite
 *     (verified; `bench/run.py --quick --filter ubjson`).
 * Not there yet: the inline fast paths that msgpack.h has (the reader and
 * writer here are plain functions, and have not been measured against the
 * peer libraries); BJData's structure-of-arrays containers ('[' '$' '{',
 * Draft 3) and column-major N-dimensional arrays (both read as
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
    uint64_t items; /* items written (a map's keys and values both count) */
    uint64_t limit; /* items allowed: twice the count for a map, the count
                       for an array, UINT64_MAX for a plain container */
    uint8_t kind;   /* root, array or map */
    uint8_t type;   /* element type marker of a typed container, else 0 */
} sdx_ubjson_frame;

/* The writer. All fields are private. It points into itself, so it must not
 * be copied or moved after sdx_ubjson_writer_init(). */
typedef struct sdx_ubjson_writer {
    sdx_buf *out;
    sdx_ubjson_frame *top;
    size_t (*utf8_valid)(const char *s, size_t n); /* the SIMD kernel */
    sdx_err err;
    uint32_t flags;
    uint32_t depth;
    uint32_t cap;
    sdx_ubjson_frame *frames; /* inline_frames or an allocation */
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
SDX_API sdx_err sdx_ubjson_writer_null(sdx_ubjson_writer *w);
SDX_API sdx_err sdx_ubjson_writer_bool(sdx_ubjson_writer *w, bool v);
SDX_API sdx_err sdx_ubjson_writer_int(sdx_ubjson_writer *w, int64_t v);
/* An unsigned integer: above INT64_MAX as H in UBJSON, M in BJData. */
SDX_API sdx_err sdx_ubjson_writer_uint(sdx_ubjson_writer *w, uint64_t v);
/* A double: D, or d when SDX_UBJSON_WRITE_FLOAT32_EXACT and exact. */
SDX_API sdx_err sdx_ubjson_writer_double(sdx_ubjson_writer *w, double v);
/* A float: always d. */
SDX_API sdx_err sdx_ubjson_writer_float(sdx_ubjson_writer *w, float v);
/* A string: `len` bytes at `s` (NULL allowed when len is 0), as S, or as
 * C when it is one byte of 0 to 127 (the smallest encoding, as py-ubjson
 * writes it too). Invalid UTF-8 is SDX_ERR_UTF8 unless
 * SDX_UBJSON_WRITE_NO_UTF8_CHECK. */
SDX_API sdx_err sdx_ubjson_writer_string(sdx_ubjson_writer *w, const char *s, size_t len);
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
SDX_API sdx_err sdx_ubjson_writer_begin_array(sdx_ubjson_writer *w, uint64_t count);
SDX_API sdx_err sdx_ubjson_writer_begin_map(sdx_ubjson_writer *w, uint64_t count);
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
SDX_API sdx_err sdx_ubjson_writer_key(sdx_ubjson_writer *w, const char *s, size_t len);
/* Close the innermost container (SDX_ERR_USAGE if none is open, if its
 * count is not met, or after a map key without its value). */
SDX_API sdx_err sdx_ubjson_writer_end(sdx_ubjson_writer *w);

/* Write one event (see the table at the top of this file). SDX_ARRAY and
 * SDX_MAP with tag_kind
 * SDX_TAG_UBJSON and a known count are typed containers of that type (as
 * begin_typed_array); SDX_DOUBLE with SDX_EVENT_FLOAT32 is d when exact
 * (SDX_EVENT_FLOAT16 is not followed: D); SDX_RAW is H (its text
 * checked, SDX_ERR_INVALID_ARG if not a JSON number); SDX_NINT is
 * SDX_ERR_RANGE; other tags are ignored, and so are SDX_TAG events. */
SDX_API sdx_err sdx_ubjson_writer_put(sdx_ubjson_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_ubjson_writer_sink(sdx_ubjson_writer *w);

/* End the output: checks that a value was written and every container is
 * closed (SDX_ERR_USAGE otherwise), flushes a stream buffer, frees what the
 * writer allocated and returns the sticky error. Call it exactly once, also
 * after an error; the writer accepts nothing afterwards. */
SDX_API sdx_err sdx_ubjson_writer_finish(sdx_ubjson_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_ubjson_writer_error(const sdx_ubjson_writer *w) { return w->err; }

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
    uint64_t max_empty;      /* the most elements a typed container of Z, T
                                or F (elements with no bytes of their own)
                                may declare, and the most arrays an
                                N-dimensional array with a zero dimension
                                may hold (SDX_ERR_LIMIT beyond it);
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
 *   SDX_ERR_LIMIT      a typed container of Z, T or F (or an N-dimensional
 *                      array with a zero dimension) above max_empty
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
/* Create a reader over a FILE* (read with fread; not closed). */
SDX_API sdx_ubjson_reader *sdx_ubjson_reader_new_file(FILE *f, const sdx_ubjson_read_opts *opts);
/* Free a reader (NULL is a no-op). */
SDX_API void sdx_ubjson_reader_free(sdx_ubjson_reader *r);

/* Read the next event into *ev (see the table at the top of this file);
 * ev->depth is the nesting depth (0 for a top-level value; a container's
 * END has the depth of its begin). Strings are valid until the next call.
 * Returns true with an event; false at the end of the input or on an
 * error: then sdx_ubjson_reader_error() tells which. Errors are sticky. */
SDX_API bool sdx_ubjson_reader_next(sdx_ubjson_reader *r, sdx_event *ev);

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
