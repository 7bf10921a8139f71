/*
 * The bound beside every Write table: memcpy of the output. The input is
 * the data set's reference encoding in the format — the bytes a writer
 * produces, give or take its choices — copied into a buffer allocated once
 * (a writer's buffer is its own business; this row measures only moving the
 * bytes). Compiled once per format with -DBOUND_FMT=<name>. Its time − hash
 * is what no writer of this output can beat by more than its choice of
 * encoding.
 */
#include <stdlib.h>
#include <string.h>

#include "adapter.h"

#define BOUND_STR_(x) #x
#define BOUND_STR(x) BOUND_STR_(x)

typedef struct copy_job {
    const char *src;
    size_t len;
    char *dst;
} copy_job;

static void *load(const char *data, size_t len) {
    copy_job *j = malloc(sizeof *j);
    if (!j) return NULL;
    j->src = data;
    j->len = len;
    j->dst = malloc(len ? len : 1);
    if (!j->dst) {
        free(j);
        return NULL;
    }
    return j;
}

static int copy(void *doc, bench_emit_fn emit, void *ctx) {
    copy_job *j = doc;
    memcpy(j->dst, j->src, j->len);
    emit(ctx, j->dst, j->len);
    return 0;
}

static void unload(void *doc) {
    copy_job *j = doc;
    free(j->dst);
    free(j);
}

const bench_adapter bench_adapter_def = {
    "memcpy", "C", BOUND_STR(BOUND_FMT), "write", NULL, NULL, load, copy, unload, 0};
