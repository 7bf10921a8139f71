/*
 * The sdx command's registry of formats: the one place that knows which
 * formats exist, their names and file extensions, how to open a streaming
 * reader over an input and how to start a writer on an output buffer with
 * the user's mapping options. Every subcommand works from this table, so a
 * format added here is picked up by convert, fmt, view, validate, gen and
 * stat alike.
 */
#ifndef SDX_CLI_FORMATS_H
#define SDX_CLI_FORMATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sdx/sdx.h"

/* Mappings of values a target format cannot represent, each off (an error)
 * unless the user asks for it on the command line. */
enum cli_mapping {
    CLI_MAP_BIN_BASE64 = 1u << 0,     /* --bin=base64: binary as a base64 string */
    CLI_MAP_KEYS_STRINGIFY = 1u << 1, /* --keys=stringify: non-string keys as strings */
    CLI_MAP_NAN_NULL = 1u << 2,       /* --nan=null: NaN and infinities as null */
    CLI_MAP_BIGINT_DOUBLE = 1u << 3,  /* --bigint=double: integers the target cannot
                                         hold (beyond 64 bits, or beyond int64 where
                                         the format stops there) as the nearest double */
    CLI_MAP_UTF8_REPLACE = 1u << 4,   /* --utf8=replace: strings that are not UTF-8
                                         are read anyway, and written as JSON
                                         with U+FFFD for each bad sequence */
    CLI_MAP_TAGS_DROP = 1u << 5,      /* --tags=drop: tagged values JSON has no
                                         form for written without the tag */
    CLI_MAP_TAGS_WRAP = 1u << 6,      /* --tags=wrap: ... written wrapped,
                                         {"$tag": N, "$value": V} and the like
                                         (map.h), and read back from JSON */
    CLI_MAP_UNDEFINED_NULL = 1u << 7, /* --undefined=null: CBOR undefined as null */
    CLI_MAP_ROOT_WRAP = 1u << 8,      /* --root=wrap: a root that is not a map
                                         written as a document anyway (BSON: an
                                         array with keys "0", "1", ..., a
                                         scalar as {"0": value}) */
    CLI_MAP_EJSON_CANONICAL = 1u << 9, /* --ejson=canonical: canonical MongoDB
                                          Extended JSON (map.h) */
    CLI_MAP_EJSON_OFF = 1u << 10,      /* --ejson=off: no Extended JSON; BSON
                                          types go by --tags, and JSON is read
                                          into BSON literally */
    CLI_MAP_EJSON_SOURCE = 1u << 11    /* not an option: set by the pump when
                                          the input is a format with BSON types,
                                          so that its untagged values (int32,
                                          double, generic binary) are Extended
                                          JSON too (SDX_MAP_EJSON_RELAXED) */
};

/* How a reader is asked to read. */
typedef struct cli_read_opts {
    bool seq;        /* a sequence of values (newline-delimited or back-to-back) */
    unsigned map;    /* cli_mapping bits; CLI_MAP_BIGINT_DOUBLE makes a text
                        reader convert numbers beyond 64 bits to doubles instead
                        of keeping their text, CLI_MAP_UTF8_REPLACE lets a
                        reader pass strings that are not UTF-8 */
    bool counts;     /* give every container its count, also when the
                        format does not store it (input.h: two passes) */
    bool mapping_hints; /* messages may suggest the mapping options (the
                           command takes them) */
    bool diag;       /* for the diagnostic view: keep what it shows of the
                        encoding (CBOR: the chunks of indefinite-length
                        strings, SDX_CBOR_READ_CHUNKS) */
} cli_read_opts;

/* How a writer is asked to write one value. */
typedef struct cli_write_opts {
    unsigned map;    /* cli_mapping bits */
    uint32_t indent; /* text formats: 0 minified, else spaces per level (1-16) */
} cli_write_opts;

typedef struct cli_format {
    const char *name;        /* as given to -f / -t, e.g. "json" */
    const char *title;       /* one line for the help, e.g. "JSON (RFC 8259)" */
    /* File name extensions without the dot, NULL-terminated; the first is
     * the preferred one. */
    const char *const *extensions;
    bool text;               /* positions are line:column (else byte offsets) */
    /* Bytes that may stand between two events of a text format (whitespace
     * and separators); an error position found after an event skips them to
     * point at the next value. NULL for binary formats. */
    const char *separators;
    /* The cli_mapping bits this format's writer understands (and needs for
     * some values); listed in the help. */
    unsigned mappings;
    /* The reader gives every container's count (else SDX_COUNT_UNKNOWN). */
    bool counts_known;
    /* The writer needs a container's count before its elements: given
     * SDX_COUNT_UNKNOWN it holds the container in memory until its end. */
    bool counts_first;

    /* Reading (all NULL when the format cannot be read): a new streaming
     * reader over `read` (chunks of bounded size, so memory does not grow
     * with the input), NULL when out of memory; its source; free it. */
    void *(*reader_new)(sdx_read_fn read, void *ctx, const cli_read_opts *opts);
    sdx_source (*reader_source)(void *reader);
    void (*reader_free)(void *reader);

    /* Writing (writer_init NULL when the format cannot be written): a writer
     * lives in writer_size bytes of caller memory (aligned like max_align_t);
     * writer_init starts one value (one document) on `out`, ending it with a
     * newline for text formats; the writer's sink finishes it, which also
     * releases what it allocated (call it exactly once per init, also after
     * an error). Returns the writer's sticky error. */
    size_t writer_size;
    sdx_err (*writer_init)(void *writer, sdx_buf *out, const cli_write_opts *opts);
    sdx_sink (*writer_sink)(void *writer);

    /* The types the writer has beyond JSON's (sdx_map_target bits): JSON
     * converted into this format goes through the mapping layer's reverse
     * direction (sdx_map_from_json) with them, e.g. numbers beyond 64 bits
     * to CBOR bignums. 0: JSON's events go to the writer unchanged. */
    unsigned map_target;
} cli_format;

/* The formats, in the order the help lists them; NULL-terminated. */
extern const cli_format *const cli_formats[];

/* The format of a name (or an extension, e.g. "mp"), case-insensitive;
 * NULL if none. */
const cli_format *cli_format_by_name(const char *name);

/* The format a path's extension names ("x.msgpack", "x.JSON"); NULL if the
 * path has no extension or an unknown one. */
const cli_format *cli_format_by_path(const char *path);

static inline bool cli_format_readable(const cli_format *f) { return f->reader_new != NULL; }
static inline bool cli_format_writable(const cli_format *f) { return f->writer_init != NULL; }

/* The command-line option that enables a mapping ("--bin=base64", ...). */
const char *cli_mapping_option(unsigned mapping);

#endif /* SDX_CLI_FORMATS_H */
