/*
 * yyjson (the yyjson-sys crate's C source), JSON, Serialize: the immutable
 * document yyjson_read_opts made (in load, untimed; default flags, as in the
 * Tree test) written back with yyjson_write_opts — minified, into a buffer
 * yyjson allocates; doubles shortest round-trip.
 */
#include <stdlib.h>

#include "adapter.h"
#include "yyjson.h"

static void *adapter_load(const char *data, size_t len) {
    yyjson_read_err err;
    /* without YYJSON_READ_INSITU the input is not written to */
    yyjson_doc *doc = yyjson_read_opts((char *)data, len, YYJSON_READ_NOFLAG, NULL, &err);
    if (!doc) bench_error("%s at byte %zu", err.msg, err.pos);
    return doc;
}

static int adapter_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    size_t len;
    yyjson_write_err err;
    char *out = yyjson_write_opts(doc, YYJSON_WRITE_NOFLAG, NULL, &len, &err);
    if (!out) {
        bench_error("%s (code %u)", err.msg, (unsigned)err.code);
        return 1;
    }
    emit(ctx, out, len);
    free(out); /* allocated with the default allocator (malloc) */
    return 0;
}

static void adapter_unload(void *doc) { yyjson_doc_free(doc); }

BENCH_SERIALIZE_ADAPTER("yyjson", "C", "json", adapter_load, adapter_serialize, adapter_unload);
