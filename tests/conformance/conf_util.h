/*
 * Helpers shared by the JSON conformance, round-trip, differential and
 * malformed-input test programs (tests/conformance/). They use the public API
 * only, so they test the library as a user sees it.
 *
 *  - a growable byte string (cbuf) and whole-file reading;
 *  - the canonical dump: an sdx_sink that prints one line per event (type and
 *    value; doubles as their bit pattern in hex, strings hex-encoded), the
 *    common language of the differential tests (Python prints the same lines
 *    from json.loads, see differential.py) and of every comparison between
 *    the tree parser, the pull reader and the generators here;
 *  - running the tree parser or the pull reader over a buffer into a sink,
 *    with the error it ended with.
 */
#ifndef SDX_CONF_UTIL_H
#define SDX_CONF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sdx/sdx.h"

/* ---- byte strings and files ---- */

/* A growable byte string; always NUL-terminated after the first append.
 * Aborts when memory runs out (test programs only). */
typedef struct cbuf {
    char *p;
    size_t len, cap;
} cbuf;

void cbuf_put(cbuf *b, const void *p, size_t n);
void cbuf_puts(cbuf *b, const char *s);
void cbuf_printf(cbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cbuf_clear(cbuf *b); /* length 0, memory kept */
void cbuf_free(cbuf *b);

/* Read a whole file into a new malloc'd buffer (one spare NUL byte after
 * the data); NULL if it cannot be read. */
char *conf_read_file(const char *path, size_t *len);

/* The corpus directory: $SDX_CORPUS if set, else the compiled-in
 * SDX_CORPUS_DIR (CMake's ${CMAKE_SOURCE_DIR}/../shared/corpus). */
const char *conf_corpus_dir(void);

/* The corpus documents the tests use, NULL-terminated. */
extern const char *const conf_corpus_names[];

/* Read corpus document `name`; NULL (and a note on stderr) if missing. */
char *conf_read_corpus(const char *name, size_t *len);

/* ---- the canonical dump ---- */

/* A sink that appends one line per event to `out`:
 *   null | true | false | int <decimal> | uint <decimal> | double <16 hex
 *   digits of the bit pattern> | str <hex bytes> | key <hex bytes> |
 *   bin <hex bytes> | raw <text> | array | map | end
 * It also checks the event's depth against the nesting it has seen (readers
 * and sdx_node_emit both count from 0) and the basic grammar of the event
 * stream (keys exactly where a key is due, balanced ends); the first problem
 * is kept in `bad` (a static message), and the sink then returns
 * SDX_ERR_USAGE. */
enum { DUMP_ELEM, DUMP_KEY, DUMP_VALUE, DUMP_MAX_DEPTH = 1100 };

typedef struct dump_sink {
    cbuf *out;
    uint32_t depth;       /* open containers */
    bool root_done;
    const char *bad;
    /* What comes next in each open container (index: depth - 1): DUMP_ELEM
     * in an array, DUMP_KEY or DUMP_VALUE in a map. Deeper nesting is
     * reported as `bad` (deep-nesting tests do not dump). */
    uint8_t next[DUMP_MAX_DEPTH];
} dump_sink;

void dump_sink_init(dump_sink *d, cbuf *out);
sdx_sink dump_sink_sink(dump_sink *d);

/* Dump one event into `out` (no depth or grammar checks). */
void dump_event(cbuf *out, const sdx_event *ev);

/* ---- running the readers ---- */

/* Parse with the tree parser (sdx_json_parse, or sdx_json_parse_insitu on a
 * private copy when `insitu`) and, on success, send the tree to `sink` (if
 * not NULL) with sdx_node_emit. Returns the parse error code (SDX_OK on
 * success) with details in *err; a sink error is returned as is. */
sdx_err conf_parse_into(const char *data, size_t len, const sdx_json_read_opts *opts, bool insitu,
                        sdx_sink *sink, sdx_error *err);

/* Drain a pull reader over `data` into `sink` (if not NULL). Returns the
 * reader's error (SDX_OK after a clean end) with details in *err; a sink
 * error is returned as is (with err->code set to it and offset 0). */
sdx_err conf_read_into(const char *data, size_t len, const sdx_json_read_opts *opts,
                       sdx_sink *sink, sdx_error *err);

/* Drain an existing reader into `sink` (if not NULL); as conf_read_into. */
sdx_err conf_drain(sdx_json_reader *r, sdx_sink *sink, sdx_error *err);

/* A checked error report: the message is set, line and column are at least
 * 1, and the offset lies within [0, len]. */
bool conf_error_clean(const sdx_error *err, size_t len);

/* The error's line and column match its offset in `data`: line = 1 + the
 * number of '\n' before the offset, column = 1 + the bytes since the last
 * one (checked only when no '\r' precedes the offset, as a lone CR's
 * counting is the parser's choice). */
bool conf_error_position_ok(const char *data, size_t len, const sdx_error *err);

/* A short description "CODE at offset O (line L, column C)" in a static
 * buffer (not reentrant). */
const char *conf_error_str(sdx_err code, const sdx_error *err);

/* ---- writing ---- */

/* The minified JSON of a tree (sdx_node_emit into a default writer), into
 * `out` (cleared first). Returns the writer's error. */
sdx_err conf_write_node(sdx_node n, cbuf *out);

/* The minified JSON written from a pull reader's events over `data`, into
 * `out` (cleared first). Returns the first error (reader or writer). */
sdx_err conf_write_from_reader(const char *data, size_t len, const sdx_json_read_opts *opts,
                               cbuf *out);

#endif /* SDX_CONF_UTIL_H */
