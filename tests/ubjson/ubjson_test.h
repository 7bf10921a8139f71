/*
 * Helpers of the UBJSON tests: bytes written as text with \xNN escapes
 * (what UBJSON looks like: ASCII markers between binary payloads),
 * reading a whole input into a compact text of its events.
 */
#ifndef SDX_UBJSON_TEST_H
#define SDX_UBJSON_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sdx/sdx.h"
#include "evtext.h"
#include "test.h"
#include "trickle.h"

/* Compare a buffer's content with the bytes of a string literal (which may
 * hold NULs: its size, not strlen, counts). */
#define CHECK_BYTES(buf, lit) CHECK_MEM(sdx_buf_data(buf), sdx_buf_len(buf), lit, sizeof(lit) - 1)

/* A compact text of an event stream, one token per event (evtext.h). */
static inline void evtext_event(evtext *t, const sdx_event *ev) {
    if (ev->tag_kind == SDX_TAG_UBJSON && ev->kind != SDX_END) evtext_add(t, "%c:", (char)ev->tag);
    switch (ev->kind) {
    case SDX_DOUBLE:
        evtext_add(t, "%.17g%s ", ev->v.d,
                   ev->flags & SDX_EVENT_FLOAT16 ? "_h" : ev->flags & SDX_EVENT_FLOAT32 ? "_d" : "");
        break;
    case SDX_STR:
    case SDX_KEY:
    case SDX_BIN:
    case SDX_RAW:
        evtext_quoted(t, ev->kind == SDX_BIN ? "b" : ev->kind == SDX_KEY ? "k" : ev->kind == SDX_RAW ? "H" : "", ev);
        break;
    default: evtext_common(t, ev); break;
    }
}

/* Read everything r gives into t, then free r; returns the error code
 * (SDX_OK at a clean end) and stores the error's offset (0 without one). */
static inline sdx_err read_events(sdx_ubjson_reader *r, evtext *t, size_t *off) {
    sdx_event ev;
    while (sdx_ubjson_reader_next(r, &ev)) evtext_event(t, &ev);
    sdx_error e;
    sdx_err rc = sdx_ubjson_reader_error(r, &e);
    if (off) *off = rc ? e.offset : 0;
    sdx_ubjson_reader_free(r);
    return rc;
}

/* Read n bytes with a memory reader into an event text; returns the error
 * code (SDX_OK at a clean end) and stores the error's offset. */
static inline sdx_err read_text(const void *in, size_t n, const sdx_ubjson_read_opts *opts,
                                evtext *t, size_t *off) {
    evtext_clear(t);
    sdx_ubjson_reader *r = sdx_ubjson_reader_new((const char *)in, n, opts);
    if (!r) return SDX_ERR_NOMEM;
    sdx_err rc = read_events(r, t, off);
    evtext_trim(t);
    return rc;
}

#endif /* SDX_UBJSON_TEST_H */
