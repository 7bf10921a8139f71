/*
 * Internal allocation helpers shared by the writers, the readers and the
 * document.
 */
#ifndef SDX_CORE_ALLOC_H
#define SDX_CORE_ALLOC_H

#include <stddef.h>

#include "sdx/common.h"

/* Resize an array that starts in storage inside its owner (`inline_items`)
 * and moves to the heap when it outgrows it: while `items` is the inline
 * storage, a new block of `new_size` bytes is allocated and the first `used`
 * bytes copied into it; afterwards the block is reallocated (from
 * `old_size`). Returns the array's new address, or NULL when the allocator
 * fails (the old array is then untouched and still owned by the caller). */
void *sdx_grow_inline(const sdx_alloc *a, void *items, const void *inline_items, size_t used,
                      size_t old_size, size_t new_size);

/* Double a writer's stack of open containers: `*cap` frames of `size` bytes
 * each, starting in the writer's inline storage (`inline_frames`). Returns
 * the new array, with *cap doubled; or NULL with *err set, the old array
 * untouched: SDX_ERR_LIMIT when *cap is already above UINT32_MAX / 4,
 * SDX_ERR_NOMEM when the allocator fails. */
void *sdx_grow_frames(const sdx_alloc *a, void *frames, const void *inline_frames, uint32_t *cap,
                      size_t size, sdx_err *err);

#endif
