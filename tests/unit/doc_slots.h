/*
 * Test helper: whether two documents have the same slots (the layout of
 * include/sdx/doc.h, through core/doc_internal.h): the same count, bytes
 * consumed, tags and lengths, the same values, and strings, binaries and
 * raw numbers with the same bytes wherever they are stored. For the tests
 * that compare two paths that build one document (a parser's direct path
 * and the reader's events into the builder; the builder's inline path and
 * its exported function).
 */
#ifndef SDX_DOC_SLOTS_H
#define SDX_DOC_SLOTS_H

#include <string.h>

#include "core/doc_internal.h"

static inline int doc_same_slots(const sdx_doc *a, const sdx_doc *b) {
    if (a->nvals != b->nvals || a->consumed != b->consumed) return 0;
    for (size_t i = 0; i < a->nvals; i++) {
        const sdx_val *x = &a->vals[i], *y = &b->vals[i];
        if (x->tag != y->tag) return 0;
        unsigned t = SDX_VAL_TYPE(x);
        if (t == SDX_TYPE_STR || t == SDX_TYPE_BIN || t == SDX_TYPE_RAW) {
            size_t len = (size_t)SDX_VAL_LEN(x);
            if (len ? memcmp(x->v.s, y->v.s, len) != 0 : x->v.s != y->v.s) return 0;
        } else if (x->v.u != y->v.u) {
            return 0;
        }
    }
    return 1;
}

#endif /* SDX_DOC_SLOTS_H */
