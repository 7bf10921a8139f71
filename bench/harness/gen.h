/*
 * The benchmark's deterministic data generator, identical in the C harness
 * and the Rust runner (bench/rust/src/gen.rs); bench/harness/SPEC.md defines
 * every draw. Same seed and size, same tree, on every machine.
 */
#ifndef SDX_BENCH_GEN_H
#define SDX_BENCH_GEN_H

#include <stdint.h>

#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GEN_MIN_SIZE 1
#define GEN_MAX_SIZE 5
#define GEN_DEFAULT_SEED 1

/* Values (not counting keys) the root's children add up to at least. */
uint64_t gen_target_values(int size);

/* The two data sets of SPEC.md, with the same draws but for one branch:
 * standard (integers within int64, finite normal doubles) and extended
 * (also integers above INT64_MAX, UINT64_MAX, INT64_MIN, INT64_MAX, -0.0,
 * subnormals, the smallest normal double and DBL_MAX). */
typedef enum gen_variant { GEN_STANDARD, GEN_EXTENDED } gen_variant;

/* Generate the tree for `size` (1 to 5), `seed` and `variant`; free with
 * bt_free(). NULL if the size is out of range. */
bt_node *gen_tree(int size, uint64_t seed, gen_variant variant);

#ifdef __cplusplus
}
#endif

#endif /* SDX_BENCH_GEN_H */
