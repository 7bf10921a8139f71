/*
 * RapidJSON 1.1.0 (Debian), JSON, Tree: Document::Parse into a DOM, then a
 * walk of the DOM.
 *
 * kParseFullPrecisionFlag: without it RapidJSON's fast double conversion
 * can be off by one unit in the last place; with it every double is the
 * correctly rounded one (slower, but a parser that changes the data would
 * fail verification).
 *
 * The input is parsed as a NUL-terminated string: the harness puts zero
 * bytes after the data, and Parse(const char*) is RapidJSON's main entry
 * point (its StringStream is the one with the SIMD string scanning enabled
 * by RAPIDJSON_SSE2; the (str, length) overload goes through a MemoryStream
 * without it). In-situ parsing would be faster still but modifies the input,
 * which the harness hands out read-only.
 */
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static void walk(const rapidjson::Value &v, sbh *h) {
    switch (v.GetType()) {
    case rapidjson::kNullType: sbh_null(h); break;
    case rapidjson::kFalseType: sbh_bool(h, 0); break;
    case rapidjson::kTrueType: sbh_bool(h, 1); break;
    case rapidjson::kNumberType:
        if (v.IsInt64()) sbh_int(h, v.GetInt64());
        else if (v.IsUint64()) sbh_uint(h, v.GetUint64());
        else sbh_double(h, v.GetDouble());
        break;
    case rapidjson::kStringType: sbh_str(h, v.GetString(), v.GetStringLength()); break;
    case rapidjson::kArrayType:
        sbh_array(h);
        for (const auto &item : v.GetArray()) walk(item, h);
        sbh_end(h);
        break;
    case rapidjson::kObjectType:
        sbh_map(h);
        for (const auto &m : v.GetObject()) {
            sbh_key(h, m.name.GetString(), m.name.GetStringLength());
            walk(m.value, h);
        }
        sbh_end(h);
        break;
    }
}

static int rapidjson_parse(const char *data, size_t len, sbh *h) {
    (void)len; /* data[len] == 0: see above */
    rapidjson::Document doc;
    doc.Parse<rapidjson::kParseFullPrecisionFlag>(data);
    if (doc.HasParseError()) {
        bench_error("%s at byte %zu", rapidjson::GetParseError_En(doc.GetParseError()), doc.GetErrorOffset());
        return 1;
    }
    walk(doc, h);
    return 0;
}

extern "C" const bench_adapter bench_adapter_def = {"rapidjson", "C++", "json", "tree", nullptr, rapidjson_parse};
