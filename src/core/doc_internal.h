/*
 * Internal: the layout of sdx_doc, shared by the builder (src/core/doc.c) and
 * the format parsers that fill documents directly (src/json/parse.c, ...).
 */
#ifndef SDX_DOC_INTERNAL_H
#define SDX_DOC_INTERNAL_H

#include "sdx/doc.h"

/* An allocation the document owns besides its value array (string storage,
 * a copy of the input, ...). The data follows the header, aligned for any
 * type. */
typedef struct sdx_doc_block {
    struct sdx_doc_block *next;
    size_t size; /* of the whole allocation, header included */
} sdx_doc_block;

#define SDX_DOC_BLOCK_HEADER \
    ((sizeof(sdx_doc_block) + _Alignof(max_align_t) - 1) & ~(_Alignof(max_align_t) - 1))
#define SDX_DOC_BLOCK_DATA(b) ((char *)(b) + SDX_DOC_BLOCK_HEADER)

struct sdx_doc {
    sdx_val *vals;         /* the value array; vals[0] is the root (or its tag) */
    size_t nvals;          /* slots in use */
    size_t vals_cap;       /* slots allocated (vals is one allocation of
                              vals_cap * sizeof(sdx_val) bytes, or NULL) */
    sdx_doc_block *blocks; /* other allocations owned, freed with the doc */
    size_t consumed;       /* bytes of input parsed */
    sdx_err err;           /* sticky lookup error */
    sdx_alloc alloc;
    /* The builder's string storage (src/core/doc.c): free space left in its
     * current string chunk, and the size of the next chunk. Zero (unused)
     * in documents filled by a parser. */
    char *str_cur;
    char *str_end;
    size_t str_next;
};

/* Allocate an empty document (no values) with `alloc` (NULL = default);
 * NULL on failure. */
sdx_doc *sdx_doc_alloc(const sdx_alloc *alloc);

/* Allocate a block of `size` data bytes owned by doc; returns its data or
 * NULL (size checked for overflow). */
void *sdx_doc_block_alloc(sdx_doc *doc, size_t size);

#endif /* SDX_DOC_INTERNAL_H */
