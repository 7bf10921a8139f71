/*
 * msgpack-c (C API), MessagePack, Tree: msgpack_unpack_next into a
 * msgpack_unpacked (which owns a msgpack_zone holding the msgpack_object
 * tree), then a walk of the msgpack_object tree. Strings and keys point
 * into the input buffer (msgpack-c's default for msgpack_unpack_next).
 */
#include <msgpack.h>

#include "adapter.h"

static int walk(const msgpack_object *o, sbh *h) {
    switch (o->type) {
    case MSGPACK_OBJECT_NIL: sbh_null(h); return 0;
    case MSGPACK_OBJECT_BOOLEAN: sbh_bool(h, o->via.boolean); return 0;
    case MSGPACK_OBJECT_POSITIVE_INTEGER: sbh_uint(h, o->via.u64); return 0;
    case MSGPACK_OBJECT_NEGATIVE_INTEGER: sbh_int(h, o->via.i64); return 0;
    case MSGPACK_OBJECT_FLOAT32: /* msgpack-c widens float32 into f64 */
    case MSGPACK_OBJECT_FLOAT64: sbh_double(h, o->via.f64); return 0;
    case MSGPACK_OBJECT_STR: sbh_str(h, o->via.str.ptr, o->via.str.size); return 0;
    case MSGPACK_OBJECT_BIN: sbh_bin(h, o->via.bin.ptr, o->via.bin.size); return 0;
    case MSGPACK_OBJECT_ARRAY: {
        sbh_array(h);
        const msgpack_object *p = o->via.array.ptr;
        for (uint32_t i = 0; i < o->via.array.size; i++)
            if (walk(&p[i], h)) return -1;
        sbh_end(h);
        return 0;
    }
    case MSGPACK_OBJECT_MAP: {
        sbh_map(h);
        const msgpack_object_kv *kv = o->via.map.ptr;
        for (uint32_t i = 0; i < o->via.map.size; i++) {
            if (kv[i].key.type != MSGPACK_OBJECT_STR) {
                bench_error("a map key of msgpack_object type %d (not a string)", (int)kv[i].key.type);
                return -1;
            }
            sbh_key(h, kv[i].key.via.str.ptr, kv[i].key.via.str.size);
            if (walk(&kv[i].val, h)) return -1;
        }
        sbh_end(h);
        return 0;
    }
    default: /* ext: not in the benchmark's data */
        bench_error("msgpack_object type %d (ext)", (int)o->type);
        return -1;
    }
}

/* The names of msgpack_unpack_return (msgpack/unpack.h). */
static const char *unpack_return_name(msgpack_unpack_return r) {
    switch (r) {
    case MSGPACK_UNPACK_SUCCESS: return "MSGPACK_UNPACK_SUCCESS";
    case MSGPACK_UNPACK_EXTRA_BYTES: return "MSGPACK_UNPACK_EXTRA_BYTES";
    case MSGPACK_UNPACK_CONTINUE: return "MSGPACK_UNPACK_CONTINUE: the input ends inside a value";
    case MSGPACK_UNPACK_PARSE_ERROR: return "MSGPACK_UNPACK_PARSE_ERROR";
    case MSGPACK_UNPACK_NOMEM_ERROR: return "MSGPACK_UNPACK_NOMEM_ERROR";
    }
    return "unknown";
}

static int mp_parse(const char *data, size_t len, sbh *h) {
    msgpack_unpacked result;
    msgpack_unpacked_init(&result);
    size_t off = 0;
    msgpack_unpack_return ret = msgpack_unpack_next(&result, data, len, &off);
    int r = -1;
    if (ret != MSGPACK_UNPACK_SUCCESS) bench_error("msgpack_unpack_next returned %d (%s)", (int)ret, unpack_return_name(ret));
    else if (off != len) bench_error("%zu bytes after the value", len - off);
    else r = walk(&result.data, h);
    msgpack_unpacked_destroy(&result);
    return r != 0;
}

const bench_adapter bench_adapter_def = {"msgpack-c", "C", "msgpack", "tree", NULL, mp_parse};
