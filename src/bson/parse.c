/*
 * The BSON tree parser: the pull reader (which does every length, type,
 * terminator, UTF-8 and depth check) feeding the document builder. The
 * reader's strings, keys and binaries are views into the input, so the
 * builder references them instead of copying (or, with
 * SDX_BSON_READ_COPY_INPUT, references one copy of the input the document
 * owns). Every event stands for at least one byte of input (a type byte,
 * a key, a length), so the document grows only with input actually read;
 * the builder's tag slots keep the BSON types other formats lack (the
 * table at the top of include/sdx/bson.h), so the document writes back to
 * the same bytes.
 */
#include <stdint.h>
#include <string.h>

#include "core/doc_internal.h"
#include "sdx/bson.h"
#include "sdx/doc.h"

sdx_doc *sdx_bson_parse(const char *data, size_t len, const sdx_bson_read_opts *opts,
                        sdx_error *err) {
    static const sdx_bson_read_opts defaults = {0, 0, 0, NULL};
    if (!opts) opts = &defaults;
    sdx_error e = {SDX_OK, 0, 0, 0, NULL};
    const sdx_alloc *alloc = opts->alloc ? opts->alloc : sdx_alloc_default();
    if (!data) len = 0;
    /* The reader limits the depth; the builder needs no limit of its own. */
    sdx_doc_build_opts bo = {alloc, UINT32_MAX};
    sdx_doc_builder b;
    sdx_bson_reader *r = NULL;
    const char *in = data;
    if (sdx_doc_builder_init(&b, &bo)) goto nomem;
    if ((opts->flags & SDX_BSON_READ_COPY_INPUT) && len) {
        char *copy = sdx_doc_block_alloc(b.doc, len);
        if (!copy) goto nomem;
        memcpy(copy, data, len);
        in = copy;
    }
    sdx_bson_read_opts ro = *opts;
    ro.alloc = alloc;
    r = sdx_bson_reader_new(in, len, &ro);
    if (!r) goto nomem;
    /* Every string, key and binary the memory reader hands out lies in
     * the input (or its copy), which outlives the document. */
    b.borrow = true;
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev)) {
        if (sdx_doc_builder_put_inline(&b, &ev)) {
            e.code = b.err;
            e.msg = sdx_strerror(b.err);
            e.offset = (size_t)sdx_bson_reader_offset(r);
            break;
        }
        /* one document, even when the reader would go on to the next */
        if (b.done) break;
    }
    if (!e.code) sdx_bson_reader_error(r, &e);
    size_t consumed = (size_t)sdx_bson_reader_offset(r);
    /* Without SDX_BSON_READ_SEQUENCE, bytes after the document are an
     * error: ask the reader for the end of the input. */
    if (!e.code && b.done && !(opts->flags & SDX_BSON_READ_SEQUENCE)) {
        (void)sdx_bson_reader_next(r, &ev); /* fails on any byte left */
        sdx_bson_reader_error(r, &e);
    }
    sdx_bson_reader_free(r);
    return sdx_doc_builder_finish_parse(&b, &e, consumed, err);

nomem:
    sdx_bson_reader_free(r);
    return sdx_doc_builder_parse_nomem(&b, err);
}
