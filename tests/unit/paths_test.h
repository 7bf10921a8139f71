/*
 * Test driver for the parsers with two paths (UBJSON, BSON, Binn): the
 * direct parse of a format's common form against the general path (the
 * reader's events into the builder), on an input the direct path must
 * take and on mutated copies of it, where it must either give the general
 * path's slots or decline — never accept what the reader refuses — and
 * the parser must return the reader's error and offset.
 */
#ifndef SDX_PATHS_TEST_H
#define SDX_PATHS_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc_slots.h"
#include "test.h"

/* A format's three entry points, each taking its options as `opts`. */
typedef struct paths_fmt {
    int (*direct)(const char *data, size_t len, const void *opts, sdx_doc **out);
    sdx_doc *(*events)(const char *data, size_t len, const void *opts, sdx_error *err);
    sdx_doc *(*parse)(const char *data, size_t len, const void *opts, sdx_error *err);
} paths_fmt;

/* What the mutants did: taken by the direct path, declined by it, refused
 * by the reader. */
typedef struct paths_tally {
    long direct, declined, refused;
} paths_tally;

/* `in` (n bytes) must be taken directly with the general path's slots
 * (and more than 100 of them); then `mutants` copies, each changed by
 * mutate(copy, n, ctx), are checked as above and counted in *t. */
static inline void paths_check(const paths_fmt *f, const void *opts, const char *in, size_t n,
                               long mutants, void (*mutate)(char *x, size_t n, void *ctx),
                               void *ctx, paths_tally *t) {
    sdx_error e;
    sdx_doc *ref = f->events(in, n, opts, &e), *d = NULL;
    CHECK(ref != NULL);
    CHECK_EQ_INT(f->direct(in, n, opts, &d), 1);
    CHECK(ref && d && doc_same_slots(ref, d));
    CHECK(ref && ref->nvals > 100);
    sdx_doc_free(d);
    sdx_doc_free(ref);
    char *x = malloc(n ? n : 1);
    for (long m = 0; m < mutants; m++) {
        memcpy(x, in, n);
        mutate(x, n, ctx);
        sdx_error re, pe;
        ref = f->events(x, n, opts, &re);
        const int rc = f->direct(x, n, opts, &d);
        CHECK(rc >= 0);
        if (rc == 1) {
            t->direct++;
            if (!CHECK(ref && doc_same_slots(ref, d))) fprintf(stderr, "  mutant %ld\n", m);
        } else {
            t->declined++;
            CHECK(d == NULL);
        }
        sdx_doc *p = f->parse(x, n, opts, &pe);
        CHECK((p == NULL) == (ref == NULL));
        if (ref && p) CHECK(doc_same_slots(ref, p));
        if (!ref) {
            t->refused++;
            CHECK_EQ_INT(pe.code, re.code);
            CHECK_EQ_U64(pe.offset, re.offset);
        }
        sdx_doc_free(p);
        sdx_doc_free(d);
        sdx_doc_free(ref);
    }
    free(x);
}

#endif /* SDX_PATHS_TEST_H */
