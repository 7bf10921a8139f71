/*
 * Internal: the `left` count of a writer's open container when its number
 * of items is not known (a plain UBJSON container, an indefinite or
 * back-patched MessagePack or CBOR one). Such a container counts down from
 * SDX_WCOUNT_UNKNOWN_ARRAY or SDX_WCOUNT_UNKNOWN_MAP, which is even, so that
 * in every map a key is due exactly when `left` is even, as in a map of
 * known count (2n items); a `left` at or above SDX_WCOUNT_UNKNOWN_MIN is an
 * unknown count, which no input can count down to a known one.
 */
#ifndef SDX_CORE_WCOUNT_H
#define SDX_CORE_WCOUNT_H

#include <stdint.h>

#define SDX_WCOUNT_UNKNOWN_MIN (UINT64_C(1) << 63)
#define SDX_WCOUNT_UNKNOWN_ARRAY UINT64_MAX
#define SDX_WCOUNT_UNKNOWN_MAP (UINT64_MAX - 1)

#endif /* SDX_CORE_WCOUNT_H */
