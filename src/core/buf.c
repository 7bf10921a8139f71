/*
 * The output buffer: growable memory with inline small storage, a caller's
 * fixed buffer, or a chunked stream (see include/sdx/buf.h).
 */
#include "sdx/buf.h"

#include <string.h>

#include "core/platform.h"

static char *buf_fail(sdx_buf *b, sdx_err err) {
    if (!b->err) b->err = err;
    b->end = b->cur; /* every later reservation takes the slow path and fails */
    return NULL;
}

static void buf_init_common(sdx_buf *b, uint8_t mode, const sdx_alloc *alloc) {
    b->start = b->cur = b->inline_storage;
    b->end = b->limit = b->inline_storage + SDX_BUF_INLINE;
    b->err = SDX_OK;
    b->mode = mode;
    b->alloc = *(alloc ? alloc : sdx_alloc_default());
    b->write = NULL;
    b->write_ctx = NULL;
    b->chunk = 0;
    b->flushed = 0;
    b->pin = UINT64_MAX;
    b->patch = NULL;
}

void sdx_buf_init(sdx_buf *b, const sdx_alloc *alloc) { buf_init_common(b, SDX_BUF_MEMORY, alloc); }

void sdx_buf_init_fixed(sdx_buf *b, void *mem, size_t cap) {
    buf_init_common(b, SDX_BUF_FIXED, NULL);
    if (!mem) cap = 0;
    b->start = b->cur = mem ? (char *)mem : b->inline_storage;
    b->end = b->limit = b->start + cap;
}

void sdx_buf_init_stream(sdx_buf *b, sdx_write_fn fn, void *ctx, size_t chunk,
                         const sdx_alloc *alloc) {
    buf_init_common(b, SDX_BUF_STREAM, alloc);
    b->write = fn;
    b->write_ctx = ctx;
    b->chunk = chunk ? chunk : SDX_BUF_STREAM_CHUNK;
}

#ifndef SDX_NO_STDIO
static size_t buf_file_write(void *ctx, const void *data, size_t len) {
    return fwrite(data, 1, len, (FILE *)ctx);
}

void sdx_buf_init_file(sdx_buf *b, FILE *f, size_t chunk, const sdx_alloc *alloc) {
    sdx_buf_init_stream(b, buf_file_write, f, chunk, alloc);
}
#endif

/* Hand [start, cur) to the stream, or with a pin the bytes before it, and
 * move the pinned rest to the start. */
static int buf_drain(sdx_buf *b) {
    size_t used = (size_t)(b->cur - b->start), len = used;
    if (b->pin != UINT64_MAX && b->pin - b->flushed < used) len = (size_t)(b->pin - b->flushed);
    if (len == 0) return 1;
    if (b->write(b->write_ctx, b->start, len) != len) {
        buf_fail(b, SDX_ERR_IO);
        return 0;
    }
    b->flushed += len;
    if (len < used) memmove(b->start, b->start + len, used - len);
    b->cur = b->start + (used - len);
    return 1;
}

/* Replace the storage by `cap` bytes, keeping the first `keep` bytes. */
static char *buf_resize(sdx_buf *b, size_t keep, size_t cap) {
    char *p;
    size_t old_cap = (size_t)(b->limit - b->start);
    if (b->start == b->inline_storage) {
        p = b->alloc.malloc(b->alloc.ctx, cap);
        if (p && keep) memcpy(p, b->start, keep);
    } else {
        p = b->alloc.realloc(b->alloc.ctx, b->start, old_cap, cap);
    }
    if (!p) return buf_fail(b, SDX_ERR_NOMEM);
    b->start = p;
    b->cur = p + keep;
    b->end = b->limit = p + cap;
    return b->cur;
}

char *sdx_buf_reserve_slow(sdx_buf *b, size_t n) {
    if (b->err) return NULL;
    size_t used = (size_t)(b->cur - b->start);
    size_t cap = (size_t)(b->limit - b->start);
    switch (b->mode) {
    case SDX_BUF_FIXED:
        return buf_fail(b, SDX_ERR_OVERFLOW);
    case SDX_BUF_MEMORY: {
        if (n > SIZE_MAX / 2 - used) return buf_fail(b, SDX_ERR_NOMEM);
        size_t need = used + n;
        /* Leaving the inline storage: straight to SDX_BUF_FIRST_HEAP bytes,
         * then doubling. */
        size_t new_cap = cap < SDX_BUF_FIRST_HEAP ? SDX_BUF_FIRST_HEAP
                         : cap <= SIZE_MAX / 4    ? cap * 2
                                                  : need;
        if (new_cap < need) new_cap = need;
        return buf_resize(b, used, new_cap);
    }
    default: /* SDX_BUF_STREAM */
        if (n > SIZE_MAX / 2) return buf_fail(b, SDX_ERR_NOMEM);
        if (b->start == b->inline_storage) {
            /* First spill: move the few inline bytes into a real chunk. */
            size_t want = b->chunk;
            if (want < used + n) want = used + n;
            return buf_resize(b, used, want);
        }
        if (!buf_drain(b)) return NULL;
        used = (size_t)(b->cur - b->start); /* pinned bytes stay */
        if (n <= cap - used) return b->cur;
        if (used == 0) return buf_resize(b, 0, n);
        /* Pinned: grow geometrically, as memory does. */
        size_t new_cap = cap <= SIZE_MAX / 4 ? cap * 2 : used + n;
        if (new_cap < used + n) new_cap = used + n;
        return buf_resize(b, used, new_cap);
    }
}

sdx_err sdx_buf_write(sdx_buf *b, const void *data, size_t len) {
    if (b->err) return b->err;
    if ((size_t)(b->end - b->cur) >= len) {
        if (len) memcpy(b->cur, data, len);
        b->cur += len;
        return SDX_OK;
    }
    if (b->mode == SDX_BUF_STREAM && len >= b->chunk && b->pin == UINT64_MAX) {
        /* Too big to be worth buffering: pass it straight through. */
        if (!buf_drain(b)) return b->err;
        if (b->write(b->write_ctx, data, len) != len) {
            buf_fail(b, SDX_ERR_IO);
            return b->err;
        }
        b->flushed += len;
        return SDX_OK;
    }
    char *p = sdx_buf_reserve_slow(b, len);
    if (!p) return b->err;
    memcpy(p, data, len);
    b->cur = p + len;
    return SDX_OK;
}

sdx_err sdx_buf_flush(sdx_buf *b) {
    if (b->err || b->mode != SDX_BUF_STREAM) return b->err;
    if (!buf_drain(b)) return b->err;
#ifndef SDX_NO_STDIO
    if (b->write == buf_file_write && fflush((FILE *)b->write_ctx) != 0) buf_fail(b, SDX_ERR_IO);
#endif
    return b->err;
}

sdx_err sdx_buf_set_patch(sdx_buf *b, sdx_patch_fn fn) {
    if (b->mode != SDX_BUF_STREAM) return SDX_ERR_INVALID_ARG;
    b->patch = fn;
    return SDX_OK;
}

sdx_err sdx_buf_patch(sdx_buf *b, uint64_t at, const void *data, size_t len) {
    if (b->err) return b->err;
    const uint64_t total = sdx_buf_total(b);
    if (at > total || len > total - at) {
        buf_fail(b, SDX_ERR_USAGE);
        return b->err;
    }
    const char *d = (const char *)data;
    if (at < b->flushed) {
        /* the part already handed to the stream */
        uint64_t out = b->flushed - at;
        size_t n = out < len ? (size_t)out : len;
        if (!b->patch) {
            buf_fail(b, SDX_ERR_USAGE);
            return b->err;
        }
        if (!b->patch(b->write_ctx, at, d, n)) {
            buf_fail(b, SDX_ERR_IO);
            return b->err;
        }
        at += n;
        d += n;
        len -= n;
    }
    if (len) memcpy(b->start + (size_t)(at - b->flushed), d, len);
    return SDX_OK;
}

char *sdx_buf_detach(sdx_buf *b, size_t *len) {
    if (len) *len = 0;
    if (b->err || b->mode != SDX_BUF_MEMORY) return NULL;
    size_t used = (size_t)(b->cur - b->start);
    char *p;
    if (b->start == b->inline_storage) {
        p = b->alloc.malloc(b->alloc.ctx, used ? used : 1);
        if (!p) {
            buf_fail(b, SDX_ERR_NOMEM);
            return NULL;
        }
        if (used) memcpy(p, b->start, used);
    } else {
        p = b->start;
    }
    b->start = b->cur = b->inline_storage;
    b->end = b->limit = b->inline_storage + SDX_BUF_INLINE;
    if (len) *len = used;
    return p;
}

void sdx_buf_clear(sdx_buf *b) {
    b->cur = b->start;
    b->end = b->limit;
    b->err = SDX_OK;
    b->flushed = 0;
    b->pin = UINT64_MAX;
    b->patch = NULL;
}

void sdx_buf_destroy(sdx_buf *b) {
    if (b->mode != SDX_BUF_FIXED && b->start != b->inline_storage)
        b->alloc.free(b->alloc.ctx, b->start);
    if (b->mode != SDX_BUF_FIXED) {
        b->start = b->cur = b->inline_storage;
        b->end = b->limit = b->inline_storage + SDX_BUF_INLINE;
    } else {
        b->cur = b->start;
    }
}
