/*
 * msgpack-c++ 4.x, MessagePack, Serialize: the object_handle that
 * msgpack::unpack made (in load, untimed; strings pointing into the input,
 * as in the Tree test) written back with msgpack::pack of its
 * msgpack::object into a msgpack::sbuffer.
 */
#include <msgpack.hpp>

#include <stddef.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static bool reference_all(msgpack::type::object_type, std::size_t, void *) { return true; }

static void *mp_load(const char *data, size_t len) {
    try {
        std::size_t off = 0;
        msgpack::object_handle *oh = new msgpack::object_handle(msgpack::unpack(data, len, off, reference_all));
        if (off == len) return oh;
        bench_error("%zu bytes after the value", len - off);
        delete oh;
        return nullptr;
    } catch (const std::exception &e) { /* msgpack::unpack_error and its kinds */
        bench_error("%s", e.what());
        return nullptr;
    }
}

static int mp_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    try {
        msgpack::sbuffer sbuf;
        msgpack::pack(sbuf, static_cast<const msgpack::object_handle *>(doc)->get());
        emit(ctx, sbuf.data(), sbuf.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

static void mp_unload(void *doc) { delete static_cast<msgpack::object_handle *>(doc); }

BENCH_SERIALIZE_ADAPTER("msgpack-cxx", "C++", "msgpack", mp_load, mp_serialize, mp_unload);
