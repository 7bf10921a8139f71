/*
 * The CBOR tree parser: the pull reader (which does every well-formedness,
 * limit and key check) feeding the document builder, with definite-length
 * strings referenced in the input instead of copied; strings joined from
 * indefinite-length chunks live in the reader's scratch buffer and are
 * copied into the document.
 *
 * Every slot stands for at least one byte of input (a head, a tag or a
 * break), so the document grows only with input actually read; declared
 * counts and lengths are checked by the reader before anything is done
 * with them.
 */
#include <stdint.h>
#include <string.h>

#include "core/doc_internal.h"
#include "sdx/cbor.h"

sdx_doc *sdx_cbor_parse(const char *data, size_t len, const sdx_cbor_read_opts *opts,
                        sdx_error *err) {
    static const sdx_cbor_read_opts defaults = {0, 0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    sdx_error e = {SDX_OK, 0, 0, 0, NULL};
    const sdx_alloc *alloc = opts->alloc ? opts->alloc : sdx_alloc_default();
    sdx_doc_build_opts bo = {alloc, UINT32_MAX}; /* the reader limits the depth */
    sdx_doc_builder b;
    sdx_cbor_reader *r = NULL;
    if (!data) len = 0;
    const char *in = data;
    if (sdx_doc_builder_init(&b, &bo)) goto nomem;
    if ((opts->flags & SDX_CBOR_READ_COPY_INPUT) && len) {
        char *copy = sdx_doc_block_alloc(b.doc, len);
        if (!copy) goto nomem;
        memcpy(copy, data, len);
        in = copy;
    }
    sdx_cbor_read_opts ro = *opts;
    ro.alloc = alloc;
    r = sdx_cbor_reader_new(in, len, &ro);
    if (!r) goto nomem;
    const bool stop = (opts->flags & SDX_CBOR_READ_STOP_AFTER_VALUE) != 0;
    const uintptr_t in_start = (uintptr_t)in, in_end = in_start + len;
    sdx_event ev;
    while (sdx_cbor_reader_next(r, &ev)) {
        /* a view into the input, not the reader's scratch buffer */
        b.borrow = (ev.kind == SDX_STR || ev.kind == SDX_KEY || ev.kind == SDX_BIN) &&
                   ev.v.str.len && (uintptr_t)ev.v.str.ptr >= in_start &&
                   (uintptr_t)ev.v.str.ptr < in_end;
        if (sdx_doc_builder_put(&b, &ev)) {
            e.code = b.err;
            e.msg = sdx_strerror(b.err);
            e.offset = (size_t)sdx_cbor_reader_offset(r);
            break;
        }
        if (stop && b.done) break;
    }
    if (!e.code) sdx_cbor_reader_error(r, &e);
    if (!e.code && !b.done) { /* a sequence reader that found no item */
        e.code = SDX_ERR_TRUNCATED;
        e.msg = "empty input";
        e.offset = 0;
    }
    size_t consumed = (size_t)sdx_cbor_reader_offset(r);
    sdx_cbor_reader_free(r);
    sdx_err built;
    sdx_doc *doc = sdx_doc_builder_finish(&b, &built);
    if (e.code) {
        sdx_doc_free(doc);
        doc = NULL;
    } else if (!doc) {
        e.code = built;
        e.msg = sdx_strerror(built);
        e.offset = consumed;
    } else {
        doc->consumed = consumed;
    }
    if (err) *err = e;
    return doc;

nomem:
    sdx_cbor_reader_free(r);
    sdx_doc_builder_finish(&b, NULL);
    e.code = SDX_ERR_NOMEM;
    e.msg = "out of memory";
    if (err) *err = e;
    return NULL;
}
