/*
 * Jansson 2.14 (Debian), JSON, Serialize: the json_t tree that json_loadb
 * made (in load, untimed; as in the Tree test) written back with
 * json_dumps(JSON_COMPACT), as in the Write test (jansson_common.h; objects
 * in insertion order, doubles with "%.17g").
 */
#include "jansson_common.h"

static void *adapter_load(const char *data, size_t len) { return jansson_load(data, len); }

static int adapter_serialize(void *doc, bench_emit_fn emit, void *ctx) { return jansson_dump(doc, emit, ctx); }

static void adapter_unload(void *doc) { json_decref(doc); }

BENCH_SERIALIZE_ADAPTER("jansson", "C", "json", adapter_load, adapter_serialize, adapter_unload);
