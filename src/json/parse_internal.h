/*
 * Internal: hooks into the JSON tree parser (src/json/parse.c) for tests.
 */
#ifndef SDX_JSON_PARSE_INTERNAL_H
#define SDX_JSON_PARSE_INTERNAL_H

#include <stdbool.h>

/* Which path sdx_json_parse takes where the two-stage parse may run (see
 * "Two stages" in parse.c): chosen by the text (the default), the one-pass
 * parser always, or the two stages whatever the text. Process-wide, for
 * tests that compare the two; it changes no result, only the path. */
typedef enum sdx_json_path {
    SDX_JSON_PATH_AUTO = 0,
    SDX_JSON_PATH_ONE_PASS,
    SDX_JSON_PATH_TWO_STAGE
} sdx_json_path;

void sdx__json_parse_force_path(sdx_json_path path);

/* Whether this build and CPU (and the active SIMD level, which SDX_SIMD
 * caps) run the two-stage parse at all. */
bool sdx__json_parse_two_stage_available(void);

/* How many parses the two-stage path has declined (and handed to the
 * one-pass parser) in this process: an error in the text, or anything it
 * does not take. A valid text under the default options never adds one. */
unsigned long sdx__json_parse_declines(void);

#endif /* SDX_JSON_PARSE_INTERNAL_H */
