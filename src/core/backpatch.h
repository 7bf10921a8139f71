/*
 * Internal: back-patching a container's head in an output buffer, shared by
 * the writers of formats whose containers start with their count
 * (MessagePack, CBOR when asked for definite lengths). A container of
 * unknown count is written with a one-byte placeholder head; at its end the
 * writer encodes the real head and puts it in place, moving the content up
 * when the head is longer. The buffer keeps the bytes from the head on
 * (sdx_buf_pin for streams; memory and fixed buffers keep everything).
 */
#ifndef SDX_CORE_BACKPATCH_H
#define SDX_CORE_BACKPATCH_H

#include <string.h>

#include "sdx/buf.h"

/* The byte at total output offset `at` (sdx_buf_total), which must still be
 * held by the buffer. */
static inline char *sdx_buf_at(sdx_buf *b, uint64_t at) {
    uint64_t before = sdx_buf_total(b) - sdx_buf_len(b);
    return b->start + (size_t)(at - before);
}

/* Replace the `old_len` bytes at total offset `at` by head[0, len) (len >=
 * old_len), moving everything after them up by len - old_len. Returns false
 * when the buffer cannot grow (its sticky error is then set). */
static inline bool sdx_buf_replace_head(sdx_buf *b, uint64_t at, size_t old_len,
                                        const void *head, size_t len) {
    if (len > old_len) {
        /* Reserving may move the buffer (or, for a stream, flush what is
         * before the pin): find the head again afterwards. */
        if (!sdx_buf_reserve(b, len - old_len)) return false;
    }
    char *h = sdx_buf_at(b, at);
    if (len > old_len) {
        memmove(h + len, h + old_len, (size_t)(b->cur - (h + old_len)));
        b->cur += len - old_len;
    }
    memcpy(h, head, len);
    return true;
}

#endif /* SDX_CORE_BACKPATCH_H */
