/*
 * cJSON 1.7.15 (Debian), JSON, Serialize: the cJSON tree that
 * cJSON_ParseWithLengthOpts made (in load, untimed) written back with
 * cJSON_PrintUnformatted (minified, into a buffer it allocates), as in the
 * Write test: every number is the double cJSON kept (limits.tsv).
 */
#include <cjson/cJSON.h>
#include <stddef.h>
#include <string.h>

#include "adapter.h"

static void *adapter_load(const char *data, size_t len) {
    const char *end = NULL;
    cJSON *doc = cJSON_ParseWithLengthOpts(data, len, &end, 0);
    if (!doc) bench_error("parse error at byte %td", end ? end - data : (ptrdiff_t)-1);
    return doc;
}

static int adapter_serialize(void *doc, bench_emit_fn emit, void *ctx) {
    char *out = cJSON_PrintUnformatted(doc);
    if (!out) {
        bench_error("cJSON_PrintUnformatted failed (out of memory)");
        return 1;
    }
    emit(ctx, out, strlen(out));
    cJSON_free(out);
    return 0;
}

static void adapter_unload(void *doc) { cJSON_Delete(doc); }

BENCH_SERIALIZE_ADAPTER("cjson", "C", "json", adapter_load, adapter_serialize, adapter_unload);
