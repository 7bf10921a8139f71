/*
 * Boost.JSON (header-only, Boost headers from the PyPI wheel cmeel-boost),
 * JSON, Write: Boost.JSON serializes its own boost::json::value, so the call
 * builds one from the plain tree and serializes it with
 * boost::json::serialize (minified, into a std::string). Doubles are written
 * shortest round-trip in Boost.JSON's scientific form (Ryu: "1.5E0").
 *
 * The value is built on a monotonic_resource created for the call: Boost.JSON's
 * documentation recommends it for a value that is built, used once and
 * thrown away. Arrays and objects are reserved to their size (their own
 * reserve calls).
 */
#include <boost/json.hpp>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

namespace bj = boost::json;

static bj::value build(const bt_node *n, const bj::storage_ptr &sp) {
    switch (n->type) {
    case BT_NULL: return bj::value(nullptr, sp);
    case BT_BOOL: return bj::value(n->v.b, sp);
    case BT_INT: return bj::value(static_cast<std::int64_t>(n->v.i), sp);
    case BT_UINT: return bj::value(static_cast<std::uint64_t>(n->v.u), sp);
    case BT_DOUBLE: return bj::value(n->v.d, sp);
    case BT_STR: return bj::value(bj::string_view(n->v.str.ptr, n->v.str.len), sp);
    case BT_ARRAY: {
        bj::array a(sp);
        a.reserve(n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) a.emplace_back(build(&n->v.c.items[i], sp));
        return bj::value(std::move(a));
    }
    case BT_MAP: {
        bj::object o(sp);
        o.reserve(n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            o.emplace(bj::string_view(k->v.str.ptr, k->v.str.len), build(&n->v.c.items[2 * i + 1], sp));
        }
        return bj::value(std::move(o));
    }
    }
    return bj::value(sp);
}

static int boost_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    try {
        bj::monotonic_resource mr;
        bj::value doc = build(root, &mr);
        std::string out = bj::serialize(doc);
        emit(ctx, out.data(), out.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"boost-json", "C++", "json", "write", boost_write, nullptr};
