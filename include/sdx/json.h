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

#include "buf.h"
#include "common.h"
#include "sink.h"

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
    SDX_JSON_WRITE_SEQUENCE = 1u << 5
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
 * SDX_ERR_KEY (a value where a map key is due) or SDX_ERR_USAGE. */
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
SDX_API sdx_err sdx_json_writer_string(sdx_json_writer *w, const char *s, size_t len);
/* Binary data: SDX_ERR_UNSUPPORTED unless SDX_JSON_WRITE_BIN_BASE64. */
SDX_API sdx_err sdx_json_writer_bin(sdx_json_writer *w, const void *data, size_t len);

/* Containers. `count` is the number of elements (entries for a map) that
 * will follow, checked (SDX_ERR_USAGE when exceeded or not met), or
 * SDX_COUNT_UNKNOWN; counts of 2^62 and more are taken as unknown. */
SDX_API sdx_err sdx_json_writer_begin_array(sdx_json_writer *w, uint64_t count);
SDX_API sdx_err sdx_json_writer_begin_map(sdx_json_writer *w, uint64_t count);
/* A map key; must come where a key is due (SDX_ERR_USAGE otherwise). */
SDX_API sdx_err sdx_json_writer_key(sdx_json_writer *w, const char *s, size_t len);
/* Close the innermost container (SDX_ERR_USAGE if none is open, or after a
 * key without its value). end_array / end_map also check its kind. */
SDX_API sdx_err sdx_json_writer_end(sdx_json_writer *w);
SDX_API sdx_err sdx_json_writer_end_array(sdx_json_writer *w);
SDX_API sdx_err sdx_json_writer_end_map(sdx_json_writer *w);

/* Write one event (see sdx_event). Tags are ignored: JSON has none. A
 * non-KEY event where a key is due is SDX_ERR_KEY. */
SDX_API sdx_err sdx_json_writer_put(sdx_json_writer *w, const sdx_event *ev);

/* The writer as a format-independent sink (valid while `w` is). */
SDX_API sdx_sink sdx_json_writer_sink(sdx_json_writer *w);

/* End the document: checks that a value was written and every container is
 * closed (SDX_ERR_USAGE otherwise), flushes a stream buffer, frees what the
 * writer allocated and returns the sticky error. Call it exactly once, also
 * after an error; the writer accepts nothing afterwards. */
SDX_API sdx_err sdx_json_writer_finish(sdx_json_writer *w);

/* The sticky error so far. */
static inline sdx_err sdx_json_writer_error(const sdx_json_writer *w) { return w->err; }

#ifdef __cplusplus
}
#endif

#endif /* SDX_JSON_H */
