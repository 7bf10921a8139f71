/*
 * nlohmann::json 3.11, binary formats, Tree: ordered_json::from_msgpack /
 * from_cbor / from_bson / from_ubjson over the input (strict: the whole
 * input must be one value), then a walk of the DOM. ordered_json keeps the
 * document's key order. Compiled once per format with -DNL_FMT=....
 *
 * Integers come out as number_unsigned (non-negative, or a format's
 * unsigned types) or number_integer; both hash by value. BSON arrays are
 * read as arrays.
 */
#include "nl_common.h"

static void walk(const json &j, sbh *h) {
    switch (j.type()) {
    case json::value_t::null: sbh_null(h); break;
    case json::value_t::boolean: sbh_bool(h, *j.get_ptr<const json::boolean_t *>()); break;
    case json::value_t::number_integer: sbh_int(h, *j.get_ptr<const json::number_integer_t *>()); break;
    case json::value_t::number_unsigned: sbh_uint(h, *j.get_ptr<const json::number_unsigned_t *>()); break;
    case json::value_t::number_float: sbh_double(h, *j.get_ptr<const json::number_float_t *>()); break;
    case json::value_t::string: {
        const json::string_t &s = *j.get_ptr<const json::string_t *>();
        sbh_str(h, s.data(), s.size());
        break;
    }
    case json::value_t::binary: {
        const json::binary_t &b = *j.get_ptr<const json::binary_t *>();
        sbh_bin(h, b.data(), b.size());
        break;
    }
    case json::value_t::array:
        sbh_array(h);
        for (const json &e : *j.get_ptr<const json::array_t *>()) walk(e, h);
        sbh_end(h);
        break;
    case json::value_t::object:
        sbh_map(h);
        for (const auto &kv : *j.get_ptr<const json::object_t *>()) {
            sbh_key(h, kv.first.data(), kv.first.size());
            walk(kv.second, h);
        }
        sbh_end(h);
        break;
    case json::value_t::discarded: break;
    }
}

static int nl_parse(const char *data, size_t len, sbh *h) {
    try {
        const std::uint8_t *p = reinterpret_cast<const std::uint8_t *>(data);
        json j = json::NL_CAT(from_, NL_FMT)(p, p + len);
        walk(j, h);
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"nlohmann", "C++", NL_STR(NL_FMT), "tree", NULL, nl_parse};
