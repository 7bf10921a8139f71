/*
 * Internal: what the pull readers of the binary formats share to create
 * themselves over memory, a stream or a FILE*, and to refill a stream's
 * buffer. Cold code only: nothing here is on a reading path's fast part.
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

/* Allocate a reader of `size` bytes with `a` (the default allocator when
 * NULL); the reader zeroes and sets itself up (its reader_init, which its
 * reset shares). *used gets the allocator that was used, for the reader
 * to keep. NULL when the allocator fails. */
void *sdx_reader_malloc(const sdx_alloc *a, size_t size, const sdx_alloc **used);

/* Allocate the first buffer of a stream reader from `a`: *chunk bytes, or
 * SDX_STREAM_DEFAULT_CHUNK when *chunk is 0 (*chunk is then set to it).
 * When the allocator fails, frees `reader` (from the same allocator, which
 * may live inside it) and returns NULL: the caller must not touch the
 * reader then, so it keeps the result in a local before storing it. */
void *sdx_stream_store(const sdx_alloc *a, void *reader, size_t *chunk);

/* Room for a stream reader's next read. Its `have` unread bytes are at
 * the front of *buf (*cap bytes; NULL and 0 before the first buffer).
 * The buffer doubles (the first one: `chunk` bytes) only when it is full
 * of bytes that have arrived, never by what a declared length or count
 * says: it stays within twice what arrived, or one chunk. Returns how many
 * bytes the next read may ask for (1 to `chunk`), or 0 when the buffer
 * cannot grow (*why then says why; SDX_ERR_NOMEM either way); *buf and
 * *cap are updated, so the reader sets its pointers into *buf again. */
size_t sdx_stream_room(const sdx_alloc *a, uint8_t **buf, size_t *cap, size_t have, size_t chunk,
                       const char **why);

#ifndef SDX_NO_STDIO
/* An sdx_read_fn over the FILE* in ctx: what fread gives, (size_t)-1 on a
 * read error. */
size_t sdx_file_read(void *ctx, void *buf, size_t cap);
#endif

#endif
