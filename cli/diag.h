/*
 * The diagnostic view of `sdx view`: a sink that prints any event stream
 * as JSON-like text that also shows what JSON cannot — binary data, tags
 * and extension types, keys of any type, float32 — in the spirit of the
 * CBOR diagnostic notation (RFC 8949 section 8, and RFC 8610 appendix G
 * for b64'' and comments). The notation is defined in DIAG_HELP below.
 */
#ifndef SDX_CLI_DIAG_H
#define SDX_CLI_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sdx/sdx.h"

#define CLI_DIAG_HELP                                                                             \
    "The diagnostic view (MessagePack and other binary formats):\n"                                                    \
    "  null, true, false, \"text\"    as in JSON (strings with JSON escapes)\n"                   \
    "  42  -7  18446744073709551615  integers\n"                                                  \
    "  1.5  1.0  NaN  -Infinity      float64: the shortest form that reads back\n"                \
    "  1.5_f32                       a float32 (its shortest float32 form)\n"                     \
    "  b64'AQID' /3 bytes/           binary data: base64 (RFC 4648) and its length\n"             \
    "  ext(5, b64'AQ==' /1 bytes/)   a MessagePack extension value of type 5\n"                   \
    "  1(1363896240)                 a CBOR tag (RFC 8949): the tag, then the value\n"            \
    "  simple(16)  undefined         CBOR simple values\n"                                        \
    "  bson(7, ...)                  a BSON element type or binary subtype\n"                     \
    "  {1: \"a\", b64'' /0 bytes/: 2}  map keys of any type, written like values\n"                \
    "  \"caf\xef\xbf\xbd\" /invalid UTF-8/  a string that is not UTF-8 (each bad sequence\n"       \
    "                                shown as U+FFFD)\n"                                          \
    "  123456789012345678901234567890  a number beyond 64 bits, as its text\n"                  \
    "Indentation and layout are those of the JSON output; /.../ is a comment.\n"

/* The CBOR diagnostic notation of `sdx view` for CBOR input. */
#define CLI_DIAG_CBOR_HELP                                                                        \
    "CBOR input is shown in CBOR diagnostic notation (RFC 8949 section 8),\n"                     \
    "on one line per item as RFC 8949 Appendix A writes it (--indent N breaks\n"                  \
    "lines, at N spaces per level):\n"                                                            \
    "  0  -1  -18446744073709551616  integers (major types 0 and 1)\n"                            \
    "  18446744073709551616          a bignum (tag 2 or 3 on a byte string in\n"                   \
    "                                preferred form: beyond 64 bits, no leading\n"                  \
    "                                zero byte, at most 4096 bytes), as its number;\n"              \
    "                                any other as 2(h'...')\n"                                     \
    "  1.0  -0.0  1.0e+300  NaN      floats: the shortest text that reads back,\n"                 \
    "  0.00006103515625  Infinity    with .0 when integral (exponent below -6 or\n"                \
    "                                above 20 in e-notation)\n"                                   \
    "  Infinity_2  1.5_3             a float not in its preferred (shortest exact)\n"              \
    "                                width: _1 half, _2 single, _3 double\n"                    \
    "  h'0102'  \"a\\u00fc\"            byte strings in hex, text with JSON escapes\n"       \
    "                                (non-ASCII as \\uXXXX)\n"                                   \
    "  (_ h'01', h'02')  ''_  \"\"_    indefinite-length strings: their chunks\n"             \
    "  [_ 1, 2]  {_ \"a\": 1}  [_ ]    indefinite-length arrays and maps\n"                    \
    "  1(1363896240)  55799(61(1))   tags, nested\n"                                            \
    "  true  false  null  undefined  simple(16)\n"                                              \
    "  \"caf\\ufffd\" /invalid UTF-8/   text that is not UTF-8 (bad sequences as U+FFFD)\n"

/* One open container. */
typedef struct cli_diag_frame {
    uint64_t items;   /* elements, or keys, written so far */
    bool is_map;
    bool indef;       /* CBOR notation: indefinite length ([_ ...]) */
    bool key_next;    /* in a map: a key comes next */
    uint32_t closes;  /* the tags' ')' that follow the end */
} cli_diag_frame;

typedef struct cli_diag {
    sdx_buf *out;
    bool color;
    uint32_t indent;        /* 0: everything on one line per value */
    cli_diag_frame *frames; /* the open containers */
    size_t depth, cap;
    sdx_buf scratch;        /* scalars are formatted here by ... */
    sdx_json_writer jw;     /* ... a JSON writer */
    sdx_err err;            /* sticky */
    uint32_t tags;          /* tags opened (SDX_TAG events) for the next item */
    bool cbor;              /* CBOR diagnostic notation (RFC 8949 section 8) */
    /* CBOR notation: the chunks of the string event being shown, when it
     * has SDX_EVENT_INDEFINITE (sdx_cbor_reader_chunks on chunks_ctx). */
    const size_t *(*chunks)(const void *ctx, size_t *n);
    const void *chunks_ctx;
} cli_diag;

/* Start a diagnostic printer into `out`. Every top-level value ends with a
 * newline. */
void cli_diag_init(cli_diag *d, sdx_buf *out, uint32_t indent, bool color);

/* Switch the printer to CBOR diagnostic notation (CLI_DIAG_CBOR_HELP).
 * `chunks` (may be NULL: every string is shown whole) gives the chunks of
 * an indefinite-length string event, called with `ctx` while the event is
 * being shown. */
void cli_diag_cbor(cli_diag *d, const size_t *(*chunks)(const void *ctx, size_t *n), const void *ctx);

/* The printer as a sink: any number of top-level values; finish checks
 * that none is left open and returns the sticky error (or the output's). */
sdx_sink cli_diag_sink(cli_diag *d);

/* Release the printer's memory. */
void cli_diag_destroy(cli_diag *d);

#endif /* SDX_CLI_DIAG_H */
