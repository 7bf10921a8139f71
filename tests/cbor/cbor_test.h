/*
 * Helpers of the CBOR tests: hex text to bytes and back, writing with a
 * callback into a memory buffer, reading a whole input into a list of
 * events as diagnostic-like text.
 */
#ifndef SDX_CBOR_TEST_H
#define SDX_CBOR_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"
#include "evtext.h"
#include "test.h"

/* Bytes of hex text (spaces ignored) into out (room for strlen/2); returns
 * the length. */
static inline size_t unhex(const char *hex, unsigned char *out) {
    size_t n = 0;
    int hi = -1;
    for (const char *p = hex; *p; p++) {
        int v;
        if (*p >= '0' && *p <= '9') v = *p - '0';
        else if (*p >= 'a' && *p <= 'f') v = *p - 'a' + 10;
        else if (*p >= 'A' && *p <= 'F') v = *p - 'A' + 10;
        else continue;
        if (hi < 0) {
            hi = v;
        } else {
            out[n++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

/* Compare a buffer's content with hex text. */
#define CHECK_HEX(buf, hex)                                                          \
    do {                                                                             \
        unsigned char want_[4096] = {0};                                             \
        size_t wn_ = unhex(hex, want_);                                              \
        CHECK_MEM(sdx_buf_data(buf), sdx_buf_len(buf), want_, wn_);                  \
    } while (0)

/* A compact text of an event stream, one token per event (evtext.h). */
static inline void evtext_event(evtext *t, const sdx_event *ev) {
    if (ev->tag_kind == SDX_TAG_CBOR && ev->kind != SDX_TAG) evtext_add(t, "%llu:", (unsigned long long)ev->tag);
    switch (ev->kind) {
    case SDX_NULL:
        if (ev->tag_kind == SDX_TAG_CBOR_SIMPLE) evtext_add(t, "simple(%llu) ", (unsigned long long)ev->tag);
        else evtext_add(t, "null ");
        break;
    case SDX_NINT: evtext_add(t, "-1-%llu ", (unsigned long long)ev->v.u); break;
    case SDX_DOUBLE:
        evtext_add(t, "%.17g%s ", ev->v.d,
                   ev->flags & SDX_EVENT_FLOAT16 ? "_1" : ev->flags & SDX_EVENT_FLOAT32 ? "_2" : "");
        break;
    case SDX_STR:
    case SDX_KEY:
    case SDX_BIN:
        evtext_quoted(t, ev->kind == SDX_BIN ? "h" : ev->kind == SDX_KEY ? "k" : "", ev);
        break;
    case SDX_TAG: evtext_add(t, "%llu:", (unsigned long long)ev->tag); break;
    default: evtext_common(t, ev); break;
    }
}

/* Read hex input with a memory reader into an event text; returns the
 * error code (SDX_OK at a clean end) and stores the error's offset. */
static inline sdx_err read_text(const char *hex, const sdx_cbor_read_opts *opts, evtext *t,
                                size_t *off) {
    static unsigned char in[8192];
    size_t n = unhex(hex, in);
    evtext_clear(t);
    sdx_cbor_reader *r = sdx_cbor_reader_new((const char *)in, n, opts);
    if (!r) return SDX_ERR_NOMEM;
    sdx_event ev;
    while (sdx_cbor_reader_next(r, &ev)) evtext_event(t, &ev);
    sdx_error e;
    sdx_err rc = sdx_cbor_reader_error(r, &e);
    if (off) *off = e.offset;
    sdx_cbor_reader_free(r);
    evtext_trim(t);
    return rc;
}

#endif /* SDX_CBOR_TEST_H */
