/*
 * msgpack-c++ 4.x, MessagePack, Tree: msgpack::unpack into an
 * object_handle (a msgpack::object tree in a msgpack::zone), then a walk.
 *
 * unpack copies every str/bin into the zone unless an unpack_reference_func
 * says the object may point into the caller's buffer; the input outlives
 * the walk here, so we pass one that always answers yes — the documented
 * zero-copy use (and what msgpack-c's C msgpack_unpack_next does anyway).
 */
#include <msgpack.hpp>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static bool walk(const msgpack::object &o, sbh *h) {
    switch (o.type) {
    case msgpack::type::NIL: sbh_null(h); return true;
    case msgpack::type::BOOLEAN: sbh_bool(h, o.via.boolean); return true;
    case msgpack::type::POSITIVE_INTEGER: sbh_uint(h, o.via.u64); return true;
    case msgpack::type::NEGATIVE_INTEGER: sbh_int(h, o.via.i64); return true;
    case msgpack::type::FLOAT32: /* widened into f64 by msgpack-c++ */
    case msgpack::type::FLOAT64: sbh_double(h, o.via.f64); return true;
    case msgpack::type::STR: sbh_str(h, o.via.str.ptr, o.via.str.size); return true;
    case msgpack::type::BIN: sbh_bin(h, o.via.bin.ptr, o.via.bin.size); return true;
    case msgpack::type::ARRAY: {
        sbh_array(h);
        const msgpack::object *p = o.via.array.ptr;
        for (uint32_t i = 0; i < o.via.array.size; i++)
            if (!walk(p[i], h)) return false;
        sbh_end(h);
        return true;
    }
    case msgpack::type::MAP: {
        sbh_map(h);
        const msgpack::object_kv *kv = o.via.map.ptr;
        for (uint32_t i = 0; i < o.via.map.size; i++) {
            if (kv[i].key.type != msgpack::type::STR) {
                bench_error("a map key of msgpack::type %d (not a string)", (int)kv[i].key.type);
                return false;
            }
            sbh_key(h, kv[i].key.via.str.ptr, kv[i].key.via.str.size);
            if (!walk(kv[i].val, h)) return false;
        }
        sbh_end(h);
        return true;
    }
    default: /* ext: not in the benchmark's data */
        bench_error("msgpack::type %d (ext)", (int)o.type);
        return false;
    }
}

static bool reference_all(msgpack::type::object_type, std::size_t, void *) { return true; }

static int mp_parse(const char *data, size_t len, sbh *h) {
    try {
        std::size_t off = 0;
        msgpack::object_handle oh = msgpack::unpack(data, len, off, reference_all);
        if (off != len) {
            bench_error("%zu bytes after the value", len - off);
            return 1;
        }
        return walk(oh.get(), h) ? 0 : 1;
    } catch (const std::exception &e) { /* msgpack::unpack_error and its kinds */
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"msgpack-cxx", "C++", "msgpack", "tree", NULL, mp_parse};
