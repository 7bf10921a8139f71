/*
 * sdx — the sink interface every writer implements.
 *
 * A sink consumes sdx_event values. Every format's writer offers one
 * (sdx_json_writer_sink(), ...), so code that produces events — a reader, the
 * document walker, a transcoder, your own code — writes any format.
 */
#ifndef SDX_SINK_H
#define SDX_SINK_H

#include "common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The operations every writer implements. */
typedef struct sdx_sink_vt {
    /* Consume one event. Returns the writer's sticky error: once an error is
     * set, later events are ignored and the same error is returned. */
    sdx_err (*put)(void *ctx, const sdx_event *ev);
    /* Complete the output (all containers must be closed), flush any stream
     * and return the sticky error. */
    sdx_err (*finish)(void *ctx);
} sdx_sink_vt;

/* A writer seen through the format-independent interface. */
typedef struct sdx_sink {
    const sdx_sink_vt *vt;
    void *ctx;
} sdx_sink;

/* Send one event to a sink. */
static inline sdx_err sdx_sink_put(sdx_sink sink, const sdx_event *ev) {
    return sink.vt->put(sink.ctx, ev);
}

/* Finish a sink's output; see sdx_sink_vt.finish. */
static inline sdx_err sdx_sink_finish(sdx_sink sink) { return sink.vt->finish(sink.ctx); }

#ifdef __cplusplus
}
#endif

#endif /* SDX_SINK_H */
