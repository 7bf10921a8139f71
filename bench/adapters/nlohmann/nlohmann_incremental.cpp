/*
 * nlohmann/json 3.11.2 (Debian), JSON, Incremental: json::sax_parse with a
 * SAX handler implementing nlohmann::json_sax<json>. The handler class is
 * final and sax_parse is a template on its type, so its events are direct
 * calls. A parse error ends the parse (parse_error records nlohmann's
 * message and returns false; no exceptions).
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

using json = nlohmann::json;

namespace {

struct handler final : nlohmann::json_sax<json> {
    sbh *h;
    explicit handler(sbh *hash) : h(hash) {}
    bool null() override { return sbh_null(h), true; }
    bool boolean(bool b) override { return sbh_bool(h, b), true; }
    bool number_integer(number_integer_t i) override { return sbh_int(h, i), true; }
    bool number_unsigned(number_unsigned_t u) override { return sbh_uint(h, u), true; }
    bool number_float(number_float_t d, const string_t &) override { return sbh_double(h, d), true; }
    bool string(string_t &s) override { return sbh_str(h, s.data(), s.size()), true; }
    bool binary(binary_t &) override { return false; } /* not produced by the JSON parser */
    bool start_object(std::size_t) override { return sbh_map(h), true; }
    bool key(string_t &s) override { return sbh_key(h, s.data(), s.size()), true; }
    bool end_object() override { return sbh_end(h), true; }
    bool start_array(std::size_t) override { return sbh_array(h), true; }
    bool end_array() override { return sbh_end(h), true; }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &e) override {
        bench_error("%s", e.what());
        return false;
    }
};

} // namespace

static int nlohmann_parse(const char *data, size_t len, sbh *h) {
    handler hd(h);
    return json::sax_parse(data, data + len, &hd) ? 0 : 1;
}

extern "C" const bench_adapter bench_adapter_def = {"nlohmann", "C++", "json", "incremental", nullptr,
                                                    nlohmann_parse};
