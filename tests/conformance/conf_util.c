/*
 * Helpers shared by the conformance test programs; see conf_util.h.
 */
#include "conf_util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SDX_CORPUS_DIR
#define SDX_CORPUS_DIR "../shared/corpus"
#endif

/* ------------------------------------------------------------------------ */
/* Byte strings and files                                                    */
/* ------------------------------------------------------------------------ */

/* noinline: GCC 12 at -O3 reports a false -Wstringop-overflow when inlined. */
__attribute__((noinline)) void cbuf_put(cbuf *b, const void *p, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (cap < b->len + n + 1) cap *= 2;
        char *q = realloc(b->p, cap);
        if (!q) {
            fprintf(stderr, "out of memory\n");
            abort();
        }
        b->p = q;
        b->cap = cap;
    }
    if (n) memcpy(b->p + b->len, p, n);
    b->len += n;
    b->p[b->len] = 0;
}

void cbuf_puts(cbuf *b, const char *s) { cbuf_put(b, s, strlen(s)); }

void cbuf_printf(cbuf *b, const char *fmt, ...) {
    char tmp[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof tmp) abort();
    cbuf_put(b, tmp, (size_t)n);
}

void cbuf_clear(cbuf *b) {
    b->len = 0;
    if (b->p) b->p[0] = 0;
}

void cbuf_free(cbuf *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

char *conf_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    cbuf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) cbuf_put(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        cbuf_free(&b);
        return NULL;
    }
    if (!b.p) cbuf_put(&b, "", 0);
    *len = b.len;
    return b.p;
}

const char *conf_corpus_dir(void) {
    const char *env = getenv("SDX_CORPUS");
    return env && *env ? env : SDX_CORPUS_DIR;
}

const char *const conf_corpus_names[] = {"twitter.json", "citm_catalog.json", "canada.json", NULL};

char *conf_read_corpus(const char *name, size_t *len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", conf_corpus_dir(), name);
    char *p = conf_read_file(path, len);
    if (!p) fprintf(stderr, "cannot read %s (set SDX_CORPUS to the corpus directory)\n", path);
    return p;
}

/* ------------------------------------------------------------------------ */
/* The canonical dump                                                        */
/* ------------------------------------------------------------------------ */

static void put_hex(cbuf *out, const char *p, size_t n) {
    static const char digits[] = "0123456789abcdef";
    char tmp[128];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        tmp[k++] = digits[c >> 4];
        tmp[k++] = digits[c & 15];
        if (k == sizeof tmp) {
            cbuf_put(out, tmp, k);
            k = 0;
        }
    }
    cbuf_put(out, tmp, k);
}

static void put_hex_line(cbuf *out, const char *word, const sdx_event *ev) {
    cbuf_puts(out, word);
    put_hex(out, ev->v.str.ptr, ev->v.str.len);
    cbuf_put(out, "\n", 1);
}

void dump_event(cbuf *out, const sdx_event *ev) {
    switch ((sdx_kind)ev->kind) {
    case SDX_NULL: cbuf_puts(out, "null\n"); break;
    case SDX_BOOL: cbuf_puts(out, ev->v.b ? "true\n" : "false\n"); break;
    case SDX_INT: cbuf_printf(out, "int %" PRId64 "\n", ev->v.i); break;
    case SDX_UINT: cbuf_printf(out, "uint %" PRIu64 "\n", ev->v.u); break;
    case SDX_DOUBLE: {
        uint64_t bits;
        memcpy(&bits, &ev->v.d, sizeof bits);
        cbuf_printf(out, "double %016" PRIx64 "\n", bits);
        break;
    }
    case SDX_STR: put_hex_line(out, "str ", ev); break;
    case SDX_KEY: put_hex_line(out, "key ", ev); break;
    case SDX_BIN: put_hex_line(out, "bin ", ev); break;
    case SDX_RAW:
        cbuf_puts(out, "raw ");
        cbuf_put(out, ev->v.str.ptr, ev->v.str.len);
        cbuf_put(out, "\n", 1);
        break;
    case SDX_ARRAY: cbuf_puts(out, "array\n"); break;
    case SDX_MAP: cbuf_puts(out, "map\n"); break;
    case SDX_END: cbuf_puts(out, "end\n"); break;
    default: cbuf_printf(out, "kind-%u\n", (unsigned)ev->kind); break;
    }
}

void dump_sink_init(dump_sink *d, cbuf *out) {
    memset(d, 0, sizeof *d);
    d->out = out;
}

/* Check one event against the grammar of an event stream and update the
 * nesting state; returns a message for the first violation, else NULL. */
static const char *dump_check(dump_sink *d, const sdx_event *ev) {
    uint32_t depth = d->depth;
    uint8_t *next = depth ? &d->next[depth - 1] : NULL;
    if (depth == 0 && d->root_done) return "an event after the root value";
    if (ev->kind == SDX_END) {
        if (depth == 0) return "END without an open container";
        if (*next == DUMP_VALUE) return "END after a key without its value";
        if (ev->depth != depth - 1) return "END at the wrong depth";
        if (--d->depth == 0) d->root_done = true;
        return NULL;
    }
    if (ev->depth != depth) return "event at the wrong depth";
    if ((next && *next == DUMP_KEY) != (ev->kind == SDX_KEY))
        return "KEY where none is due, or none where one is due";
    if (next && *next != DUMP_ELEM) *next = *next == DUMP_KEY ? DUMP_VALUE : DUMP_KEY;
    if (ev->kind == SDX_ARRAY || ev->kind == SDX_MAP) {
        if (depth >= DUMP_MAX_DEPTH) return "too deep for the dump sink";
        d->next[depth] = ev->kind == SDX_MAP ? DUMP_KEY : DUMP_ELEM;
        d->depth++;
    } else if (depth == 0) {
        d->root_done = true;
    }
    return NULL;
}

static sdx_err dump_put(void *ctx, const sdx_event *ev) {
    dump_sink *d = ctx;
    if (d->bad) return SDX_ERR_USAGE;
    d->bad = dump_check(d, ev);
    if (d->bad) return SDX_ERR_USAGE;
    dump_event(d->out, ev);
    return SDX_OK;
}

static sdx_err dump_finish(void *ctx) {
    dump_sink *d = ctx;
    if (!d->bad && !d->root_done) d->bad = "no complete root value";
    return d->bad ? SDX_ERR_USAGE : SDX_OK;
}

static const sdx_sink_vt dump_vt = {dump_put, dump_finish};

sdx_sink dump_sink_sink(dump_sink *d) {
    sdx_sink s = {&dump_vt, d};
    return s;
}

/* ------------------------------------------------------------------------ */
/* Running the readers                                                       */
/* ------------------------------------------------------------------------ */

static void error_reset(sdx_error *err) { memset(err, 0, sizeof *err); }

sdx_err conf_parse_into(const char *data, size_t len, const sdx_json_read_opts *opts, bool insitu,
                        sdx_sink *sink, sdx_error *err) {
    error_reset(err);
    char *copy = NULL;
    sdx_doc *doc;
    if (insitu) {
        copy = malloc(len ? len : 1);
        if (!copy) abort();
        if (len) memcpy(copy, data, len);
        doc = sdx_json_parse_insitu(copy, len, opts, err);
    } else {
        doc = sdx_json_parse(data, len, opts, err);
    }
    sdx_err rc = SDX_OK;
    if (!doc) {
        rc = err->code;
        if (rc == SDX_OK) { /* a NULL document must come with an error */
            err->msg = "parser returned NULL with SDX_OK";
            rc = err->code = SDX_ERR__COUNT;
        }
    } else if (sink) {
        rc = sdx_node_emit(sdx_doc_root(doc), *sink);
        if (rc != SDX_OK) err->code = rc, err->msg = "the sink rejected an event";
    }
    sdx_doc_free(doc);
    free(copy);
    return rc;
}

sdx_err conf_drain(sdx_json_reader *r, sdx_sink *sink, sdx_error *err) {
    error_reset(err);
    sdx_event ev;
    while (sdx_json_reader_next(r, &ev)) {
        if (!sink) continue;
        sdx_err rc = sdx_sink_put(*sink, &ev);
        if (rc != SDX_OK) {
            err->code = rc;
            err->msg = "the sink rejected an event";
            return rc;
        }
    }
    return sdx_json_reader_error(r, err);
}

sdx_err conf_read_into(const char *data, size_t len, const sdx_json_read_opts *opts,
                       sdx_sink *sink, sdx_error *err) {
    sdx_json_reader *r = sdx_json_reader_new(data, len, opts);
    if (!r) {
        error_reset(err);
        err->code = SDX_ERR_NOMEM;
        err->msg = "sdx_json_reader_new failed";
        return SDX_ERR_NOMEM;
    }
    sdx_err rc = conf_drain(r, sink, err);
    sdx_json_reader_free(r);
    return rc;
}

bool conf_error_clean(const sdx_error *err, size_t len) {
    return err->code != SDX_OK && err->code < SDX_ERR__COUNT && err->msg != NULL &&
           err->offset <= len && err->line >= 1 && err->column >= 1;
}

bool conf_error_position_ok(const char *data, size_t len, const sdx_error *err) {
    if (err->offset > len) return false;
    /* a '\r' before the offset: the reader's choice, not checked */
    if (err->offset && memchr(data, '\r', err->offset)) return true;
    /* lines by memchr: the truncation tests call this for thousands of
     * offsets deep into the corpus documents */
    size_t line = 1, line_start = 0;
    const char *p = data, *end = data + err->offset;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        line++;
        line_start = (size_t)(++p - data);
    }
    return err->line == line && err->column == err->offset - line_start + 1;
}

const char *conf_error_str(sdx_err code, const sdx_error *err) {
    static char text[200];
    if (code == SDX_OK) return "OK";
    snprintf(text, sizeof text, "%s at offset %zu (line %zu, column %zu)%s%s", sdx_strerror(code),
             err->offset, err->line, err->column, err->msg ? ": " : "", err->msg ? err->msg : "");
    return text;
}

/* ------------------------------------------------------------------------ */
/* Writing                                                                   */
/* ------------------------------------------------------------------------ */

/* Copy a finished buffer's bytes into a cbuf and release the buffer. */
static void take_output(sdx_buf *buf, cbuf *out) {
    cbuf_clear(out);
    cbuf_put(out, sdx_buf_data(buf), sdx_buf_len(buf));
    sdx_buf_destroy(buf);
}

sdx_err conf_write_node(sdx_node n, cbuf *out) {
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &buf, NULL);
    sdx_err rc = sdx_node_emit(n, sdx_json_writer_sink(&w));
    sdx_err fin = sdx_json_writer_finish(&w);
    take_output(&buf, out);
    return rc != SDX_OK ? rc : fin;
}

sdx_err conf_write_from_reader(const char *data, size_t len, const sdx_json_read_opts *opts,
                               cbuf *out) {
    sdx_buf buf;
    sdx_buf_init(&buf, NULL);
    sdx_json_writer w;
    sdx_json_writer_init(&w, &buf, NULL);
    sdx_sink sink = sdx_json_writer_sink(&w);
    sdx_error err;
    sdx_err rc = conf_read_into(data, len, opts, &sink, &err);
    sdx_err fin = sdx_json_writer_finish(&w);
    take_output(&buf, out);
    return rc != SDX_OK ? rc : fin;
}
