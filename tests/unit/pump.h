/*
 * Round-trip helpers shared by the format tests: pumping a source into a
 * sink, and comparing two buffers.
 */
#ifndef SDX_TEST_PUMP_H
#define SDX_TEST_PUMP_H

#include <string.h>

#include "sdx/sdx.h"

/* Pump a source into a sink and finish it: the transcode error, else the
 * finish error. */
static inline sdx_err test_pump(sdx_source src, sdx_sink sink) {
    sdx_err e = sdx_transcode(src, sink, NULL);
    sdx_err f = sdx_sink_finish(sink);
    return e ? e : f;
}

/* Two buffers hold the same bytes. */
static inline int test_same_buf(const sdx_buf *a, const sdx_buf *b) {
    return sdx_buf_len(a) == sdx_buf_len(b) &&
           memcmp(sdx_buf_data(a), sdx_buf_data(b), sdx_buf_len(a)) == 0;
}

#endif /* SDX_TEST_PUMP_H */
