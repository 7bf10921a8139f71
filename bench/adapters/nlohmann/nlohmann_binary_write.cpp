/*
 * nlohmann::json 3.11, binary formats, Write: build an nlohmann::ordered_json
 * (the variant that keeps insertion order, so maps come out in document
 * order) from the tree, then serialize with to_msgpack / to_cbor / to_bson /
 * to_ubjson into a std::vector — nlohmann can only serialize its own DOM.
 * Compiled once per format with -DNL_FMT=msgpack|cbor|bson|ubjson.
 *
 * Library defaults throughout: to_ubjson without the size/type
 * optimizations (use_size = use_type = false); to_msgpack and to_cbor write
 * a double as float32 when that is exact (nlohmann's write_compact_float)
 * — same value; to_bson writes int32 where an integer fits, else int64, and
 * throws on a uint64 above INT64_MAX (the harness adapts those away).
 */
#include "nl_common.h"

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
        a.get_ref<json::array_t &>().reserve(n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) a.push_back(build(&n->v.c.items[i]));
        return a;
    }
    case BT_MAP: {
        json o = json::object();
        /* ordered_map is a std::vector of pair<const key, value>: growing it
         * copies (deep) every entry, as a const key cannot be moved. */
        o.get_ref<json::object_t &>().reserve(n->v.c.count);
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            o.emplace(json::string_t(k->v.str.ptr, k->v.str.len), build(&n->v.c.items[2 * i + 1]));
        }
        return o;
    }
    }
    return json();
}

static int nl_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    try {
        json j = build(root);
        std::vector<std::uint8_t> out = json::NL_CAT(to_, NL_FMT)(j);
        emit(ctx, out.data(), out.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"nlohmann", "C++", NL_STR(NL_FMT), "write", nl_write, NULL};
