/*
 * sdx, any format, Serialize: the document sdx_<fmt>_parse made (in load,
 * untimed) written back with the fastest path sdx has for a parsed
 * document: sdx_<fmt>_writer_node, the document walked with direct calls
 * into the format's writer (the same bytes as sdx_node_emit into the
 * writer's sink; tests/unit/test_writer_node.c), into a growable sdx_buf.
 * Compiled once per format with -DSDX_FMT=<name> (SDX_BENCH_READ_FORMATS
 * in CMakeLists.txt).
 */
#include "adapter.h"
#include "sdx/sdx.h"

#define SDX_CAT3_(a, b, c) a##b##c
#define SDX_CAT3(a, b, c) SDX_CAT3_(a, b, c)
#define F(suffix) SDX_CAT3(sdx_, SDX_FMT, suffix)
#define SDX_STR_(x) #x
#define SDX_STR(x) SDX_STR_(x)

typedef F(_writer) writer_t;

static void *sdx_load(const char *data, size_t len) {
    sdx_error err;
    sdx_doc *doc = F(_parse)(data, len, NULL, &err);
    if (!doc) bench_error("%s at byte %zu", err.msg ? err.msg : sdx_strerror(err.code), err.offset);
    return doc;
}

static int sdx_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    sdx_buf b;
    sdx_buf_init(&b, NULL);
    writer_t w;
    sdx_err e = F(_writer_init)(&w, &b, NULL);
    if (!e) e = F(_writer_node)(&w, sdx_doc_root(doc));
    sdx_err f = F(_writer_finish)(&w);
    if (!e) e = f;
    if (e) bench_error("%s", sdx_strerror(e));
    else emit(ctx, sdx_buf_data(&b), sdx_buf_len(&b));
    sdx_buf_destroy(&b);
    return e != SDX_OK;
}

static void sdx_unload(void *doc) { sdx_doc_free(doc); }

BENCH_SERIALIZE_ADAPTER("sdx", "C", SDX_STR(SDX_FMT), sdx_load, sdx_serialize, sdx_unload);
