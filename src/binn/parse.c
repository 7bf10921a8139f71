/*
 * The Binn tree parser: the pull reader's events into the document
 * builder. The reader checks every size and count before anything is
 * reserved and keeps its container stack on the heap, so the parser needs
 * no checks of its own; strings and blobs are borrowed from the input
 * unless SDX_BINN_READ_COPY_INPUT asks the builder to copy them.
 */
#include "binn/binn_internal.h"
#include "core/doc_internal.h"
#include "core/error.h"

sdx_doc *sdx_binn_parse(const char *data, size_t len, const sdx_binn_read_opts *opts,
                        sdx_error *err) {
    sdx_binn_read_opts o = {0, 0, NULL};
    if (opts) o = *opts;
    bool stop = (o.flags & SDX_BINN_READ_STOP_AFTER_VALUE) != 0;
    o.flags &= ~(uint32_t)SDX_BINN_READ_STOP_AFTER_VALUE; /* the reader's sequence flag */
    sdx_binn_reader *r = sdx_binn_reader_new(data, len, &o);
    if (!r) {
        sdx_error_fill(err, SDX_ERR_NOMEM, 0, "out of memory");
        return NULL;
    }
    if (stop) sdx_binn_reader_one_value(r);
    sdx_doc_builder b;
    sdx_doc_build_opts bo;
    memset(&bo, 0, sizeof bo);
    bo.alloc = o.alloc;
    bo.max_depth = o.max_depth ? o.max_depth : SDX_BINN_DEFAULT_MAX_DEPTH;
    sdx_err rc = sdx_doc_builder_init(&b, &bo);
    b.borrow = !(o.flags & SDX_BINN_READ_COPY_INPUT);
    if (!rc) rc = sdx_binn_parse_events_(r, &b);
    if (rc) {
        /* The builder refused: out of memory (or a limit of its own). */
        sdx_error_fill(err, rc, sdx_binn_reader_offset(r), sdx_strerror(rc));
    } else {
        rc = sdx_binn_reader_error(r, err);
    }
    uint64_t consumed = sdx_binn_reader_offset(r);
    sdx_binn_reader_free(r);
    sdx_err brc;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &brc);
    if (rc) {
        sdx_doc_free(doc);
        return NULL;
    }
    if (!doc) {
        sdx_error_fill(err, brc, consumed, sdx_strerror(brc));
        return NULL;
    }
    doc->consumed = (size_t)consumed;
    return doc;
}
