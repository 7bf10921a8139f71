/*
 * sdx — Binn (the specification of github.com/liteserver/binn, spec.md).
 *
 * STATUS: the writer (sdx_binn_writer_*), the pull reader over memory, a
 * stream or a FILE* (sdx_binn_reader_*) and the tree parser
 * (sdx_binn_parse) exist and are tested (tests/binn: the specification's
 * examples, malformed input, a differential against binn-ir); the sdx
 * command knows `binn` (.binn) and the benchmark suite has sdx's Binn
 * programs; JSON gets datetime, date and time as strings, and the other
 * Binn types wrapped with --tags=wrap and back (map.h). Not yet: inline
 * fast paths like MessagePack's (every call goes through the exported
 * functions), a tree parser that fills the document directly
 * (sdx_binn_parse is the pull reader into the document builder), a fuzz
 * target.
 *
 * The streaming writer:
 *
 *   sdx_buf out;
 *   sdx_buf_init(&out, NULL);
 *   sdx_binn_writer w;
 *   sdx_binn_writer_init(&w, &out, NULL);
 *   sdx_binn_writer_begin_map(&w, 1);          // string keys: a Binn object
 *   sdx_binn_writer_key(&w, "hello", 5);
 *   sdx_binn_writer_string(&w, "world", 5);
 *   sdx_binn_writer_end(&w);
 *   if (sdx_binn_writer_finish(&w) == SDX_OK)  // e2 11 01 05 hello a0 05 world 00
 *       fwrite(sdx_buf_data(&out), 1, sdx_buf_len(&out), stdout);
 *   sdx_buf_destroy(&out);
 *
 * How Binn maps onto the event model (common.h). A value is
 * [type][size][count][data]; the type is one byte, or two (big-endian)
 * when its sub-type size bit 0x10 is set; size and count are one byte up
 * to 127, else four bytes with the high bit set.
 *   null 0x00, true 0x01, false 0x02      SDX_NULL, SDX_BOOL
 *   uint8/16/32/64 0x20 0x40 0x60 0x80,
 *   int8/16/32/64 0x21 0x41 0x61 0x81     SDX_INT for every value that fits
 *                                         int64, SDX_UINT above INT64_MAX
 *   float 0x62                            SDX_DOUBLE (exact) with
 *                                         SDX_EVENT_FLOAT32
 *   double 0x82                           SDX_DOUBLE
 *   text 0xa0 (NUL-terminated on the
 *   wire; the size leaves the NUL out)    SDX_STR
 *   blob 0xc0                             SDX_BIN
 *   list 0xe0                             SDX_ARRAY, v.count = its count
 *   map 0xe1 (int32 keys)                 SDX_MAP; each key an SDX_INT
 *                                         event in key position
 *   object 0xe2 (string keys, <= 255
 *   bytes, length-prefixed)               SDX_MAP; each key an SDX_KEY
 *   datetime 0xa1, date 0xa2, time 0xa3,
 *   decimal 0xa4 and every other type of
 *   the string storage (currency and
 *   user sub-types included)              SDX_STR tagged SDX_TAG_BINN
 *   other types of the blob storage       SDX_BIN tagged SDX_TAG_BINN
 *   other types of the byte, word, dword
 *   and qword storages                    SDX_BIN tagged SDX_TAG_BINN with
 *                                         the 1, 2, 4 or 8 data bytes as
 *                                         they are on the wire (big-endian)
 *   other types of the no-bytes storage   SDX_NULL tagged SDX_TAG_BINN
 *   every two-byte type                   as its storage says, tagged
 *   other container types                 SDX_ERR_SYNTAX (their keys
 *                                         cannot be known)
 * The tag of SDX_TAG_BINN is the type parameter itself: 0x00-0xff (bit
 * 0x10 clear) for a one-byte type, 0x1000-0xffff (bit 0x1000 set) for a
 * two-byte type; the writer writes it back as it is.
 * One loss: an empty Binn map and an empty object are the same event (a
 * map of no entries), which the writer writes as an empty object.
 *
 * Writing, a map event becomes a Binn map when its keys are integers
 * (SDX_INT/SDX_UINT in INT32_MIN..INT32_MAX, else SDX_ERR_KEY) and an
 * object when they are strings (SDX_KEY, at most 255 bytes, else
 * SDX_ERR_KEY); mixing the two, or a key of another kind, is SDX_ERR_KEY;
 * an empty map is an empty object. Integers take the smallest type:
 * nonnegative values an unsigned one, negative values a signed one (as
 * the specification's examples do).
 */
#ifndef SDX_BINN_H
#define SDX_BINN_H

#include <stdio.h>

#include "buf.h"
#include "common.h"
#include "doc.h"
#include "sink.h"
#include "source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Type parameters of the specification's types. */
enum sdx_binn_type {
    SDX_BINN_NULL = 0x00,
    SDX_BINN_TRUE = 0x01,
    SDX_BINN_FALSE = 0x02,
    SDX_BINN_UINT8 = 0x20,
    SDX_BINN_INT8 = 0x21,
    SDX_BINN_UINT16 = 0x40,
    SDX_BINN_INT16 = 0x41,
    SDX_BINN_UINT32 = 0x60,
    SDX_BINN_INT32 = 0x61,
    SDX_BINN_FLOAT32 = 0x62,
    SDX_BINN_UINT64 = 0x80,
    SDX_BINN_INT64 = 0x81,
    SDX_BINN_FLOAT64 = 0x82,
    SDX_BINN_TEXT = 0xa0,
    SDX_BINN_DATETIME = 0xa1,
    SDX_BINN_DATE = 0xa2,
    SDX_BINN_TIME = 0xa3,
    SDX_BINN_DECIMAL = 0xa4,
    SDX_BINN_BLOB = 0xc0,
    SDX_BINN_LIST = 0xe0,
    SDX_BINN_MAP = 0xe1,
    SDX_BINN_OBJECT = 0xe2
};

/* The largest size or count a Binn size parameter holds (2^31 - 1). */
#define SDX_BINN_SIZE_MAX 0x7fffffffu

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */
/* ------------------------------------------------------------------------ */

/* Writer options (flags), all off by default. */
enum sdx_binn_write_flag {
    /* Write every double as float (0x62), rounded to nearest. Lossy. */
    SDX_BINN_WRITE_FLOAT32 = 1u << 0,
    /* Write a double as float when that loses nothing, else as double. */
    SDX_BINN_WRITE_FLOAT32_EXACT = 1u << 1,
    /* Do not check that strings and keys are valid UTF-8 (by default
     * invalid UTF-8 is SDX_ERR_UTF8). Blobs are never checked. */
    SDX_BINN_WRITE_NO_UTF8_CHECK = 1u << 2,
    /* Allow any number of top-level values, one after the other. Without
     * it exactly one value is written. */
    SDX_BINN_WRITE_SEQUENCE = 1u << 3
};

/* Writer options; a NULL pointer means all defaults (zeros). */
typedef struct sdx_binn_write_opts {
    uint32_t flags;         /* sdx_binn_write_flag bits */
    const sdx_alloc *alloc; /* for nesting deeper than the inline stack;
                               NULL = sdx_alloc_default() */
} sdx_binn_write_opts;

/* Nesting levels held inside the writer before it allocates. */
#define SDX_BINN_WRITER_INLINE_DEPTH 32

/* One open container (private). */
typedef struct sdx_binn_frame {
    uint64_t items;  /* items written (a map's keys and values) */
    uint64_t limit;  /* items allowed: the declared count (twice it for a
                        map), UINT64_MAX when the count is unknown */
    uint64_t header; /* total output offset of the container's header */
    uint8_t kind;    /* root, list, map not yet decided, map, object */
    uint8_t pinned;  /* this container holds the stream buffer's pin */
    uint8_t head_len; /* bytes of the placeholder header */
    uint8_t released; /* a patchable stream's container whose header has
                         its final width: its bytes may leave the buffer,
                         and its end patches the header in place */
} sdx_binn_frame;

/* The writer. All fields are private. It points into itself, so it must not
 * be copied or moved after sdx_binn_writer_init(). */
typedef struct sdx_binn_writer {
    sdx_buf *out;
    size_t (*utf8_valid)(const char *s, size_t n);
    sdx_err err;
    uint32_t flags;
    uint32_t depth;
    uint32_t cap;            /* frames available */
    uint32_t held;           /* a patchable stream: the outermost open
                                container the buffer's pin keeps (the
                                ones inside it are kept too), 0 for none */
    sdx_binn_frame *frames;  /* inline_frames or an allocation */
    sdx_alloc alloc;
    sdx_binn_frame inline_frames[SDX_BINN_WRITER_INLINE_DEPTH];
} sdx_binn_writer;

/* Start writing Binn into `out` (which the caller owns and must keep alive
 * until sdx_binn_writer_finish()). `opts` NULL means defaults. Returns
 * SDX_ERR_INVALID_ARG (and sets it as the sticky error) for unknown flags,
 * else SDX_OK. */
SDX_API sdx_err sdx_binn_writer_init(sdx_binn_writer *w, sdx_buf *out,
                                     const sdx_binn_write_opts *opts);

/* Scalars. Each returns the sticky error (SDX_OK while all is well). A
 * value is allowed at the top level (once, or any number of times with
 * SDX_BINN_WRITE_SEQUENCE), in a list, and as a map's value; more values
 * than a container's declared count is SDX_ERR_USAGE. Where a map key is
 * due, sdx_binn_writer_int and _uint write an integer key (see
 * sdx_binn_writer_map_key) and every other value is SDX_ERR_KEY. */
SDX_API sdx_err sdx_binn_writer_null(sdx_binn_writer *w);
SDX_API sdx_err sdx_binn_writer_bool(sdx_binn_writer *w, bool v);
/* An integer in its smallest type: nonnegative values uint8/16/32/64,
 * negative ones int8/16/32/64. */
SDX_API sdx_err sdx_binn_writer_int(sdx_binn_writer *w, int64_t v);
SDX_API sdx_err sdx_binn_writer_uint(sdx_binn_writer *w, uint64_t v);
/* A double (0x82), or a float as the flags say. */
SDX_API sdx_err sdx_binn_writer_double(sdx_binn_writer *w, double v);
/* A float (0x62). */
SDX_API sdx_err sdx_binn_writer_float(sdx_binn_writer *w, float v);
/* A text of `len` bytes (`s` may be NULL when len is 0), written with its
 * NUL terminator. Invalid UTF-8 is SDX_ERR_UTF8 unless
 * SDX_BINN_WRITE_NO_UTF8_CHECK; more than SDX_BINN_SIZE_MAX bytes is
 * SDX_ERR_UNSUPPORTED. */
SDX_API sdx_err sdx_binn_writer_string(sdx_binn_writer *w, const char *s, size_t len);
/* A blob of `len` bytes (more than SDX_BINN_SIZE_MAX: SDX_ERR_UNSUPPORTED). */
SDX_API sdx_err sdx_binn_writer_blob(sdx_binn_writer *w, const void *data, size_t len);
/* A value of any type that is not a container, given by its type parameter
 * (0x00-0xff with bit 0x10 clear, or 0x1000-0xffff with bit 0x1000 set;
 * else SDX_ERR_INVALID_ARG) and its data: none for the no-bytes storage,
 * exactly 1, 2, 4 or 8 bytes for the byte, word, dword and qword storages
 * (as they go on the wire, big-endian), the text for the string storage
 * (UTF-8 checked as for sdx_binn_writer_string; the NUL is added), the
 * bytes for the blob storage. A length that does not fit the storage, or a
 * container storage, is SDX_ERR_INVALID_ARG. Example: a date,
 * sdx_binn_writer_typed(w, SDX_BINN_DATE, "2026-11-24", 10). */
SDX_API sdx_err sdx_binn_writer_typed(sdx_binn_writer *w, uint32_t type, const void *data,
                                      size_t len);

/* Containers. `count` is the number of elements (a map's entries) that
 * will follow, checked (SDX_ERR_USAGE when exceeded or not met; above
 * SDX_BINN_SIZE_MAX it is SDX_ERR_UNSUPPORTED), or SDX_COUNT_UNKNOWN.
 *
 * A Binn container starts with its size in bytes, so every container is
 * written with a placeholder header that its end replaces by the smallest
 * real one, moving the content by the difference. The placeholder has a
 * 4-byte size (and a 4-byte count when the declared count is above 127):
 * then only containers that end up small move, and their content is small.
 * Into a fixed buffer the placeholder is the 3-byte smallest header, so
 * that a fixed buffer of exactly the final size suffices (large containers
 * then move up). Until the outermost container ends its bytes stay in the
 * output buffer (sdx_buf_pin for a stream buffer): memory grows with the
 * top-level container. A stream buffer that can patch what it flushed
 * (sdx_buf_set_patch) keeps only the open containers whose header may
 * still change its width: a container of known count whose size has
 * passed 127 bytes has a header of final width, so its bytes leave the
 * buffer and its end patches its header in place; memory then stays
 * within the stream's chunk (a container of unknown count stays held
 * until its end, as its count may need 4 bytes).
 * A content larger than SDX_BINN_SIZE_MAX is SDX_ERR_UNSUPPORTED. */
SDX_API sdx_err sdx_binn_writer_begin_array(sdx_binn_writer *w, uint64_t count);
/* A map: a Binn map or object as its first key decides (see the table at
 * the top of this file); empty, an object. */
SDX_API sdx_err sdx_binn_writer_begin_map(sdx_binn_writer *w, uint64_t count);
/* A string key of an object (at most 255 bytes, else SDX_ERR_KEY); must
 * come where a key is due (SDX_ERR_USAGE otherwise) in a map whose keys
 * are not integers (SDX_ERR_KEY otherwise). */
SDX_API sdx_err sdx_binn_writer_key(sdx_binn_writer *w, const char *s, size_t len);
/* An integer key of a Binn map; must come where a key is due
 * (SDX_ERR_USAGE otherwise) in a map whose keys are not strings
 * (SDX_ERR_KEY otherwise). */
SDX_API sdx_err sdx_binn_writer_map_key(sdx_binn_writer *w, int32_t key);
/* Close the innermost container (SDX_ERR_USAGE if none is open, if its
 * declared count is not met, or after a map key without its value). */
SDX_API sdx_err sdx_binn_writer_end(sdx_binn_writer *w);

/* Write one event (see sdx_event and the table at the top of this file).
 * An event tagged SDX_TAG_BINN is written with that type
 * (sdx_binn_writer_typed) when its kind fits the type's storage: SDX_NULL
 * the no-bytes storage, SDX_STR the string storage, SDX_BIN the blob and
 * fixed storages; any other combination is SDX_ERR_INVALID_ARG. Tags on
 * other kinds, tags of other namespaces and SDX_TAG events are ignored (the
 * plain value is written). SDX_DOUBLE with SDX_EVENT_FLOAT32 is a float
 * when it converts exactly. SDX_RAW is SDX_ERR_UNSUPPORTED; SDX_NINT is
 * SDX_ERR_RANGE. */
SDX_API sdx_err sdx_binn_writer_put(sdx_binn_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_binn_writer_sink(sdx_binn_writer *w);

/* Write the value `n` of a document (with its tags and everything inside
 * it): exactly what sdx_node_emit(n, sdx_binn_writer_sink(w)) writes, with the
 * same errors, but faster — the document is walked with direct calls into
 * the writer instead of an event per value. SDX_ERR_NOT_FOUND for the nil
 * node, SDX_ERR_NOMEM if the walk's stack cannot grow, else the writer's
 * sticky error. */
SDX_API sdx_err sdx_binn_writer_node(sdx_binn_writer *w, sdx_node n);

/* End the output: checks that a value was written and every container is
 * closed (SDX_ERR_USAGE otherwise), flushes a stream buffer, frees what the
 * writer allocated and returns the sticky error. Call it exactly once, also
 * after an error; the writer accepts nothing afterwards. */
SDX_API sdx_err sdx_binn_writer_finish(sdx_binn_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_binn_writer_error(const sdx_binn_writer *w) { return w->err; }

/* ------------------------------------------------------------------------ */
/* Reading: options shared by the pull reader and the tree parser            */
/* ------------------------------------------------------------------------ */

/* Reader options (flags). With none set the input is exactly one value and
 * every text and object key must be valid UTF-8. */
enum sdx_binn_read_flag {
    /* Do not check that texts (and other string-storage values) and object
     * keys are valid UTF-8. */
    SDX_BINN_READ_NO_UTF8_CHECK = 1u << 0,
    /* Parser: stop after the first complete value (sdx_doc_consumed() tells
     * where it ended). Reader: read a sequence of values, each at depth 0.
     * Without it, bytes after the one value are SDX_ERR_SYNTAX. */
    SDX_BINN_READ_STOP_AFTER_VALUE = 1u << 1,
    /* Parser: copy strings and blobs into the document, so the caller may
     * free the input as soon as the parser returns. */
    SDX_BINN_READ_COPY_INPUT = 1u << 2
};

/* Reader and parser options; a NULL pointer means all defaults. */
typedef struct sdx_binn_read_opts {
    uint32_t flags;         /* sdx_binn_read_flag bits */
    uint32_t max_depth;     /* nesting limit (SDX_ERR_DEPTH beyond it);
                               0 = SDX_BINN_DEFAULT_MAX_DEPTH */
    const sdx_alloc *alloc; /* NULL = sdx_alloc_default() */
} sdx_binn_read_opts;

#define SDX_BINN_DEFAULT_MAX_DEPTH 1024

/* Errors of both the reader and the parser, with the byte offset of the
 * first byte of the offending item (line and column are 0):
 *   SDX_ERR_TRUNCATED  the input ends inside a value (or is empty)
 *   SDX_ERR_SYNTAX     a size or count that its container (or, in a
 *                      container, the input) cannot hold; a container
 *                      whose content does not end exactly at its size; a
 *                      text without its NUL; an unknown container type;
 *                      bytes after the value
 *   SDX_ERR_UTF8       a text or object key that is not valid UTF-8
 *   SDX_ERR_DEPTH      nesting deeper than max_depth
 *   SDX_ERR_NOMEM, SDX_ERR_IO (streams) */

/* ------------------------------------------------------------------------ */
/* Tree parser                                                               */
/* ------------------------------------------------------------------------ */

/* Parse `len` bytes of Binn into a new immutable document (free it with
 * sdx_doc_free). Returns NULL on failure with the error in *err (if not
 * NULL). Unless SDX_BINN_READ_COPY_INPUT is given, strings and blobs point
 * into the input, which must outlive the document. Integers that fit int64
 * are SDX_TYPE_INT, larger ones SDX_TYPE_UINT; a float is a DOUBLE with
 * SDX_VAL_FLOAT32; a Binn map's keys are INT values, an object's STR;
 * tagged values keep their SDX_TAG_BINN tag. Sizes and counts are checked
 * before anything is reserved; nesting is limited without recursion. */
SDX_API sdx_doc *sdx_binn_parse(const char *data, size_t len, const sdx_binn_read_opts *opts,
                                sdx_error *err);

/* ------------------------------------------------------------------------ */
/* Incremental (pull) reader                                                 */
/* ------------------------------------------------------------------------ */

/* The reader (private). Texts and blobs are views into the input; a stream
 * is read in chunks, and an item that straddles two chunks is gathered in
 * the reader's buffer, which grows only as that item's bytes arrive (never
 * to a declared size up front). */
typedef struct sdx_binn_reader sdx_binn_reader;

/* Create a reader over `len` bytes in memory (not copied: keep them alive
 * while reading). Returns NULL only when allocating the reader fails. */
SDX_API sdx_binn_reader *sdx_binn_reader_new(const char *data, size_t len,
                                             const sdx_binn_read_opts *opts);
/* Create a reader over a stream; `chunk` is the read size (0 = 64 KiB).
 * Returns NULL only when allocating the reader fails. */
SDX_API sdx_binn_reader *sdx_binn_reader_new_stream(sdx_read_fn read, void *ctx, size_t chunk,
                                                    const sdx_binn_read_opts *opts);
#ifndef SDX_NO_STDIO
/* Create a reader over a FILE* (read with fread; not closed). */
SDX_API sdx_binn_reader *sdx_binn_reader_new_file(FILE *f, const sdx_binn_read_opts *opts);
#endif
/* Start a reader made by sdx_binn_reader_new over new input: as if it
 * were freed and made again with the same options, without allocating
 * (what it grew for deep nesting or long strings is freed). For many short
 * messages: one reader, no allocation per message. SDX_ERR_USAGE for a
 * reader of a stream or file (left as it was), SDX_ERR_INVALID_ARG for
 * NULL. */
SDX_API sdx_err sdx_binn_reader_reset(sdx_binn_reader *r, const char *data, size_t len);
/* Free a reader (NULL is a no-op). */
SDX_API void sdx_binn_reader_free(sdx_binn_reader *r);

/* Read the next event into *ev (see the table at the top of this file);
 * ev->depth is the nesting depth (0 for a top-level value; a container's
 * END has the depth of its begin). Returns true with an event; false at
 * the end of the input or on an error: then sdx_binn_reader_error() tells
 * which. Errors are sticky. */
SDX_API bool sdx_binn_reader_next(sdx_binn_reader *r, sdx_event *ev);

/* SDX_OK (after a clean end or while reading), or the error; *err (if not
 * NULL) gets the details: code, message and byte offset. */
SDX_API sdx_err sdx_binn_reader_error(const sdx_binn_reader *r, sdx_error *err);

/* Byte offset of the end of the last event read. */
SDX_API uint64_t sdx_binn_reader_offset(const sdx_binn_reader *r);

/* Skip the rest of the value whose begin event was just read (its END
 * included), or nothing after a scalar. Returns false on error. */
SDX_API bool sdx_binn_reader_skip(sdx_binn_reader *r);

/* The reader as a format-independent source (valid while `r` is). */
SDX_API sdx_source sdx_binn_reader_source(sdx_binn_reader *r);

#ifdef __cplusplus
}
#endif

#endif /* SDX_BINN_H */
