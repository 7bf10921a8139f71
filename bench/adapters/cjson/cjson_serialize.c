/*
 * cJSON 1.7.15 (Debian), JSON, Serialize: the cJSON tree that
 * cJSON_ParseWithLengthOpts made (in load, untimed) written back with
 * cJSON_PrintUnformatted (minified, into a buffer it allocates), as in the
 * Write test: every number is the double cJSON kept (limits.tsv).
 */
#include "cjson_common.h"

static void *adapter_load(const char *data, size_t len) { return cjson_load(data, len); }

static int adapter_serialize(void *doc, bench_emit_fn emit, void *ctx) { return cjson_print(doc, emit, ctx); }

static void adapter_unload(void *doc) { cJSON_Delete(doc); }

BENCH_SERIALIZE_ADAPTER("cjson", "C", "json", adapter_load, adapter_serialize, adapter_unload);
