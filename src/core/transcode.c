/*
 * Transcoding: every event of a source into a sink, with no tree in between.
 */
#include "sdx/source.h"

sdx_err sdx_transcode(sdx_source src, sdx_sink sink, sdx_error *err) {
    sdx_event ev;
    while (sdx_source_next(src, &ev)) {
        sdx_err rc = sdx_sink_put(sink, &ev);
        if (rc != SDX_OK) {
            if (err) {
                err->code = rc;
                err->offset = (size_t)sdx_source_offset(src);
                err->line = 0;
                err->column = 0;
                err->msg = sdx_strerror(rc);
            }
            return rc;
        }
    }
    if (err) { /* for a source that fills *err only on failure */
        err->code = SDX_OK;
        err->offset = (size_t)sdx_source_offset(src);
        err->line = 0;
        err->column = 0;
        err->msg = sdx_strerror(SDX_OK);
    }
    return sdx_source_error(src, err);
}
