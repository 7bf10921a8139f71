/*
 * nlohmann/json 3.11.2 (Debian), JSON, Tree: ordered_json::parse (a failed
 * parse throws parse_error, whose what() is nlohmann's message) and a walk
 * of the value. ordered_json, not json: json sorts object keys (std::map), which
 * would reorder every map and fail verification; ordered_json keeps them in
 * document order.
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

static void walk(const json &v, sbh *h) {
    switch (v.type()) {
    case json::value_t::null: sbh_null(h); break;
    case json::value_t::boolean: sbh_bool(h, v.get<bool>()); break;
    case json::value_t::number_integer: sbh_int(h, v.get<json::number_integer_t>()); break;
    case json::value_t::number_unsigned: sbh_uint(h, v.get<json::number_unsigned_t>()); break;
    case json::value_t::number_float: sbh_double(h, v.get<json::number_float_t>()); break;
    case json::value_t::string: {
        const json::string_t &s = v.get_ref<const json::string_t &>();
        sbh_str(h, s.data(), s.size());
        break;
    }
    case json::value_t::array:
        sbh_array(h);
        for (const json &item : v) walk(item, h);
        sbh_end(h);
        break;
    case json::value_t::object:
        sbh_map(h);
        for (auto it = v.begin(); it != v.end(); ++it) {
            const json::string_t &k = it.key();
            sbh_key(h, k.data(), k.size());
            walk(it.value(), h);
        }
        sbh_end(h);
        break;
    case json::value_t::binary:
    case json::value_t::discarded: break; /* not produced by the JSON parser */
    }
}

static int nlohmann_parse(const char *data, size_t len, sbh *h) {
    try {
        json doc = json::parse(data, data + len);
        walk(doc, h);
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"nlohmann", "C++", "json", "tree", nullptr, nlohmann_parse};
