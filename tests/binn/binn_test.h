/*
 * Helpers of the Binn tests: events as text, JSON into Binn, and a memory
 * sink for stream buffers.
 *
 * The text form of a Binn value (dump): null true false, integers in
 * decimal, doubles as %.17g (a float with a trailing f), "text" (bytes
 * below 0x20 or above 0x7e as \xNN), blobs as b'hex', [list], {map} with
 * int keys as 1:value, {object} with "key":value, and a value tagged
 * SDX_TAG_BINN as t<hex type>(value).
 */
#ifndef SDX_BINN_TEST_H
#define SDX_BINN_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"
#include "sdx/sdx.h"

static inline void dump_bytes(sbuf *s, const char *p, size_t n, int text) {
    sb_puts(s, text ? "\"" : "b'");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (text && c >= 0x20 && c < 0x7f && c != '"' && c != '\\') sb_put(s, &c, 1);
        else if (text) sb_printf(s, "\\x%02x", c);
        else sb_printf(s, "%02x", c);
    }
    sb_puts(s, text ? "\"" : "'");
}

/* Every event of a source as text into *s; returns the source's error.
 * The separator logic keeps one flag per depth: whether an item came
 * before in the container (and in a map, whether a key is pending). */
static inline sdx_err dump_source(sdx_source src, sbuf *s) {
    sdx_event ev;
    unsigned char first[4096], map[4096];
    uint64_t items[4096];
    int d = 0;
    first[0] = 1;
    map[0] = 0;
    items[0] = 0;
    while (sdx_source_next(src, &ev)) {
        if (ev.kind == SDX_END) {
            d--;
            sb_puts(s, map[d + 1] ? "}" : "]");
            continue;
        }
        if (d < 0 || d >= 4095) return SDX_ERR_LIMIT;
        if (!first[d]) sb_puts(s, d == 0 ? " " : map[d] && (items[d] & 1) ? ":" : ",");
        first[d] = 0;
        items[d]++;
        int tagged = ev.tag_kind == SDX_TAG_BINN;
        if (tagged) sb_printf(s, "t%" PRIx64 "(", ev.tag);
        switch (ev.kind) {
        case SDX_NULL: sb_puts(s, "null"); break;
        case SDX_BOOL: sb_puts(s, ev.v.b ? "true" : "false"); break;
        case SDX_INT: sb_printf(s, "%" PRId64, ev.v.i); break;
        case SDX_UINT: sb_printf(s, "%" PRIu64, ev.v.u); break;
        case SDX_DOUBLE:
            sb_printf(s, "%.17g%s", ev.v.d, ev.flags & SDX_EVENT_FLOAT32 ? "f" : "");
            break;
        case SDX_STR:
        case SDX_KEY: dump_bytes(s, ev.v.str.ptr, ev.v.str.len, 1); break;
        case SDX_BIN: dump_bytes(s, ev.v.str.ptr, ev.v.str.len, 0); break;
        case SDX_ARRAY:
        case SDX_MAP:
            sb_puts(s, ev.kind == SDX_MAP ? "{" : "[");
            d++;
            first[d] = 1;
            map[d] = ev.kind == SDX_MAP;
            items[d] = 0;
            break;
        default: sb_printf(s, "?%d", ev.kind); break;
        }
        if (tagged) sb_puts(s, ")");
    }
    return sdx_source_error(src, NULL);
}

/* Read `len` bytes of Binn with the memory reader (or a stream reader of
 * chunk size `chunk` when it is not 0) into text; returns the error and
 * its offset in *off. */
typedef struct mem_in {
    const char *p;
    size_t left;
} mem_in;

static inline size_t mem_read(void *ctx, void *buf, size_t cap) {
    mem_in *m = ctx;
    size_t n = m->left < cap ? m->left : cap;
    memcpy(buf, m->p, n);
    m->p += n;
    m->left -= n;
    return n;
}

static inline sdx_err dump_binn(const void *data, size_t len, uint32_t flags, size_t chunk, sbuf *s,
                         size_t *off) {
    sdx_binn_read_opts o = {flags, 0, NULL};
    mem_in m = {data, len};
    sdx_binn_reader *r = chunk ? sdx_binn_reader_new_stream(mem_read, &m, chunk, &o)
                               : sdx_binn_reader_new(data, len, &o);
    if (!r) abort();
    dump_source(sdx_binn_reader_source(r), s);
    sdx_error e;
    sdx_err rc = sdx_binn_reader_error(r, &e);
    if (off) *off = rc ? e.offset : 0;
    sdx_binn_reader_free(r);
    return rc;
}

/* JSON text into Binn bytes (through the JSON tree parser and the writer);
 * aborts on failure. The caller frees *out with sdx_buf_destroy. */
static inline void json_to_binn(const char *json, sdx_buf *out) {
    sdx_error err;
    sdx_doc *doc = sdx_json_parse(json, strlen(json), NULL, &err);
    if (!doc) {
        fprintf(stderr, "bad test JSON: %s\n", json);
        abort();
    }
    sdx_buf_init(out, NULL);
    sdx_binn_writer w;
    sdx_binn_writer_init(&w, out, NULL);
    sdx_err rc = sdx_node_emit(sdx_doc_root(doc), sdx_binn_writer_sink(&w));
    sdx_err fc = sdx_binn_writer_finish(&w);
    sdx_doc_free(doc);
    if (rc || fc) {
        fprintf(stderr, "json_to_binn: %s\n", sdx_strerror(rc ? rc : fc));
        abort();
    }
}

/* A stream buffer's output collected in memory. */
static inline size_t sbuf_write(void *ctx, const void *data, size_t len) {
    sb_put(ctx, data, len);
    return len;
}

#endif
