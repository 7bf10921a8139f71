/*
 * Memory of the harness's own, outside the malloc heap that the measured
 * libraries use (see pages.c).
 */
#ifndef BENCH_PAGES_H
#define BENCH_PAGES_H

#include <stddef.h>

/* n bytes (n may be 0) in anonymous pages of their own; aborts when the
 * system has none. Freed with bench_pages_free(p, n). */
void *bench_pages(size_t n);
void bench_pages_free(void *p, size_t n);

/* The whole file at path in such pages, followed by `pad` zero bytes; its
 * length in *len. NULL (errno set) when it cannot be read. Freed with
 * bench_pages_free(p, *len + pad). */
char *bench_pages_file(const char *path, size_t *len, size_t pad);

#endif
