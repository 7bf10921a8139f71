/*
 * RapidJSON 1.1.0 (Debian), JSON, Serialize: the Document that
 * Document::Parse made (in load, untimed; kParseFullPrecisionFlag, as in the
 * Tree test) written back by Document::Accept into a Writer<StringBuffer> —
 * RapidJSON's documented way to stringify a DOM, minified. Doubles are
 * written by Grisu2 (round-trip exact), as in the Write test.
 */
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

static void *rapidjson_load(const char *data, size_t len) {
    (void)len; /* data[len] == 0: the harness pads the input with zero bytes */
    rapidjson::Document *doc = new rapidjson::Document;
    doc->Parse<rapidjson::kParseFullPrecisionFlag>(data);
    if (doc->HasParseError()) {
        bench_error("%s at byte %zu", rapidjson::GetParseError_En(doc->GetParseError()), doc->GetErrorOffset());
        delete doc;
        return nullptr;
    }
    return doc;
}

static int rapidjson_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    rapidjson::StringBuffer sb;
    rapidjson::Writer<rapidjson::StringBuffer> w(sb);
    if (!static_cast<const rapidjson::Document *>(doc)->Accept(w)) {
        bench_error("the Writer refused a value (a NaN or an infinity?)");
        return 1;
    }
    emit(ctx, sb.GetString(), sb.GetSize());
    return 0;
}

static void rapidjson_unload(void *doc) { delete static_cast<rapidjson::Document *>(doc); }

BENCH_SERIALIZE_ADAPTER("rapidjson", "C++", "json", rapidjson_load, rapidjson_serialize, rapidjson_unload);
