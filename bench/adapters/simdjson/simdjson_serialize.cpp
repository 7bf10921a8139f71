/*
 * simdjson 5 (amalgamated simdjson.cpp from the PyPI sdist fastsimdjson),
 * JSON, Serialize: the DOM that dom::parser::parse made (in load, untimed)
 * written back with simdjson::to_string — simdjson's documented way to
 * serialize a dom::element (minify() is the same call), minified into a
 * std::string. Doubles are written as the shortest text that reads back as
 * the same double.
 *
 * The DOM lives in its parser, so the document handed to the harness is the
 * parser (with its root element); the input is padded by the harness, so
 * parse() does not copy it (realloc_if_needed = false) — and the DOM's
 * strings are in the parser's own buffer anyway.
 */
#include <simdjson.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static_assert(BENCH_PADDING >= simdjson::SIMDJSON_PADDING, "the harness pads less than simdjson needs");

namespace {
struct document {
    simdjson::dom::parser parser;
    simdjson::dom::element root;
};
} // namespace

static void *simdjson_load(const char *data, size_t len) {
    document *d = new document;
    simdjson::error_code e = d->parser.parse(data, len, false).get(d->root);
    if (e) {
        bench_error("%s", simdjson::error_message(e));
        delete d;
        return nullptr;
    }
    return d;
}

static int simdjson_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    try {
        std::string out = simdjson::to_string(static_cast<document *>(doc)->root);
        emit(ctx, out.data(), out.size());
        return 0;
    } catch (const std::exception &e) { /* std::bad_alloc */
        bench_error("%s", e.what());
        return 1;
    }
}

static void simdjson_unload(void *doc) { delete static_cast<document *>(doc); }

BENCH_SERIALIZE_ADAPTER("simdjson", "C++", "json", simdjson_load, simdjson_serialize, simdjson_unload);
