/*
 * Helpers of the BSON tests: a stream that hands out one byte per read, and
 * reading a whole input with a reader while writing its events back.
 */
#ifndef SDX_BSON_TEST_H
#define SDX_BSON_TEST_H

#include <string.h>

#include "sdx/sdx.h"

/* A read function over n bytes at p, one byte per call. */
typedef struct trickle {
    const unsigned char *p;
    size_t n, at;
} trickle;

static inline size_t trickle_read(void *ctx, void *buf, size_t cap) {
    trickle *t = ctx;
    if (t->at == t->n || cap == 0) return 0;
    memcpy(buf, t->p + t->at++, 1);
    return 1;
}

/* Read everything with r and write the events back with a writer of
 * flags `wflags`; returns the read error, else the writer's (SDX_OK when
 * both are clean), and leaves the output in *b (destroy it). */
static inline sdx_err reread(sdx_bson_reader *r, sdx_buf *b, uint32_t wflags) {
    sdx_bson_writer w;
    sdx_bson_write_opts o = {wflags, NULL};
    sdx_buf_init(b, NULL);
    sdx_bson_writer_init(&w, b, &o);
    sdx_event ev;
    while (sdx_bson_reader_next(r, &ev))
        if (sdx_bson_writer_put(&w, &ev)) break;
    sdx_err rc = sdx_bson_reader_error(r, NULL);
    sdx_err wc = sdx_bson_writer_finish(&w);
    return rc ? rc : wc;
}

#endif /* SDX_BSON_TEST_H */
