/*
 * sdx, any format, Incremental: the format's pull reader over the input in
 * memory (sdx_<fmt>_reader_new, default options), one event at a time.
 * Compiled once per format with -DSDX_FMT=<name> (SDX_BENCH_READ_FORMATS).
 */
#include "adapter.h"
#include "sdx/sdx.h"

#define SDX_CAT3_(a, b, c) a##b##c
#define SDX_CAT3(a, b, c) SDX_CAT3_(a, b, c)
#define F(suffix) SDX_CAT3(sdx_, SDX_FMT, suffix)
#define SDX_STR_(x) #x
#define SDX_STR(x) SDX_STR_(x)

static int sdx_incremental(const char *data, size_t len, sbh *h) {
    F(_reader) *r = F(_reader_new)(data, len, NULL);
    if (!r) {
        bench_error("%s", sdx_strerror(SDX_ERR_NOMEM));
        return 1;
    }
    sdx_event ev;
    while (F(_reader_next)(r, &ev)) {
        switch ((sdx_kind)ev.kind) {
        case SDX_NULL: sbh_null(h); break;
        case SDX_BOOL: sbh_bool(h, ev.v.b); break;
        case SDX_INT: sbh_int(h, ev.v.i); break;
        case SDX_UINT: sbh_uint(h, ev.v.u); break;
        case SDX_DOUBLE: sbh_double(h, ev.v.d); break;
        case SDX_STR: sbh_str(h, ev.v.str.ptr, ev.v.str.len); break;
        case SDX_BIN: sbh_bin(h, ev.v.str.ptr, ev.v.str.len); break;
        case SDX_KEY: sbh_key(h, ev.v.str.ptr, ev.v.str.len); break;
        case SDX_ARRAY: sbh_array(h); break;
        case SDX_MAP: sbh_map(h); break;
        case SDX_END: sbh_end(h); break;
        case SDX_RAW: break; /* needs an option that is not set */
        case SDX_NINT:       /* below int64 and further tags: not in the */
        case SDX_TAG: break; /* benchmark's data model */
        }
    }
    sdx_error err;
    int failed = F(_reader_error)(r, &err) != SDX_OK;
    if (failed) bench_error("%s at byte %zu", err.msg ? err.msg : sdx_strerror(err.code), err.offset);
    F(_reader_free)(r);
    return failed;
}

const bench_adapter bench_adapter_def = {"sdx", "C", SDX_STR(SDX_FMT), "incremental", NULL,
                                         sdx_incremental};
