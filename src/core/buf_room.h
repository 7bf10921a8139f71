/*
 * Internal: room in an output buffer at a position the caller writes at
 * directly, ahead of the buffer's cursor (writers keep that position in a
 * register and store the cursor only at the end of a value or a walk).
 */
#ifndef SDX_CORE_BUF_ROOM_H
#define SDX_CORE_BUF_ROOM_H

#include "core/platform.h"
#include "sdx/buf.h"

/* Room for `need` bytes at p, a position in b's memory at or after b->cur:
 * the buffer grows (or flushes) to give it. Where to write, p or where the
 * buffer moved it; NULL with the buffer's sticky error set. The slow path
 * of a caller's `b->end - p < need` test. Include this header only where
 * it is called (a static function that is not used draws a warning). */
static SDX_NOINLINE char *sdx_buf_room_slow(sdx_buf *b, char *p, size_t need) {
    b->cur = p;
    return sdx_buf_reserve_slow(b, need);
}

#endif /* SDX_CORE_BUF_ROOM_H */
