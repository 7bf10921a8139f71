/*
 * Internal: what the pull readers of the binary formats share to create
 * themselves over memory, a stream or a FILE*. Cold code only: nothing
 * here is on a reading path.
 */
#ifndef SDX_CORE_STREAM_H
#define SDX_CORE_STREAM_H

#include <stddef.h>

#include "sdx/common.h"

#ifndef SDX_NO_STDIO
#include <stdio.h>
#endif

/* The size of a stream reader's buffer when the caller passes a chunk of 0. */
#define SDX_STREAM_DEFAULT_CHUNK ((size_t)65536)

/* Allocate a reader of `size` bytes, zeroed, with `a` (the default
 * allocator when NULL). *used gets the allocator that was used, for the
 * reader to keep. NULL when the allocator fails. */
void *sdx_reader_calloc(const sdx_alloc *a, size_t size, const sdx_alloc **used);

/* Allocate the first buffer of a stream reader from `a`: *chunk bytes, or
 * SDX_STREAM_DEFAULT_CHUNK when *chunk is 0 (*chunk is then set to it).
 * When the allocator fails, frees `reader` (from the same allocator, which
 * may live inside it) and returns NULL: the caller must not touch the
 * reader then, so it keeps the result in a local before storing it. */
void *sdx_stream_store(const sdx_alloc *a, void *reader, size_t *chunk);

#ifndef SDX_NO_STDIO
/* An sdx_read_fn over the FILE* in ctx: what fread gives, (size_t)-1 on a
 * read error. */
size_t sdx_file_read(void *ctx, void *buf, size_t cap);
#endif

#endif
