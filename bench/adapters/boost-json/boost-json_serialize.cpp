/*
 * Boost.JSON (header-only, Boost headers from the PyPI wheel cmeel-boost),
 * JSON, Serialize: the boost::json::value that boost::json::parse made (in
 * load, untimed; parse_options::numbers = number_precision::precise, as in
 * the Tree test) written back with boost::json::serialize — minified, into a
 * std::string; doubles shortest round-trip (Ryu).
 */
#include <boost/json.hpp>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

namespace bj = boost::json;

static void *boost_load(const char *data, size_t len) {
    bj::parse_options opt;
    opt.numbers = bj::number_precision::precise;
    boost::system::error_code ec;
    bj::value doc = bj::parse(bj::string_view(data, len), ec, bj::storage_ptr(), opt);
    if (ec) {
        bench_error("%s", ec.message().c_str());
        return nullptr;
    }
    return new bj::value(std::move(doc));
}

static int boost_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    try {
        std::string out = bj::serialize(*static_cast<const bj::value *>(doc));
        emit(ctx, out.data(), out.size());
        return 0;
    } catch (const std::exception &e) {
        bench_error("%s", e.what());
        return 1;
    }
}

static void boost_unload(void *doc) { delete static_cast<bj::value *>(doc); }

BENCH_SERIALIZE_ADAPTER("boost-json", "C++", "json", boost_load, boost_serialize, boost_unload);
