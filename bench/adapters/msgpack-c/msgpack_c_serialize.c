/*
 * msgpack-c (C API), MessagePack, Serialize: the msgpack_object tree that
 * msgpack_unpack_next made (in load, untimed; in the zone of a
 * msgpack_unpacked, strings pointing into the input, as in the Tree test)
 * written back with msgpack_pack_object into a msgpack_sbuffer.
 */
#include <msgpack.h>
#include <stdlib.h>

#include "adapter.h"

static void *mp_load(const char *data, size_t len) {
    msgpack_unpacked *u = malloc(sizeof *u);
    if (!u) return NULL;
    msgpack_unpacked_init(u);
    size_t off = 0;
    msgpack_unpack_return ret = msgpack_unpack_next(u, data, len, &off);
    if (ret == MSGPACK_UNPACK_SUCCESS && off == len) return u;
    if (ret != MSGPACK_UNPACK_SUCCESS) bench_error("msgpack_unpack_next returned %d", (int)ret);
    else bench_error("%zu bytes after the value", len - off);
    msgpack_unpacked_destroy(u);
    free(u);
    return NULL;
}

static int mp_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    msgpack_sbuffer sbuf;
    msgpack_sbuffer_init(&sbuf);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
    int r = msgpack_pack_object(&pk, ((const msgpack_unpacked *)doc)->data);
    if (!r) emit(ctx, sbuf.data, sbuf.size);
    else bench_error("msgpack_pack_object returned %d", r);
    msgpack_sbuffer_destroy(&sbuf);
    return r != 0;
}

static void mp_unload(void *doc) {
    msgpack_unpacked_destroy(doc);
    free(doc);
}

BENCH_SERIALIZE_ADAPTER("msgpack-c", "C", "msgpack", mp_load, mp_serialize, mp_unload);
