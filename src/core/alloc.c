/*
 * The default allocator (the C library's malloc, realloc and free) and the
 * internal helpers that move an array out of inline storage.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "sdx/common.h"

static void *default_malloc(void *ctx, size_t size) {
    (void)ctx;
    return malloc(size ? size : 1);
}

static void *default_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    (void)ctx;
    (void)old_size;
    return realloc(ptr, new_size ? new_size : 1);
}

static void default_free(void *ctx, void *ptr) {
    (void)ctx;
    free(ptr);
}

static const sdx_alloc sdx_default_allocator = {default_malloc, default_realloc, default_free, NULL};

const sdx_alloc *sdx_alloc_default(void) { return &sdx_default_allocator; }

void *sdx_grow_inline(const sdx_alloc *a, void *items, const void *inline_items, size_t used,
                      size_t old_size, size_t new_size) {
    if (items != inline_items) return a->realloc(a->ctx, items, old_size, new_size);
    void *p = a->malloc(a->ctx, new_size);
    if (p && used) memcpy(p, items, used);
    return p;
}

void *sdx_grow_frames(const sdx_alloc *a, void *frames, const void *inline_frames, uint32_t *cap,
                      size_t size, sdx_err *err) {
    if (*cap > UINT32_MAX / 4) {
        *err = SDX_ERR_LIMIT;
        return NULL;
    }
    size_t old_size = (size_t)*cap * size;
    void *f = sdx_grow_inline(a, frames, inline_frames, old_size, old_size, old_size * 2);
    if (!f) {
        *err = SDX_ERR_NOMEM;
        return NULL;
    }
    *cap *= 2;
    return f;
}
