/*
 * Test allocators: one that counts live bytes (to find leaks), their peak
 * and the largest block (to bound what an input can make a reader take),
 * and fails on the Nth call (to test every allocation failure path).
 */
#ifndef SDX_ALLOC_TEST_H
#define SDX_ALLOC_TEST_H

#include <stdlib.h>

#include "sdx/common.h"

typedef struct counting_alloc {
    long calls;      /* allocation calls so far (malloc and realloc) */
    long grows;      /* reallocations of a block to a larger size */
    long fail_at;    /* the call number that fails (1-based); 0 = never */
    long live;       /* blocks currently allocated */
    size_t live_bytes;
    size_t peak_bytes;  /* the most live bytes at any time */
    size_t total_bytes; /* every byte ever asked for */
    size_t largest;     /* the largest block asked for */
    sdx_alloc iface;
} counting_alloc;

/* A block of `size` bytes was handed out, `was` bytes freed with it. */
static void ca_count(counting_alloc *a, size_t size, size_t was) {
    a->live_bytes += size - was;
    a->total_bytes += size;
    if (size > a->largest) a->largest = size;
    if (a->live_bytes > a->peak_bytes) a->peak_bytes = a->live_bytes;
}

/* Each block carries its size in a header so the test can count bytes. */
static void *ca_malloc(void *ctx, size_t size) {
    counting_alloc *a = ctx;
    if (++a->calls == a->fail_at) return NULL;
    if (size > SIZE_MAX - sizeof(size_t) * 2) return NULL;
    size_t *p = malloc(sizeof(size_t) * 2 + size);
    if (!p) return NULL;
    p[0] = size;
    a->live++;
    ca_count(a, size, 0);
    return p + 2;
}

static void *ca_realloc(void *ctx, void *ptr, size_t old_size, size_t new_size) {
    counting_alloc *a = ctx;
    if (!ptr) return ca_malloc(ctx, new_size);
    if (++a->calls == a->fail_at) return NULL;
    size_t *h = (size_t *)ptr - 2;
    if (h[0] != old_size) abort(); /* the library must pass the true old size */
    if (new_size > old_size) a->grows++;
    if (new_size > SIZE_MAX - sizeof(size_t) * 2) return NULL;
    size_t *p = realloc(h, sizeof(size_t) * 2 + new_size);
    if (!p) return NULL;
    ca_count(a, new_size, p[0]);
    p[0] = new_size;
    return p + 2;
}

static void ca_free(void *ctx, void *ptr) {
    counting_alloc *a = ctx;
    if (!ptr) return;
    size_t *h = (size_t *)ptr - 2;
    a->live--;
    a->live_bytes -= h[0];
    free(h);
}

static inline void counting_alloc_init(counting_alloc *a, long fail_at) {
    a->calls = 0;
    a->grows = 0;
    a->fail_at = fail_at;
    a->live = 0;
    a->live_bytes = 0;
    a->peak_bytes = 0;
    a->total_bytes = 0;
    a->largest = 0;
    a->iface.malloc = ca_malloc;
    a->iface.realloc = ca_realloc;
    a->iface.free = ca_free;
    a->iface.ctx = a;
}

#endif /* SDX_ALLOC_TEST_H */
