/*
 * cJSON: the load and the print the Tree, Write and Serialize adapters
 * share, so that every test reads and writes the same way.
 *
 * cjson_load: cJSON_ParseWithLengthOpts (cJSON_Parse with a length,
 * reporting where parsing stopped: the error position goes to bench_error).
 * cjson_print: cJSON_PrintUnformatted (minified, into a buffer it
 * allocates), handed to emit.
 */
#ifndef BENCH_CJSON_COMMON_H
#define BENCH_CJSON_COMMON_H

#include <cjson/cJSON.h>
#include <stddef.h>
#include <string.h>

#include "adapter.h"

static cJSON *cjson_load(const char *data, size_t len) {
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!doc) bench_error("parse error at byte %td", end ? end - data : (ptrdiff_t)-1);
    return doc;
}

static int cjson_print(const cJSON *doc, bench_emit_fn emit, void *ctx) {
    char *out = cJSON_PrintUnformatted(doc);
    if (!out) {
        bench_error("cJSON_PrintUnformatted failed (out of memory)");
        return 1;
    }
    emit(ctx, out, strlen(out));
    cJSON_free(out);
    return 0;
}

#endif
