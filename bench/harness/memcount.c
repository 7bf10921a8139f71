/*
 * libbenchmem.so: counts the heap memory of a benchmark program, for the
 * suite's memory column (bench/run.py). It is never linked into a program:
 * run.py starts a program a second time, untimed, with
 * LD_PRELOAD=libbenchmem.so, so that the timed runs keep the C library's
 * allocator as it is.
 *
 * It replaces malloc, free, calloc, realloc and the aligned allocations
 * (C++'s operator new and Rust's System allocator end in these) with
 * glibc's own (__libc_malloc, ...) plus a count of the bytes live, each
 * block counted at its usable size (malloc_usable_size: what the block
 * really occupies, not what was asked), and the highest count seen. The
 * harness (main.c, harness.rs) finds the two functions below with dlsym,
 * when they are there: it calls bench_mem_reset() just before the run the
 * suite verifies and bench_mem_peak() just after, and prints the peak in
 * its --once line as "peak_bytes". glibc only (__libc_* and
 * malloc_usable_size).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t n);
extern void __libc_free(void *p);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static size_t live, peak, base;

static void *counted(void *p) {
    if (p) {
        size_t now = __atomic_add_fetch(&live, malloc_usable_size(p), __ATOMIC_RELAXED);
        size_t was = __atomic_load_n(&peak, __ATOMIC_RELAXED);
        while (now > was && !__atomic_compare_exchange_n(&peak, &was, now, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        }
    }
    return p;
}

static void uncount(void *p) {
    if (p) __atomic_sub_fetch(&live, malloc_usable_size(p), __ATOMIC_RELAXED);
}

void *malloc(size_t n) { return counted(__libc_malloc(n)); }

void free(void *p) {
    uncount(p);
    __libc_free(p);
}

void *calloc(size_t n, size_t size) { return counted(__libc_calloc(n, size)); }

void *realloc(void *p, size_t n) {
    if (!p) return malloc(n);
    if (n == 0) { /* glibc frees the block */
        free(p);
        return NULL;
    }
    size_t old = malloc_usable_size(p);
    void *q = __libc_realloc(p, n);
    if (!q) return NULL; /* p is as it was */
    __atomic_sub_fetch(&live, old, __ATOMIC_RELAXED);
    return counted(q);
}

void *memalign(size_t align, size_t n) { return counted(__libc_memalign(align, n)); }

void *aligned_alloc(size_t align, size_t n) { return counted(__libc_memalign(align, n)); }

int posix_memalign(void **out, size_t align, size_t n) {
    if (align < sizeof(void *) || (align & (align - 1)) != 0) return EINVAL;
    void *p = __libc_memalign(align, n);
    if (!p) return ENOMEM;
    *out = counted(p);
    return 0;
}

void *valloc(size_t n) { return counted(__libc_memalign(4096, n)); }

void *pvalloc(size_t n) { return counted(__libc_memalign(4096, (n + 4095) & ~(size_t)4095)); }

/* From now on the peak counts from the bytes live now. */
void bench_mem_reset(void) {
    base = __atomic_load_n(&live, __ATOMIC_RELAXED);
    __atomic_store_n(&peak, base, __ATOMIC_RELAXED);
}

/* The most bytes live at once since bench_mem_reset, beyond those live then. */
size_t bench_mem_peak(void) { return __atomic_load_n(&peak, __ATOMIC_RELAXED) - base; }
