/*
 * msgpack-c (C API), MessagePack, Write: msgpack_packer writing into a
 * msgpack_sbuffer (the library's growable buffer), as in its README.
 * msgpack_pack_int64/uint64 choose the smallest encoding themselves.
 */
#include <msgpack.h>

#include "adapter.h"

static int pack_node(msgpack_packer *pk, const bt_node *n) {
    int r = 0;
    switch (n->type) {
    case BT_NULL: return msgpack_pack_nil(pk);
    case BT_BOOL: return n->v.b ? msgpack_pack_true(pk) : msgpack_pack_false(pk);
    case BT_INT: return msgpack_pack_int64(pk, n->v.i);
    case BT_UINT: return msgpack_pack_uint64(pk, n->v.u);
    case BT_DOUBLE: return msgpack_pack_double(pk, n->v.d);
    case BT_STR:
        r = msgpack_pack_str(pk, n->v.str.len);
        return r ? r : msgpack_pack_str_body(pk, n->v.str.ptr, n->v.str.len);
    case BT_ARRAY:
        r = msgpack_pack_array(pk, n->v.c.count);
        for (size_t i = 0; !r && i < n->v.c.count; i++) r = pack_node(pk, &n->v.c.items[i]);
        return r;
    case BT_MAP:
        r = msgpack_pack_map(pk, n->v.c.count);
        for (size_t i = 0; !r && i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            r = msgpack_pack_str(pk, k->v.str.len);
            if (!r) r = msgpack_pack_str_body(pk, k->v.str.ptr, k->v.str.len);
            if (!r) r = pack_node(pk, &n->v.c.items[2 * i + 1]);
        }
        return r;
    }
    return -1;
}

static int mp_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    msgpack_sbuffer sbuf;
    msgpack_sbuffer_init(&sbuf);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &sbuf, msgpack_sbuffer_write);
    int r = pack_node(&pk, root);
    if (!r) emit(ctx, sbuf.data, sbuf.size);
    else bench_error("msgpack_pack_* returned %d", r);
    msgpack_sbuffer_destroy(&sbuf);
    return r != 0;
}

const bench_adapter bench_adapter_def = {"msgpack-c", "C", "msgpack", "write", mp_write, NULL};
