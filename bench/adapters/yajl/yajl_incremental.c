/*
 * YAJL 2.1.0 (Debian), JSON, Incremental: yajl_parse with callbacks (SAX),
 * default options (strings are UTF-8 validated).
 *
 * Numbers arrive through the yajl_integer / yajl_double callbacks, the way
 * YAJL intends for clients that want numbers (yajl_number is for clients
 * that convert the text themselves). YAJL's integers are long long: an
 * integer above INT64_MAX is a parse error ("integer overflow"), which this
 * adapter reports as such.
 */
#include <string.h>
#include <yajl/yajl_parse.h>

#include "adapter.h"

static int on_null(void *ctx) { return sbh_null(ctx), 1; }
static int on_boolean(void *ctx, int b) { return sbh_bool(ctx, b), 1; }
static int on_integer(void *ctx, long long i) { return sbh_int(ctx, (int64_t)i), 1; }
static int on_double(void *ctx, double d) { return sbh_double(ctx, d), 1; }
static int on_string(void *ctx, const unsigned char *s, size_t n) { return sbh_str(ctx, (const char *)s, n), 1; }
static int on_start_map(void *ctx) { return sbh_map(ctx), 1; }
static int on_map_key(void *ctx, const unsigned char *s, size_t n) { return sbh_key(ctx, (const char *)s, n), 1; }
static int on_end(void *ctx) { return sbh_end(ctx), 1; }
static int on_start_array(void *ctx) { return sbh_array(ctx), 1; }

static const yajl_callbacks callbacks = {
    on_null, on_boolean, on_integer, on_double, NULL /* yajl_number */, on_string,
    on_start_map, on_map_key, on_end, on_start_array, on_end,
};

static int adapter_parse(const char *data, size_t len, sbh *h) {
    yajl_handle p = yajl_alloc(&callbacks, NULL, h);
    if (!p) {
        bench_error("yajl_alloc: out of memory");
        return 1;
    }
    int bad = yajl_parse(p, (const unsigned char *)data, len) != yajl_status_ok ||
              yajl_complete_parse(p) != yajl_status_ok;
    if (bad) {
        unsigned char *msg = yajl_get_error(p, 0, (const unsigned char *)data, len);
        size_t n = msg ? strlen((const char *)msg) : 0;
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' ')) n--; /* it ends with a newline */
        bench_error("%.*s at byte %zu", (int)n, msg ? (const char *)msg : "", yajl_get_bytes_consumed(p));
        yajl_free_error(p, msg);
    }
    yajl_free(p);
    return bad;
}

const bench_adapter bench_adapter_def = {"yajl", "C", "json", "incremental", NULL, adapter_parse};
