/*
 * Creating the pull readers of the binary formats (see stream.h).
 */
#include "stream.h"

#include <string.h>

void *sdx_reader_calloc(const sdx_alloc *a, size_t size, const sdx_alloc **used) {
    if (!a) a = sdx_alloc_default();
    void *r = a->malloc(a->ctx, size);
    if (!r) return NULL;
    memset(r, 0, size);
    *used = a;
    return r;
}

void *sdx_stream_store(const sdx_alloc *a, void *reader, size_t *chunk) {
    sdx_alloc al = *a; /* a may live in the reader */
    if (!*chunk) *chunk = SDX_STREAM_DEFAULT_CHUNK;
    void *store = al.malloc(al.ctx, *chunk);
    if (!store) al.free(al.ctx, reader);
    return store;
}

#ifndef SDX_NO_STDIO
size_t sdx_file_read(void *ctx, void *buf, size_t cap) {
    FILE *f = ctx;
    size_t n = fread(buf, 1, cap, f);
    if (n == 0 && ferror(f)) return (size_t)-1;
    return n;
}
#endif
