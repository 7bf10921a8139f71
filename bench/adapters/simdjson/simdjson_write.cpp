/*
 * simdjson 5 (amalgamated simdjson.cpp from the PyPI sdist fastsimdjson),
 * JSON, Write: simdjson's string builder (simdjson::builder::string_builder,
 * since simdjson 4) writing the plain tree value by value: start_object /
 * escape_and_append_with_quotes for keys and strings / append for numbers
 * and booleans / append_null, into the builder's own growable buffer
 * (default initial capacity), minified. Doubles are written as the shortest
 * text that reads back as the same double.
 *
 * The builder reports a failed allocation once, at the end: view() returns
 * an error instead of the text.
 *
 * Note: simdjson::builder is the builder of simdjson's "builtin"
 * implementation, chosen at compile time, not at run time: for the suite's
 * generic x86-64 flags (no -march) that is the portable fallback kernel, as
 * for the On-Demand front end (simdjson_incremental.cpp). The icelake
 * builder, chosen at run time, measured 1-12 % slower on this suite's data
 * (its AVX2 escape loop; bench/README.md), so this is not a handicap.
 */
#include <simdjson.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

using simdjson::builder::string_builder;

static void write_node(string_builder &b, const bt_node *n) {
    switch (n->type) {
    case BT_NULL: b.append_null(); break;
    case BT_BOOL: b.append(n->v.b != 0); break;
    case BT_INT: b.append(static_cast<int64_t>(n->v.i)); break;
    case BT_UINT: b.append(static_cast<uint64_t>(n->v.u)); break;
    case BT_DOUBLE: b.append(n->v.d); break;
    case BT_STR: b.escape_and_append_with_quotes(std::string_view(n->v.str.ptr, n->v.str.len)); break;
    case BT_ARRAY:
        b.start_array();
        for (size_t i = 0; i < n->v.c.count; i++) {
            if (i) b.append_comma();
            write_node(b, &n->v.c.items[i]);
        }
        b.end_array();
        break;
    case BT_MAP:
        b.start_object();
        for (size_t i = 0; i < n->v.c.count; i++) {
            const bt_node *k = &n->v.c.items[2 * i];
            if (i) b.append_comma();
            b.escape_and_append_with_quotes(std::string_view(k->v.str.ptr, k->v.str.len));
            b.append_colon();
            write_node(b, &n->v.c.items[2 * i + 1]);
        }
        b.end_object();
        break;
    }
}

static int simdjson_write(const bt_node *root, bench_emit_fn emit, void *ctx) {
    string_builder b;
    write_node(b, root);
    std::string_view out;
    simdjson::error_code e = b.view().get(out);
    if (e) {
        bench_error("%s", simdjson::error_message(e));
        return 1;
    }
    emit(ctx, out.data(), out.size());
    return 0;
}

extern "C" const bench_adapter bench_adapter_def = {"simdjson", "C++", "json", "write", simdjson_write, nullptr};
