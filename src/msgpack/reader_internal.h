/*
 * Internal: a test hook of the MessagePack pull reader.
 */
#ifndef SDX_MSGPACK_READER_INTERNAL_H
#define SDX_MSGPACK_READER_INTERNAL_H

#include "sdx/msgpack.h"

/* A copy of the memory reader `r` in its current state, except that its
 * input ends after `len` bytes (len between the reader's offset and its
 * input length): the reader that would have reached this state reading the
 * input cut at `len`, as far as its next events go. Lets a test check the
 * truncation of an input at every byte in linear time. NULL for a stream
 * reader, a `len` out of range, or when allocating fails. Free it with
 * sdx_msgpack_reader_free. */
sdx_msgpack_reader *sdx_msgpack_reader_clone_cut(const sdx_msgpack_reader *r, size_t len);

#endif /* SDX_MSGPACK_READER_INTERNAL_H */
