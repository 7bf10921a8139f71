/*
 * Differential fuzz target: every format against every other, through the
 * event-level transcoder (sdx_transcode, source.h).
 *
 * Input: the first byte picks the source format (its value modulo 7: json,
 * msgpack, cbor, bson, ubjson, bjdata, binn), the rest is a document in it,
 * read with default options. An accepted document is transcoded from the
 * source's pull reader into the writer of every other format; the writer
 * either refuses cleanly — SDX_ERR_UNSUPPORTED, SDX_ERR_TYPE,
 * SDX_ERR_RANGE or SDX_ERR_KEY, for a value the target cannot hold — and
 * that target is skipped, or its output must parse (default options) to a
 * document with the same events as the source's, compared after this
 * normalization (fuzz.h fz_rec), which is all a conversion may change:
 *   - event flags: float widths (a float32 or float16 read from one
 *     format is a double in another; CBOR and BJData write doubles in the
 *     shortest width), the mark of CBOR's indefinite-length strings; and
 *     NaN payloads (CBOR writes every NaN as f9 7e 00);
 *   - tags and SDX_TAG events (CBOR tags, MessagePack ext types, BSON
 *     element types, UBJSON typed containers, Binn sub-types: a format
 *     without them writes the plain value, common.h);
 *   - INT and UINT of the same value (a reader uses UINT only above
 *     INT64_MAX, writers accept either);
 *   - container counts (JSON and plain UBJSON containers have none);
 *   - BSON's root: a root that is not a map is written with
 *     SDX_BSON_WRITE_WRAP_ROOT, a scalar as {"0": value}, an array as the
 *     document {"0": e0, "1": e1, ...}; the comparison unwraps it.
 * Targets skipped up front, because the value survives but changes kind:
 *   - JSON for a document holding SDX_NINT (written as exact decimal
 *     text, read back as a double) or SDX_RAW (UBJSON's high-precision
 *     numbers: written as the number, read back as an integer or double);
 * Anything else — a writer error of another kind, output the target's
 * own parser rejects, different events — aborts. The source's document is
 * also written into every format's writer twice, by the writer's own
 * walk (sdx_<fmt>_writer_node) and as events (sdx_node_emit into its
 * sink): both must give the same error and, without one, the same bytes
 * (after a JSON error only the bytes before the refused value count, as
 * tests/unit/test_writer_node.c explains).
 */
#include "fuzz.h"

static int fz_clean_refusal(sdx_err e) {
    return e == SDX_ERR_UNSUPPORTED || e == SDX_ERR_TYPE || e == SDX_ERR_RANGE || e == SDX_ERR_KEY;
}

/* Which kinds a document holds (for the targets skipped up front). */
typedef struct fz_kinds {
    int nint, raw;
} fz_kinds;

static sdx_err fz_kinds_put(void *ctx, const sdx_event *ev) {
    fz_kinds *k = ctx;
    if (ev->kind == SDX_NINT) k->nint = 1;
    if (ev->kind == SDX_RAW) k->raw = 1;
    return SDX_OK;
}

static const sdx_sink_vt fz_kinds_vt = {fz_kinds_put, fz_rec_finish};

/* The events of one node, normalized, into r (freed by the caller). */
static void fz_rec_node(fz_rec *r, sdx_node n, uint32_t norm) {
    memset(r, 0, sizeof *r);
    r->norm = norm;
    if (sdx_node_emit(n, fz_rec_sink(r)) != SDX_OK || r->oom)
        fz_fail("a node cannot be walked", "recorder");
}

static int fz_same_nodes(sdx_node a, sdx_node b, uint32_t norm) {
    fz_rec ra, rb;
    fz_rec_node(&ra, a, norm);
    fz_rec_node(&rb, b, norm);
    int same = fz_rec_same(&ra, &rb);
    free(ra.p);
    free(rb.p);
    return same;
}

/* BSON's wrapped root: `bson` must be the map {"0": src} (src a scalar) or
 * {"0": src[0], "1": src[1], ...} (src an array). */
static int fz_same_wrapped(sdx_node src, sdx_node bson, uint32_t norm) {
    if (sdx_node_type(bson) != SDX_TYPE_MAP) return 0;
    int array = sdx_node_type(src) == SDX_TYPE_ARRAY;
    uint64_t n = array ? sdx_node_len(src) : 1;
    if (sdx_node_len(bson) != n) return 0;
    for (uint64_t i = 0; i < n; i++) {
        char want[24];
        int wl = snprintf(want, sizeof want, "%llu", (unsigned long long)i);
        size_t kl = 0;
        const char *k = sdx_node_str(sdx_node_key_at(bson, i), &kl);
        if (!k || kl != (size_t)wl || memcmp(k, want, kl) != 0) return 0;
        if (!fz_same_nodes(array ? sdx_node_index(src, i) : src, sdx_node_value_at(bson, i), norm))
            return 0;
    }
    return 1;
}

/* The source document's root written into format `to` by its writer's
 * walk and by sdx_node_emit: the same error and bytes, or abort. */
static void fz_check_walk(sdx_node root, int to) {
    sdx_buf a, b;
    sdx_buf_init(&a, NULL);
    sdx_buf_init(&b, NULL);
    fz_writer wa, wb;
    uint32_t flags = to == FZ_BSON ? SDX_BSON_WRITE_WRAP_ROOT : 0;
    if (fz_writer_init(&wa, to, flags, &a) != SDX_OK || fz_writer_init(&wb, to, flags, &b) != SDX_OK)
        fz_fail("writer init failed", fz_names[to]);
    sdx_err ea = sdx_node_emit(root, wa.sink), fa = sdx_sink_finish(wa.sink);
    sdx_err eb = fz_writer_node(&wb, root), fb = sdx_sink_finish(wb.sink);
    if (!ea) ea = fa;
    if (!eb) eb = fb;
    size_t an = sdx_buf_len(&a), bn = sdx_buf_len(&b);
    if (ea != eb) fz_fail("the writer's walk and the events give different errors", fz_names[to]);
    if (ea && to == FZ_JSON) an = bn = an < bn ? an : bn;
    if (an != bn || (an && memcmp(sdx_buf_data(&a), sdx_buf_data(&b), an) != 0))
        fz_fail("the writer's walk and the events give different bytes", fz_names[to]);
    sdx_buf_destroy(&a);
    sdx_buf_destroy(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    int from = data[0] % FZ_NFORMATS;
    const uint8_t *p = data + 1;
    size_t n = size - 1;
    fz_ropts so = fz_ropts_make(from, 0);
    sdx_error err;
    sdx_doc *src = fz_parse(&so, p, n, &err);
    if (!src) return 0;
    const uint32_t norm = FZ_N_FLAGS | FZ_N_TAGS | FZ_N_INT | FZ_N_COUNT;
    static fz_kinds kinds;
    memset(&kinds, 0, sizeof kinds);
    sdx_sink ks = {&fz_kinds_vt, &kinds};
    sdx_node_emit(sdx_doc_root(src), ks);
    int root_map = sdx_node_type(sdx_doc_root(src)) == SDX_TYPE_MAP;
    fz_rec want;
    fz_rec_doc(&want, src, norm);
    for (int to = 0; to < FZ_NFORMATS; to++) fz_check_walk(sdx_doc_root(src), to);
    for (int to = 0; to < FZ_NFORMATS; to++) {
        if (to == from) continue;
        if (to == FZ_JSON && (kinds.nint || kinds.raw)) continue;
        char what[96];
        snprintf(what, sizeof what, "%s -> %s", fz_names[from], fz_names[to]);
        sdx_buf out;
        sdx_buf_init(&out, NULL);
        fz_writer w;
        if (fz_writer_init(&w, to, to == FZ_BSON ? SDX_BSON_WRITE_WRAP_ROOT : 0, &out) != SDX_OK)
            fz_fail("writer init failed", what);
        fz_reader r = fz_open(&so, p, n, NULL);
        sdx_error te;
        sdx_err e = sdx_transcode(r.src, w.sink, &te);
        fz_close(&r);
        sdx_err f = sdx_sink_finish(w.sink);
        if (e == SDX_OK) e = f;
        if (e != SDX_OK) {
            sdx_buf_destroy(&out);
            if (fz_clean_refusal(e)) {
                fz_refused++;
                continue;
            }
            fprintf(stderr, "  %s at %zu\n", sdx_strerror(e), te.offset);
            fz_fail("the writer failed on an accepted document", what);
        }
        fz_ropts to_o = fz_ropts_make(to, 0);
        sdx_doc *back = fz_parse(&to_o, (const uint8_t *)sdx_buf_data(&out), sdx_buf_len(&out), &err);
        if (!back) {
            fprintf(stderr, "  %s at %zu\n", sdx_strerror(err.code), err.offset);
            fz_fail("the target's parser rejects what its writer wrote", what);
        }
        int same;
        if (to == FZ_BSON && !root_map) {
            same = fz_same_wrapped(sdx_doc_root(src), sdx_doc_root(back), norm);
        } else {
            fz_rec got;
            fz_rec_doc(&got, back, norm);
            same = fz_rec_same(&want, &got);
            free(got.p);
        }
        if (!same) fz_fail("the document read back differs", what);
        fz_compared++;
        sdx_doc_free(back);
        sdx_buf_destroy(&out);
    }
    free(want.p);
    sdx_doc_free(src);
    return 0;
}

#ifndef SDX_LIBFUZZER
static const fz_seedlit seeds[] = {
    FZ_SEED("\x00{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\"],\"b\":{\"c\":18446744073709551615}}"),
    FZ_SEED("\x00[0.1, -0.0, 1e300, -9223372036854775808, \"\", {}]"),
    FZ_SEED("\x00\"s\""),
    FZ_SEED("\x01\x82\xa1\x61\x93\x01\xff\xcb\x40\x09\x21\xfb\x54\x44\x2d\x18\xa1\x62\xc4\x02\x00\x01"),
    FZ_SEED("\x01\x82\x01\xc3\x02\xca\x3f\x80\x00\x00"),
    FZ_SEED("\x02\xa2\x61\x61\x83\x01\x20\xf9\x3c\x00\x61\x62\xc2\x49\x01\x00\x00\x00\x00\x00\x00\x00\x00"),
    FZ_SEED("\x02\x3b\xff\xff\xff\xff\xff\xff\xff\xff"),
    FZ_SEED("\x03\x1b\x00\x00\x00\x04\x61\x00\x13\x00\x00\x00\x02\x30\x00\x02\x00\x00\x00\x78\x00\x08\x31\x00\x01\x00\x00"),
    FZ_SEED("\x04{U\x01" "a[$i#U\x02\x01\x02}"),
    FZ_SEED("\x04[CaSU\x02hiHU\x01" "1d\x00\x00\x00\x00]"),
    FZ_SEED("\x05[$h#U\x02\x00\x3c\x00\xc0"),
    FZ_SEED("\x06\xe2\x0b\x01\x01\x61\x20\x2a\x03\x00"),
    FZ_SEED("\x06\xe0\x0e\x03\x01\x02\x03\x41\x01\x00\xa0\x02\x68\x69\x00"),
};

int main(int argc, char **argv) {
    static const uint8_t alphabet[] = "{}[]\"0123456789,:\x00\x01\x02\x03\x04\x10\x61\x80\x90\xa0\xa1"
                                      "\xc4\xca\xcb\xd8\xe0\xe1\xe2\xf9\xfb[]{}$#ZTFiUlLdDSCH";
    return fz_smoke_main("fuzz_transcode_smoke", argc, argv, seeds, sizeof seeds / sizeof seeds[0],
                         alphabet, sizeof alphabet - 1, 100000);
}
#endif
