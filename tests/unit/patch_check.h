/*
 * The check of the writer tests for patchable streams (patch_stream.h):
 * one output into such a stream against the memory writer's bytes.
 */
#ifndef SDX_TEST_PATCH_CHECK_H
#define SDX_TEST_PATCH_CHECK_H

#include "alloc_test.h"
#include "patch_stream.h"
#include "test.h"

/* One output written by `write` (which initializes its writer on the
 * buffer, writes and finishes) into a patchable stream of `chunk` bytes,
 * through a counting allocator: it must succeed with the bytes `want`,
 * leave no pin and free everything. Returns the allocator's peak of live
 * bytes; the patches made go to *patches. */
static inline size_t patch_stream_check(sdx_err (*write)(sdx_buf *b, void *ctx), void *ctx, size_t chunk,
                                        const char *want, size_t want_len, long *patches) {
    counting_alloc a;
    counting_alloc_init(&a, 0);
    patch_file f = {0};
    sdx_buf s;
    patch_file_buf(&s, &f, chunk, &a.iface);
    CHECK_EQ_INT(write(&s, ctx), SDX_OK);
    CHECK_MEM(f.p, f.len, want, want_len);
    CHECK_EQ_U64(s.pin, UINT64_MAX);
    sdx_buf_destroy(&s);
    CHECK_EQ_INT(a.live, 0);
    free(f.p);
    *patches = f.patches;
    return a.peak_bytes;
}

#endif
