/*
 * Internal: hooks into the pull JSON reader (src/json/reader.c) for tests.
 */
#ifndef SDX_JSON_READER_INTERNAL_H
#define SDX_JSON_READER_INTERNAL_H

#include <stddef.h>

#include "sdx/json.h"

/* A copy of the whole state of a reader over memory, as if its input ended
 * after `cut` bytes: draining the copy gives what a reader over the first
 * `cut` bytes would give from the same point on. `cut` must lie between
 * sdx_json_reader_offset(r) and the input's length. This lets a test check
 * a truncation at every byte of a document in O(its size): walk the events
 * once and, after each, clone with every cut up to the end of the next
 * event and drain the clone.
 *
 * Returns NULL for a stream reader, a cut out of range, or when allocating
 * fails. The copy is independent (its own scratch area and nesting stack)
 * and is freed with sdx_json_reader_free(). `r` is not changed, except for
 * an internal cache of line positions (so that the copies' error positions
 * cost no more than what lies beyond r's offset). */
sdx_json_reader *sdx_json_reader_clone_truncated(const sdx_json_reader *r, size_t cut);

#endif /* SDX_JSON_READER_INTERNAL_H */
