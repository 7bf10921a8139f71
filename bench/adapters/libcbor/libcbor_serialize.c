/*
 * libcbor 0.8, CBOR, Serialize: the cbor_item_t tree that cbor_load made (in
 * load, untimed, as in the Tree test) written back with
 * cbor_serialize_alloc, libcbor's call that serializes an item into a
 * buffer it allocates (and grows) itself.
 */
#include <cbor.h>
#include <stdlib.h>

#include "adapter.h"

static void *cb_load(const char *data, size_t len) {
    static const char *const names[] = {"CBOR_ERR_NONE", "CBOR_ERR_NOTENOUGHDATA", "CBOR_ERR_NODATA",
                                        "CBOR_ERR_MALFORMATED", "CBOR_ERR_MEMERROR", "CBOR_ERR_SYNTAXERROR"};
    struct cbor_load_result res;
    cbor_item_t *item = cbor_load((cbor_data)data, len, &res);
    if (item && res.error.code == CBOR_ERR_NONE && res.read == len) return item;
    if (res.error.code != CBOR_ERR_NONE || !item) {
        unsigned c = (unsigned)res.error.code;
        bench_error("cbor_load: %s at byte %zu", c < sizeof names / sizeof *names ? names[c] : "unknown error",
                    res.error.position);
    } else {
        bench_error("%zu bytes after the item", len - res.read);
    }
    if (item) cbor_decref(&item);
    return NULL;
}

static int cb_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    unsigned char *buf = NULL;
    size_t cap = 0;
    size_t n = cbor_serialize_alloc(doc, &buf, &cap);
    if (n == 0) {
        bench_error("cbor_serialize_alloc failed (out of memory)");
        free(buf);
        return 1;
    }
    emit(ctx, buf, n);
    free(buf); /* allocated with libcbor's allocator: malloc by default */
    return 0;
}

static void cb_unload(void *doc) {
    cbor_item_t *item = doc;
    cbor_decref(&item);
}

BENCH_SERIALIZE_ADAPTER("libcbor", "C", "cbor", cb_load, cb_serialize, cb_unload);
