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

/* Whether two events are the same in every field their kind uses (string
 * views by pointer and length): the inline-path tests compare the inline
 * readers with the exported functions this way. */
static inline int evtext_same_event(const sdx_event *a, const sdx_event *b) {
    if (a->kind != b->kind || a->tag_kind != b->tag_kind || a->flags != b->flags ||
        a->depth != b->depth || a->tag != b->tag)
        return 0;
    switch (a->kind) {
    case SDX_STR:
    case SDX_KEY:
    case SDX_RAW:
    case SDX_BIN: return a->v.str.ptr == b->v.str.ptr && a->v.str.len == b->v.str.len;
    case SDX_END:
    case SDX_TAG: return 1;
    case SDX_BOOL: return a->v.b == b->v.b;
    default: return a->v.u == b->v.u;
    }
}

/* A small deterministic random number generator for generated test
 * documents (a linear congruential step; `rng` the state). */
static inline unsigned evtext_rand(unsigned *rng) {
    *rng = *rng * 1103515245u + 12345u;
    return *rng >> 8;
}

/* Text for generated strings: 310 bytes of ASCII, and 42 bytes of UTF-8
 * whose first 0, 2, 4, 7, 16, 20 and 29 bytes are whole characters. */
static inline const char *evtext_sample_ascii(void) {
    return "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
           "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
           "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
           "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
           "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
}
static inline const char *evtext_sample_utf8(void) {
    return "gr\xc3\xbc\xc3\x9f dich, \xe2\x82\xac 12 and more text after it";
}

#endif /* SDX_EVTEXT_H */
