/*
 * sdx_ubjson_parse: the pull reader's events into the document builder,
 * which copies strings into the document (so the input may go as soon as
 * the parser returns). Nesting, counts and limits are the reader's; the
 * builder is given the same depth limit.
 */
#include "core/doc_internal.h"
#include "core/error.h"
#include "sdx/ubjson.h"

sdx_doc *sdx_ubjson_parse(const char *data, size_t len, const sdx_ubjson_read_opts *opts,
                          sdx_error *err) {
    sdx_ubjson_read_opts o = {0, 0, 0, NULL};
    if (opts) o = *opts;
    sdx_ubjson_reader *r = sdx_ubjson_reader_new(data, len, &o);
    if (!r) {
        sdx_error_fill(err, SDX_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    sdx_doc_build_opts bo = {o.alloc, o.max_depth ? o.max_depth : SDX_UBJSON_DEFAULT_MAX_DEPTH};
    sdx_doc_builder b;
    sdx_err e = sdx_doc_builder_init(&b, &bo);
    sdx_event ev;
    while (!e && sdx_ubjson_reader_next(r, &ev)) {
        e = sdx_doc_builder_put_inline(&b, &ev);
        /* STOP_AFTER_VALUE: the first complete value is the document */
        if (!e && ev.depth == 0 && ev.kind != SDX_ARRAY && ev.kind != SDX_MAP &&
            (o.flags & SDX_UBJSON_READ_STOP_AFTER_VALUE))
            break;
    }
    uint64_t consumed = sdx_ubjson_reader_offset(r);
    sdx_error rerr;
    sdx_err re = sdx_ubjson_reader_error(r, &rerr);
    sdx_ubjson_reader_free(r);
    if (re) {
        sdx_doc_free(sdx_doc_builder_finish(&b, NULL));
        if (err) *err = rerr;
        return NULL;
    }
    sdx_err be = SDX_OK;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &be);
    if (!doc) {
        sdx_error_fill(err, be ? be : (e ? e : SDX_ERR_NOMEM), (size_t)consumed,
                       sdx_strerror(be ? be : e));
        return NULL;
    }
    doc->consumed = (size_t)consumed;
    return doc;
}
