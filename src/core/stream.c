/*
 * Creating the pull readers of the binary formats and refilling their
 * stream buffers (see stream.h).
 */
#include "stream.h"

#include <string.h>

void *sdx_reader_malloc(const sdx_alloc *a, size_t size, const sdx_alloc **used) {
    if (!a) a = sdx_alloc_default();
    *used = a;
    return a->malloc(a->ctx, size);
}

void *sdx_stream_store(const sdx_alloc *a, void *reader, size_t *chunk) {
    sdx_alloc al = *a; /* a may live in the reader */
    if (!*chunk) *chunk = SDX_STREAM_DEFAULT_CHUNK;
    void *store = al.malloc(al.ctx, *chunk);
    if (!store) al.free(al.ctx, reader);
    return store;
}

size_t sdx_stream_room(const sdx_alloc *a, uint8_t **buf, size_t *cap, size_t have, size_t chunk,
                       const char **why) {
    if (!*buf || have == *cap) {
        if (*cap > SIZE_MAX / 2) {
            *why = "input value too large";
            return 0;
        }
        size_t want = *cap ? *cap * 2 : chunk;
        uint8_t *b = *buf ? a->realloc(a->ctx, *buf, *cap, want) : a->malloc(a->ctx, want);
        if (!b) {
            *why = "out of memory";
            return 0;
        }
        *buf = b;
        *cap = want;
    }
    size_t room = *cap - have;
    return room < chunk ? room : chunk;
}

#ifndef SDX_NO_STDIO
size_t sdx_file_read(void *ctx, void *buf, size_t cap) {
    FILE *f = ctx;
    size_t n = fread(buf, 1, cap, f);
    if (n == 0 && ferror(f)) return (size_t)-1;
    return n;
}
#endif
