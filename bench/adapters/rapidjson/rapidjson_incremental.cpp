/*
 * RapidJSON 1.1.0 (Debian), JSON, Incremental: rapidjson::Reader (SAX) with
 * a handler that hashes each event.
 *
 * kParseFullPrecisionFlag: correctly rounded doubles (see rapidjson_tree.cpp).
 * The input is read as a NUL-terminated StringStream (the harness puts zero
 * bytes after the data; StringStream is the stream with RapidJSON's SIMD
 * string scanning, enabled by RAPIDJSON_SSE2).
 */
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

namespace {

struct handler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, handler> {
    sbh *h;
    explicit handler(sbh *hash) : h(hash) {}
    bool Null() { return sbh_null(h), true; }
    bool Bool(bool b) { return sbh_bool(h, b), true; }
    bool Int(int i) { return sbh_int(h, i), true; }
    bool Uint(unsigned u) { return sbh_uint(h, u), true; }
    bool Int64(int64_t i) { return sbh_int(h, i), true; }
    bool Uint64(uint64_t u) { return sbh_uint(h, u), true; }
    bool Double(double d) { return sbh_double(h, d), true; }
    bool String(const char *s, rapidjson::SizeType n, bool) { return sbh_str(h, s, n), true; }
    bool Key(const char *s, rapidjson::SizeType n, bool) { return sbh_key(h, s, n), true; }
    bool StartObject() { return sbh_map(h), true; }
    bool EndObject(rapidjson::SizeType) { return sbh_end(h), true; }
    bool StartArray() { return sbh_array(h), true; }
    bool EndArray(rapidjson::SizeType) { return sbh_end(h), true; }
};

} // namespace

static int rapidjson_parse(const char *data, size_t len, sbh *h) {
    (void)len; /* data[len] == 0: see above */
    rapidjson::Reader reader;
    rapidjson::StringStream in(data);
    handler hd(h);
    rapidjson::ParseResult r = reader.Parse<rapidjson::kParseFullPrecisionFlag>(in, hd);
    if (r.IsError()) {
        bench_error("%s at byte %zu", rapidjson::GetParseError_En(r.Code()), r.Offset());
        return 1;
    }
    return 0;
}

extern "C" const bench_adapter bench_adapter_def = {"rapidjson", "C++", "json", "incremental", nullptr,
                                                    rapidjson_parse};
