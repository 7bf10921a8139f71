/*
 * Boost.JSON (header-only, Boost headers from the PyPI wheel cmeel-boost),
 * JSON, Incremental: boost::json::basic_parser (Boost.JSON's SAX parser, a
 * template instantiated here from <boost/json/basic_parser_impl.hpp>) with a
 * handler that hashes each event. The whole input is given at once
 * (write_some with more = false). parse_options::numbers =
 * number_precision::precise, as in the Tree test: correctly rounded doubles.
 *
 * A string or key may arrive in parts (on_string_part / on_key_part, e.g.
 * when unescaping fills the parser's temporary buffer); the handler then
 * collects the parts and hashes the whole string at on_string / on_key.
 */
#include <boost/json/basic_parser_impl.hpp>
#include <string>

extern "C" { /* hash.h declares sbh_bytes without C linkage of its own */
#include "hash.h"
}
#include "adapter.h"

namespace bj = boost::json;

namespace {

struct handler {
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);

    sbh *h;
    std::string part; /* a string or key delivered in parts */

    explicit handler(sbh *hash) : h(hash) {}

    bool on_document_begin(boost::system::error_code &) { return true; }
    bool on_document_end(boost::system::error_code &) { return true; }
    bool on_array_begin(boost::system::error_code &) { return sbh_array(h), true; }
    bool on_array_end(std::size_t, boost::system::error_code &) { return sbh_end(h), true; }
    bool on_object_begin(boost::system::error_code &) { return sbh_map(h), true; }
    bool on_object_end(std::size_t, boost::system::error_code &) { return sbh_end(h), true; }
    bool on_string_part(bj::string_view s, std::size_t, boost::system::error_code &) {
        part.append(s.data(), s.size());
        return true;
    }
    bool on_string(bj::string_view s, std::size_t, boost::system::error_code &) {
        if (part.empty()) {
            sbh_str(h, s.data(), s.size());
        } else {
            part.append(s.data(), s.size());
            sbh_str(h, part.data(), part.size());
            part.clear();
        }
        return true;
    }
    bool on_key_part(bj::string_view s, std::size_t, boost::system::error_code &) {
        part.append(s.data(), s.size());
        return true;
    }
    bool on_key(bj::string_view s, std::size_t, boost::system::error_code &) {
        if (part.empty()) {
            sbh_key(h, s.data(), s.size());
        } else {
            part.append(s.data(), s.size());
            sbh_key(h, part.data(), part.size());
            part.clear();
        }
        return true;
    }
    bool on_number_part(bj::string_view, boost::system::error_code &) { return true; }
    bool on_int64(std::int64_t i, bj::string_view, boost::system::error_code &) { return sbh_int(h, i), true; }
    bool on_uint64(std::uint64_t u, bj::string_view, boost::system::error_code &) { return sbh_uint(h, u), true; }
    bool on_double(double d, bj::string_view, boost::system::error_code &) { return sbh_double(h, d), true; }
    bool on_bool(bool b, boost::system::error_code &) { return sbh_bool(h, b), true; }
    bool on_null(boost::system::error_code &) { return sbh_null(h), true; }
    bool on_comment_part(bj::string_view, boost::system::error_code &) { return true; }
    bool on_comment(bj::string_view, boost::system::error_code &) { return true; }
};

} // namespace

static int boost_parse(const char *data, size_t len, sbh *h) {
    bj::parse_options opt;
    opt.numbers = bj::number_precision::precise;
    bj::basic_parser<handler> p(opt, h);
    boost::system::error_code ec;
    std::size_t n = p.write_some(false, data, len, ec);
    if (ec) {
        bench_error("%s at byte %zu", ec.message().c_str(), n);
        return 1;
    }
    if (n != len || !p.done()) {
        bench_error("the parser stopped at byte %zu of %zu", n, len);
        return 1;
    }
    return 0;
}

extern "C" const bench_adapter bench_adapter_def = {"boost-json", "C++", "json", "incremental", nullptr,
                                                    boost_parse};
