/*
 * Internal: what the BSON writer borrows from the reader.
 */
#ifndef SDX_BSON_INTERNAL_H
#define SDX_BSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sdx/bson.h"
#include "sdx/doc.h"

/* Whether the n bytes at p are exactly one well-formed BSON document (the
 * reader's checks, UTF-8 included unless no_utf8; nesting up to
 * max_depth). Runs a reader held on the stack: it allocates only for
 * nesting deeper than the reader's inline levels, through `alloc`. Sets
 * *err to the reader's error (SDX_OK when valid). */
bool sdx_bson_valid_document(const void *p, size_t n, bool no_utf8, uint32_t max_depth,
                             const sdx_alloc *alloc, sdx_err *err);

/* sdx_bson_parse's two paths (parse.c), private, apart for the tests that
 * compare them: the direct parse of one document of the common types (1
 * with the document in *out, 0 when the input is not that or not valid,
 * -1 when out of memory), and the reader's events into the builder (the
 * parser's result, errors included, for any input). */
int sdx_bson_parse_direct_(const char *data, size_t len, const sdx_bson_read_opts *opts,
                           sdx_doc **out);
sdx_doc *sdx_bson_parse_events_(const char *data, size_t len, const sdx_bson_read_opts *opts,
                                sdx_error *err);

#endif /* SDX_BSON_INTERNAL_H */
