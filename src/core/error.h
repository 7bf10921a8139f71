/*
 * Internal: filling the caller's sdx_error, shared by the readers and
 * parsers of the binary formats.
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

#endif
