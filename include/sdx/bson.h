/*
 * sdx — BSON (bsonspec.org, specification version 1.1): the writer, the
 * pull reader, the tree parser and decimal128 text. MongoDB Extended JSON
 * v2 (BSON <-> JSON) is in the mapping layer (sdx/map.h).
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
 * gives back the same bytes (an array whose keys are not "0", "1", ... in
 * order only with SDX_BSON_READ_KEEP_ARRAY_KEYS: below):
 *
 *   type  BSON                 event
 *   0x01  double               SDX_DOUBLE (no tag)
 *   0x02  string               SDX_STR (no tag); may hold NUL bytes
 *   0x03  embedded document    SDX_MAP of SDX_COUNT_UNKNOWN entries (no tag)
 *   0x04  array                SDX_ARRAY (no tag); its keys are not
 *                              looked at beyond being cstrings, as MongoDB's
 *                              drivers read arrays and as the BSON corpus
 *                              decodes its degenerate arrays (keys other
 *                              than "0", "1", ...), so such an array is
 *                              written back with the keys "0", "1", ...
 *                              With SDX_BSON_READ_KEEP_ARRAY_KEYS, an array
 *                              whose keys are not "0", "1", ... in order is
 *                              an SDX_MAP tagged 0x04 instead, so that its
 *                              odd keys are written back as they were
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
#include "doc.h"
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
    size_t (*utf8_valid)(const char *, size_t); /* the SIMD table's kernel */
    sdx_bson_frame inline_frames[SDX_BSON_WRITER_INLINE_DEPTH];
} sdx_bson_writer;

/* Start writing BSON into `out` (the caller owns it and keeps it alive
 * while writing; memory, fixed and stream buffers all work: a stream
 * buffer is pinned from a root document's start to its end, so a whole
 * root document is held in memory until its length is known, unless it
 * can patch bytes it has flushed (sdx_buf_set_patch): then the lengths are
 * patched in place and memory stays within the stream's chunk). `opts` NULL
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

/* Write the value `n` of a document (with its tags and everything inside
 * it): exactly what sdx_node_emit(n, sdx_bson_writer_sink(w)) writes, and
 * the same errors, but faster — the document is walked with direct calls
 * into the writer instead of an event per value. SDX_ERR_NOT_FOUND for
 * the nil node, SDX_ERR_NOMEM if its stack cannot grow, else the
 * writer's sticky error. */
SDX_API sdx_err sdx_bson_writer_node(sdx_bson_writer *w, sdx_node n);

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
    /* Reader: any number of root documents back to back (a mongodump
     * file), each delivered at depth 0; without it bytes after the one
     * document are SDX_ERR_SYNTAX. Parser: parse the first document only;
     * what follows it is not looked at, and sdx_doc_consumed() tells where
     * it ended (the next document starts there). */
    SDX_BSON_READ_SEQUENCE = 1u << 1,
    /* Parser: copy the input into the document, so the caller may free it
     * as soon as the parser returns. Without it, strings, keys and binaries
     * point into the input, which must outlive the document. The reader
     * ignores it. */
    SDX_BSON_READ_COPY_INPUT = 1u << 2,
    /* Keep the keys of arrays whose keys are not "0", "1", ... in order
     * (degenerate arrays, in the BSON corpus's words): such an array is
     * read as an SDX_MAP tagged 0x04 with its keys, so that BSON -> events
     * -> BSON gives back its bytes. Telling it needs every key of an array
     * before the array's first event: the reader looks ahead over the
     * array's elements when it opens it, which costs time on data with
     * many arrays. Without it (the default) an array is SDX_ARRAY whatever
     * its keys, and written back with canonical keys. */
    SDX_BSON_READ_KEEP_ARRAY_KEYS = 1u << 3
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
 * SDX_ERR_DEPTH. Each scope document is checked in full when its value is
 * read, on the reader's own stack of levels (no recursion), so the
 * documents inside scopes also count towards max_depth. */
#define SDX_BSON_MAX_SCOPE_NESTING 8

/* Errors of the reader and the parser, with the byte offset of the offending byte or
 * length field: SDX_ERR_TRUNCATED (the input ends inside a document),
 * SDX_ERR_SYNTAX (a length below its minimum or beyond its enclosing
 * document, a missing or early terminator, an unknown element type, a
 * boolean other than 0 or 1, an old binary whose inner length disagrees,
 * bytes after the document), SDX_ERR_UTF8, SDX_ERR_DEPTH, SDX_ERR_LIMIT,
 * SDX_ERR_NOMEM, SDX_ERR_IO, SDX_ERR_INVALID_ARG (unknown flags). */

/* ------------------------------------------------------------------------ */
/* Tree parser                                                               */
/* ------------------------------------------------------------------------ */

/* Parse `len` bytes of BSON (one document; with SDX_BSON_READ_SEQUENCE the
 * first of several) into a new immutable document (free it with
 * sdx_doc_free). Returns NULL on failure with the error in *err (if not
 * NULL; code, message and byte offset as the reader gives them, or
 * SDX_ERR_NOMEM). Unless SDX_BSON_READ_COPY_INPUT is given, strings, keys
 * and binaries point into the input, which must outlive the document.
 * max_document is not used (the input is in memory already).
 *
 * Values follow the table at the top of this file: the root is a MAP, an
 * embedded document a MAP, an array an ARRAY (with
 * SDX_BSON_READ_KEEP_ARRAY_KEYS a MAP tagged 0x04 when its keys are not
 * "0", "1", ... in order); each tagged event becomes a value
 * with a tag slot of kind SDX_TAG_BSON, so that sdx_node_emit of the root
 * into a BSON writer gives back the input's bytes. The input is checked
 * in full (the reader's checks) before the document is returned; nesting
 * is limited by max_depth without recursion, and the document grows only
 * with elements actually read (never with a length the input claims). */
SDX_API sdx_doc *sdx_bson_parse(const char *data, size_t len, const sdx_bson_read_opts *opts,
                                sdx_error *err);

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

/* Start a reader made by sdx_bson_reader_new over new input: as if it
 * were freed and made again with the same options, without allocating
 * (what it grew for deep nesting or long strings is freed). For many short
 * messages: one reader, no allocation per message. SDX_ERR_USAGE for a
 * reader of a stream or file (left as it was), SDX_ERR_INVALID_ARG for
 * NULL. */
SDX_API sdx_err sdx_bson_reader_reset(sdx_bson_reader *r, const char *data, size_t len);
/* Free a reader (NULL is a no-op). */
SDX_API void sdx_bson_reader_free(sdx_bson_reader *r);

/* Read the next event into *ev (see the table at the top of this file):
 * each document begins with SDX_MAP (or SDX_ARRAY) of SDX_COUNT_UNKNOWN
 * entries and ends with SDX_END; a map element is an SDX_KEY event then
 * its value. Returns false at the end of the input or on an error (then
 * sdx_bson_reader_error() tells which).
 *
 * A call sdx_bson_reader_next(r, ev) is a macro for the inline fast path
 * sdx_bson_reader_next_inline below, which behaves exactly the same; the
 * exported function itself is called as (sdx_bson_reader_next)(r, ev) or
 * through its address, as with getc in the C library. */
SDX_API bool (sdx_bson_reader_next)(sdx_bson_reader *r, sdx_event *ev);

/* One open document of the reader (private). */
typedef struct sdx_bson_level {
    size_t end;    /* offset of the document's terminator */
    uint8_t array; /* read as SDX_ARRAY: keys scanned as cstrings (and with
                      SDX_BSON_READ_KEEP_ARRAY_KEYS checked to be "0", "1",
                      ... when it opened); 2 when the inline path opened it
                      with that flag: up to 10 elements, their keys "0" to
                      "9" checked then and not scanned again */
    uint8_t scope; /* a code with scope's scope document being checked */
} sdx_bson_level;

/* The state the inline fast path reads and advances: the first member of
 * every reader. Private: only sdx_bson_reader_next_inline and the library
 * may touch it, and its layout belongs to this version of the library (a
 * program built with these headers must run with the library built from
 * them). */
typedef struct sdx_bson_reader_hot {
    const uint8_t *data;  /* the input, or a stream's current root document */
    size_t pos;           /* offset in data of the next element */
    size_t end;           /* offset of the innermost open document's
                             terminator (while depth > 0) */
    size_t depth;         /* open documents */
    sdx_bson_level *levels; /* levels[0, depth) */
    size_t room;          /* documents may open inline while depth < room
                             (the stack's capacity and max_depth) */
    size_t pending;       /* a key was delivered: its element's offset, */
    size_t pending_value; /* and its value's */
    size_t (*utf8_valid)(const char *, size_t); /* the SIMD table's UTF-8
                             kernel (the valid prefix's length), or NULL
                             without UTF-8 checks */
    uint8_t high;         /* 0x80, or 0 without UTF-8 checks */
    uint8_t array;        /* the innermost document is read as SDX_ARRAY
                             (its level's `array`: 1, or 2) */
    uint8_t value_due;    /* the value of the delivered key comes next */
    uint8_t blocked;      /* an error or the end: the exported function only */
    uint8_t began;        /* the last event opened a document (for skip) */
    uint8_t pending_type; /* data[pending]: the delivered key's element type */
    uint8_t keep_keys;    /* SDX_BSON_READ_KEEP_ARRAY_KEYS: arrays are opened
                             after a look-ahead over their keys */
} sdx_bson_reader_hot;

/* The exported function into a copy of the event (so that the caller's
 * event never has its address taken). */
static inline bool sdx_bs_hot_slow(sdx_bson_reader *r, sdx_event *ev) {
    sdx_event e;
    bool ok = (sdx_bson_reader_next)(r, &e);
    sdx_hot_copy(ev, &e);
    return ok;
}

/* The length of the key at k, whose NUL must come before lim (the
 * terminator of its document, so the bytes up to lim are input): a key of
 * up to 31 bytes, ASCII when `high` is 0x80 (any bytes when 0), else
 * (size_t)-1. Eight bytes at a time while eight are left before lim: a
 * zero byte is found by the borrow of subtracting 1 from each byte (Hacker's
 * Delight, 6-1: exact for the lowest zero byte, which is the one taken),
 * then byte by byte. */
static inline size_t sdx_bs_hot_key(const uint8_t *k, const uint8_t *lim, uint8_t high) {
    const uint64_t ones = SDX_HOT_ONES8, highs = ones * 0x80, mask = ones * high;
    size_t i = 0;
    uint64_t seen = 0;
    while (i < 32 && lim - (k + i) >= 8) {
        const uint64_t w = sdx_hot_le(k + i, 8), z = (w - ones) & ~w & highs;
        if (z) {
            const unsigned b = sdx_hot_ctz64(z) >> 3; /* bytes before the NUL */
            seen |= w & ((UINT64_C(1) << (8 * b)) - 1);
            return seen & mask ? (size_t)-1 : i + b;
        }
        seen |= w;
        i += 8;
    }
    for (; i < 32 && k + i < lim; i++) {
        if (!k[i]) return seen & mask ? (size_t)-1 : i;
        seen |= (uint64_t)k[i] << 56;
    }
    return (size_t)-1;
}

/* What sdx_bson_reader_next(r, ev) expands to: the exported function with
 * the commonest elements read inline, in the caller's code, inside a
 * document: a key of up to 32 bytes that is ASCII (any bytes without UTF-8
 * checks) of an element with a known type, the values int32, int64,
 * double, boolean, null, strings (UTF-8 checked here when ASCII and at
 * most 128 bytes long, else with the library's kernel), embedded documents
 * and arrays (with SDX_BSON_READ_KEEP_ARRAY_KEYS, arrays of up to 10
 * scalars, strings and documents) while the stack has room, and the end of
 * a document inside another, each with the exported function's checks.
 * Everything else (other arrays, other types, anything malformed, the top
 * level, after an error) it hands to the exported function, which reports
 * what is wrong. */
SDX_READER_HOT_FN bool sdx_bson_reader_next_inline(sdx_bson_reader *r, sdx_event *ev) {
    sdx_bson_reader_hot *s = (sdx_bson_reader_hot *)(void *)r;
    if (s->depth == 0 || s->blocked) return sdx_bs_hot_slow(r, ev);
    const uint8_t *d = s->data;
    const uint32_t depth = (uint32_t)s->depth;
    size_t at;
    uint8_t type;
    if (s->value_due) { /* its element's type, kept, to dispatch on at once */
        at = s->pending_value;
        type = s->pending_type;
    } else {
        const size_t el = s->pos;
        if (el == s->end) { /* the terminator of a document inside another */
            if (d[el] != 0 || depth < 2) return sdx_bs_hot_slow(r, ev);
            const sdx_bson_level *top = &s->levels[depth - 2];
            s->pos = el + 1;
            s->depth = depth - 1;
            s->end = top->end;
            s->array = top->array;
            s->began = 0;
            sdx_hot_head(ev, SDX_END, depth - 1);
            return true;
        }
        const uint8_t t = d[el];
        if (!((uint8_t)(t - 1) < 0x13 || t == 0x7f || t == 0xff)) return sdx_bs_hot_slow(r, ev);
        const uint8_t *k = d + el + 1, *q = k;
        const uint8_t array = s->array;
        if (!array) { /* a map's key: its own event; the value comes next */
            const size_t klen = sdx_bs_hot_key(k, d + s->end, s->high);
            if (klen == (size_t)-1) return sdx_bs_hot_slow(r, ev);
            q = k + klen;
            at = (size_t)(q + 1 - d);
            sdx_hot_head(ev, SDX_KEY, depth);
            ev->v.str.ptr = (const char *)k;
            ev->v.str.len = (size_t)(q - k);
            s->pending = el;
            s->pending_value = s->pos = at;
            s->pending_type = t;
            s->value_due = 1;
            s->began = 0;
            return true;
        }
        if (array == 2) {
            q = k + 1; /* an array this path opened: keys "0" to "9", checked then */
        } else {
            /* "0", "1", ...: short, of lengths that change seldom, which
             * the branches of a byte loop predict */
            const uint8_t *lim = d + s->end;
            if (lim - k > 32) lim = k + 32;
            uint8_t high = 0;
            while (q < lim && *q) high |= *q++;
            if (q == lim || (high & s->high)) return sdx_bs_hot_slow(r, ev);
        }
        at = (size_t)(q + 1 - d);
        type = t;
    }
    const size_t avail = s->end - at;
    const uint8_t *p = d + at;
    size_t n;
    switch (type) {
    case 0x10: /* int32 */
        if (avail < 4) return sdx_bs_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_INT, depth);
        ev->v.i = (int32_t)(uint32_t)sdx_hot_le(p, 4);
        n = 4;
        break;
    case 0x12: /* int64, tagged */
        if (avail < 8) return sdx_bs_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_INT, depth);
        ev->tag_kind = SDX_TAG_BSON;
        ev->tag = 0x12;
        ev->v.u = sdx_hot_le(p, 8);
        n = 8;
        break;
    case 0x01: /* double */
        if (avail < 8) return sdx_bs_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_DOUBLE, depth);
        ev->v.u = sdx_hot_le(p, 8);
        n = 8;
        break;
    case 0x08: /* boolean */
        if (avail < 1 || p[0] > 1) return sdx_bs_hot_slow(r, ev);
        sdx_hot_head(ev, SDX_BOOL, depth);
        ev->v.b = p[0] != 0;
        n = 1;
        break;
    case 0x0a: /* null */
        sdx_hot_head(ev, SDX_NULL, depth);
        n = 0;
        break;
    case 0x03: { /* an embedded document: int32 length >= 5, within this one */
        if (avail < 4 || depth >= s->room) return sdx_bs_hot_slow(r, ev);
        uint64_t l = sdx_hot_le(p, 4);
        if (l < 5 || l > avail) return sdx_bs_hot_slow(r, ev);
        sdx_bson_level *c = &s->levels[depth];
        c->end = at + (size_t)l - 1;
        c->array = 0;
        c->scope = 0;
        s->depth = depth + 1;
        s->end = c->end;
        s->array = 0;
        s->value_due = 0;
        s->pos = at + 4;
        s->began = 1;
        sdx_hot_head(ev, SDX_MAP, depth);
        ev->v.count = SDX_COUNT_UNKNOWN;
        return true;
    }
    case 0x04: { /* an array: SDX_ARRAY, its keys scanned as its elements
                  * are read. With SDX_BSON_READ_KEEP_ARRAY_KEYS only an
                  * array of up to 10 elements with the keys "0", "1", ...
                  * in order, as the exported function's key check would
                  * find; its elements are stepped over by their sizes:
                  * fixed-size scalars (double, int32, int64, boolean,
                  * null), strings and documents by their length fields
                  * (checked in full when they are read); any other array
                  * goes to the exported function */
        if (avail < 4 || depth >= s->room) return sdx_bs_hot_slow(r, ev);
        uint64_t l = sdx_hot_le(p, 4);
        if (l < 5 || l > avail) return sdx_bs_hot_slow(r, ev);
        size_t o = 4, last = (size_t)l - 1, vs;
        uint8_t kind = 1;
        if (s->keep_keys) {
            kind = 2;
            for (unsigned i = 0; o < last; i++) {
                if (i > 9 || last - o < 3 || p[o + 1] != (uint8_t)('0' + i) || p[o + 2] != 0)
                    return sdx_bs_hot_slow(r, ev);
                switch (p[o]) {
                case 0x01:
                case 0x12: vs = 8; break;
                case 0x10: vs = 4; break;
                case 0x08: vs = 1; break;
                case 0x0a: vs = 0; break;
                case 0x02: /* a string: its length, its NUL included, then it */
                    if (last - o - 3 < 4) return sdx_bs_hot_slow(r, ev);
                    vs = 4 + (size_t)sdx_hot_le(p + o + 3, 4);
                    if (vs < 5) return sdx_bs_hot_slow(r, ev);
                    break;
                case 0x03:
                case 0x04: /* a document: its length counts itself */
                    if (last - o - 3 < 4) return sdx_bs_hot_slow(r, ev);
                    vs = (size_t)sdx_hot_le(p + o + 3, 4);
                    if (vs < 5) return sdx_bs_hot_slow(r, ev);
                    break;
                default: return sdx_bs_hot_slow(r, ev);
                }
                if (last - o - 3 < vs) return sdx_bs_hot_slow(r, ev);
                o += 3 + vs;
            }
        }
        sdx_bson_level *c = &s->levels[depth];
        c->end = at + last;
        c->array = kind;
        c->scope = 0;
        s->depth = depth + 1;
        s->end = c->end;
        s->array = kind;
        s->value_due = 0;
        s->pos = at + 4;
        s->began = 1;
        sdx_hot_head(ev, SDX_ARRAY, depth);
        ev->v.count = SDX_COUNT_UNKNOWN;
        return true;
    }
    case 0x02: { /* string: int32 length L >= 1, L bytes ending in NUL */
        if (avail < 4) return sdx_bs_hot_slow(r, ev);
        uint64_t l = sdx_hot_le(p, 4);
        if (l < 1 || l > avail - 4 || p[4 + l - 1] != 0) return sdx_bs_hot_slow(r, ev);
        if (s->utf8_valid) { /* ASCII here (sdx_hot_text); else the kernel */
            const uint8_t *q = p + 4;
            const size_t len = (size_t)l - 1;
            /* the bytes up to the root document's terminator are input:
             * sdx_hot_text's 16 bytes from q, but near the end */
            if ((size_t)(d + s->levels[0].end + 1 - q) < 16
                    ? s->utf8_valid((const char *)q, len) != len
                    : !sdx_hot_text(q, len, len, SDX_HOT_ONES8 * 0x80, s->utf8_valid))
                return sdx_bs_hot_slow(r, ev);
        }
        sdx_hot_head(ev, SDX_STR, depth);
        ev->v.str.ptr = (const char *)p + 4;
        ev->v.str.len = (size_t)(l - 1);
        n = 4 + (size_t)l;
        break;
    }
    default: return sdx_bs_hot_slow(r, ev);
    }
    s->value_due = 0;
    s->pos = at + n;
    s->began = 0;
    return true;
}

#define sdx_bson_reader_next(r, ev) sdx_bson_reader_next_inline(r, ev)

/* SDX_OK while reading or at a clean end, else the sticky error; fills
 * *err (if not NULL) with code, message and byte offset. */
SDX_API sdx_err sdx_bson_reader_error(const sdx_bson_reader *r, sdx_error *err);

/* Byte offset in the input just after the last event. */
SDX_API uint64_t sdx_bson_reader_offset(const sdx_bson_reader *r);

/* Skip the rest of the value whose first event was just read: after a
 * begin event (SDX_MAP or SDX_ARRAY) the rest of that document, its
 * SDX_END included, still checked in full as next() would; after any other
 * event nothing (after an SDX_KEY the value still follows). Returns false
 * on error (then sdx_bson_reader_error() tells which). */
SDX_API bool sdx_bson_reader_skip(sdx_bson_reader *r);

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
