/*
 * sdx — the output buffer every writer writes into.
 *
 * An sdx_buf is one of three things:
 *   - growable memory: starts in inline storage inside the struct and grows
 *     geometrically through the allocator (sdx_buf_init);
 *   - a caller's fixed buffer: a write that does not fit is an error
 *     (SDX_ERR_OVERFLOW) and nothing is ever written past its end
 *     (sdx_buf_init_fixed);
 *   - a stream: bytes are collected in a chunk and handed to a callback or a
 *     FILE* whenever the chunk fills, and on sdx_buf_flush
 *     (sdx_buf_init_stream, sdx_buf_init_file).
 *
 * The buffer has a sticky error: the first failure is kept, every later
 * reservation fails, and sdx_buf_error() reports it.
 *
 * Writers use the buffer in two steps: sdx_buf_reserve(b, n) returns a pointer
 * with room for n bytes, the writer stores up to n bytes there and publishes
 * them by setting b->cur to the end of what it wrote. Keeping the write
 * position in a local variable between the two steps lets the compiler hold
 * it in a register (a char store could otherwise alias b->cur).
 *
 * An sdx_buf must not be copied by value: in memory mode it may point into
 * its own inline storage.
 */
#ifndef SDX_BUF_H
#define SDX_BUF_H

#include "common.h"

#ifndef SDX_NO_STDIO
#include <stdio.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes of storage inside the struct, used before the first allocation. */
#define SDX_BUF_INLINE 64

/* Size of a memory buffer's first heap allocation, made when the inline
 * storage is full (or a larger reservation's size); from there the capacity
 * doubles. Starting at a page saves the small copies of a series of short
 * doublings for every output beyond the inline storage. */
#define SDX_BUF_FIRST_HEAP 4096

/* Default chunk size of a stream buffer. */
#define SDX_BUF_STREAM_CHUNK 65536

/* A stream's output function: write `len` bytes, return how many were
 * written. Anything less than `len` is reported as SDX_ERR_IO. */
typedef size_t (*sdx_write_fn)(void *ctx, const void *data, size_t len);

/* A stream's patch function (sdx_buf_set_patch): replace `len` bytes that
 * were handed to the output function earlier, from offset `at` of
 * everything it was given (0 is its first byte), by `data`; return nonzero
 * on success. It gets the output function's ctx. */
typedef int (*sdx_patch_fn)(void *ctx, uint64_t at, const void *data, size_t len);

typedef enum sdx_buf_mode {
    SDX_BUF_MEMORY = 0,
    SDX_BUF_FIXED,
    SDX_BUF_STREAM
} sdx_buf_mode;

/* Fields are private except `cur`, which writers advance after a reserve. */
typedef struct sdx_buf {
    char *cur;        /* next byte to write */
    char *end;        /* end of the writable space (== cur after an error) */
    char *start;      /* first byte of the current storage */
    char *limit;      /* end of the current storage */
    sdx_err err;      /* sticky error */
    uint8_t mode;     /* sdx_buf_mode */
    sdx_alloc alloc;  /* allocator for memory and stream storage */
    sdx_write_fn write;
    void *write_ctx;
    size_t chunk;     /* stream chunk size */
    uint64_t flushed; /* bytes already handed to the stream */
    uint64_t pin;     /* stream: total offset from which bytes stay
                         buffered (sdx_buf_pin), UINT64_MAX for none */
    sdx_patch_fn patch; /* stream: rewrites flushed bytes, or NULL */
    char inline_storage[SDX_BUF_INLINE];
} sdx_buf;

/* Growable memory buffer. `alloc` NULL means sdx_alloc_default(); the
 * allocator is copied. Never fails: the first allocation happens when the
 * inline storage is full. Release with sdx_buf_destroy(). */
SDX_API void sdx_buf_init(sdx_buf *b, const sdx_alloc *alloc);

/* Buffer over the caller's `cap` bytes at `mem` (which the caller keeps
 * owning). A reservation that does not fit sets SDX_ERR_OVERFLOW. */
SDX_API void sdx_buf_init_fixed(sdx_buf *b, void *mem, size_t cap);

/* Stream buffer: collects up to `chunk` bytes (0 means SDX_BUF_STREAM_CHUNK)
 * and passes them to `fn(ctx, data, len)` when full and on sdx_buf_flush().
 * The chunk is allocated at first use through `alloc` (NULL = default). A
 * single reservation larger than the chunk grows it. Release with
 * sdx_buf_destroy() after a final sdx_buf_flush(). */
SDX_API void sdx_buf_init_stream(sdx_buf *b, sdx_write_fn fn, void *ctx, size_t chunk,
                                 const sdx_alloc *alloc);

#ifndef SDX_NO_STDIO
/* Stream buffer writing to `f` with fwrite (the file stays open and owned by
 * the caller; sdx_buf_flush() also calls fflush). */
SDX_API void sdx_buf_init_file(sdx_buf *b, FILE *f, size_t chunk, const sdx_alloc *alloc);
#endif

/* Stream mode: let the output be rewritten after it was handed to the
 * stream, through `fn` (with the stream's ctx): for an output that can
 * seek, such as a regular file (not opened for appending). Writers whose
 * containers begin with their size in bytes (BSON, Binn) then patch the
 * sizes in place instead of holding every byte of a top-level value in
 * the buffer until its end, so memory stays bounded by the chunk. Off by
 * default. Returns SDX_ERR_INVALID_ARG (not sticky) for other modes. */
SDX_API sdx_err sdx_buf_set_patch(sdx_buf *b, sdx_patch_fn fn);

/* Whether sdx_buf_patch may rewrite bytes already flushed. */
static inline bool sdx_buf_patchable(const sdx_buf *b) { return b->patch != NULL; }

/* Overwrite `len` bytes written earlier, from total offset `at`
 * (sdx_buf_total() when the first of them was written): in the buffer
 * where it still holds them, through the patch function where they were
 * flushed. Returns the sticky error: SDX_ERR_IO when the patch function
 * fails, SDX_ERR_USAGE when the bytes were not all written yet or were
 * flushed without a patch function. */
SDX_API sdx_err sdx_buf_patch(sdx_buf *b, uint64_t at, const void *data, size_t len);

/* The slow path of sdx_buf_reserve(): grows, flushes or fails. Returns NULL
 * and sets the sticky error when `n` bytes cannot be made available. */
SDX_API char *sdx_buf_reserve_slow(sdx_buf *b, size_t n);

/* Room for `n` bytes at the write position, or NULL on error. The caller may
 * store up to `n` bytes from the returned pointer and then sets b->cur to
 * the end of what it stored. Reserving does not change the content. */
static inline char *sdx_buf_reserve(sdx_buf *b, size_t n) {
    if ((size_t)(b->end - b->cur) >= n) return b->cur;
    return sdx_buf_reserve_slow(b, n);
}

/* Append `len` bytes. Large writes to a stream go out in chunk-sized parts. */
SDX_API sdx_err sdx_buf_write(sdx_buf *b, const void *data, size_t len);

/* Stream mode: hand everything buffered to the stream (and fflush a FILE*),
 * except bytes held by a pin (sdx_buf_pin). Other modes: does nothing.
 * Returns the sticky error. */
SDX_API sdx_err sdx_buf_flush(sdx_buf *b);

/* The sticky error (SDX_OK if none). */
static inline sdx_err sdx_buf_error(const sdx_buf *b) { return b->err; }

/* The bytes currently held: everything written for memory and fixed mode, the
 * not yet flushed tail for stream mode. Valid until the next write. */
static inline const char *sdx_buf_data(const sdx_buf *b) { return b->start; }
static inline size_t sdx_buf_len(const sdx_buf *b) { return (size_t)(b->cur - b->start); }

/* Every byte ever written, including those already flushed to a stream. */
static inline uint64_t sdx_buf_total(const sdx_buf *b) {
    return b->flushed + (uint64_t)(b->cur - b->start);
}

/* Keep the bytes written from now on in the buffer until sdx_buf_unpin():
 * a stream buffer then flushes only what came before the pin and grows to
 * hold the rest, so that a writer may still change bytes it wrote after
 * the pin (MessagePack's writer back-patches the header of a container
 * whose count was unknown). Memory grows with what is written while
 * pinned. Memory and fixed buffers keep everything anyway. Returns the pin's
 * total offset (sdx_buf_total()); the byte at total offset t is at
 * sdx_buf_data(b) + (t - (sdx_buf_total(b) - sdx_buf_len(b))) while pinned.
 * One pin at a time: pinning again moves it. */
static inline uint64_t sdx_buf_pin(sdx_buf *b) {
    b->pin = sdx_buf_total(b);
    return b->pin;
}

/* Release the pin: the stream may flush everything again. */
static inline void sdx_buf_unpin(sdx_buf *b) { b->pin = UINT64_MAX; }

/* Memory mode: hand the content to the caller as an allocation made with the
 * buffer's allocator (free it with that allocator's free), and leave the
 * buffer empty. Stores the length in *len. Returns NULL on error (sticky
 * error set, or allocation failure when the content was still inline), and
 * also for other modes. An empty buffer gives a valid 1-byte allocation. */
SDX_API char *sdx_buf_detach(sdx_buf *b, size_t *len);

/* Forget the content but keep the storage, and clear the error, the pin
 * and the patch function (sdx_buf_set_patch: the offsets it was given no
 * longer match the stream's). For a stream, unflushed bytes are discarded
 * and the total starts again at 0. */
SDX_API void sdx_buf_clear(sdx_buf *b);

/* Free the buffer's storage (not the struct itself, nor a fixed buffer's
 * memory). Unflushed stream bytes are discarded: flush first. */
SDX_API void sdx_buf_destroy(sdx_buf *b);

/* Private to the writers' inline paths (msgpack.h, cbor.h, ubjson.h),
 * not part of the API: where a value goes. The innermost container's item
 * count and the value it takes with this item, the buffer and the
 * position, all loaded before the value's bytes are stored: char stores
 * may alias anything, so nothing is reloaded after them. */
typedef struct sdx_hot_slot {
    uint64_t *count;
    uint64_t next;
    sdx_buf *b;
    char *p;
} sdx_hot_slot;

/* Count the value just stored and move the buffer to its end `e`. */
static inline sdx_err sdx_hot_slot_done(const sdx_hot_slot *s, char *e) {
    *s->count = s->next;
    s->b->cur = e;
    return SDX_OK;
}

#ifdef __cplusplus
}
#endif

#endif /* SDX_BUF_H */
