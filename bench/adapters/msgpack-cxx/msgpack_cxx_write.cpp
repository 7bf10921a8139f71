/*
 * msgpack-c++ 4.x, MessagePack, Write: msgpack::packer over a
 * msgpack::sbuffer (the library's growable buffer), with the packer's typed
 * calls (pack_map, pack_str + pack_str_body, pack_int64, ...) — the
 * documented way to stream a document of dynamic shape.
 */
#include <msgpack.hpp>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

typedef msgpack::packer<msgpack::sbuffer> packer_t;

static void pack_node(packer_t &pk, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: pk.pack_nil(); break;
    case BT_BOOL: n->v.b ? pk.pack_true() : pk.pack_false(); break;
    case BT_INT: pk.pack_int64(n->v.i); break;
    case BT_UINT: pk.pack_uint64(n->v.u); break;
    case BT_DOUBLE: pk.pack_double(n->v.d); break;
    case BT_STR:
        pk.pack_str((uint32_t)n->v.str.len);
        pk.pack_str_body(n->v.str.ptr, (uint32_t)n->v.str.len);
        break;
    case BT_ARRAY:
        pk.pack_array((uint32_t)n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) pack_node(pk, &n->v.c.items[i]);
        break;
    case BT_MAP:
        pk.pack_map((uint32_t)n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            pk.pack_str((uint32_t)k->v.str.len);
            pk.pack_str_body(k->v.str.ptr, (uint32_t)k->v.str.len);
            pack_node(pk, &n->v.c.items[2 * i + 1]);
        }
        break;
    }
}

static int mp_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    try {
        msgpack::sbuffer sbuf;
        packer_t pk(sbuf);
        pack_node(pk, root);
        emit(ctx, sbuf.data(), sbuf.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"msgpack-cxx", "C++", "msgpack", "write", mp_write, NULL};
