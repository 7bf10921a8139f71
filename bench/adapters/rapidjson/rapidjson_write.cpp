/*
 * RapidJSON 1.1.0 (Debian), JSON, Write: Writer<StringBuffer>, RapidJSON's
 * SAX-style writer, driven directly from the plain tree (no Document needed;
 * that is its natural writer API). Doubles are written by RapidJSON's Grisu2
 * (round-trip exact).
 *
 * RAPIDJSON_SSE2 (set in json.cmake on x86-64, where SSE2 is baseline) is
 * RapidJSON's documented switch for its SIMD string scanning.
 */
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

static bool write_node(Writer &w, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: return w.Null();
    case BT_BOOL: return w.Bool(n->v.b);
    case BT_INT: return w.Int64(n->v.i);
    case BT_UINT: return w.Uint64(n->v.u);
    case BT_DOUBLE: return w.Double(n->v.d);
    case BT_STR: return w.String(n->v.str.ptr, (rapidjson::SizeType)n->v.str.len);
    case BT_ARRAY:
        if (!w.StartArray()) return false;
        for (size_t i = 0; i < n->v.c.count; i++)
            if (!write_node(w, &n->v.c.items[i])) return false;
        return w.EndArray((rapidjson::SizeType)n->v.c.count);
    case BT_MAP:
        if (!w.StartObject()) return false;
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            if (!w.Key(k->v.str.ptr, (rapidjson::SizeType)k->v.str.len)) return false;
            if (!write_node(w, &n->v.c.items[2 * i + 1])) return false;
        }
        return w.EndObject((rapidjson::SizeType)n->v.c.count);
    }
    return false;
}

static int rapidjson_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    rapidjson::StringBuffer sb;
    Writer w(sb);
    if (!write_node(w, root) || !w.IsComplete()) {
        /* Writer refuses only what JSON cannot hold (NaN, infinity) */
        bench_error("the Writer refused a value (a NaN or an infinity?)");
        return 1;
    }
    emit(ctx, sb.GetString(), sb.GetSize());
    return 0;
}

extern "C" const bench_adapter bench_adapter_def = {"rapidjson", "C++", "json", "write", rapidjson_write, nullptr};
