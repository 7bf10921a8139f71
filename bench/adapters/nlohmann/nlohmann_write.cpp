/*
 * nlohmann/json 3.11.2 (Debian), JSON, Write: nlohmann/json serializes its
 * own value type, so the call builds a value from the plain tree and
 * serializes it with dump() (minified: no indent).
 *
 * nlohmann::ordered_json, not nlohmann::json: json's objects are std::maps
 * that sort their keys, which would reorder every map and fail verification;
 * ordered_json keeps insertion order (its map is a vector of pairs with a
 * linear key search on insertion — that cost is part of the library).
 * Doubles are written shortest round-trip (Grisu2).
 */
#include <nlohmann/json.hpp>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

using json = nlohmann::ordered_json;

static json build(const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return json(nullptr);
    case BT_BOOL: return json(n->v.b);
    case BT_INT: return json(static_cast<json::number_integer_t>(n->v.i));
    case BT_UINT: return json(static_cast<json::number_unsigned_t>(n->v.u));
    case BT_DOUBLE: return json(n->v.d);
    case BT_STR: return json(json::string_t(n->v.str.ptr, n->v.str.len));
    case BT_ARRAY: {
        json a = json::array();
        for (size_t i = 0; i < n->v.c.count; i++) a.push_back(build(&n->v.c.items[i]));
        return a;
    }
    case BT_MAP: {
        json o = json::object();
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            o.emplace(json::string_t(k->v.str.ptr, k->v.str.len), build(&n->v.c.items[2 * i + 1]));
        }
        return o;
    }
    }
    return json();
}

static int nlohmann_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    try {
        std::string out = build(root).dump();
        emit(ctx, out.data(), out.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"nlohmann", "C++", "json", "write", nlohmann_write, nullptr};
