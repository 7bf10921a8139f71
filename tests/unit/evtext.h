/*
 * A compact text of an event stream, one token per event, for the tests
 * that compare what a reader gives with a string (cbor_test.h and
 * ubjson_test.h spell the tokens of their formats with these pieces).
 */
#ifndef SDX_EVTEXT_H
#define SDX_EVTEXT_H

#include <stdarg.h>
#include <stdio.h>

#include "sdx/sdx.h"

typedef struct evtext {
    char s[65536];
    size_t n;
} evtext;

/* Empty the text. */
static inline void evtext_clear(evtext *t) {
    t->n = 0;
    t->s[0] = 0;
}

/* Append printf output, cut at the text's end. */
static inline void evtext_add(evtext *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(t->s + t->n, sizeof t->s - t->n, fmt, ap);
    va_end(ap);
    if (k > 0) t->n += (size_t)k < sizeof t->s - t->n ? (size_t)k : sizeof t->s - t->n - 1;
}

/* A string, key or byte string: `prefix` then the bytes between quotes,
 * printable ASCII as itself (not in byte strings) and the rest as \xNN. */
static inline void evtext_quoted(evtext *t, const char *prefix, const sdx_event *ev) {
    evtext_add(t, "%s\"", prefix);
    for (size_t i = 0; i < ev->v.str.len; i++) {
        unsigned char c = (unsigned char)ev->v.str.ptr[i];
        if (ev->kind != SDX_BIN && c >= 0x20 && c < 0x7f) evtext_add(t, "%c", c);
        else evtext_add(t, "\\x%02x", c);
    }
    evtext_add(t, "\" ");
}

/* The tokens every format spells alike: null, true, false, integers (u
 * after an unsigned one), [n or {n for a container (_ for an unknown
 * count), } for its end; ? for any other event. */
static inline void evtext_common(evtext *t, const sdx_event *ev) {
    switch (ev->kind) {
    case SDX_NULL: evtext_add(t, "null "); break;
    case SDX_BOOL: evtext_add(t, ev->v.b ? "true " : "false "); break;
    case SDX_INT: evtext_add(t, "%lld ", (long long)ev->v.i); break;
    case SDX_UINT: evtext_add(t, "%lluu ", (unsigned long long)ev->v.u); break;
    case SDX_ARRAY:
    case SDX_MAP:
        if (ev->v.count == SDX_COUNT_UNKNOWN) evtext_add(t, "%s_ ", ev->kind == SDX_MAP ? "{" : "[");
        else evtext_add(t, "%s%llu ", ev->kind == SDX_MAP ? "{" : "[", (unsigned long long)ev->v.count);
        break;
    case SDX_END: evtext_add(t, "} "); break;
    default: evtext_add(t, "? "); break;
    }
}

/* Drop the space after the last token. */
static inline void evtext_trim(evtext *t) {
    if (t->n && t->s[t->n - 1] == ' ') t->s[--t->n] = 0;
}

#endif /* SDX_EVTEXT_H */
