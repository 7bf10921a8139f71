/*
 * Readable memory between inaccessible pages, for tests that must see every
 * read outside an input fault — the masked vector loads that
 * AddressSanitizer does not check included.
 *
 * Include this header before any other: it sets the feature macros the
 * system headers need. TEST_POSIX is defined on POSIX systems, TEST_PAGES
 * where mmap and mprotect are there to make guard pages.
 */
#ifndef SDX_TEST_GUARD_PAGES_H
#define SDX_TEST_GUARD_PAGES_H

#if defined(__unix__) || defined(__APPLE__)
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE 1  /* MAP_ANONYMOUS on glibc and musl */
#define _DARWIN_C_SOURCE 1 /* MAP_ANON on macOS */
#define TEST_POSIX 1
#endif

#include <stdbool.h>
#include <stddef.h>

#ifdef TEST_POSIX
#include <sys/mman.h>
#include <unistd.h>
#if !defined(MAP_ANONYMOUS) && defined(MAP_ANON)
#define MAP_ANONYMOUS MAP_ANON
#endif
#if defined(MAP_ANONYMOUS)
#define TEST_PAGES 1
#endif
#endif

#ifdef TEST_PAGES
/* `count` readable regions of `size` bytes (whole pages), each between
 * inaccessible pages: [none][region 0][none][region 1]...[none]. */
typedef struct guard_pages {
    char *map;
    size_t page;   /* the system's page size */
    size_t size;   /* bytes in a region */
    size_t count;
} guard_pages;

/* Map the regions: at least `min_size` bytes each (rounded up to whole
 * pages). Returns false if the system refuses. */
static inline bool guard_pages_map(guard_pages *g, size_t count, size_t min_size) {
    const long page = sysconf(_SC_PAGESIZE);
    if (page < 4096) return false;
    g->page = (size_t)page;
    g->size = (min_size + g->page - 1) / g->page * g->page;
    g->count = count;
    const size_t total = count * (g->size + g->page) + g->page;
    void *map = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return false;
    g->map = map;
    for (size_t i = 0; i <= count; i++) {
        if (mprotect(g->map + i * (g->size + g->page), g->page, PROT_NONE) != 0) {
            munmap(map, total);
            return false;
        }
    }
    return true;
}

/* The first byte of region i; its last is at guard_region(g, i) + g->size - 1. */
static inline char *guard_region(const guard_pages *g, size_t i) {
    return g->map + g->page + i * (g->size + g->page);
}

static inline void guard_pages_unmap(guard_pages *g) {
    munmap(g->map, g->count * (g->size + g->page) + g->page);
}
#endif

#endif
