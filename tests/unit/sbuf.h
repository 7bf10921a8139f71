/*
 * A growable NUL-terminated string for tests (expected outputs, dumps of
 * events); aborts when memory runs out. Test code only: the library's own
 * output buffer is sdx_buf.
 */
#ifndef SDX_TEST_SBUF_H
#define SDX_TEST_SBUF_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

/* noinline: GCC 12 at -O3 reports a false -Wstringop-overflow when inlined. */
__attribute__((noinline, unused)) static void sb_put(sbuf *s, const void *p, size_t n) {
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n + 1) cap *= 2;
        char *q = realloc(s->p, cap);
        if (!q) abort();
        s->p = q;
        s->cap = cap;
    }
    if (n) memcpy(s->p + s->len, p, n);
    s->len += n;
    s->p[s->len] = 0;
}

static inline void sb_puts(sbuf *s, const char *p) { sb_put(s, p, strlen(p)); }

__attribute__((format(printf, 2, 3), unused)) static void sb_printf(sbuf *s, const char *fmt, ...) {
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0 || n >= (int)sizeof tmp) abort();
    sb_put(s, tmp, (size_t)n);
}

static inline void sb_free(sbuf *s) {
    free(s->p);
    s->p = NULL;
    s->len = s->cap = 0;
}

#endif
