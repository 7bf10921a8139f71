/*
 * simdjson 5 (amalgamated simdjson.cpp from the PyPI sdist fastsimdjson),
 * JSON, Tree: the DOM API — dom::parser::parse into a dom::element tree,
 * then a walk of the tree (error-code API, no exceptions). Numbers are
 * simdjson's: int64, uint64 or a correctly rounded double.
 *
 * One static dom::parser serves every call. simdjson's documentation tells
 * users to reuse a parser across documents (it keeps its buffers instead of
 * allocating them for each document); that is its normal usage, and it
 * favours simdjson slightly over libraries that allocate their tree anew for
 * each document.
 *
 * The input is followed by 64 zero bytes (BENCH_PADDING == SIMDJSON_PADDING),
 * so parse() is told not to copy it into a padded buffer
 * (realloc_if_needed = false).
 */
#include <simdjson.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static_assert(BENCH_PADDING >= simdjson::SIMDJSON_PADDING, "the harness pads less than simdjson needs");

using namespace simdjson;

static bool walk(dom::element e, sbh *h) {
    switch (e.type()) {
    case dom::element_type::NULL_VALUE: sbh_null(h); return true;
    case dom::element_type::BOOL: {
        bool b;
        if (e.get_bool().get(b)) return false;
        sbh_bool(h, b);
        return true;
    }
    case dom::element_type::INT64: {
        int64_t i;
        if (e.get_int64().get(i)) return false;
        sbh_int(h, i);
        return true;
    }
    case dom::element_type::UINT64: {
        uint64_t u;
        if (e.get_uint64().get(u)) return false;
        sbh_uint(h, u);
        return true;
    }
    case dom::element_type::DOUBLE: {
        double d;
        if (e.get_double().get(d)) return false;
        sbh_double(h, d);
        return true;
    }
    case dom::element_type::STRING: {
        std::string_view s;
        if (e.get_string().get(s)) return false;
        sbh_str(h, s.data(), s.size());
        return true;
    }
    case dom::element_type::ARRAY: {
        dom::array a;
        if (e.get_array().get(a)) return false;
        sbh_array(h);
        for (dom::element item : a)
            if (!walk(item, h)) return false;
        sbh_end(h);
        return true;
    }
    case dom::element_type::BIGINT: /* only with parser.number_as_string(true), not set */
        bench_error("simdjson returned a big integer");
        return false;
    case dom::element_type::OBJECT: {
        dom::object o;
        if (e.get_object().get(o)) return false;
        sbh_map(h);
        for (dom::key_value_pair field : o) {
            sbh_key(h, field.key.data(), field.key.size());
            if (!walk(field.value, h)) return false;
        }
        sbh_end(h);
        return true;
    }
    }
    return false;
}

static int simdjson_parse(const char *data, size_t len, sbh *h) {
    static dom::parser parser; /* reused: simdjson's documented usage */
    dom::element root;
    error_code e = parser.parse(data, len, false).get(root);
    if (e) {
        bench_error("%s", error_message(e));
        return 1;
    }
    return walk(root, h) ? 0 : 1;
}

extern "C" const bench_adapter bench_adapter_def = {"simdjson", "C++", "json", "tree", nullptr, simdjson_parse};
