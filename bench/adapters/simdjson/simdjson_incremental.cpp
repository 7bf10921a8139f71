/*
 * simdjson 5 (amalgamated simdjson.cpp from the PyPI sdist fastsimdjson),
 * JSON, Incremental: the On-Demand API — iterate
 * the document and visit every value in order (error-code API, no
 * exceptions). Strings and keys are unescaped (get_string,
 * unescaped_key), numbers parsed once with get_number.
 *
 * One static ondemand::parser serves every call: simdjson's documentation
 * tells users to reuse a parser across documents (it keeps its buffers);
 * that is its normal usage, and it favours simdjson slightly.
 *
 * On-Demand needs padded input: the harness puts 64 zero bytes after the
 * data (BENCH_PADDING == SIMDJSON_PADDING), which padded_string_view's
 * capacity argument promises.
 *
 * Note: stage 1 (structural indexing) runs in simdjson.cpp with its
 * run-time CPU dispatch; the On-Demand front end is inline code compiled for
 * simdjson's "builtin" implementation, which for the suite's generic x86-64
 * flags (no -march) is the portable fallback kernel. Compiled for the
 * kernel simdjson's dispatch picks (icelake here) it measured within 2 % of
 * this build on every data set (bench/README.md).
 *
 * An error anywhere (a getter or an iteration step) is recorded with
 * simdjson's error_message and ends the walk.
 */
#include <simdjson.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static_assert(BENCH_PADDING >= simdjson::SIMDJSON_PADDING, "the harness pads less than simdjson needs");

using namespace simdjson;

/* Records simdjson's message for an error code; true if there was one. */
static bool failed(error_code e) {
    if (e == SUCCESS) return false;
    bench_error("%s", error_message(e));
    return true;
}

static bool hash_number(ondemand::number n, sbh *h) {
    switch (n.get_number_type()) {
    case ondemand::number_type::signed_integer: sbh_int(h, n.get_int64()); return true;
    case ondemand::number_type::unsigned_integer: sbh_uint(h, n.get_uint64()); return true;
    case ondemand::number_type::floating_point_number: sbh_double(h, n.get_double()); return true;
    case ondemand::number_type::big_integer: break; /* only with number_as_string, not set */
    }
    bench_error("simdjson returned a big integer");
    return false;
}

static bool walk(ondemand::value v, sbh *h) {
    ondemand::json_type t;
    if (failed(v.type().get(t))) return false;
    switch (t) {
    case ondemand::json_type::null: {
        bool is_null;
        if (failed(v.is_null().get(is_null)) || !is_null) return false;
        sbh_null(h);
        return true;
    }
    case ondemand::json_type::boolean: {
        bool b;
        if (failed(v.get_bool().get(b))) return false;
        sbh_bool(h, b);
        return true;
    }
    case ondemand::json_type::number: {
        ondemand::number n;
        if (failed(v.get_number().get(n))) return false;
        return hash_number(n, h);
    }
    case ondemand::json_type::string: {
        std::string_view s;
        if (failed(v.get_string().get(s))) return false;
        sbh_str(h, s.data(), s.size());
        return true;
    }
    case ondemand::json_type::array: {
        ondemand::array a;
        if (failed(v.get_array().get(a))) return false;
        sbh_array(h);
        for (auto item : a) {
            ondemand::value iv;
            if (failed(item.get(iv)) || !walk(iv, h)) return false;
        }
        sbh_end(h);
        return true;
    }
    case ondemand::json_type::object: {
        ondemand::object o;
        if (failed(v.get_object().get(o))) return false;
        sbh_map(h);
        for (auto field : o) {
            std::string_view key;
            ondemand::value fv;
            if (failed(field.unescaped_key().get(key))) return false;
            sbh_key(h, key.data(), key.size());
            if (failed(field.value().get(fv)) || !walk(fv, h)) return false;
        }
        sbh_end(h);
        return true;
    }
    }
    return false;
}

/* A scalar at the root is a special case in On-Demand: the document itself
 * has the getters (it cannot become a value). */
static bool walk_scalar_document(ondemand::document &doc, ondemand::json_type t, sbh *h) {
    switch (t) {
    case ondemand::json_type::null: {
        bool is_null;
        if (failed(doc.is_null().get(is_null)) || !is_null) return false;
        sbh_null(h);
        return true;
    }
    case ondemand::json_type::boolean: {
        bool b;
        if (failed(doc.get_bool().get(b))) return false;
        sbh_bool(h, b);
        return true;
    }
    case ondemand::json_type::number: {
        ondemand::number n;
        if (failed(doc.get_number().get(n))) return false;
        return hash_number(n, h);
    }
    case ondemand::json_type::string: {
        std::string_view s;
        if (failed(doc.get_string().get(s))) return false;
        sbh_str(h, s.data(), s.size());
        return true;
    }
    default: return false;
    }
}

static int simdjson_parse(const char *data, size_t len, sbh *h) {
    static ondemand::parser parser; /* reused: simdjson's documented usage */
    ondemand::document doc;
    if (failed(parser.iterate(padded_string_view(data, len, len + BENCH_PADDING)).get(doc))) return 1;
    ondemand::json_type t;
    if (failed(doc.type().get(t))) return 1;
    if (t == ondemand::json_type::array || t == ondemand::json_type::object) {
        ondemand::value root;
        if (failed(doc.get_value().get(root))) return 1;
        return walk(root, h) ? 0 : 1;
    }
    return walk_scalar_document(doc, t, h) ? 0 : 1;
}

extern "C" const bench_adapter bench_adapter_def = {"simdjson", "C++", "json", "incremental", nullptr,
                                                    simdjson_parse};
