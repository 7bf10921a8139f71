/*
 * Error descriptions.
 */
#include "sdx/common.h"

static const char *const sdx_error_text[SDX_ERR__COUNT] = {
    [SDX_OK] = "no error",
    [SDX_ERR_NOMEM] = "out of memory",
    [SDX_ERR_IO] = "input/output error",
    [SDX_ERR_OVERFLOW] = "output does not fit in the buffer",
    [SDX_ERR_USAGE] = "call out of order (unbalanced containers, missing key or value, count not met)",
    [SDX_ERR_SYNTAX] = "syntax error",
    [SDX_ERR_TRUNCATED] = "input ends inside a value",
    [SDX_ERR_DEPTH] = "nesting too deep",
    [SDX_ERR_UTF8] = "invalid UTF-8",
    [SDX_ERR_RANGE] = "number out of range for the format",
    [SDX_ERR_UNSUPPORTED] = "value not representable in the format",
    [SDX_ERR_KEY] = "map key not allowed by the format",
    [SDX_ERR_TYPE] = "wrong type",
    [SDX_ERR_NOT_FOUND] = "not found",
    [SDX_ERR_LIMIT] = "size or count above the configured limit",
    [SDX_ERR_INVALID_ARG] = "invalid argument",
};

const char *sdx_strerror(sdx_err err) {
    if ((unsigned)err >= SDX_ERR__COUNT) return "unknown error";
    return sdx_error_text[err];
}
