/*
 * Internal: what the BSON writer borrows from the reader.
 */
#ifndef SDX_BSON_INTERNAL_H
#define SDX_BSON_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "sdx/bson.h"

/* Whether the n bytes at p are exactly one well-formed BSON document (the
 * reader's checks, UTF-8 included unless no_utf8; nesting up to
 * max_depth). Runs a reader held on the stack: it allocates only for
 * nesting deeper than the reader's inline levels, through `alloc`. Sets
 * *err to the reader's error (SDX_OK when valid). */
bool sdx_bson_valid_document(const void *p, size_t n, bool no_utf8, uint32_t max_depth,
                             const sdx_alloc *alloc, sdx_err *err);

#endif /* SDX_BSON_INTERNAL_H */
