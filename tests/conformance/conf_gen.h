/*
 * A generator of random JSON-representable documents, as event streams, for
 * the round-trip and differential tests. Documents are small (up to about 60
 * values) and cover every type: null, booleans, integers at and around every
 * boundary (int64, uint64, 2^53, powers of ten), doubles of random bit
 * patterns and hard cases (subnormals, extremes, -0.0, integral values),
 * strings with every escape, control characters, NUL, and UTF-8 of every
 * length including the boundary code points, arrays and maps (known and
 * unknown counts, duplicate and empty keys), nesting to a few tens of levels
 * and now and then a deep chain of up to 200 levels.
 *
 * Events are canonical, as a JSON reader would report them: integers that fit
 * int64 are SDX_INT, larger ones SDX_UINT; doubles are finite; depths are
 * set. So a generated stream, written and read back, must give the same
 * events (container counts aside: JSON does not carry them).
 */
#ifndef SDX_CONF_GEN_H
#define SDX_CONF_GEN_H

#include <stdint.h>

#include "sdx/sdx.h"

typedef struct conf_gen {
    uint64_t rng;   /* splitmix64 state */
    int budget;     /* values still allowed in the current document */
    char str[1024]; /* the current string's bytes */
} conf_gen;

/* Seed a generator. */
void conf_gen_init(conf_gen *g, uint64_t seed);

/* A uniformly random 64-bit number (splitmix64). */
uint64_t conf_gen_rand(conf_gen *g);

/* Send one random document to `sink` as events (without finishing the
 * sink). Returns the sink's first error. */
sdx_err conf_gen_doc(conf_gen *g, sdx_sink sink);

/* A sink that forwards every event to up to 4 sinks; put returns the first
 * error any of them reported. */
typedef struct tee_sink {
    sdx_sink to[4];
    int n;
} tee_sink;

sdx_sink tee_sink_sink(tee_sink *t);

#endif /* SDX_CONF_GEN_H */
