/*
 * Boost.JSON (header-only, Boost headers from the PyPI wheel cmeel-boost),
 * JSON, Tree: boost::json::parse (error-code overload) into a
 * boost::json::value, then a walk of the value (objects keep insertion
 * order). parse_options::numbers = number_precision::precise: Boost.JSON's
 * default double parsing is fast but may be off in the last place; precise
 * gives the correctly rounded double.
 *
 * The value lives on a monotonic_resource created for the call: Boost.JSON's
 * documentation recommends it for the fastest parsing of a value that is
 * inspected and then thrown away.
 */
#include <boost/json.hpp>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

namespace bj = boost::json;

static void walk(const bj::value &v, sbh *h) {
    switch (v.kind()) {
    case bj::kind::null: sbh_null(h); break;
    case bj::kind::bool_: sbh_bool(h, v.get_bool()); break;
    case bj::kind::int64: sbh_int(h, v.get_int64()); break;
    case bj::kind::uint64: sbh_uint(h, v.get_uint64()); break;
    case bj::kind::double_: sbh_double(h, v.get_double()); break;
    case bj::kind::string: {
        const bj::string &s = v.get_string();
        sbh_str(h, s.data(), s.size());
        break;
    }
    case bj::kind::array:
        sbh_array(h);
        for (const bj::value &item : v.get_array()) walk(item, h);
        sbh_end(h);
        break;
    case bj::kind::object:
        sbh_map(h);
        for (const bj::key_value_pair &kv : v.get_object()) {
            bj::string_view k = kv.key();
            sbh_key(h, k.data(), k.size());
            walk(kv.value(), h);
        }
        sbh_end(h);
        break;
    }
}

static int boost_parse(const char *data, size_t len, sbh *h) {
    bj::monotonic_resource mr;
    bj::parse_options opt;
    opt.numbers = bj::number_precision::precise;
    boost::system::error_code ec;
    bj::value doc = bj::parse(bj::string_view(data, len), ec, &mr, opt);
    if (ec) {
        bench_error("%s", ec.message().c_str());
        return 1;
    }
    walk(doc, h);
    return 0;
}

extern "C" const bench_adapter bench_adapter_def = {"boost-json", "C++", "json", "tree", nullptr, boost_parse};
