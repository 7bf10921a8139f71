/*
 * The default allocator: the C library's malloc, realloc and free.
 */
#include <stdlib.h>

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
