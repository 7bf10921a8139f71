/*
 * A stream target for tests that may be patched (sdx_buf_set_patch): a
 * growable in-memory "file" that takes the stream's bytes and rewrites
 * bytes it already has, as a seekable file does. Test code only.
 */
#ifndef SDX_TEST_PATCH_STREAM_H
#define SDX_TEST_PATCH_STREAM_H

#include <stdlib.h>
#include <string.h>

#include "sdx/buf.h"

typedef struct patch_file {
    char *p;
    size_t len, cap;
    long patches; /* patch calls */
} patch_file;

static inline size_t patch_file_write(void *ctx, const void *data, size_t len) {
    patch_file *f = ctx;
    if (f->len + len > f->cap) {
        size_t cap = f->cap ? f->cap : 256;
        while (cap < f->len + len) cap *= 2;
        char *q = realloc(f->p, cap);
        if (!q) abort();
        f->p = q;
        f->cap = cap;
    }
    if (len) memcpy(f->p + f->len, data, len);
    f->len += len;
    return len;
}

/* Only bytes it has: anything else is a bug of the caller. */
static inline int patch_file_patch(void *ctx, uint64_t at, const void *data, size_t len) {
    patch_file *f = ctx;
    if (at > f->len || len > f->len - at) abort();
    memcpy(f->p + at, data, len);
    f->patches++;
    return 1;
}

/* A stream buffer of `chunk` bytes into f, patchable. */
static inline void patch_file_buf(sdx_buf *b, patch_file *f, size_t chunk, const sdx_alloc *alloc) {
    sdx_buf_init_stream(b, patch_file_write, f, chunk, alloc);
    sdx_buf_set_patch(b, patch_file_patch);
}

#endif
