/*
 * Internal: filling the caller's sdx_error, shared by the readers and
 * parsers of the binary formats, and the error their writers give for an
 * event they cannot write.
 */
#ifndef SDX_CORE_ERROR_H
#define SDX_CORE_ERROR_H

#include "sdx/common.h"

/* Store an error (code, byte offset, static message; line and column 0, as
 * for every binary format) into *err; a NULL err is ignored. */
static inline void sdx_error_fill(sdx_error *err, sdx_err code, uint64_t offset, const char *msg) {
    if (!err) return;
    err->code = code;
    err->offset = (size_t)offset;
    err->line = err->column = 0;
    err->msg = msg;
}

/* The error a writer's put gives for an event kind it cannot write (once
 * no earlier error stands): SDX_ERR_UNSUPPORTED for SDX_RAW (a number the
 * format has no form for), SDX_ERR_RANGE for SDX_NINT (below INT64_MIN),
 * SDX_ERR_INVALID_ARG for a kind outside sdx_kind. */
static inline sdx_err sdx_put_refusal(unsigned kind) {
    return kind == SDX_RAW ? SDX_ERR_UNSUPPORTED
                           : kind == SDX_NINT ? SDX_ERR_RANGE : SDX_ERR_INVALID_ARG;
}

#endif
