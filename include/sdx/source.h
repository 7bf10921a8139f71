/*
 * sdx — the source interface every reader implements, and transcoding.
 *
 * A source produces sdx_event values one at a time. Every format's pull
 * reader offers one (sdx_json_reader_source(), ...), and so does a document
 * walker; sdx_transcode() pumps any source into any sink (sink.h), so any
 * format converts to any other, event by event, without a tree in between.
 */
#ifndef SDX_SOURCE_H
#define SDX_SOURCE_H

#include "common.h"
#include "sink.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where a streaming reader gets its input: store up to `cap` bytes at buf
 * and return how many (0 at the end of the input), or (size_t)-1 on a read
 * error (reported as SDX_ERR_IO). */
typedef size_t (*sdx_read_fn)(void *ctx, void *buf, size_t cap);

/* The operations every reader implements. */
typedef struct sdx_source_vt {
    /* Store the next event in *ev and return true; false at the end of the
     * input or on an error (then `error` tells which). Strings in *ev are
     * views valid until the next call. */
    bool (*next)(void *ctx, sdx_event *ev);
    /* SDX_OK at a clean end or while reading, else the sticky error; fills
     * *err (if not NULL) with its code, message, byte offset, and line and
     * column for text formats. */
    sdx_err (*error)(const void *ctx, sdx_error *err);
    /* Byte offset in the input just after the last event returned. */
    uint64_t (*offset)(const void *ctx);
} sdx_source_vt;

/* A reader seen through the format-independent interface. */
typedef struct sdx_source {
    const sdx_source_vt *vt;
    void *ctx;
} sdx_source;

static inline bool sdx_source_next(sdx_source src, sdx_event *ev) {
    return src.vt->next(src.ctx, ev);
}
static inline sdx_err sdx_source_error(sdx_source src, sdx_error *err) {
    return src.vt->error(src.ctx, err);
}
static inline uint64_t sdx_source_offset(sdx_source src) { return src.vt->offset(src.ctx); }

/* Send every event of `src` to `sink` until the source ends or either side
 * fails; does not finish the sink (so that several sources may feed one
 * sink, or the caller may add more). Returns SDX_OK or the first error.
 * *err (if not NULL) receives the details: a source error as the source
 * reports it; a sink error (a value the target cannot represent, an I/O
 * error) with the sink's code, its sdx_strerror() message, and the source's
 * byte offset just after the event the sink refused (line and column 0); at
 * a clean end SDX_OK with the source's final offset. */
SDX_API sdx_err sdx_transcode(sdx_source src, sdx_sink sink, sdx_error *err);

#ifdef __cplusplus
}
#endif

#endif /* SDX_SOURCE_H */
