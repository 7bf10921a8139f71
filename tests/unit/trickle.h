/*
 * A stream for the tests of the stream readers: an sdx_read_fn over n
 * bytes in memory that hands out at most `step` bytes per read.
 *
 *   trickle tr = {bytes, n, 3};
 *   r = sdx_ubjson_reader_new_stream(trickle_read, &tr, 16, &opts);
 */
#ifndef SDX_TRICKLE_H
#define SDX_TRICKLE_H

#include <stddef.h>
#include <string.h>

typedef struct trickle {
    const unsigned char *p;
    size_t n, step;
} trickle;

static inline size_t trickle_read(void *ctx, void *buf, size_t cap) {
    trickle *t = ctx;
    size_t k = t->n < t->step ? t->n : t->step;
    if (k > cap) k = cap;
    memcpy(buf, t->p, k);
    t->p += k;
    t->n -= k;
    return k;
}

#endif /* SDX_TRICKLE_H */
