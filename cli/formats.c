/*
 * The registry of formats (formats.h): one entry per format, each a handful
 * of adapters from the library's reader and writer to the registry's
 * signatures. Adding a format means adding an entry here and nothing else.
 */
#include "formats.h"

#include <ctype.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* JSON                                                                      */
/* ------------------------------------------------------------------------ */

static void *json_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    sdx_json_read_opts ro = {0, 0, NULL};
    ro.flags = SDX_JSON_READ_BOM;
    if (opts->seq) ro.flags |= SDX_JSON_READ_STOP_AFTER_VALUE;
    if (!(opts->map & CLI_MAP_BIGINT_DOUBLE)) ro.flags |= SDX_JSON_READ_BIGNUM_RAW;
    return sdx_json_reader_new_stream(read, ctx, 0, &ro);
}

static sdx_source json_reader_source(void *r) { return sdx_json_reader_source((sdx_json_reader *)r); }
static void json_reader_free(void *r) { sdx_json_reader_free((sdx_json_reader *)r); }

/* JSON is written through the mapping layer (map.h), which gives tagged
 * and special values of every format their JSON forms. */
typedef struct json_out {
    sdx_json_writer writer;
    sdx_map_to_json map;
} json_out;

static sdx_err json_writer_init(void *mem, sdx_buf *out, const cli_write_opts *opts) {
    json_out *j = mem;
    sdx_map_opts mo = {0, 0, 0, NULL};
    if (opts->map & CLI_MAP_TAGS_DROP) mo.flags |= SDX_MAP_TAGS_DROP;
    if (opts->map & CLI_MAP_TAGS_WRAP) mo.flags |= SDX_MAP_TAGS_WRAP;
    if (opts->map & CLI_MAP_UNDEFINED_NULL) mo.flags |= SDX_MAP_UNDEFINED_NULL;
    /* --ejson: relaxed by default (BSON-tagged values; every value of a BSON
     * source), canonical, or off */
    if (opts->map & CLI_MAP_EJSON_OFF) mo.flags |= SDX_MAP_EJSON_OFF;
    else if (opts->map & CLI_MAP_EJSON_CANONICAL) mo.flags |= SDX_MAP_EJSON_CANONICAL;
    else if (opts->map & CLI_MAP_EJSON_SOURCE) mo.flags |= SDX_MAP_EJSON_RELAXED;
    sdx_json_write_opts wo = {0, 0, NULL};
    /* SEQUENCE: every value ends with a newline, as a text file should. */
    wo.flags = SDX_JSON_WRITE_SEQUENCE;
    if (opts->map & CLI_MAP_BIN_BASE64) wo.flags |= SDX_JSON_WRITE_BIN_BASE64;
    if (opts->map & CLI_MAP_NAN_NULL) wo.flags |= SDX_JSON_WRITE_NAN_AS_NULL;
    if (opts->map & CLI_MAP_UTF8_REPLACE) wo.flags |= SDX_JSON_WRITE_REPLACE_INVALID_UTF8;
    if (opts->map & CLI_MAP_KEYS_STRINGIFY) wo.flags |= SDX_JSON_WRITE_STRINGIFY_KEYS;
    wo.indent = opts->indent;
    sdx_err e = sdx_json_writer_init(&j->writer, out, &wo);
    sdx_err m = sdx_map_to_json_init(&j->map, sdx_json_writer_sink(&j->writer), &mo);
    return e ? e : m;
}

static sdx_sink json_writer_sink(void *mem) { return sdx_map_to_json_sink(&((json_out *)mem)->map); }

static const char *const json_extensions[] = {"json", "ndjson", "jsonl", NULL};

static const cli_format json_format = {
    "json",
    "JSON (RFC 8259); --seq: newline-delimited JSON",
    json_extensions,
    true,
    " \t\r\n,:",
    CLI_MAP_BIN_BASE64 | CLI_MAP_KEYS_STRINGIFY | CLI_MAP_NAN_NULL | CLI_MAP_UTF8_REPLACE | CLI_MAP_TAGS_DROP |
        CLI_MAP_TAGS_WRAP | CLI_MAP_UNDEFINED_NULL | CLI_MAP_EJSON_CANONICAL | CLI_MAP_EJSON_OFF,
    false,
    false,
    json_reader_new,
    json_reader_source,
    json_reader_free,
    sizeof(json_out),
    json_writer_init,
    json_writer_sink,
    0,
};

#ifndef SDX_NO_MSGPACK
/* ------------------------------------------------------------------------ */
/* MessagePack                                                               */
/* ------------------------------------------------------------------------ */

static void *msgpack_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    sdx_msgpack_read_opts ro = {0, 0, NULL};
    if (opts->seq) ro.flags |= SDX_MSGPACK_READ_STOP_AFTER_VALUE;
    if (opts->map & CLI_MAP_UTF8_REPLACE) ro.flags |= SDX_MSGPACK_READ_NO_UTF8_CHECK;
    return sdx_msgpack_reader_new_stream(read, ctx, 0, &ro);
}

static sdx_source msgpack_reader_source(void *r) { return sdx_msgpack_reader_source((sdx_msgpack_reader *)r); }
static void msgpack_reader_free(void *r) { sdx_msgpack_reader_free((sdx_msgpack_reader *)r); }

static sdx_err msgpack_writer_init(void *w, sdx_buf *out, const cli_write_opts *opts) {
    sdx_msgpack_write_opts wo = {0, NULL};
    if (opts->map & CLI_MAP_UTF8_REPLACE) wo.flags |= SDX_MSGPACK_WRITE_NO_UTF8_CHECK;
    return sdx_msgpack_writer_init((sdx_msgpack_writer *)w, out, &wo);
}

static sdx_sink msgpack_writer_sink(void *w) { return sdx_msgpack_writer_sink((sdx_msgpack_writer *)w); }

static const char *const msgpack_extensions[] = {"msgpack", "mpk", "mp", NULL};

static const cli_format msgpack_format = {
    "msgpack",
    "MessagePack; --seq: back-to-back values (a MessagePack stream)",
    msgpack_extensions,
    false,
    NULL,
    CLI_MAP_UTF8_REPLACE,
    true,
    true,
    msgpack_reader_new,
    msgpack_reader_source,
    msgpack_reader_free,
    sizeof(sdx_msgpack_writer),
    msgpack_writer_init,
    msgpack_writer_sink,
    SDX_MAP_TARGET_MSGPACK_EXT,
};

#endif

#ifndef SDX_NO_CBOR
/* ------------------------------------------------------------------------ */
/* CBOR                                                                      */
/* ------------------------------------------------------------------------ */

static void *cbor_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    sdx_cbor_read_opts ro = {0, 0, 0, 0, NULL};
    if (opts->seq) ro.flags |= SDX_CBOR_READ_STOP_AFTER_VALUE;
    if (opts->map & CLI_MAP_UTF8_REPLACE) ro.flags |= SDX_CBOR_READ_NO_UTF8_CHECK;
    if (opts->diag) ro.flags |= SDX_CBOR_READ_CHUNKS;
    return sdx_cbor_reader_new_stream(read, ctx, 0, &ro);
}

static sdx_source cbor_reader_source(void *r) { return sdx_cbor_reader_source((sdx_cbor_reader *)r); }
static void cbor_reader_free(void *r) { sdx_cbor_reader_free((sdx_cbor_reader *)r); }

static sdx_err cbor_writer_init(void *w, sdx_buf *out, const cli_write_opts *opts) {
    /* definite lengths always: back-patched where counts are unknown */
    sdx_cbor_write_opts wo = {SDX_CBOR_WRITE_DEFINITE, NULL};
    if (opts->map & CLI_MAP_UTF8_REPLACE) wo.flags |= SDX_CBOR_WRITE_NO_UTF8_CHECK;
    return sdx_cbor_writer_init((sdx_cbor_writer *)w, out, &wo);
}

static sdx_sink cbor_writer_sink(void *w) { return sdx_cbor_writer_sink((sdx_cbor_writer *)w); }

static const char *const cbor_extensions[] = {"cbor", NULL};

/* The command writes definite lengths, the form CBOR's users expect (and
 * deterministic encoding requires), from every input: counts first
 * (counts_first) where the input does not store them, back-patched where
 * they stay unknown (--seq), as for MessagePack. The reader
 * gives SDX_COUNT_UNKNOWN for indefinite-length input (counts_known
 * false). */
static const cli_format cbor_format = {
    "cbor",
    "CBOR (RFC 8949); --seq: a CBOR sequence (RFC 8742)",
    cbor_extensions,
    false,
    NULL,
    CLI_MAP_UTF8_REPLACE,
    false,
    true,
    cbor_reader_new,
    cbor_reader_source,
    cbor_reader_free,
    sizeof(sdx_cbor_writer),
    cbor_writer_init,
    cbor_writer_sink,
    SDX_MAP_TARGET_CBOR,
};

#endif

#ifndef SDX_NO_BSON
/* ------------------------------------------------------------------------ */
/* BSON                                                                      */
/* ------------------------------------------------------------------------ */

/* Any root document BSON allows (the library's default stops at 64 MiB):
 * the stream reader holds a root document while it reads it, its buffer
 * growing with the bytes that arrive, never with a length the input
 * claims, so memory follows the largest document actually read. */
static void *bson_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    sdx_bson_read_opts ro = {0, 0, SDX_BSON_MAX_SIZE, NULL};
    if (opts->seq) ro.flags |= SDX_BSON_READ_SEQUENCE;
    if (opts->map & CLI_MAP_UTF8_REPLACE) ro.flags |= SDX_BSON_READ_NO_UTF8_CHECK;
    return sdx_bson_reader_new_stream(read, ctx, &ro);
}

static sdx_source bson_reader_source(void *r) { return sdx_bson_reader_source((sdx_bson_reader *)r); }
static void bson_reader_free(void *r) { sdx_bson_reader_free((sdx_bson_reader *)r); }

/* One document per writer (the command starts a writer per value, so
 * --seq writes documents back to back without the writer's sequence
 * flag). */
static sdx_err bson_writer_init(void *w, sdx_buf *out, const cli_write_opts *opts) {
    sdx_bson_write_opts wo = {0, NULL};
    if (opts->map & CLI_MAP_UTF8_REPLACE) wo.flags |= SDX_BSON_WRITE_NO_UTF8_CHECK;
    if (opts->map & CLI_MAP_BIGINT_DOUBLE) wo.flags |= SDX_BSON_WRITE_BIG_DOUBLE;
    if (opts->map & CLI_MAP_ROOT_WRAP) wo.flags |= SDX_BSON_WRITE_WRAP_ROOT;
    return sdx_bson_writer_init((sdx_bson_writer *)w, out, &wo);
}

static sdx_sink bson_writer_sink(void *w) { return sdx_bson_writer_sink((sdx_bson_writer *)w); }

static const char *const bson_extensions[] = {"bson", NULL};

/* Documents only: a root that is not a map is an error unless --root=wrap.
 * Integers beyond int64 need --bigint=double. */
static const cli_format bson_format = {
    "bson",
    "BSON (bsonspec.org 1.1); --seq: back-to-back documents (a mongodump file)",
    bson_extensions,
    false,
    NULL,
    CLI_MAP_UTF8_REPLACE | CLI_MAP_BIGINT_DOUBLE | CLI_MAP_ROOT_WRAP,
    false,
    false,
    bson_reader_new,
    bson_reader_source,
    bson_reader_free,
    sizeof(sdx_bson_writer),
    bson_writer_init,
    bson_writer_sink,
    SDX_MAP_TARGET_BSON,
};

#endif

#ifndef SDX_NO_UBJSON
/* ------------------------------------------------------------------------ */
/* UBJSON and BJData                                                         */
/* ------------------------------------------------------------------------ */

static void *ubjson_reader_open(sdx_read_fn read, void *ctx, const cli_read_opts *opts, uint32_t dialect) {
    sdx_ubjson_read_opts ro = {dialect, 0, 0, NULL};
    if (opts->seq) ro.flags |= SDX_UBJSON_READ_STOP_AFTER_VALUE;
    if (opts->map & CLI_MAP_UTF8_REPLACE) ro.flags |= SDX_UBJSON_READ_NO_UTF8_CHECK;
    return sdx_ubjson_reader_new_stream(read, ctx, 0, &ro);
}

static void *ubjson_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    return ubjson_reader_open(read, ctx, opts, 0);
}

static void *bjdata_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    return ubjson_reader_open(read, ctx, opts, SDX_UBJSON_READ_BJDATA);
}

static sdx_source ubjson_reader_source(void *r) { return sdx_ubjson_reader_source((sdx_ubjson_reader *)r); }
static void ubjson_reader_free(void *r) { sdx_ubjson_reader_free((sdx_ubjson_reader *)r); }

static sdx_err ubjson_writer_open(void *w, sdx_buf *out, const cli_write_opts *opts, uint32_t dialect) {
    sdx_ubjson_write_opts wo = {dialect, NULL};
    if (opts->map & CLI_MAP_UTF8_REPLACE) wo.flags |= SDX_UBJSON_WRITE_NO_UTF8_CHECK;
    return sdx_ubjson_writer_init((sdx_ubjson_writer *)w, out, &wo);
}

static sdx_err ubjson_writer_init(void *w, sdx_buf *out, const cli_write_opts *opts) {
    return ubjson_writer_open(w, out, opts, 0);
}

static sdx_err bjdata_writer_init(void *w, sdx_buf *out, const cli_write_opts *opts) {
    return ubjson_writer_open(w, out, opts, SDX_UBJSON_WRITE_BJDATA);
}

static sdx_sink ubjson_writer_sink(void *w) { return sdx_ubjson_writer_sink((sdx_ubjson_writer *)w); }

static const char *const ubjson_extensions[] = {"ubjson", "ubj", NULL};
static const char *const bjdata_extensions[] = {"bjdata", "bjd", "jdb", NULL};

/* The command writes counted containers ('#'), which readers can size
 * up front, from every input: counts first (counts_first) where the input
 * does not store them; the writer would otherwise write plain ones. The
 * reader gives SDX_COUNT_UNKNOWN for plain containers (counts_known false).
 * JSON's numbers beyond 64 bits (SDX_RAW) are written as high-precision
 * numbers (H). */
static const cli_format ubjson_format = {
    "ubjson",
    "UBJSON (Draft 12); --seq: back-to-back values",
    ubjson_extensions,
    false,
    NULL,
    CLI_MAP_UTF8_REPLACE,
    false,
    true,
    ubjson_reader_new,
    ubjson_reader_source,
    ubjson_reader_free,
    sizeof(sdx_ubjson_writer),
    ubjson_writer_init,
    ubjson_writer_sink,
    0,
};

static const cli_format bjdata_format = {
    "bjdata",
    "BJData (Binary JData, NeuroJSON Draft 2); --seq: back-to-back values",
    bjdata_extensions,
    false,
    NULL,
    CLI_MAP_UTF8_REPLACE,
    false,
    true,
    bjdata_reader_new,
    ubjson_reader_source,
    ubjson_reader_free,
    sizeof(sdx_ubjson_writer),
    bjdata_writer_init,
    ubjson_writer_sink,
    0,
};

#endif

#ifndef SDX_NO_BINN
/* ------------------------------------------------------------------------ */
/* Binn                                                                      */
/* ------------------------------------------------------------------------ */

static void *binn_reader_new(sdx_read_fn read, void *ctx, const cli_read_opts *opts) {
    sdx_binn_read_opts ro = {0, 0, NULL};
    if (opts->seq) ro.flags |= SDX_BINN_READ_STOP_AFTER_VALUE;
    if (opts->map & CLI_MAP_UTF8_REPLACE) ro.flags |= SDX_BINN_READ_NO_UTF8_CHECK;
    return sdx_binn_reader_new_stream(read, ctx, 0, &ro);
}

static sdx_source binn_reader_source(void *r) { return sdx_binn_reader_source((sdx_binn_reader *)r); }
static void binn_reader_free(void *r) { sdx_binn_reader_free((sdx_binn_reader *)r); }

static sdx_err binn_writer_init(void *w, sdx_buf *out, const cli_write_opts *opts) {
    sdx_binn_write_opts wo = {0, NULL};
    if (opts->map & CLI_MAP_UTF8_REPLACE) wo.flags |= SDX_BINN_WRITE_NO_UTF8_CHECK;
    return sdx_binn_writer_init((sdx_binn_writer *)w, out, &wo);
}

static sdx_sink binn_writer_sink(void *w) { return sdx_binn_writer_sink((sdx_binn_writer *)w); }

static const char *const binn_extensions[] = {"binn", NULL};

/* Every Binn container starts with its size, so the writer back-patches
 * every header whether or not the count is known (binn.h). Into a file
 * that it may patch (output.h), a container of known count leaves memory
 * once its header's width is final; one of unknown count is held to its
 * end, as a count above 127 takes 4 bytes: so counts first. The reader
 * gives every container's count. */
static const cli_format binn_format = {
    "binn",
    "Binn (github.com/liteserver/binn); --seq: back-to-back values",
    binn_extensions,
    false,
    NULL,
    CLI_MAP_UTF8_REPLACE,
    true,
    true,
    binn_reader_new,
    binn_reader_source,
    binn_reader_free,
    sizeof(sdx_binn_writer),
    binn_writer_init,
    binn_writer_sink,
    SDX_MAP_TARGET_BINN,
};

#endif

/* ------------------------------------------------------------------------ */
/* The table                                                                 */
/* ------------------------------------------------------------------------ */

const cli_format *const cli_formats[] = {
    &json_format,
#ifndef SDX_NO_MSGPACK
    &msgpack_format,
#endif
#ifndef SDX_NO_CBOR
    &cbor_format,
#endif
#ifndef SDX_NO_BSON
    &bson_format,
#endif
#ifndef SDX_NO_UBJSON
    &ubjson_format,
    &bjdata_format,
#endif
#ifndef SDX_NO_BINN
    &binn_format,
#endif
    NULL,
};

static bool same_name(const char *a, const char *b) {
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
    return *a == *b;
}

const cli_format *cli_format_by_name(const char *name) {
    for (int i = 0; cli_formats[i]; i++) {
        if (same_name(cli_formats[i]->name, name)) return cli_formats[i];
        for (const char *const *e = cli_formats[i]->extensions; *e; e++)
            if (same_name(*e, name)) return cli_formats[i];
    }
    return NULL;
}

const cli_format *cli_format_by_path(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || !dot[1]) return NULL;
    for (int i = 0; cli_formats[i]; i++)
        for (const char *const *e = cli_formats[i]->extensions; *e; e++)
            if (same_name(*e, dot + 1)) return cli_formats[i];
    return NULL;
}

const char *cli_mapping_option(unsigned mapping) {
    switch (mapping) {
    case CLI_MAP_BIN_BASE64: return "--bin=base64";
    case CLI_MAP_KEYS_STRINGIFY: return "--keys=stringify";
    case CLI_MAP_NAN_NULL: return "--nan=null";
    case CLI_MAP_BIGINT_DOUBLE: return "--bigint=double";
    case CLI_MAP_UTF8_REPLACE: return "--utf8=replace";
    case CLI_MAP_TAGS_DROP: return "--tags=drop";
    case CLI_MAP_TAGS_WRAP: return "--tags=wrap";
    case CLI_MAP_UNDEFINED_NULL: return "--undefined=null";
    case CLI_MAP_ROOT_WRAP: return "--root=wrap";
    case CLI_MAP_EJSON_CANONICAL: return "--ejson=canonical";
    case CLI_MAP_EJSON_OFF: return "--ejson=off";
    default: return "";
    }
}
