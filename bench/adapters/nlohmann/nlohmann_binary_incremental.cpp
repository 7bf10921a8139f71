/*
 * nlohmann::json 3.11, binary formats, Incremental: json::sax_parse with
 * input_format_t::msgpack / cbor / bson / ubjson and a SAX handler (strict:
 * the whole input must be one value). No DOM is built. Compiled once per
 * format with -DNL_FMT=....
 */
#include <nlohmann/json.hpp>

#include <stddef.h>
#include <stdint.h>
#include <string.h>
extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

#define NL_STR_(x) #x
#define NL_STR(x) NL_STR_(x)

using json = nlohmann::json;

namespace {

struct hash_sax {
    sbh *h;

    bool null() { sbh_null(h); return true; }
    bool boolean(bool v) { sbh_bool(h, v); return true; }
    bool number_integer(json::number_integer_t v) { sbh_int(h, v); return true; }
    bool number_unsigned(json::number_unsigned_t v) { sbh_uint(h, v); return true; }
    bool number_float(json::number_float_t v, const json::string_t &) { sbh_double(h, v); return true; }
    bool string(json::string_t &s) { sbh_str(h, s.data(), s.size()); return true; }
    bool binary(json::binary_t &b) { sbh_bin(h, b.data(), b.size()); return true; }
    bool start_object(std::size_t) { sbh_map(h); return true; }
    bool key(json::string_t &s) { sbh_key(h, s.data(), s.size()); return true; }
    bool end_object() { sbh_end(h); return true; }
    bool start_array(std::size_t) { sbh_array(h); return true; }
    bool end_array() { sbh_end(h); return true; }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) {
        bench_error("%s", e.what());
        return false;
    }
};

} // namespace

static int nl_parse(const char *data, size_t len, sbh *h) {
    try {
        hash_sax sax{h};
        const std::uint8_t *p = reinterpret_cast<const std::uint8_t *>(data);
        bool ok = json::sax_parse(p, p + len, &sax, json::input_format_t::NL_FMT, true);
        return ok ? 0 : 1;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

extern "C" const bench_adapter bench_adapter_def = {"nlohmann", "C++", NL_STR(NL_FMT), "incremental", NULL, nl_parse};
