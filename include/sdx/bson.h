/*
 * sdx — BSON (bsonspec.org, specification version 1.1): the writer.
 *
 * STATUS: this header holds the writer and the pull reader. The tree
 * parser, decimal128 string conversion and MongoDB Extended JSON come next
 * (issue 14).
 *
 * A BSON document is an int32 total length (little-endian, counting itself
 * and the terminator), a list of elements and a 0x00 terminator. An element
 * is a type byte, a key as a cstring (bytes without NUL, then NUL) and the
 * value. An array is a document whose keys are "0", "1", ... in order.
 *
 * The event mapping (every element type, bsonspec.org 1.1). "tag" means
 * tag_kind = SDX_TAG_BSON with tag = the given number; the low byte of the
 * tag is always the element type, and for binary the next byte is the
 * subtype. Every type keeps enough in its event that BSON -> events -> BSON
 * gives back the same bytes:
 *
 *   type  BSON                 event
 *   0x01  double               SDX_DOUBLE (no tag)
 *   0x02  string               SDX_STR (no tag); may hold NUL bytes
 *   0x03  embedded document    SDX_MAP of SDX_COUNT_UNKNOWN entries (no tag)
 *   0x04  array                SDX_ARRAY (no tag) when its keys are "0",
 *                              "1", ... in order; otherwise SDX_MAP tagged
 *                              0x04, so that the odd keys are written back
 *                              as they were
 *   0x05  binary, subtype s    SDX_BIN: subtype 0 untagged (tag 0x05 also
 *                              accepted); others tagged 0x05 | s << 8 (s =
 *                              0x01 function, 0x02 old binary, 0x03 UUID
 *                              old, 0x04 UUID, 0x05 MD5, 0x06 encrypted,
 *                              0x07 compressed column, 0x08 sensitive,
 *                              0x09 vector, 0x80-0xff user-defined). The
 *                              payload is the binary's data; for subtype
 *                              0x02 the data after its inner int32 length,
 *                              which the writer adds (= payload length)
 *                              and the reader checks
 *   0x06  undefined            SDX_NULL tagged 0x06
 *   0x07  ObjectId             SDX_BIN of 12 bytes tagged 0x07
 *   0x08  boolean              SDX_BOOL (no tag)
 *   0x09  UTC datetime         SDX_INT tagged 0x09 (milliseconds since the
 *                              Unix epoch)
 *   0x0A  null                 SDX_NULL (no tag)
 *   0x0B  regular expression   SDX_BIN tagged 0x0B: the value's bytes as in
 *                              BSON, pattern NUL options NUL
 *   0x0C  DBPointer            SDX_BIN tagged 0x0C: the value's bytes as in
 *                              BSON, int32 length, string, NUL, 12-byte id
 *   0x0D  JavaScript code      SDX_STR tagged 0x0D
 *   0x0E  symbol               SDX_STR tagged 0x0E
 *   0x0F  code with scope      SDX_BIN tagged 0x0F: the value's bytes as in
 *                              BSON, int32 total length, string, document
 *   0x10  int32                SDX_INT (no tag; tag 0x10 on a write asks
 *                              for int32 and fails with SDX_ERR_RANGE when
 *                              the value does not fit)
 *   0x11  timestamp            SDX_INT tagged 0x11 (SDX_UINT above
 *                              INT64_MAX): the uint64 as BSON stores it,
 *                              increment in the low 32 bits, seconds in the
 *                              high 32 bits
 *   0x12  int64                SDX_INT tagged 0x12 (always, so that an
 *                              int64 holding a small number stays int64)
 *   0x13  decimal128           SDX_BIN of 16 bytes tagged 0x13, the IEEE
 *                              754-2008 BID bits as BSON stores them
 *                              (little-endian)
 *   0xFF  min key              SDX_NULL tagged 0xFF
 *   0x7F  max key              SDX_NULL tagged 0x7F
 *
 * Why composite values (regex, DBPointer, code with scope) travel as tagged
 * binaries of their own BSON bytes: the reader hands them out as views into
 * the input with no allocation and no extra events, byte-exactness is
 * immediate, and the writer validates them like the reader does (cstrings
 * without NUL inside, lengths that agree, UTF-8, a well-formed scope
 * document). The Extended JSON mapping layer splits them into their parts.
 *
 * Untagged events from other formats: SDX_INT as int32 when it fits, else
 * int64 (tagged 0x12 forces int64); SDX_UINT up to INT64_MAX likewise, above
 * it SDX_ERR_RANGE unless SDX_BSON_WRITE_BIG_DOUBLE; SDX_NINT SDX_ERR_RANGE
 * (or a double with that flag); SDX_RAW SDX_ERR_UNSUPPORTED; SDX_TAG events
 * and tags of other kinds are ignored (the plain value is written). Map keys
 * must be SDX_KEY events (other key kinds: SDX_ERR_KEY).
 */
#ifndef SDX_BSON_H
#define SDX_BSON_H

#include "buf.h"
#include "common.h"
#include "sink.h"
#include "source.h"

#ifndef SDX_NO_STDIO
#include <stdio.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* BSON element types (bsonspec.org 1.1), also the tags of the mapping. */
#define SDX_BSON_DOUBLE 0x01
#define SDX_BSON_STRING 0x02
#define SDX_BSON_DOCUMENT 0x03
#define SDX_BSON_ARRAY 0x04
#define SDX_BSON_BINARY 0x05
#define SDX_BSON_UNDEFINED 0x06
#define SDX_BSON_OBJECTID 0x07
#define SDX_BSON_BOOL 0x08
#define SDX_BSON_DATETIME 0x09
#define SDX_BSON_NULL 0x0a
#define SDX_BSON_REGEX 0x0b
#define SDX_BSON_DBPOINTER 0x0c
#define SDX_BSON_CODE 0x0d
#define SDX_BSON_SYMBOL 0x0e
#define SDX_BSON_CODE_W_SCOPE 0x0f
#define SDX_BSON_INT32 0x10
#define SDX_BSON_TIMESTAMP 0x11
#define SDX_BSON_INT64 0x12
#define SDX_BSON_DECIMAL128 0x13
#define SDX_BSON_MINKEY 0xff
#define SDX_BSON_MAXKEY 0x7f

/* The tag of a binary of subtype s (SDX_BIN tagged SDX_TAG_BSON). */
#define SDX_BSON_BINARY_TAG(s) ((uint64_t)SDX_BSON_BINARY | (uint64_t)(uint8_t)(s) << 8)

/* The largest document (its int32 length field). */
#define SDX_BSON_MAX_SIZE 0x7fffffff

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */
/* ------------------------------------------------------------------------ */

/* Writer options (flags), all off by default. */
typedef enum sdx_bson_write_flags {
    /* Do not check that strings, keys and cstrings are valid UTF-8 (by
     * default invalid UTF-8 is SDX_ERR_UTF8). */
    SDX_BSON_WRITE_NO_UTF8_CHECK = 1u << 0,
    /* A root that is not a map is written as a document anyway: a root
     * array as a document with keys "0", "1", ...; a root scalar as the
     * document {"0": value}. Without the flag either is SDX_ERR_UNSUPPORTED. */
    SDX_BSON_WRITE_WRAP_ROOT = 1u << 1,
    /* Integers BSON cannot hold (SDX_UINT above INT64_MAX, SDX_NINT) are
     * written as doubles (rounded) instead of failing with SDX_ERR_RANGE. */
    SDX_BSON_WRITE_BIG_DOUBLE = 1u << 2,
    /* Any number of root documents back to back (a mongodump file); without
     * it exactly one. */
    SDX_BSON_WRITE_SEQUENCE = 1u << 3
} sdx_bson_write_flags;

/* Writer options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_bson_write_opts {
    uint32_t flags;          /* sdx_bson_write_flags */
    const sdx_alloc *alloc;  /* for the stack of open documents beyond
                                SDX_BSON_WRITER_INLINE_DEPTH; NULL = default */
} sdx_bson_write_opts;

/* Nesting levels held inside the writer before it allocates. */
#define SDX_BSON_WRITER_INLINE_DEPTH 32

/* One open document (private). */
typedef struct sdx_bson_frame {
    uint64_t start;  /* total output offset of its int32 length */
    uint64_t index;  /* array: the next element's index */
    uint64_t type_at; /* map: total offset of the pending element's type
                         byte (written with the key, set with the value) */
    uint8_t array;   /* keys "0", "1", ... are generated */
    uint8_t key_due; /* map: a key must come next */
} sdx_bson_frame;

/* The writer. All fields are private. It may point into itself, so it must
 * not be copied. */
typedef struct sdx_bson_writer {
    sdx_buf *out;
    sdx_err err;
    uint32_t flags;
    sdx_alloc alloc;
    sdx_bson_frame *frames;
    size_t depth; /* open documents */
    size_t cap;
    uint64_t roots; /* root documents written */
    uint8_t wrapped; /* the root scalar is inside a generated {"0": ...} */
    sdx_bson_frame inline_frames[SDX_BSON_WRITER_INLINE_DEPTH];
} sdx_bson_writer;

/* Start writing BSON into `out` (the caller owns it and keeps it alive
 * while writing; memory, fixed and stream buffers all work: a stream
 * buffer is pinned from a root document's start to its end, so a whole
 * root document is held in memory until its length is known). `opts` NULL
 * means defaults. Returns SDX_ERR_INVALID_ARG for unknown flags (sticky). */
SDX_API sdx_err sdx_bson_writer_init(sdx_bson_writer *w, sdx_buf *out,
                                     const sdx_bson_write_opts *opts);

/* Scalars as element values. Each returns the sticky error: SDX_ERR_USAGE
 * when a key is due or no value may come, SDX_ERR_UNSUPPORTED for a root
 * scalar without SDX_BSON_WRITE_WRAP_ROOT, buffer errors. */
SDX_API sdx_err sdx_bson_writer_null(sdx_bson_writer *w);
SDX_API sdx_err sdx_bson_writer_bool(sdx_bson_writer *w, bool v);
/* int32 when v fits, else int64. */
SDX_API sdx_err sdx_bson_writer_int(sdx_bson_writer *w, int64_t v);
/* As sdx_bson_writer_int; above INT64_MAX SDX_ERR_RANGE (or a double with
 * SDX_BSON_WRITE_BIG_DOUBLE). */
SDX_API sdx_err sdx_bson_writer_uint(sdx_bson_writer *w, uint64_t v);
SDX_API sdx_err sdx_bson_writer_double(sdx_bson_writer *w, double v);
/* A string of `len` bytes (s may be NULL when len is 0); NUL bytes are
 * allowed, invalid UTF-8 is SDX_ERR_UTF8 unless unchecked. Above
 * SDX_BSON_MAX_SIZE: SDX_ERR_LIMIT. */
SDX_API sdx_err sdx_bson_writer_string(sdx_bson_writer *w, const char *s, size_t len);
/* A binary of subtype `subtype` (0 generic; 0x02 gets its inner length
 * added). */
SDX_API sdx_err sdx_bson_writer_binary(sdx_bson_writer *w, uint8_t subtype, const void *data,
                                       size_t len);

/* Documents. begin_map opens an embedded document (or the root), whose
 * entries are key then value; begin_array an array (keys generated). The
 * count is not needed (lengths are back-patched): any value, including
 * SDX_COUNT_UNKNOWN, is accepted and not checked. */
SDX_API sdx_err sdx_bson_writer_begin_map(sdx_bson_writer *w, uint64_t count);
SDX_API sdx_err sdx_bson_writer_begin_array(sdx_bson_writer *w, uint64_t count);
/* A key where one is due (SDX_ERR_USAGE otherwise). A key holding a NUL
 * byte is SDX_ERR_KEY (keys are cstrings); invalid UTF-8 SDX_ERR_UTF8. */
SDX_API sdx_err sdx_bson_writer_key(sdx_bson_writer *w, const char *s, size_t len);
/* Close the innermost document and write its length (SDX_ERR_USAGE when
 * none is open or a value is due after a key; SDX_ERR_LIMIT when it is
 * larger than SDX_BSON_MAX_SIZE). */
SDX_API sdx_err sdx_bson_writer_end(sdx_bson_writer *w);

/* Write one event according to the table at the top of this file. A value
 * where a map key is due (another format's non-string key) is
 * SDX_ERR_KEY. Tagged
 * values are checked: an ObjectId must have 12 bytes, a decimal128 16, a
 * regex, DBPointer or code with scope must be well-formed BSON value bytes
 * (SDX_ERR_INVALID_ARG otherwise); a tag that does not fit the event's kind
 * (e.g. 0x07 on a string) or an unknown element type is
 * SDX_ERR_UNSUPPORTED. */
SDX_API sdx_err sdx_bson_writer_put(sdx_bson_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_bson_writer_sink(sdx_bson_writer *w);

/* End the output: a root document must have been written (and every
 * document closed; SDX_ERR_USAGE otherwise); flushes a stream buffer.
 * Frees the writer's allocations. Returns the sticky error. */
SDX_API sdx_err sdx_bson_writer_finish(sdx_bson_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_bson_writer_error(const sdx_bson_writer *w) { return w->err; }

/* ------------------------------------------------------------------------ */
/* Reading: options                                                          */
/* ------------------------------------------------------------------------ */

/* Reader options (flags). With none set the input is exactly one document. */
enum sdx_bson_read_flag {
    /* Do not check that strings, keys and cstrings are valid UTF-8 (by
     * default invalid UTF-8 is SDX_ERR_UTF8). */
    SDX_BSON_READ_NO_UTF8_CHECK = 1u << 0,
    /* Any number of root documents back to back (a mongodump file), each
     * delivered at depth 0; without it bytes after the one document are
     * SDX_ERR_SYNTAX. */
    SDX_BSON_READ_SEQUENCE = 1u << 1
};

/* Reader options; a NULL pointer means all defaults. */
typedef struct sdx_bson_read_opts {
    uint32_t flags;         /* sdx_bson_read_flag bits */
    uint32_t max_depth;     /* nesting limit of documents and arrays, the
                               root counting 1 (SDX_ERR_DEPTH beyond it);
                               0 = SDX_BSON_DEFAULT_MAX_DEPTH */
    size_t max_document;    /* stream input: the largest root document
                               (SDX_ERR_LIMIT beyond it), the bound of the
                               reader's buffer; 0 = SDX_BSON_DEFAULT_MAX_DOCUMENT */
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
} sdx_bson_read_opts;

#define SDX_BSON_DEFAULT_MAX_DEPTH 1024
/* MongoDB's document limit is 16 MiB; the default leaves room above it. */
#define SDX_BSON_DEFAULT_MAX_DOCUMENT ((size_t)64 << 20)
/* Code with scope inside code with scope, deeper than this, is
 * SDX_ERR_DEPTH (each scope is validated by a nested reader). */
#define SDX_BSON_MAX_SCOPE_NESTING 8

/* Errors of the reader, with the byte offset of the offending byte or
 * length field: SDX_ERR_TRUNCATED (the input ends inside a document),
 * SDX_ERR_SYNTAX (a length below its minimum or beyond its enclosing
 * document, a missing or early terminator, an unknown element type, a
 * boolean other than 0 or 1, an old binary whose inner length disagrees,
 * bytes after the document), SDX_ERR_UTF8, SDX_ERR_DEPTH, SDX_ERR_LIMIT,
 * SDX_ERR_NOMEM, SDX_ERR_IO, SDX_ERR_INVALID_ARG (unknown flags). */

/* ------------------------------------------------------------------------ */
/* Incremental (pull) reader                                                 */
/* ------------------------------------------------------------------------ */

/* The reader (opaque). It does not allocate per element: strings and
 * binaries are views into the input (memory) or into the buffer holding
 * the current root document (stream); only the stack of levels beyond 16
 * and a stream's document buffer are allocated. */
typedef struct sdx_bson_reader sdx_bson_reader;

/* Create a reader over `len` bytes in memory (not copied: keep them alive
 * while reading). Returns NULL when the allocation fails. Invalid options
 * give a reader whose first next() fails with SDX_ERR_INVALID_ARG. */
SDX_API sdx_bson_reader *sdx_bson_reader_new(const char *data, size_t len,
                                             const sdx_bson_read_opts *opts);

/* Create a reader over a stream: each root document is read whole (its
 * buffer grows with the bytes that arrive, up to max_document). */
SDX_API sdx_bson_reader *sdx_bson_reader_new_stream(sdx_read_fn read, void *ctx,
                                                    const sdx_bson_read_opts *opts);

#ifndef SDX_NO_STDIO
/* Create a reader over a FILE* (read with fread; not closed). */
SDX_API sdx_bson_reader *sdx_bson_reader_new_file(FILE *f, const sdx_bson_read_opts *opts);
#endif

/* Free a reader (NULL is a no-op). */
SDX_API void sdx_bson_reader_free(sdx_bson_reader *r);

/* Read the next event into *ev (see the table at the top of this file):
 * each document begins with SDX_MAP (or SDX_ARRAY) of SDX_COUNT_UNKNOWN
 * entries and ends with SDX_END; a map element is an SDX_KEY event then
 * its value. Returns false at the end of the input or on an error (then
 * sdx_bson_reader_error() tells which). */
SDX_API bool sdx_bson_reader_next(sdx_bson_reader *r, sdx_event *ev);

/* SDX_OK while reading or at a clean end, else the sticky error; fills
 * *err (if not NULL) with code, message and byte offset. */
SDX_API sdx_err sdx_bson_reader_error(const sdx_bson_reader *r, sdx_error *err);

/* Byte offset in the input just after the last event. */
SDX_API uint64_t sdx_bson_reader_offset(const sdx_bson_reader *r);

/* The reader as a format-independent source (valid while `r` is). */
SDX_API sdx_source sdx_bson_reader_source(sdx_bson_reader *r);

/* ------------------------------------------------------------------------ */
/* Decimal128 text                                                           */
/* ------------------------------------------------------------------------ */

/* The longest text sdx_bson_decimal128_to_string writes, without its NUL
 * ("-0.000...0" forms of 34 digits with exponent -6176 need at most 42
 * characters; scientific form at most 42 as well). */
#define SDX_BSON_DECIMAL128_STRING_MAX 48

/* Write the decimal128 value held in `bytes` (16 bytes, little-endian, as
 * BSON stores them) as text, by the algorithm of the BSON Decimal128
 * specification (mongodb/specifications, bson-decimal128): "Infinity",
 * "-Infinity", "NaN" (for every NaN: either sign, signaling or quiet, any
 * payload), plain notation when the exponent is <= 0 and the adjusted
 * exponent >= -6, otherwise scientific "d.dddE+n"; a non-canonical
 * significand (above 10^34 - 1, as in every encoding whose bits 126..125
 * are 11 other than Infinity and NaN) reads as zero, with the value's sign
 * and exponent. Every 16 bytes have a text. `out` gets the text and a NUL
 * and must hold SDX_BSON_DECIMAL128_STRING_MAX + 1 bytes; neither pointer
 * may be NULL. Returns the text's length. */
SDX_API size_t sdx_bson_decimal128_to_string(const uint8_t bytes[16], char *out);

/* Parse decimal text (`len` bytes, no NUL needed; a NUL inside them is an
 * error) into the 16 bytes of a decimal128, by the same specification:
 * optional sign, digits with an optional point, an optional exponent
 * "e"/"E" with sign; "Inf", "Infinity", "NaN" in any case, signed (the sign
 * is kept, also on zero and NaN); no spaces. The text's exponent is kept
 * (preferred exponent: "1.50" keeps its trailing zero) unless the value
 * needs another: trailing zeros beyond 34 digits or below exponent -6176
 * are dropped, and above exponent 6111 zeros are appended to the
 * coefficient (clamping); zero takes the nearest exponent in range. Values
 * that need rounding otherwise (a nonzero digit lost, overflow, underflow)
 * are errors, as the specification requires. Returns SDX_OK, or
 * SDX_ERR_SYNTAX for text that is not a decimal number (the empty text,
 * also with s NULL and len 0), SDX_ERR_RANGE for one decimal128 cannot
 * hold exactly, SDX_ERR_INVALID_ARG when out is NULL or s is NULL with len
 * > 0; `out` is written only on success. */
SDX_API sdx_err sdx_bson_decimal128_from_string(const char *s, size_t len, uint8_t out[16]);

#ifdef __cplusplus
}
#endif

#endif /* SDX_BSON_H */
