/*
 * nlohmann/json 3.11.2 (Debian), any format, Serialize: the ordered_json
 * value parsed in load (untimed) — ordered_json::parse for JSON,
 * from_msgpack / from_cbor / from_bson / from_ubjson for the binary formats,
 * as in the Tree tests — written back with dump() (minified JSON into a
 * std::string) or to_msgpack / to_cbor / to_bson / to_ubjson (into a
 * std::vector). Compiled once per format with -DNL_FMT=... (and -DNL_JSON
 * for JSON).
 */
#include "nl_common.h"

static void *nl_load(const char *data, size_t len) {
    try {
#ifdef NL_JSON
        return new json(json::parse(data, data + len));
#else
        const std::uint8_t *p = reinterpret_cast<const std::uint8_t *>(data);
        return new json(json::NL_CAT(from_, NL_FMT)(p, p + len));
#endif
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return nullptr;
    }
}

static int nl_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    try {
        const json &j = *static_cast<const json *>(doc);
#ifdef NL_JSON
        std::string out = j.dump();
#else
        std::vector<std::uint8_t> out = json::NL_CAT(to_, NL_FMT)(j);
#endif
        emit(ctx, out.data(), out.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

static void nl_unload(void *doc) { delete static_cast<json *>(doc); }

BENCH_SERIALIZE_ADAPTER("nlohmann", "C++", NL_STR(NL_FMT), nl_load, nl_serialize, nl_unload);
